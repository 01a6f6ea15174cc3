"""Lesson: scoring functions compared (Part 2)."""

import streamlit as st

import ui
from lessons import scoring_functions as scoring
from lessons.common import charts
from lessons.common.live import TrainingRun
from minimodels.attention import (
    AdditiveAttention,
    BilinearAttention,
    DotProductAttention,
    ScaledDotProductAttention,
)

ui.page("Scoring functions", icon="⚖️")

st.title("Scoring functions")
ui.explain(
    "Every attention you will meet does the same three things: **score** each key against the query, turn the "
    "scores into a distribution with a **softmax**, and read the **weighted sum** of the values. Only the first "
    "step changes from one paper to the next. The lecture lists four ways to measure how well a query q matches "
    "a key k; here you compute all four on one example, then train the same translator four times, once with "
    "each, and compare."
)
st.latex(
    r"\alpha_i = \frac{\exp \mathrm{sim}(q, k_i)}{\sum_{i'} \exp \mathrm{sim}(q, k_{i'})}"
    r"\qquad c = \sum_i \alpha_i\, v_i"
)

# --- The four scores --------------------------------------------------------------------------------
st.header("1 · Four ways to score a key", divider="gray")
for pair in (scoring.SCORES[:2], scoring.SCORES[2:]):
    for column, name in zip(st.columns(2), pair, strict=True):
        with column.container(border=True):
            st.markdown(f"**{scoring.LABELS[name]}**")
            st.latex(scoring.EQUATIONS[name])
            st.caption(scoring.NOTES[name])
ui.explain(
    "q has d entries and k has d′; the additive score's hidden layer has d″ units. The dot scores have nothing "
    "to learn; bilinear and additive learn *what* a good match is, which costs parameters (counted below on "
    "the modules themselves) and, for additive, a hidden layer per (query, key) pair."
)

# --- One query, four scores ---------------------------------------------------------------------------
st.header("2 · One query, four scores", divider="gray")
ui.explain(
    "A query and a few keys drawn at random (the keys are the values too, as in the lecture). The bilinear "
    "and additive scores use *untrained* random weights here: their preferences are arbitrary until training "
    "shapes them. Make the query a copy of one key and see which scores notice."
)


@st.cache_data(max_entries=64, show_spinner=False)
def comparison(d: int, n_keys: int, seed: int, copy_of: int | None) -> scoring.ScoreComparison:
    return scoring.compare_scores(d, n_keys, seed, copy_of)


@st.cache_data(max_entries=1, show_spinner=False)
def scaling_scores() -> dict:
    return scoring.scaling_scores()


@st.cache_data(max_entries=16, show_spinner=False)
def scaling_specs(n_keys: int) -> list[dict]:
    """The two scaling charts as Vega-Lite specs, made once per N: building and validating the Altair charts cost
    more than the rest of the section, and moving d does not change them."""
    curve = scoring.scaling_curve(n_keys, scores=scaling_scores())
    return [charts.vega_lite_spec(chart) for chart in scoring.scaling_charts(curve)]


RANDOM_QUERY = "a random vector"
CHART_HEIGHT = 330  # pixels for an Altair chart with its title and legend (the chart's own height is its plot's)


