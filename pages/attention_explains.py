"""Lesson: does attention explain? (Part 4)."""

import streamlit as st

import ui
from lessons import attention_explains
from lessons.attention_explains import agreement, bugs, interventions, live, measure, question
from lessons.attention_explains import results as measured
from lessons.induction_heads import forming
from minimodels import head_interventions

lesson = ui.lesson("attention_explains", attention_explains.INTRO)

ui.symbols("attention_explains")

# --- 1. The question ------------------------------------------------------------------------------------------
ui.section(question.TITLE, question.TEXT)
ui.explain(question.FINDINGS)
ui.explain(question.TAU_TEXT)
results = ui.shipped_results(lesson, loader=measured.load_results)

# --- 2. A model to question -----------------------------------------------------------------------------------
ui.section(live.TITLE, live.TEXT)
PANEL = "attention_explains.train"


@st.fragment  # moving these controls reruns this section only
def train_it() -> None:
    c = st.columns([1, 1, 2])
    choice = c[0].selectbox("Model", live.MODELS, key="attention_explains.model")
    seed = int(c[1].selectbox("Seed", live.SEEDS, key="attention_explains.seed"))
    budget = c[2].select_slider(
        "Seconds of training", live.BUDGETS, value=live.DEFAULT_BUDGET, key="attention_explains.budget"
    )

    def draw(snapshot, key: str) -> None:
        run = ui.current_run(PANEL)
        history = [s for s in run.snapshots if s.step <= snapshot.step] if run is not None else [snapshot]
        ui.vega(forming.halves_chart(history), key=f"{key}.halves")
        st.caption(live.caption(snapshot, choice))

    ui.training_panel(
        PANEL,
        lambda: live.new_run(seed, budget, choice),
        draw,
        budget_seconds=budget,
        replay_frame=lambda snapshot: snapshot.attention,
    )


train_it()


def own_model():
    """The student's trained model, or None with a line saying where to train one."""
    model = ui.trained_model(PANEL)
    if model is None:
        st.info("Train a model in section 2, then question it here.")
    return model


# --- 3. Change a head's weights -------------------------------------------------------------------------------
ui.section(interventions.TITLE, interventions.TEXT)
if results is not None:
    permute_prediction = interventions.permutation_exercise(results)
    ui.exercise(permute_prediction)

    def shipped_changes() -> None:
        ui.table(interventions.rows(results))
        st.caption(interventions.rows_caption(results))
        st.markdown("\n".join(f"- {line}" for line in interventions.verdict_sentences(results)))
        ui.provenance(results.meta, note=interventions.NOTE)

    ui.reveal(
        "every head's changes over the shipped seeds",
        shipped_changes,
        key="attention_explains.reveal_changes",
        after=permute_prediction.key,
    )


@st.fragment
def own_changes() -> None:
    model = own_model()
    if model is not None:
        ui.table(interventions.own_rows(model))
        st.caption(interventions.own_caption(model))


own_changes()

# --- 4. Weights beside importance -----------------------------------------------------------------------------
ui.section(agreement.TITLE, agreement.TEXT)


@st.fragment  # the position slider redraws this figure only
def own_agreement() -> None:
    model = own_model()
    if model is None:
        return
    kept = st.session_state.get("attention_explains.importance")
    if kept is None or kept[0] is not model:
        kept = (model, measure.importance(model))  # one student's model: kept in their session, not shared
        st.session_state["attention_explains.importance"] = kept
    found = kept[1]
    query = st.slider(
        "Position i (in the copy)",
        agreement.FIRST_QUERY,
        agreement.LAST_QUERY,
        agreement.FIRST_QUERY + 3,
        key="attention_explains.query",
    )
    ui.plotly(agreement.token_figure, model, found, query, key="attention_explains.tokens")
    ui.table(agreement.own_rows(model, found))
    st.caption(agreement.own_caption(found))


own_agreement()
if results is not None:
    top_prediction = agreement.top_exercise(results)
    ui.exercise(top_prediction)

    def shipped_agreement() -> None:
        ui.table(agreement.rows(results))
        ui.explain(agreement.spread_sentence(results))
        st.markdown("\n".join(f"- {line}" for line in agreement.verdict_sentences(results)))
        ui.provenance(results.meta, note=agreement.NOTE)

    ui.reveal(
        "every head's agreement over the shipped seeds",
        shipped_agreement,
        key="attention_explains.reveal_agreement",
        after=top_prediction.key,
    )

# --- 5. Find the planted bug ----------------------------------------------------------------------------------
ui.section(bugs.TITLE, bugs.TEXT)
ui.explain(bugs.SHARPNESS_TEXT)
ui.table(ui.cached(bugs.sharpness_rows, max_entries=1, show_spinner=False)())
ui.plotly(bugs.layers_figure, key="attention_explains.layers")
ui.exercise(bugs.layer_exercise())
if results is not None:
    ui.table(bugs.mystery_rows(results))
    st.caption(bugs.mystery_caption())
    mystery = bugs.mystery_exercise()
    ui.exercise(mystery)
    speed_prediction = bugs.speed_exercise(results)
    ui.exercise(speed_prediction)

    def shipped_bugs() -> None:
        ui.table(bugs.bug_rows(results))
        st.markdown(f"- {bugs.speed_verdict(results).sentence('.0f', measured.FORMED)}")
        ui.provenance(results.meta, note=bugs.NOTE)

    ui.reveal(
        "the recipe and both planted bugs over the shipped seeds",
        shipped_bugs,
        key="attention_explains.reveal_bugs",
        after=(mystery.key, speed_prediction.key),
        predictions=2,
    )

ui.page_tail(
    lesson,
    code=[
        (
            "The interventions and the importance measures",
            (head_interventions.intervention, head_interventions.leave_one_out, head_interventions.kendall_tau),
        ),
        ("What the page reads from a model", (measure.effects, measure.agreement)),
        ("The mystery layers", (bugs.layer_sharpness,)),
    ],
    exercises=attention_explains.exercises(),
)
