"""Lesson: scoring functions compared (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import scoring_functions
from lessons.common import charts
from lessons.common.live import TrainingRun
from minimodels.attention import AdditiveAttention, BilinearAttention, DotProductAttention, ScaledDotProductAttention
from minimodels.tasks import get_task

lesson = ui.lesson("scoring_functions")
ui.explain(scoring_functions.INTRO)
st.latex(
    r"\alpha_i = \frac{\exp \mathrm{sim}(q, k_i)}{\sum_{i'} \exp \mathrm{sim}(q, k_{i'})}"
    r"\qquad c = \sum_i \alpha_i\, v_i"
)
ui.symbols("scoring_functions")
results = ui.shipped_results(lesson)
try:
    sweep = ui.shared_view(scoring_functions.load_sweep, results)  # read from the results once per server
except ValueError as error:
    st.warning(f"The measured sweep over d cannot be shown: {error}")
    sweep = None
if results is not None:
    st.markdown(scoring_functions.headline(results, sweep))

# --- The four scores --------------------------------------------------------------------------------
st.header("1 · Four ways to score a key", divider="gray")
for pair in (scoring_functions.SCORES[:2], scoring_functions.SCORES[2:]):
    for column, name in zip(st.columns(2), pair, strict=True):
        with column.container(border=True):
            st.markdown(f"**{scoring_functions.LABELS[name]}**")
            st.latex(scoring_functions.EQUATIONS[name])
            st.caption(scoring_functions.NOTES[name])
ui.explain(scoring_functions.SCORES_NOTE)

# --- One query, four scores ---------------------------------------------------------------------------
st.header("2 · One query, four scores", divider="gray")
ui.explain(scoring_functions.EXAMPLE_INTRO)


@ui.cached(max_entries=64, show_spinner=False)
def example(d: int, n_keys: int, seed: int, copy_of: int | None) -> scoring_functions.ScoreComparison:
    return scoring_functions.compare_scores(d, n_keys, seed, copy_of)


@ui.cached(max_entries=16, show_spinner=False)
def scaling_specs(n_keys: int) -> list[dict]:
    return scoring_functions.scaling_specs(n_keys)


RANDOM_QUERY = "a random vector"
CHART_HEIGHT = 330  # pixels for a chart with its title and legend (the chart's own height is its plot's)


@st.fragment
def one_query() -> None:
    c = st.columns([2, 2, 1, 2])
    d = ui.linked(c[0].select_slider, "Size d of q and k", scoring_functions.D_CHOICES, value=16,
                  key="scoring_functions.d")  # fmt: skip
    n_keys = ui.linked(c[1].slider, "Number of keys N", 2, scoring_functions.MAX_KEYS, 5, key="scoring_functions.keys")
    seed = int(ui.linked(c[2].number_input, "Seed", 0, 9999, 0, key="scoring_functions.seed"))
    options = [RANDOM_QUERY] + [f"a copy of k{i + 1}" for i in range(n_keys)]
    if st.session_state.get("scoring_functions.query", RANDOM_QUERY) not in options:
        st.info(f"There are only {n_keys} keys now, so the query is {RANDOM_QUERY} again.")
        st.session_state["scoring_functions.query"] = RANDOM_QUERY
    query = c[3].selectbox("The query is", options, key="scoring_functions.query")
    try:
        shown = example(d, n_keys, seed, None if query == RANDOM_QUERY else options.index(query) - 1)
    except ValueError as error:
        st.error(str(error))
        return
    ui.table(scoring_functions.comparison_rows(shown))
    ui.vega(scoring_functions.comparison_chart(shown), key="scoring_functions.bars", width="content")  # fixed panels
    rows, labels = scoring_functions.context_rows(shown)
    title = f"the query and the four contexts c = Σ αᵢ kᵢ (d = {d})"
    ui.plotly(charts.vector_strip, rows, labels, title=title, key="scoring_functions.contexts")
    st.markdown(scoring_functions.scaling_note(shown))
    for column, spec, name in zip(st.columns(2), scaling_specs(n_keys), ("spread", "peak"), strict=True):
        ui.vega(spec, key=f"scoring_functions.{name}", height=CHART_HEIGHT, container=column)


one_query()

# --- Measured: the four trained side by side ---------------------------------------------------------
st.header("3 · Trained side by side", divider="gray")
ui.explain(scoring_functions.race_intro())


@st.fragment
def measured() -> None:
    seeds = ", ".join(str(s) for s in results.seeds)
    ui.table(scoring_functions.table_rows(results))
    ui.folded(f"Every seed ({seeds})", lambda: ui.table(scoring_functions.seed_rows(results)),
              key="scoring_functions.seed_rows", icon=":material/table_rows:")  # fmt: skip
    st.caption(
        f"Mean ± sd over seeds {seeds} (n: how many seeds). “Steps/seconds to 90%”: the first check (every "
        f"{scoring_functions.REPORT_EVERY} steps, 200 held-out sentences) at or above 90% exact match; seconds are "
        "each model's own training, the checks included. Parameters: the score function's own. Test exact match: "
        "the whole test split at the end. Alignment accuracy: how often the attention's argmax falls on a source "
        "character the output character comes from (test split)."
    )
    st.markdown("\n".join(f"- {line}" for line in scoring_functions.observations(results)))
    st.markdown(scoring_functions.why_dot_leads(results))
    ui.comparison_curves(partial(scoring_functions.race_charts, results), "scoring_functions.shipped",
                         axis_key="scoring_functions.axis", height=CHART_HEIGHT)  # fmt: skip
    maps = scoring_functions.shipped_maps(results)
    ui.plotly(scoring_functions.attention_grid, maps, key="scoring_functions.shipped.maps")
    probe = maps[scoring_functions.SCORES[0]]
    st.caption(
        f"Each model's attention on the fixed example {ui.literal(''.join(probe['source_tokens'][:-1]))} at the "
        f"end of its seed-{probe['seed']} run (rows: output characters; columns: source characters, ␣ a space). "
        "Hover a cell for its exact α."
    )
    ui.provenance(results.meta, note=scoring_functions.provenance_note(results.meta))


if results is not None:
    measured()

# --- Where scaling matters ---------------------------------------------------------------------------
st.header("4 · Where scaling starts to matter", divider="gray")
ui.explain(scoring_functions.SWEEP_INTRO)


@st.fragment
def where_scaling_matters() -> None:
    ds = sweep.param_values("d")
    d = ui.linked(st.columns([1, 2])[0].select_slider, "Learning curves at d", ds, value=max(ds),
                  key="scoring_functions.sweep_d")  # fmt: skip
    for column, spec, name in zip(st.columns(2), scoring_functions.sweep_charts(sweep, d), ("by_d", "curves"),
                                  strict=True):  # fmt: skip
        ui.vega(spec, key=f"scoring_functions.sweep.{name}", height=CHART_HEIGHT, container=column)
    st.caption(scoring_functions.sweep_caption(sweep))
    ui.table(scoring_functions.sweep_rows(sweep))
    st.markdown("\n".join(f"- {line}" for line in scoring_functions.sweep_lines(sweep)))


if sweep is not None:
    where_scaling_matters()
else:
    st.info(f"No measured sweep over d to show: run `python {scoring_functions.SCRIPT}` to make one.")

# --- Race them yourself -----------------------------------------------------------------------------
st.header("5 · Race them yourself", divider="gray")
ui.explain(scoring_functions.LIVE_INTRO)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([1, 2, 3])
    race_seed = int(ui.linked(c[0].number_input, "Seed", 0, 9999, 0, key="scoring_functions.race_seed"))
    budget = ui.linked(
        c[1].select_slider, "Seconds per model", [3, 5, 10, 15], value=10, key="scoring_functions.budget"
    )

    def make_run() -> TrainingRun:
        models, train_fn = scoring_functions.new_race(race_seed, float(budget))
        return TrainingRun(train_fn, model=models, name="scoring-race")

    def draw(report: scoring_functions.RaceReport, key: str) -> None:
        race = report.comparison()  # one seed per score
        loss, accuracy = scoring_functions.race_charts(race)
        cols = st.columns(2)
        ui.vega(loss, key=f"{key}.loss", height=CHART_HEIGHT, container=cols[0])
        ui.vega(accuracy, key=f"{key}.accuracy", height=CHART_HEIGHT, container=cols[1])
        ui.table(scoring_functions.table_rows(race), key=f"{key}.table")
        maps = report.maps()
        if maps:
            ui.plotly(scoring_functions.attention_grid, maps, key=f"{key}.maps")

    ui.training_panel(
        "scoring_functions.race", make_run, draw, budget_seconds=4 * budget, target=scoring_functions.TARGET
    )


train_yourself()

# --- A trained model's scores ----------------------------------------------------------------------------------------
st.header("6 · A trained model's scores, on your sentence", divider="gray")
ui.explain(scoring_functions.TRAINED_TEXT)


@st.fragment  # the sentence redraws this section only
def trained_scores() -> None:
    loaded = ui.pretrained("toy-translation", "gru-additive")
    if loaded is None:
        return
    model = ui.model_choice(loaded[0], None, key="scoring_functions.trained.model", own_data="gru-additive")
    reads = ui.model_data(model, get_task("toy-translation"), "toy-translation", scoring_functions.TRAINED_PROBE)
    text = st.text_input("A sentence in the model's language", reads.text, max_chars=300,
                         key=f"scoring_functions.trained.{reads.name}")  # fmt: skip
    if reads.caption:
        st.caption(reads.caption)
    steps = ui.shared_view(scoring_functions.trained_scores, model, reads.task, text)
    if isinstance(steps, str):
        st.warning(steps)
        return
    figures = scoring_functions.trained_scores_figure(steps)
    for column, fig, name in zip(st.columns(2), figures, ("raw", "weights"), strict=True):
        with column:
            ui.plotly(fig, key=f"scoring_functions.trained.{name}")
    st.markdown(scoring_functions.trained_scores_sentence(steps))


trained_scores()

SCORE_MODULES = (DotProductAttention, ScaledDotProductAttention, BilinearAttention, AdditiveAttention)
ui.page_tail(
    lesson,
    code=[
        ("The code that computes this", SCORE_MODULES),
        ("The code of this page's example and race", (scoring_functions.compare_scores, scoring_functions.race)),
    ],
    exercises=scoring_functions.exercises(results, sweep),
)
