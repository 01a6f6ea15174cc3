"""Lesson: scaling the dot product by √d_k (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import scaling
from lessons.scaling import (
    gru_race,
    recall,
    recall_training,
    saturation,
    score_cost,
    scores,
    thinking_machines,
    variance,
)

lesson = ui.lesson("scaling", scaling.INTRO, intro_folds=False)
st.info(scaling.QUOTE)
st.markdown(scaling.WHY)
for equation in scaling.INTRO_EQUATIONS:
    st.latex(equation)

ui.symbols("scaling")

# --- The lecture's example -----------------------------------------------------------------------------
ui.section(thinking_machines.TITLE, thinking_machines.lecture_text())
lecture_prediction = thinking_machines.lecture_prediction()
ui.exercise(lecture_prediction)
lecture = thinking_machines.lecture_example()


def lecture_numbers() -> None:
    ui.text_table(thinking_machines.lecture_rows(lecture))
    st.caption(thinking_machines.gradient_caption(lecture))


ui.reveal(
    "the lecture's numbers, with and without the division",
    lecture_numbers,
    key="scaling.reveal_lecture",
    after=[lecture_prediction.key],
)

# --- What the softmax does with large scores ------------------------------------------------------------
ui.section(saturation.TITLE, saturation.one_query_text())
one_query = ui.cached(saturation.one_query, max_entries=64, show_spinner=False)
# every d_k's scores for one seed, 0.7 MB each: shared by every number of keys
sweep_scores = ui.cached(saturation.sweep_scores, max_entries=8, show_spinner="Drawing random queries and keys…")


@ui.cached(max_entries=64, show_spinner=False)
def softmax_sweep(n_keys: int, seed: int) -> list[dict]:
    return saturation.softmax_sweep(n_keys, seed=seed, scores=sweep_scores(seed=seed))


@st.fragment
def softmax_section() -> None:
    c = st.columns([3, 1, 3])
    n_keys = c[0].slider("Number of keys N", 2, saturation.MAX_KEYS, 8, key="scaling.keys")
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="scaling.query_seed"))
    ui.plotly(saturation.one_query_figure, one_query(n_keys, seed=seed), key="scaling.one_query")
    st.markdown(saturation.softmax_charts_note(n_keys))
    rows = softmax_sweep(n_keys, seed)
    specs = saturation.softmax_charts(rows, n_keys)
    for column, panel, spec in zip(st.columns(3), saturation.SOFTMAX_PANELS, specs, strict=True):
        ui.vega(spec, key=f"scaling.softmax.{panel}", container=column)
    st.markdown(saturation.saturation_summary(rows))
    ui.folded("Every figure", lambda: ui.table(rows), key="scaling.softmax_rows", icon=":material/table_rows:")


softmax_section()

# --- The variance grows like d_k --------------------------------------------------------------------
ui.section(variance.TITLE, variance.VARIANCE_TEXT)
variance_sweep = ui.cached(variance.variance_sweep, max_entries=32, show_spinner="Drawing random vectors…")


@st.fragment
def variance_section() -> None:
    c = st.columns([3, 1, 3])
    samples = c[0].select_slider(
        "Pairs (q, k) per d_k",
        variance.SAMPLE_CHOICES,
        value=2000,
        key="scaling.samples",
        help="More pairs, smaller error bars.",
    )
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="scaling.variance_seed"))
    points = variance_sweep(samples=samples, seed=seed)
    ui.vega(variance.variance_chart(points), key="scaling.variance", height=420)
    st.markdown(variance.variance_summary(points))
    ui.folded(
        "Every figure",
        lambda: ui.table(variance.variance_rows(points)),
        key="scaling.variance_rows",
        icon=":material/table_rows:",
    )


variance_section()

# --- Trained: one self-attention layer from small to large d_k ---------------------------------------------
results = ui.shipped_results(lesson, loader=recall_training.load_results, what="The measured comparison")
ui.section(recall.TITLE, recall.recall_text(results))


@st.fragment  # the d_k and axis controls rerun this section only
def recall_results() -> None:
    st.markdown(f"**{recall.recall_headline(results)}**")
    st.markdown(recall.STEP_0_TEXT)
    charts = recall.recall_init_charts(results)
    for column, name, spec in zip(st.columns(3), ("alpha", "entropy", "gradient"), charts, strict=True):
        ui.vega(spec, key=f"scaling.init.{name}", container=column)
    ui.vega(recall.final_accuracy_chart(results), key="scaling.final")
    sizes = recall.recall_d_ks(results)
    d_k = st.select_slider("Training curves at d_k", sizes, value=sizes[-1], key="scaling.curves_d_k")
    ui.comparison_curves(
        partial(recall.recall_curves, results, d_k),
        "scaling.curves",
        names=("accuracy", "loss"),
        axis_key="scaling.axis",
        height=300,
    )
    ui.table(recall.recall_rows(results))
    st.caption(recall.RECALL_CAPTION)
    st.markdown("\n".join(f"- {line}" for line in recall.recall_observations(results)))
    ui.provenance(results.meta)


if results is not None:
    recall_predictions = [recall.recall_prediction(results), recall.threshold_prediction(results)]
    for prediction in recall_predictions:
        ui.exercise(prediction)
    ui.reveal(
        "the measured results",
        recall_results,
        key="scaling.reveal_measured",
        predictions=2,
        after=[p.key for p in recall_predictions],
    )

# --- Lesson 4's GRU race --------------------------------------------------------------------------------------
ui.section(gru_race.TITLE)
race = ui.shipped_results(lesson, lesson.results[1], loader=gru_race.load_gru_race, what="Lesson 4's race")
fresh_spread = ui.cached(gru_race.fresh_spread, max_entries=1, show_spinner="Measuring an untrained GRU…")
st.markdown(gru_race.untrained_note(fresh_spread("dot"), race))

# --- What the two scores cost -------------------------------------------------------------------------------
ui.section(score_cost.TITLE, score_cost.COST_TEXT.format(repeats=score_cost.COST_REPEATS))
cost = ui.cached(score_cost.measure_score_cost, max_entries=1, show_spinner="Timing both scores…")()
for column, name, spec in zip(st.columns(2), ("time", "memory"), score_cost.cost_charts(cost), strict=True):
    ui.vega(spec, key=f"scaling.cost.{name}", container=column)
st.markdown(score_cost.cost_sentence(cost))
st.caption(score_cost.cost_caption(cost))

ui.page_tail(
    lesson,
    code=[
        (
            "The code that computes this",
            (
                variance.dot_products,
                variance.variance_with_error,
                scores.softmax_jacobian,
                saturation.softmax_statistics,
            ),
        ),
        (
            "The model trained in section 4",
            (recall_training.RecallAttention, recall_training.initial_state, recall_training.train_recall),
        ),
        ("The code that times the two scores", (score_cost.saved_bytes, score_cost.measure_score_cost)),
    ],
    exercises=scaling.exercises(),
)
