"""Lesson: induction heads, forming live (Part 4)."""

from functools import partial

import streamlit as st

import ui
from lessons import induction_heads
from lessons.induction_heads import circuit, forming, knockout, sequences, training
from lessons.induction_heads import results as measured
from minimodels.attention_only import AttentionOnlyDecoder, CausalSelfAttention

lesson = ui.lesson("induction_heads", induction_heads.INTRO)

ui.symbols("induction_heads")

# --- 1. Sequences that repeat --------------------------------------------------------------------------------
ui.section(sequences.TITLE, sequences.TEXT)


@st.fragment  # drawing another sequence redraws this table only
def one_sequence() -> None:
    seed = int(st.number_input("Draw another sequence (its seed)", 0, 9999, 0, key="induction_heads.example"))
    example = sequences.example(seed)
    ui.table(example.table(), height=36 * (len(example.tokens) + 1) + 3)
    st.caption(sequences.example_caption(example))


one_sequence()

# --- 2. Two heads, one circuit -------------------------------------------------------------------------------
ui.section(circuit.TITLE, circuit.TEXT)
st.latex(circuit.SCORES)
ui.explain(circuit.SCORES_TEXT)
results = ui.shipped_results(lesson, loader=measured.load_results)
if results is not None:
    shape_prediction = circuit.shape_exercise(results)
    ui.exercise(shape_prediction)

# --- 3. Train it and watch the heads form --------------------------------------------------------------------
ui.section(forming.TITLE, forming.train_text())
if results is not None:
    st.markdown(forming.expectation(measured.formation(results)))
PANEL = "induction_heads.train"


@st.fragment  # moving these controls reruns this section only
def train_it() -> None:
    c = st.columns([1, 2])
    seed = int(c[0].number_input("Seed", 0, 9999, 0, key="induction_heads.seed"))
    budget = c[1].select_slider(
        "Seconds of training", forming.BUDGETS, value=forming.DEFAULT_BUDGET, key="induction_heads.budget"
    )

    def draw(snapshot: training.Progress, key: str) -> None:
        run = ui.current_run(PANEL)
        history = [s for s in run.snapshots if s.step <= snapshot.step] if run is not None else [snapshot]
        prefix, previous = forming.scores_charts(history)
        cols = st.columns(3)
        ui.vega(forming.halves_chart(history), key=f"{key}.halves", container=cols[0])
        ui.vega(prefix, key=f"{key}.prefix", container=cols[1])
        ui.vega(previous, key=f"{key}.previous", container=cols[2])
        ui.plotly(forming.heads_figure, snapshot, key=key)
        st.caption(forming.snapshot_caption(snapshot))

    ui.training_panel(
        PANEL,
        lambda: forming.new_run(seed, budget),
        draw,
        budget_seconds=budget,
        replay_frame=lambda snapshot: snapshot.attention,
    )


train_it()
if results is not None:
    ui.reveal(
        "the shipped seeds' curves",
        lambda: ui.measured(
            results,
            rows=forming.results_rows(results),
            observations=forming.results_sentences(results),
            curves=partial(forming.results_curves, results),
            key="induction_heads.shipped",
            names=("loss", "score"),
            axis_key="induction_heads.axis",
        ),
        key="induction_heads.reveal_curves",
        after=shape_prediction.key,
    )

# --- 4. Knock a head out -------------------------------------------------------------------------------------
ui.section(knockout.TITLE, knockout.TEXT)
if results is not None:
    knockout_prediction = knockout.knockout_exercise(results)
    ui.exercise(knockout_prediction)

    def shipped_knockouts() -> None:
        ui.table(knockout.knockout_rows(results))
        st.markdown("\n".join(f"- {line}" for line in knockout.verdict_sentences(results)))
        ui.provenance(results.meta, note=knockout.VERDICT_NOTE)

    ui.reveal(
        "the knock-outs over the shipped seeds",
        shipped_knockouts,
        key="induction_heads.reveal_knockouts",
        after=knockout_prediction.key,
    )


@st.fragment
def own_knockouts() -> None:
    model = ui.trained_model(PANEL)
    if model is None:
        st.info("Train a model in section 3, then knock out each of its heads here.")
        return
    ui.table(knockout.own_knockouts(model))
    st.caption(knockout.own_caption(model))


own_knockouts()

ui.page_tail(
    lesson,
    code=[
        ("The model and its knock-out switch", (CausalSelfAttention, AttentionOnlyDecoder)),
        ("The sequences, the training and the two scores", (sequences.repeated, training.train, training.read)),
    ],
    exercises=induction_heads.exercises(),
)
