"""Lesson: scaling the dot product by √d_k (Part 2)."""

import streamlit as st

import ui
from lessons import scaling
from lessons import scoring_functions as scoring  # the race and its figures, which this lesson reuses

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
st.table(scaling.lecture_rows(lecture))
st.caption(scaling.gradient_caption(lecture))

# --- What the softmax does with large scores ------------------------------------------------------------
ui.section("2 · One query, six sizes of d_k", scaling.one_query_text())
one_query = st.cache_data(max_entries=64, show_spinner=False)(scaling.one_query)
# every d_k's scores for one seed, 0.7 MB each: shared by every number of keys
sweep_scores = st.cache_data(max_entries=8, show_spinner="Drawing random queries and keys…")(scaling.sweep_scores)


@st.cache_data(max_entries=64, show_spinner=False)
def softmax_sweep(n_keys: int, seed: int) -> list[dict]:
    return scaling.softmax_sweep(n_keys, seed=seed, scores=sweep_scores(seed=seed))


@st.fragment
def softmax_section() -> None:
    c = st.columns([3, 1, 3])
    n_keys = c[0].slider("Number of keys N", 2, scaling.MAX_KEYS, 8, key="scaling.keys")
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="scaling.query_seed"))
    ui.plotly(scaling.one_query_figure(one_query(n_keys, seed=seed)), key="scaling.one_query")
    st.markdown(scaling.softmax_charts_note(n_keys))
    rows = softmax_sweep(n_keys, seed)
    specs = scaling.softmax_charts(rows, n_keys)
    for column, panel, spec in zip(st.columns(3), scaling.SOFTMAX_PANELS, specs, strict=True):
        ui.vega(spec, key=f"scaling.softmax.{panel}", container=column)
    st.markdown(scaling.saturation_summary(rows))
    with st.expander("Every figure", icon=":material/table_rows:"):
        ui.table(rows)


softmax_section()

# --- The variance grows like d_k --------------------------------------------------------------------
ui.section("3 · Measure it: the variance of q·k grows like d_k", scaling.VARIANCE_TEXT)
variance_sweep = st.cache_data(max_entries=32, show_spinner="Drawing random vectors…")(scaling.variance_sweep)


@st.fragment
def variance_section() -> None:
    c = st.columns([3, 1, 3])
    samples = c[0].select_slider("Pairs (q, k) per d_k", scaling.SAMPLE_CHOICES, value=2000, key="scaling.samples",
                                 help="More pairs, smaller error bars.")  # fmt: skip
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="scaling.variance_seed"))
    points = variance_sweep(samples=samples, seed=seed)
    ui.vega(scaling.variance_chart(points), key="scaling.variance", height=420)
    st.markdown(scaling.variance_summary(points))
    with st.expander("Every figure", icon=":material/table_rows:"):
        ui.table(scaling.variance_rows(points))


variance_section()

# --- Two trained models ------------------------------------------------------------------------------------
ui.section("4 · The same model trained with and without the scale")
loaded = {s: ui.pretrained(scaling.TASK, scaling.MODEL_NAMES[s]) for s in scaling.SCORES}  # shared, read-only
shipped = None if None in loaded.values() else {s: model for s, (model, _) in loaded.items()}
results = ui.shipped_results(lesson, what="The measured race")
if shipped is not None:
    ui.explain(scaling.trained_text(loaded))


@st.cache_data(max_entries=64, show_spinner=False)
def shipped_alignments(text: str) -> dict[str, scaling.Alignment] | str:
    return scaling.read_models(shipped, text)


@st.cache_data(max_entries=1, show_spinner="Measuring the scores on held-out dates…")
def shipped_spreads() -> dict[str, scaling.ScoreSpread]:
    return scaling.spreads_of(shipped)


fresh_spread = st.cache_data(max_entries=1, show_spinner=False)(scaling.fresh_spread)
own = ui.trained_model("scaling.race")
if shipped is not None:
    ui.exercise(scaling.peaked_prediction(shipped_spreads()))
    c = st.columns([3, 2])
    text = c[0].text_input("A date, written any way", value=scaling.DEFAULT_DATE, key="scaling.date", max_chars=200)
    view = c[1].radio(
        "Show", list(scaling.VIEWS), format_func=scaling.VIEWS.get, horizontal=True, key="scaling.view",
        help="The softmax turns the scores it sees into α; the raw scores are q·k before any division.",
    )  # fmt: skip
    which = "the shipped pretrained ones"
    if own is not None:
        which = st.radio("Models", [which, "yours, raced below"], horizontal=True, key="scaling.which")
    if which.startswith("yours"):
        alignments, spreads = scaling.read_models(own, text), scaling.spreads_of(own)
    else:
        alignments, spreads = shipped_alignments(text), shipped_spreads()
    if isinstance(alignments, str):
        st.warning(alignments)
    else:
        if alignments["dot"].message:
            st.caption(alignments["dot"].message)
        ui.plotly(scaling.alignment_figure(alignments, view), key="scaling.trained")
        st.caption(scaling.alignment_caption(view))
    st.subheader("How large are the trained scores?")
    st.markdown(scaling.SPREAD_TEXT)
    ui.table(scaling.spread_rows(spreads))
    st.markdown("\n".join(f"- {line}" for line in scaling.spread_observations(spreads)))
    st.markdown(scaling.untrained_note(fresh_spread("dot"), results))


def race_figures(race, key: str, table_key: str | None = None) -> None:
    """A race's loss and exact-match curves side by side, then its table: the shipped race's, or the student's."""
    loss, accuracy = scoring.race_charts(race)
    cols = st.columns(2)
    ui.vega(loss, key=f"{key}.loss", height=300, container=cols[0])
    ui.vega(accuracy, key=f"{key}.accuracy", height=300, container=cols[1])
    ui.table(scoring.table_rows(race), key=table_key)


st.subheader("Their training record")
records = scaling.load_training_records()
if isinstance(records, str):
    st.warning(records)
elif records:
    ui.table(records)
    st.caption(scaling.RECORDS_CAPTION)
if results is not None:
    st.markdown(scaling.race_note(results))
    race_figures(results, "scaling.shipped")
    ui.provenance(results.meta)

# --- Race them yourself ----------------------------------------------------------------------------------
ui.section(
    "5 · Train both yourself",
    f"One click trains two fresh models for you alone, from the seed you choose, identical but for the scale. "
    f"They take turns, {scoring.REPORT_EVERY} steps each, so their curves grow side by side; each stops at "
    f"{scoring.TARGET:.0%} held-out exact match or when its time budget is spent. When they are done, section 4 "
    "can show yours.",
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([1, 2, 3])
    race_seed = int(c[0].number_input("Seed", 0, 9999, 0, key="scaling.race_seed"))
    budget = c[1].select_slider("Seconds per model", [3, 5, 10, 20], value=10, key="scaling.budget")

    def draw(report: scoring.RaceReport, key: str) -> None:
        race_figures(report.comparison(), key, table_key=f"{key}.table")  # one seed per model
        if maps := report.maps():
            ui.plotly(scoring.attention_grid(maps, height=420), key=f"{key}.maps")

    ui.training_panel("scaling.race", lambda: scaling.new_run(race_seed, budget), draw, budget_seconds=2 * budget,
                      target=scoring.TARGET)  # fmt: skip


train_yourself()

ui.page_tail(lesson, code=[
    ("The code that computes this",
     (scaling.dot_products, scaling.variance_with_error, scaling.softmax_jacobian, scaling.softmax_statistics)),
    ("The code that reads the trained models' scores", (scaling.align, scaling.score_spread)),
], exercises=scaling.exercises())  # fmt: skip