@st.fragment
def one_query() -> None:
    c = st.columns([2, 2, 1, 2])
    d = ui.linked(c[0].select_slider, "Size d of q and k", scoring.D_CHOICES, value=16, key="scoring_functions.d")
    n_keys = ui.linked(c[1].slider, "Number of keys N", 2, scoring.MAX_KEYS, 5, key="scoring_functions.keys")
    seed = int(ui.linked(c[2].number_input, "Seed", 0, 9999, 0, key="scoring_functions.seed"))
    options = [RANDOM_QUERY] + [f"a copy of k{i + 1}" for i in range(n_keys)]
    chosen = st.session_state.get("scoring_functions.query", RANDOM_QUERY)
    if chosen not in options:
        st.info(f"There are only {n_keys} keys now, so the query is {RANDOM_QUERY} again.")
        st.session_state["scoring_functions.query"] = RANDOM_QUERY
    query = c[3].selectbox("The query is", options, key="scoring_functions.query")
    copy_of = None if query == RANDOM_QUERY else options.index(query) - 1
    try:
        example = comparison(d, n_keys, seed, copy_of)
    except ValueError as error:
        st.error(str(error))
        return
    st.dataframe(scoring.comparison_rows(example), hide_index=True, width="stretch")
    ui.vega(scoring.comparison_chart(example), key="scoring_functions.bars", width="content")  # panels of a fixed width
    rows, labels = scoring.context_rows(example)
    ui.plotly(
        charts.vector_strip(rows, labels, title=f"the query and the four contexts c = Σ αᵢ kᵢ (d = {d})"),
        key="scoring_functions.contexts",
    )
    dot, scaled = example.scores["dot"], example.scores["scaled_dot"]
    st.markdown(
        f"**What scaling does.** Here the dot scores have a standard deviation of **{dot.std():.2f}**; divided "
        f"by √d = {d**0.5:.2f} they have **{scaled.std():.2f}**. For random vectors with unit-variance entries a "
        "dot product is a sum of d random terms, so its spread grows like √d: at large d the softmax of raw dot "
        "scores puts nearly all its weight on one key (and its gradient vanishes). Scaling keeps the spread "
        "near 1 whatever d is. Averaged over 256 random queries with the same number of keys:"
    )
    spread, peak = scaling_specs(n_keys)
    cols = st.columns(2)
    ui.vega(spread, key="scoring_functions.spread", height=CHART_HEIGHT, container=cols[0])
    ui.vega(peak, key="scoring_functions.peak", height=CHART_HEIGHT, container=cols[1])


one_query()

# --- Measured: the four trained side by side ---------------------------------------------------------
st.header("3 · Trained side by side", divider="gray")
ui.explain(
    "The same GRU encoder–decoder, trained on **dates** (“Sunday, November 22, 2026” → “2026-11-22”, "
    "character by character) four times: same seed, same data, same batches, only the score differs. One "
    "caveat from the model itself (`minimodels.seq2seq`): the **additive** model attends from the previous "
    "decoder state sₜ₋₁ and feeds the context into the RNN (Bahdanau et al., as published), while dot, "
    "scaled dot and bilinear attend from the current state sₜ after the RNN step (Luong et al.). So the race "
    "compares two published designs, not the score alone; Bahdanau's decoder must also run step by step in "
    "training, which is why its steps take longer."
)


@st.cache_data(max_entries=2, show_spinner=False)
def shipped(path: str, mtime: float) -> scoring.Results:
    """Keyed on the file's time stamp, so a re-measured file is read again."""
    return scoring.load_results(path)


try:
    results = shipped(str(scoring.RESULTS), scoring.RESULTS.stat().st_mtime if scoring.RESULTS.exists() else 0.0)
except (FileNotFoundError, ValueError) as error:
    results = None
    st.warning(f"The measured results cannot be shown: {error}")


