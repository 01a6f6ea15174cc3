"""Lesson: seq2seq and the fixed-size context (Part 1)."""

import streamlit as st

import ui
from lessons import seq2seq_bottleneck as s2s
from minimodels.seq2seq import Seq2Seq

lesson = ui.lesson("seq2seq_bottleneck")
TRAIN_KEY = "seq2seq_bottleneck.train"  # one run trains both models
squeeze_random = ui.cached(s2s.squeeze_random, max_entries=64, show_spinner=False)

ui.explain(s2s.INTRO)
for equation in s2s.EQUATIONS:
    st.latex(equation)
ui.symbols("seq2seq_bottleneck")

# --- 1. The squeeze ---------------------------------------------------------------------------------------
ui.section("1 · The whole string in one vector", s2s.SQUEEZE_TEXT)


@st.fragment
def squeeze_section() -> None:
    cols = st.columns([3, 2])
    kept = ui.checked_text(
        cols[0].text_input, f"Your string (letters and spaces, up to {s2s.MAX_LEN} characters)",
        s2s.DEFAULT_TEXT, key="seq2seq_bottleneck.text", parse=s2s.parse_text,
        keep="text", what="string", ok_key="seq2seq_bottleneck.kept", max_chars=500,
        help="Upper case is read as lower case; anything else that is not a letter or a space becomes <unk>.",
    )  # fmt: skip
    if note := s2s.parse_text(st.session_state["seq2seq_bottleneck.text"]).note:
        st.info(note)  # what was changed in a usable string

    run = ui.current_run(TRAIN_KEY)
    own = s2s.finished_model(ui.trained_model(TRAIN_KEY), run.latest if run else None, "gru-none")
    use_own = False
    if own is not None:
        choice = cols[1].radio("Encoder", ["yours, trained below", "random weights"], horizontal=True,
                               key="seq2seq_bottleneck.encoder")  # fmt: skip
        use_own = choice.startswith("yours")
    if use_own:
        hidden = own.config.decoder_size
        result = s2s.squeeze(own, kept)
        cols[1].caption(f"Yours, trained on this page: {s2s.describe(own)}.")
    else:
        hidden = ui.linked(cols[1].select_slider, "Context size D", list(s2s.CONTEXT_SIZES), value=32,
                           key="seq2seq_bottleneck.demo_d")  # fmt: skip
        result = squeeze_random(kept, hidden)
    S = len(result.tokens)
    ui.plotly(s2s.squeeze_figure, result, key="seq2seq_bottleneck.states")  # states, c, bars: one figure
    st.markdown(
        f"{ui.literal(kept)} is {S - 1} characters (+ the end mark) read into {S} × {hidden} = {S * hidden} numbers; "
        f"the decoder receives **{result.context.size}** of them. Type a longer string: the states grow by one "
        "row per character, c does not."
    )
    st.caption(s2s.squeeze_caption(trained=use_own))


squeeze_section()
ui.show_code(Seq2Seq.forward, s2s.squeeze)

# --- 2. Both directions -----------------------------------------------------------------------------------
ui.section("2 · Reading both ways: a bidirectional encoder", s2s.BIDIRECTIONAL_TEXT)
st.latex(s2s.BIDIRECTIONAL_EQUATION)
st.caption(s2s.BIDIRECTIONAL_NOTE)
ui.table(s2s.directions_read([*st.session_state["seq2seq_bottleneck.kept"], "</s>"]), height=250)

# --- 3. The experiment ------------------------------------------------------------------------------------
ui.section("3 · Where it breaks: accuracy against length", s2s.experiment_text())
results = ui.shipped_results(lesson, what="The shipped results")


@st.fragment
def experiment_section() -> None:
    if results is None:
        return
    cols = st.columns(2)
    hidden = ui.linked(
        cols[0].select_slider, "Context size D", list(s2s.hidden_sizes(results)), value=64, key="seq2seq_bottleneck.d",
    )  # fmt: skip
    metric = ui.linked(
        cols[1].radio, "Score", list(s2s.METRICS), format_func=s2s.METRICS.get,
        horizontal=True, key="seq2seq_bottleneck.metric",
        help="Exact match: the whole string right. Token accuracy: the share of characters (and end marks) right.",
    )  # fmt: skip
    ui.vega(ui.shared_view(s2s.shipped_chart, results, hidden, metric), key="seq2seq_bottleneck.curves")
    st.caption(s2s.shipped_models(results, hidden))
    st.markdown(s2s.summary(results, hidden, metric))
    st.markdown(f"The lecture's sentence, growing, copied by the shipped models with D = {hidden} (seed 0):")
    ui.table(s2s.example_rows(results, hidden))
    st.markdown("Every context size at once (the mean over the seeds; hover a cell for its score):")
    ui.plotly(s2s.grid_heatmap, results, metric, key="seq2seq_bottleneck.grid")
    st.markdown(f"**What the whole sweep shows.** {s2s.overview(results, metric)}")
    ui.provenance(results.meta, note=s2s.provenance_note(results, hidden))


