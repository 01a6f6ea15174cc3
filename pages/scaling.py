"""Lesson: scaling the dot product by √d_k (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import scaling

lesson = ui.lesson("scaling")
st.markdown(scaling.INTRO)
st.info(scaling.QUOTE)
st.markdown(scaling.WHY)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
st.latex(
    r"q \cdot k = \sum_{i=1}^{d_k} q_i k_i,\qquad \operatorname{Var}(q \cdot k) = d_k"
    r"\quad\text{when the } q_i, k_i \text{ are independent with mean 0 and variance 1}"
)

# --- The lecture's example -----------------------------------------------------------------------------
ui.section("1 · The lecture's example, without the division", scaling.lecture_text())
ui.exercise(scaling.lecture_prediction())
lecture = scaling.lecture_example()


def lecture_numbers() -> None:
    st.table(scaling.lecture_rows(lecture))
    st.caption(scaling.gradient_caption(lecture))


ui.reveal("the lecture's numbers, with and without the division", lecture_numbers, key="scaling.reveal_lecture")

# --- What the softmax does with large scores ------------------------------------------------------------
ui.section("2 · One query, six sizes of d_k", scaling.one_query_text())
one_query = ui.cached(scaling.one_query, max_entries=64, show_spinner=False)
# every d_k's scores for one seed, 0.7 MB each: shared by every number of keys
sweep_scores = ui.cached(scaling.sweep_scores, max_entries=8, show_spinner="Drawing random queries and keys…")


@ui.cached(max_entries=64, show_spinner=False)
def softmax_sweep(n_keys: int, seed: int) -> list[dict]:
    return scaling.softmax_sweep(n_keys, seed=seed, scores=sweep_scores(seed=seed))


@st.fragment
def softmax_section() -> None:
    c = st.columns([3, 1, 3])
    n_keys = c[0].slider("Number of keys N", 2, scaling.MAX_KEYS, 8, key="scaling.keys")
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="scaling.query_seed"))
    ui.plotly(scaling.one_query_figure, one_query(n_keys, seed=seed), key="scaling.one_query")
    st.markdown(scaling.softmax_charts_note(n_keys))
    rows = softmax_sweep(n_keys, seed)
    specs = scaling.softmax_charts(rows, n_keys)
    for column, panel, spec in zip(st.columns(3), scaling.SOFTMAX_PANELS, specs, strict=True):
        ui.vega(spec, key=f"scaling.softmax.{panel}", container=column)
    st.markdown(scaling.saturation_summary(rows))
    ui.folded("Every figure", lambda: ui.table(rows), key="scaling.softmax_rows", icon=":material/table_rows:")


softmax_section()

# --- The variance grows like d_k --------------------------------------------------------------------
ui.section("3 · Measure it: the variance of q·k grows like d_k", scaling.VARIANCE_TEXT)
variance_sweep = ui.cached(scaling.variance_sweep, max_entries=32, show_spinner="Drawing random vectors…")


@st.fragment
def variance_section() -> None:
    c = st.columns([3, 1, 3])
    samples = c[0].select_slider("Pairs (q, k) per d_k", scaling.SAMPLE_CHOICES, value=2000, key="scaling.samples",
                                 help="More pairs, smaller error bars.")  # fmt: skip
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="scaling.variance_seed"))
    points = variance_sweep(samples=samples, seed=seed)
    ui.vega(scaling.variance_chart(points), key="scaling.variance", height=420)
    st.markdown(scaling.variance_summary(points))
    ui.folded("Every figure", lambda: ui.table(scaling.variance_rows(points)), key="scaling.variance_rows",
              icon=":material/table_rows:")  # fmt: skip


variance_section()

# --- Trained: one self-attention layer from small to large d_k ---------------------------------------------
results = ui.shipped_results(lesson, what="The measured comparison")
ui.section("4 · Train it: one self-attention layer, d_k from small to large", scaling.recall_text(results))


@st.fragment  # the d_k and axis controls rerun this section only
def recall_results() -> None:
    st.markdown(f"**{scaling.recall_headline(results)}**")
    st.markdown("At step 0, before any training (every seed faint, mean ± sd):")
    for column, name, spec in zip(st.columns(3), ("alpha", "entropy", "gradient"),
                                  scaling.recall_init_charts(results), strict=True):  # fmt: skip
        ui.vega(spec, key=f"scaling.init.{name}", container=column)
    ui.vega(scaling.final_accuracy_chart(results), key="scaling.final")
    sizes = scaling.recall_d_ks(results)
    d_k = st.select_slider("Training curves at d_k", sizes, value=sizes[-1], key="scaling.curves_d_k")
    ui.comparison_curves(partial(scaling.recall_curves, results, d_k), "scaling.curves", names=("accuracy", "loss"),
                         axis_key="scaling.axis", height=300)  # fmt: skip
    ui.table(scaling.recall_rows(results))
    st.caption(scaling.RECALL_CAPTION)
    st.markdown("\n".join(f"- {line}" for line in scaling.recall_observations(results)))
    ui.provenance(results.meta)


if results is not None:
    ui.exercise(scaling.recall_prediction(results))
    ui.exercise(scaling.threshold_prediction(results))
    ui.reveal("the measured results", recall_results, key="scaling.reveal_measured", predictions=2)

# --- Lesson 4's GRU race --------------------------------------------------------------------------------------
ui.section("5 · Why lesson 4's GRU race showed no stall")
gru_race = ui.shipped_results(lesson, lesson.results[1], loader="load_gru_race", what="Lesson 4's race")
fresh_spread = ui.cached(scaling.fresh_spread, max_entries=1, show_spinner="Measuring an untrained GRU…")
st.markdown(scaling.untrained_note(fresh_spread("dot"), gru_race))

# --- What the two scores cost -------------------------------------------------------------------------------
ui.section("6 · Additive or dot product: what each costs", scaling.COST_TEXT.format(repeats=scaling.COST_REPEATS))
cost = ui.cached(scaling.measure_score_cost, max_entries=1, show_spinner="Timing both scores…")()
for column, name, spec in zip(st.columns(2), ("time", "memory"), scaling.cost_charts(cost), strict=True):
    ui.vega(spec, key=f"scaling.cost.{name}", container=column)
st.markdown(scaling.cost_sentence(cost))
st.caption(scaling.cost_caption(cost))

ui.page_tail(lesson, code=[
    ("The code that computes this",
     (scaling.dot_products, scaling.variance_with_error, scaling.softmax_jacobian, scaling.softmax_statistics)),
    ("The model trained in section 4", (scaling.RecallAttention, scaling.initial_state, scaling.train_recall)),
    ("The code that times the two scores", (scaling.saved_bytes, scaling.measure_score_cost)),
], exercises=scaling.exercises())  # fmt: skip