@st.fragment
def measured() -> None:
    meta = results.meta
    seeds = ", ".join(str(s) for s in meta["seeds"])
    table = scoring.table_rows(results.runs, results.score_parameters, ranges=False)
    st.dataframe(table, hide_index=True, width="stretch")
    with st.expander(f"Every seed ({seeds})", icon=":material/table_rows:"):
        st.dataframe(scoring.run_rows(results.runs), hide_index=True, width="stretch")
    st.caption(
        f"Medians over seeds {seeds}. “Steps/s to 90%”: the first check (every {scoring.REPORT_EVERY} steps, "
        "200 held-out sentences) at or above 90% exact match; s are seconds of each model's own training, the "
        "checks included. Parameters: the score function's own. Test exact: the whole test split at the end. "
        "Alignment: how often the attention's argmax falls on a source character the output character comes "
        "from (test split)."
    )
    st.markdown("\n".join(f"- {line}" for line in scoring.observations(results)))
    axis = ui.linked(
        st.radio, "Curves against", ["training step", "seconds"], horizontal=True, key="scoring_functions.axis"
    )
    loss, accuracy = scoring.race_curves(results.runs, x="step" if axis == "training step" else "seconds")
    cols = st.columns(2)
    cols[0].altair_chart(loss, width="stretch", height=CHART_HEIGHT, key="scoring_functions.shipped.loss")
    cols[1].altair_chart(accuracy, width="stretch", height=CHART_HEIGHT, key="scoring_functions.shipped.accuracy")
    ui.plotly(scoring.attention_grid(scoring.shipped_maps(results)), key="scoring_functions.shipped.maps")
    probe = results.probe[scoring.SCORES[0]]
    st.caption(
        f"Each model's attention on the fixed example {ui.literal(''.join(probe['source_tokens'][:-1]))} at the "
        f"end of its seed-{probe['seed']} run (rows: output characters; columns: source characters, ␣ a space). "
        "Hover a cell for its exact α."
    )
    machine = meta.get("machine", {})
    st.caption(
        f"Measured {meta.get('date', '?')[:10]} with {ui.literal(meta.get('command', '?'))} on "
        f"{machine.get('cpu_count', '?')} CPU cores ({machine.get('processor', '?')}, torch "
        f"{machine.get('torch', '?')}, {machine.get('torch_threads', '?')} thread), 1-minute load average "
        f"{meta.get('load_1min_before', '?')} before and {meta.get('load_1min_after', '?')} after (the machine "
        "was shared). Your laptop's seconds will differ; the steps hardly at all."
    )


if results is not None:
    measured()

# --- Race them yourself -----------------------------------------------------------------------------
st.header("4 · Race them yourself", divider="gray")
ui.explain(
    f"One click trains four fresh models for you alone, from the seed you choose. They take turns, "
    f"{scoring.REPORT_EVERY} steps each, so their curves grow side by side on a single core; each stops at "
    f"{scoring.TARGET:.0%} held-out exact match or when its own time budget is spent. The bar and the first two "
    "curves follow the four together (their mean loss and exact match, their seconds added up); below them, each "
    "model's own curves, its steps to accuracy and its attention on the fixed example."
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([1, 2, 3])
    race_seed = int(ui.linked(c[0].number_input, "Seed", 0, 9999, 0, key="scoring_functions.race_seed"))
    budget = ui.linked(
        c[1].select_slider, "Seconds per model", [3, 5, 10, 15], value=10, key="scoring_functions.budget"
    )

    def make_run() -> TrainingRun:
        models, train_fn = scoring.new_race(race_seed, float(budget))
        return TrainingRun(train_fn, model=models, name="scoring-race")

    def draw(report: scoring.RaceReport, key: str) -> None:
        runs = report.runs
        loss, accuracy = scoring.race_curves(runs)
        cols = st.columns(2)
        cols[0].altair_chart(loss, width="stretch", height=CHART_HEIGHT, key=f"{key}.loss")
        cols[1].altair_chart(accuracy, width="stretch", height=CHART_HEIGHT, key=f"{key}.accuracy")
        st.dataframe(scoring.table_rows(runs), hide_index=True, width="stretch", key=f"{key}.table")
        maps = report.maps()
        if maps:
            ui.plotly(scoring.attention_grid(maps), key=f"{key}.maps")

    ui.training_panel("scoring_functions.race", make_run, draw, budget_seconds=4 * budget, target=scoring.TARGET)


train_yourself()

ui.show_code(DotProductAttention, ScaledDotProductAttention, BilinearAttention, AdditiveAttention)
ui.show_code(scoring.compare_scores, scoring.race, label="The code of this page's example and race")

# --- Check yourself ----------------------------------------------------------------------------------
st.header("Check yourself", divider="gray")
for ex in scoring.exercises(results):
    ui.exercise(ex)

st.caption(
    "Sources: the NLP lecture on attention (“Similarity between query and key”: bilinear, MLP, dot product, "
    "scaled dot product); Luong, Pham & Manning, *Effective Approaches to Attention-based Neural Machine "
    "Translation*, EMNLP 2015; Bahdanau, Cho & Bengio, ICLR 2015; Vaswani et al., *Attention Is All You Need*, "
    "NeurIPS 2017."
)
