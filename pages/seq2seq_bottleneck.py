"""Lesson: seq2seq and the fixed-size context (Part 1)."""

import streamlit as st

import ui
from lessons import seq2seq_bottleneck
from lessons.seq2seq_bottleneck import (
    both_directions,
    experiment,
    live_training,
    one_vector,
    pooling,
    rerun,
    scoring,
    shipped,
    where_it_breaks,
)
from minimodels.seq2seq import Seq2Seq

lesson = ui.lesson("seq2seq_bottleneck", seq2seq_bottleneck.INTRO)
TRAIN_KEY = "seq2seq_bottleneck.train"  # one run trains both models
squeeze_random = ui.cached(one_vector.squeeze_random, max_entries=64, show_spinner=False)

for equation in seq2seq_bottleneck.EQUATIONS:
    st.latex(equation)
ui.symbols("seq2seq_bottleneck")

ui.section(one_vector.TITLE, one_vector.TEXT)


@st.fragment
def squeeze_section() -> None:
    cols = st.columns([3, 2])
    kept = ui.checked_text(
        cols[0].text_input,
        f"Your string (letters and spaces, up to {experiment.MAX_LEN} characters)",
        one_vector.DEFAULT_TEXT,
        key="seq2seq_bottleneck.text",
        parse=one_vector.parse_text,
        keep="text",
        what="string",
        ok_key="seq2seq_bottleneck.kept",
        max_chars=500,
        help="Upper case is read as lower case; anything else that is not a letter or a space becomes <unk>.",
    )
    if note := one_vector.parse_text(st.session_state["seq2seq_bottleneck.text"]).note:
        st.info(note)  # what was changed in a usable string

    run = ui.current_run(TRAIN_KEY)
    own = live_training.finished_model(ui.trained_model(TRAIN_KEY), run.latest if run else None, "gru-none")
    use_own = False
    if own is not None:
        choice = cols[1].radio(
            "Encoder", ["yours, trained below", "random weights"], horizontal=True, key="seq2seq_bottleneck.encoder"
        )
        use_own = choice.startswith("yours")
    if use_own:
        hidden = own.config.decoder_size
        result = one_vector.squeeze(own, kept)
        cols[1].caption(f"Yours, trained on this page: {experiment.describe(own)}.")
    else:
        hidden = ui.linked(
            cols[1].select_slider,
            "Context size D",
            list(experiment.CONTEXT_SIZES),
            value=32,
            key="seq2seq_bottleneck.demo_d",
        )
        result = squeeze_random(kept, hidden)
    S = len(result.tokens)
    ui.plotly(one_vector.squeeze_figure, result, key="seq2seq_bottleneck.states")  # states, c, bars: one figure
    st.markdown(
        f"{ui.literal(kept)} is {S - 1} characters (+ the end mark) read into {S} × {hidden} = {S * hidden} numbers; "
        f"the decoder receives **{result.context.size}** of them. Type a longer string: the states grow by one "
        "row per character, c does not."
    )
    st.caption(one_vector.squeeze_caption(trained=use_own))


squeeze_section()
ui.show_code(Seq2Seq.forward, one_vector.squeeze)

ui.section(both_directions.TITLE, both_directions.TEXT)
st.latex(both_directions.EQUATION)
st.caption(both_directions.NOTE)
ui.table(both_directions.directions_read([*st.session_state["seq2seq_bottleneck.kept"], "</s>"]), height=250)

ui.section(where_it_breaks.TITLE, where_it_breaks.text())
results = ui.shipped_results(lesson, loader=shipped.load_results, what="The shipped results")


@st.fragment
def experiment_section() -> None:
    if results is None:
        return
    cols = st.columns(2)
    hidden = ui.linked(
        cols[0].select_slider,
        "Context size D",
        list(shipped.hidden_sizes(results)),
        value=64,
        key="seq2seq_bottleneck.d",
    )
    metric = ui.linked(
        cols[1].radio,
        "Score",
        list(experiment.METRICS),
        format_func=experiment.METRICS.get,
        horizontal=True,
        key="seq2seq_bottleneck.metric",
        help="Exact match: the whole string right. Token accuracy: the share of characters (and end marks) right.",
    )
    chart = ui.shared_view(where_it_breaks.shipped_chart, results, hidden, metric)
    ui.vega(chart, key="seq2seq_bottleneck.curves")
    st.caption(where_it_breaks.shipped_models(results, hidden))
    st.markdown(where_it_breaks.summary(results, hidden, metric))
    st.markdown(f"The lecture's sentence, growing, copied by the shipped models with D = {hidden} (seed 0):")
    ui.table(where_it_breaks.example_rows(results, hidden))
    st.markdown("Every context size at once (the mean over the seeds; hover a cell for its score):")
    ui.plotly(where_it_breaks.grid_heatmap, results, metric, key="seq2seq_bottleneck.grid")
    st.markdown(f"**What the whole sweep shows.** {where_it_breaks.overview(results, metric)}")
    ui.provenance(results.meta, note=where_it_breaks.provenance_note(results, hidden))


