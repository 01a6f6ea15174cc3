"""Lesson: scoring functions compared (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import scoring_functions
from lessons.common import charts
from lessons.scoring_functions import (
    four_scores,
    headline,
    one_query,
    race_softmax,
    race_training,
    race_yourself,
    shipped_race,
    side_by_side,
    trained_translator,
    where_scaling_matters,
)
from minimodels.attention import AdditiveAttention, BilinearAttention, DotProductAttention, ScaledDotProductAttention
from minimodels.tasks import get_task

lesson = ui.lesson("scoring_functions", scoring_functions.INTRO)
st.latex(scoring_functions.INTRO_EQUATION)
ui.symbols("scoring_functions")
results = ui.shipped_results(lesson, loader=shipped_race.load_results)
try:
    sweep = ui.shared_view(where_scaling_matters.load_sweep, results)  # read from the results once per server
except ValueError as error:
    st.warning(f"The measured sweep over d cannot be shown: {error}")
    sweep = None
if results is not None:
    st.markdown(headline.headline(results, sweep))

ui.section(four_scores.TITLE)
for pair in (four_scores.SCORES[:2], four_scores.SCORES[2:]):
    for column, name in zip(st.columns(2), pair, strict=True):
        with column.container(border=True):
            st.markdown(f"**{four_scores.LABELS[name]}**")
            st.latex(four_scores.EQUATIONS[name])
            st.caption(four_scores.NOTES[name])
ui.explain(four_scores.SCORES_NOTE)

ui.section(one_query.TITLE, one_query.TEXT)


@ui.cached(max_entries=64, show_spinner=False)
def example(d: int, n_keys: int, seed: int, copy_of: int | None) -> one_query.ScoreComparison:
    return one_query.compare_scores(d, n_keys, seed, copy_of)


@ui.cached(max_entries=16, show_spinner=False)
def scaling_specs(n_keys: int) -> list[dict]:
    return one_query.scaling_specs(n_keys)


RANDOM_QUERY = "a random vector"
CHART_HEIGHT = 330  # pixels for a chart with its title and legend (the chart's own height is its plot's)


@st.fragment
def one_query_view() -> None:
    c = st.columns([2, 2, 1, 2])
    d = ui.linked(c[0].select_slider, "Size d of q and k", one_query.D_CHOICES, value=16, key="scoring_functions.d")
    n_keys = ui.linked(c[1].slider, "Number of keys N", 2, one_query.MAX_KEYS, 5, key="scoring_functions.keys")
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
    ui.table(one_query.comparison_rows(shown))
    ui.vega(one_query.comparison_chart(shown), key="scoring_functions.bars", width="content")  # fixed panels
    rows, labels = one_query.context_rows(shown)
    title = f"the query and the four contexts c = Σ αᵢ kᵢ (d = {d})"
    ui.plotly(charts.vector_strip, rows, labels, title=title, key="scoring_functions.contexts")
    st.markdown(one_query.scaling_note(shown))
    for column, spec, name in zip(st.columns(2), scaling_specs(n_keys), ("spread", "peak"), strict=True):
        ui.vega(spec, key=f"scoring_functions.{name}", height=CHART_HEIGHT, container=column)


one_query_view()

ui.section(side_by_side.TITLE, side_by_side.race_intro())


@st.fragment
def measured() -> None:
    seeds = ", ".join(str(s) for s in results.seeds)
    ui.table(side_by_side.table_rows(results))
    ui.folded(
        f"Every seed ({seeds})",
        lambda: ui.table(side_by_side.seed_rows(results)),
        key="scoring_functions.seed_rows",
        icon=":material/table_rows:",
    )
    st.caption(side_by_side.table_caption(seeds))
    st.markdown("\n".join(f"- {line}" for line in side_by_side.observations(results)))
    st.markdown(race_softmax.why_dot_leads(results))
    ui.comparison_curves(
        partial(side_by_side.race_charts, results),
        "scoring_functions.shipped",
        axis_key="scoring_functions.axis",
        height=CHART_HEIGHT,
    )
    maps = shipped_race.shipped_maps(results)
    ui.plotly(side_by_side.attention_grid, maps, key="scoring_functions.shipped.maps")
    probe = maps[four_scores.SCORES[0]]
    st.caption(
        f"Each model's attention on the fixed example {ui.literal(''.join(probe['source_tokens'][:-1]))} at the "
        f"end of its seed-{probe['seed']} run (rows: output characters; columns: source characters, ␣ a space). "
        "Hover a cell for its exact α."
    )
    ui.provenance(results.meta, note=shipped_race.provenance_note(results.meta))


if results is not None:
    measured()

ui.section(where_scaling_matters.TITLE, where_scaling_matters.TEXT)


@st.fragment
def where_scaling_matters_view() -> None:
    ds = sweep.param_values("d")
    d = ui.linked(
        st.columns([1, 2])[0].select_slider,
        "Learning curves at d",
        ds,
        value=max(ds),
        key="scoring_functions.sweep_d",
    )
    charts_at_d = where_scaling_matters.sweep_charts(sweep, d)
    for column, spec, name in zip(st.columns(2), charts_at_d, ("by_d", "curves"), strict=True):
        ui.vega(spec, key=f"scoring_functions.sweep.{name}", height=CHART_HEIGHT, container=column)
    st.caption(where_scaling_matters.sweep_caption(sweep))
    ui.table(where_scaling_matters.sweep_rows(sweep))
    st.markdown("\n".join(f"- {line}" for line in where_scaling_matters.sweep_lines(sweep)))


if sweep is not None:
    where_scaling_matters_view()
else:
    st.info(f"No measured sweep over d to show: run `python {shipped_race.SCRIPT}` to make one.")

ui.section(race_yourself.TITLE, race_yourself.TEXT)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([1, 2, 3])
    race_seed = int(ui.linked(c[0].number_input, "Seed", 0, 9999, 0, key="scoring_functions.race_seed"))
    budget = ui.linked(
        c[1].select_slider, "Seconds per model", [3, 5, 10, 15], value=10, key="scoring_functions.budget"
    )

    def draw(report: race_training.RaceReport, key: str) -> None:
        race = report.comparison()  # one seed per score
        loss, accuracy = side_by_side.race_charts(race)
        cols = st.columns(2)
        ui.vega(loss, key=f"{key}.loss", height=CHART_HEIGHT, container=cols[0])
        ui.vega(accuracy, key=f"{key}.accuracy", height=CHART_HEIGHT, container=cols[1])
        ui.table(side_by_side.table_rows(race), key=f"{key}.table")
        maps = report.maps()
        if maps:
            ui.plotly(side_by_side.attention_grid, maps, key=f"{key}.maps")

    ui.training_panel(
        "scoring_functions.race",
        lambda: race_yourself.live_run(race_seed, float(budget)),
        draw,
        budget_seconds=4 * budget,
        target=race_training.TARGET,
    )


train_yourself()

ui.section(trained_translator.TITLE, trained_translator.TEXT)


@st.fragment  # the sentence redraws this section only
def trained_scores() -> None:
    loaded = ui.pretrained("toy-translation", "gru-additive")
    if loaded is None:
        return
    model = ui.model_choice(loaded[0], None, key="scoring_functions.trained.model", own_data="gru-additive")
    reads = ui.model_data(model, get_task("toy-translation"), "toy-translation", trained_translator.TRAINED_PROBE)
    text = st.text_input(
        "A sentence in the model's language", reads.text, max_chars=300, key=f"scoring_functions.trained.{reads.name}"
    )
    if reads.caption:
        st.caption(reads.caption)
    steps = ui.shared_view(trained_translator.trained_scores, model, reads.task, text)
    if isinstance(steps, str):
        st.warning(steps)
        return
    figures = trained_translator.trained_scores_figure(steps)
    for column, fig, name in zip(st.columns(2), figures, ("raw", "weights"), strict=True):
        with column:
            ui.plotly(fig, key=f"scoring_functions.trained.{name}")
    st.markdown(trained_translator.trained_scores_sentence(steps))


trained_scores()

SCORE_MODULES = (DotProductAttention, ScaledDotProductAttention, BilinearAttention, AdditiveAttention)
ui.page_tail(
    lesson,
    code=[
        ("The code that computes this", SCORE_MODULES),
        ("The code of this page's example and race", (one_query.compare_scores, race_training.race)),
    ],
    exercises=scoring_functions.exercises(results, sweep),
)