experiment_section()
ui.show_code(s2s.accuracy_by_length, s2s.evaluate_by_length)

# --- 4. Pooling -------------------------------------------------------------------------------------------
ui.section("4 · Attention generalises pooling", s2s.POOLING_TEXT)
st.latex(s2s.POOLING_EQUATION)


@st.fragment
def pooling_section() -> None:
    cols = st.columns(2)
    states = ui.checked_text(
        cols[0].text_input, "States h(I); h(like); h(pizza)", s2s.DEFAULT_STATES, key="seq2seq_bottleneck.states_in",
        parse=s2s.parse_states, keep="values", what="states", max_chars=200,
    )  # fmt: skip
    (weights,) = ui.checked_text(
        cols[1].text_input, "p(i | g) in %: I, like, pizza", s2s.LECTURE_WEIGHTS, key="seq2seq_bottleneck.weights",
        parse=s2s.parse_weights, keep="values", what="weights", max_chars=100,
    )  # fmt: skip
    if note := s2s.parse_weights(st.session_state["seq2seq_bottleneck.weights"]).note:
        st.info(note)
    pooled = s2s.pool(states, weights)
    st.latex(s2s.pooling_text(pooled))
    ui.plotly(s2s.pooling_figure, pooled, key="seq2seq_bottleneck.pooling")


pooling_section()
ui.explain(s2s.POOLING_TRAINED)
if results is not None and s2s.POOLED in results.variants:
    pooled = ui.shared_view(s2s.shipped_chart, results, s2s.POOL_D, variants=s2s.POOL_ORDER)
    ui.vega(pooled, key="seq2seq_bottleneck.pooled")
    st.caption(s2s.shipped_models(results, s2s.POOL_D, s2s.POOL_ORDER))
    st.markdown(s2s.pooling_summary(results))
ui.show_code(s2s.MeanPooledSeq2Seq, s2s.pool)

# --- 5. Re-run it yourself --------------------------------------------------------------------------------
ui.section("5 · Re-run it yourself", s2s.live_text())


def draw(report: s2s.PairReport, key: str) -> None:
    """Both models' progress: their length curves, held-out exact match, and the attention on the probe."""
    ui.plotly(s2s.live_length_chart, results, report, key=f"{key}.lengths")  # `key`: the replay's
    started = [(name, live) for name in s2s.MODELS if (live := report.latest(name)) is not None]
    st.markdown(
        "  \n".join(
            f"**{s2s.MODELS[name].capitalize()}** ({live.label}) after {live.step} steps copies "
            f"{ui.literal(s2s.PROBE_TEXT)} as {ui.literal(live.prediction)}"
            for name, live in started
        )
    )
    cols = st.columns([2, 3])
    with cols[0]:
        ui.plotly(s2s.progress_chart, report, key=f"{key}.progress")
        if report.latest("gru-none") is None:
            st.info("The model without attention starts when the one with attention has finished.")
        st.caption("Without attention there is no heatmap to draw: its decoder has no attention weights, only c.")
    attended = report.latest("gru-additive")
    if attended is not None:
        with cols[1]:
            ui.plotly(s2s.probe_heatmap, attended, key=f"{key}.attention")


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    cols = st.columns(3)
    train_d = ui.linked(
        cols[0].select_slider, "Context size D of your models", list(s2s.CONTEXT_SIZES), value=32,
        key="seq2seq_bottleneck.train_d",
    )  # fmt: skip
    encoder = ui.linked(cols[1].radio, "Encoder", list(s2s.ENCODERS.values()), horizontal=True,
                        key="seq2seq_bottleneck.train_encoder")  # fmt: skip
    seed = int(ui.linked(cols[2].number_input, "Seed", 0, 9999, s2s.SEED, key="seq2seq_bottleneck.seed"))
    bidirectional = encoder == s2s.ENCODERS[True]
    ui.training_panel(
        TRAIN_KEY, lambda: s2s.new_run(train_d, seed, bidirectional), draw, train_label="Train both",
        budget_seconds=s2s.LIVE_BUDGET_SECONDS, replay_frame=s2s.replay_frame,
    )  # fmt: skip


train_yourself()
ui.page_tail(
    lesson,
    code=[("The code that computes this", (s2s.new_training,))],
    exercises=s2s.exercises(results),
)