experiment_section()
ui.show_code(scoring.accuracy_by_length, scoring.evaluate_by_length)

ui.section(pooling.TITLE, pooling.TEXT)
st.latex(pooling.EQUATION)


@st.fragment
def pooling_section() -> None:
    cols = st.columns(2)
    states = ui.checked_text(
        cols[0].text_input,
        "States h(I); h(like); h(pizza)",
        pooling.DEFAULT_STATES,
        key="seq2seq_bottleneck.states_in",
        parse=pooling.parse_states,
        keep="values",
        what="states",
        max_chars=200,
    )
    (weights,) = ui.checked_text(
        cols[1].text_input,
        "p(i | g) in %: I, like, pizza",
        pooling.LECTURE_WEIGHTS,
        key="seq2seq_bottleneck.weights",
        parse=pooling.parse_weights,
        keep="values",
        what="weights",
        max_chars=100,
    )
    if note := pooling.parse_weights(st.session_state["seq2seq_bottleneck.weights"]).note:
        st.info(note)
    pooled = pooling.pool(states, weights)
    st.latex(pooling.pooling_text(pooled))
    ui.plotly(pooling.pooling_figure, pooled, key="seq2seq_bottleneck.pooling")


pooling_section()
ui.explain(pooling.TRAINED)
if results is not None and experiment.POOLED in results.variants:
    pooled = ui.shared_view(where_it_breaks.shipped_chart, results, experiment.POOL_D, variants=pooling.POOL_ORDER)
    ui.vega(pooled, key="seq2seq_bottleneck.pooled")
    st.caption(where_it_breaks.shipped_models(results, experiment.POOL_D, pooling.POOL_ORDER))
    st.markdown(pooling.pooling_summary(results))
ui.show_code(experiment.MeanPooledSeq2Seq, pooling.pool)

ui.section(rerun.TITLE, rerun.text())


def draw(report: live_training.PairReport, key: str) -> None:
    """Both models' progress: their length curves, held-out exact match, and the attention on the probe."""
    ui.plotly(rerun.live_length_chart, results, report, key=f"{key}.lengths")  # `key`: the replay's
    started = [(name, live) for name in experiment.MODELS if (live := report.latest(name)) is not None]
    st.markdown(
        "  \n".join(
            f"**{experiment.MODELS[name].capitalize()}** ({live.label}) after {live.step} steps copies "
            f"{ui.literal(live_training.PROBE_TEXT)} as {ui.literal(live.prediction)}"
            for name, live in started
        )
    )
    cols = st.columns([2, 3])
    with cols[0]:
        ui.plotly(rerun.progress_chart, report, key=f"{key}.progress")
        if report.latest("gru-none") is None:
            st.info("The model without attention starts when the one with attention has finished.")
        st.caption("Without attention there is no heatmap to draw: its decoder has no attention weights, only c.")
    attended = report.latest("gru-additive")
    if attended is not None:
        with cols[1]:
            ui.plotly(rerun.probe_heatmap, attended, key=f"{key}.attention")


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    cols = st.columns(3)
    train_d = ui.linked(
        cols[0].select_slider,
        "Context size D of your models",
        list(experiment.CONTEXT_SIZES),
        value=32,
        key="seq2seq_bottleneck.train_d",
    )
    encoder = ui.linked(
        cols[1].radio, "Encoder", list(rerun.ENCODERS.values()), horizontal=True, key="seq2seq_bottleneck.train_encoder"
    )
    seed = int(ui.linked(cols[2].number_input, "Seed", 0, 9999, experiment.SEED, key="seq2seq_bottleneck.seed"))
    bidirectional = encoder == rerun.ENCODERS[True]
    ui.training_panel(
        TRAIN_KEY,
        lambda: live_training.new_run(train_d, seed, bidirectional),
        draw,
        train_label="Train both",
        budget_seconds=live_training.LIVE_BUDGET_SECONDS,
        replay_frame=live_training.replay_frame,
    )


train_yourself()
ui.page_tail(
    lesson,
    code=[("The code that computes this", (live_training.new_training,))],
    exercises=seq2seq_bottleneck.exercises(results),
)
