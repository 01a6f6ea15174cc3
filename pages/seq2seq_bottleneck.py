"""Lesson: seq2seq and the fixed-size context (Part 1)."""

import streamlit as st

import ui
from lessons import seq2seq_bottleneck
from minimodels.seq2seq import Seq2Seq

lesson = ui.lesson("seq2seq_bottleneck")
TRAIN_KEY = "seq2seq_bottleneck.train"  # one run trains both models
squeeze_random = st.cache_data(max_entries=64, show_spinner=False)(seq2seq_bottleneck.squeeze_random)

ui.explain(
    "An encoder–decoder translates *“Jane visite l'Afrique en septembre”* into *“Jane is visiting Africa in "
    "September”* in two halves. The **encoder** RNN reads the source one token at a time; its last hidden state "
    "is handed to the **decoder** RNN, which writes the translation from it. That one vector, the *context*, is "
    "all the decoder ever learns about the source. It has a fixed size D, chosen before training, whether the "
    "sentence has five words or forty. For the lecture's short sentence that works. For *“Jane s'est rendue en "
    "Afrique en septembre dernier, a apprécié la culture et a rencontré beaucoup de gens merveilleux; elle est "
    "revenue en parlant comment son voyage était merveilleux, et elle me tente d'y aller aussi”* it is not "
    "perfect: a human translator would not memorise the whole sentence either, but read it again, part by part."
)
st.latex(
    r"\text{encoder: } h_t = \mathrm{GRU}(E\,x_t,\; h_{t-1}),\quad t = 1 \dots S \qquad\qquad "
    r"\text{context: } c = h_S \in \mathbb{R}^D"
)
st.latex(
    r"\text{decoder: } s_t = \mathrm{GRU}\big([E\,y_{t-1};\; c],\; s_{t-1}\big),\; s_0 = c \qquad\qquad "
    r"p(y_t \mid y_{<t}, x) = \mathrm{softmax}\big(W_o \tanh(W_c[c;\, s_t])\big)"
)
st.caption(
    "x₁ … x_S: the source tokens (the last one is the end-of-sentence mark); h_t ∈ ℝᴰ: the encoder's states; "
    "c ∈ ℝᴰ: the context vector, the same at every decoder step; s_t: the decoder's state; y_t: the output "
    "tokens. The NLP lecture calls this *Problem 2: a fixed-size representation of the entire input sequence*."
)

# --- 1. The squeeze ---------------------------------------------------------------------------------------
st.header("1 · The whole string in one vector", divider="gray")
ui.explain(
    "The models of this lesson **copy** a string of letters and spaces, character by character. Copying is the "
    "hardest case for a fixed vector: the first character to write is the one the encoder read longest ago. "
    "Type a string and watch the encoder read it: one row of D numbers per character, and the decoder is given "
    "only the last row, c."
)


@st.fragment
def squeeze_section() -> None:
    cols = st.columns([3, 2])
    kept = ui.checked_text(
        cols[0].text_input, f"Your string (letters and spaces, up to {seq2seq_bottleneck.MAX_LEN} characters)",
        seq2seq_bottleneck.DEFAULT_TEXT, key="seq2seq_bottleneck.text", parse=seq2seq_bottleneck.parse_text,
        keep="text", what="string", ok_key="seq2seq_bottleneck.kept", max_chars=500,
        help="Upper case is read as lower case; anything else that is not a letter or a space becomes <unk>.",
    )  # fmt: skip
    if note := seq2seq_bottleneck.parse_text(st.session_state["seq2seq_bottleneck.text"]).note:
        st.info(note)  # what was changed in a usable string

    run = ui.current_run(TRAIN_KEY)
    own = seq2seq_bottleneck.finished_model(ui.trained_model(TRAIN_KEY), run.latest if run else None, "gru-none")
    use_own = False
    if own is not None:
        choice = cols[1].radio("Encoder", ["yours, trained below", "random weights"], horizontal=True,
                               key="seq2seq_bottleneck.encoder")  # fmt: skip
        use_own = choice.startswith("yours")
    if use_own:
        hidden = own.config.hidden_size
        result = seq2seq_bottleneck.squeeze(own, kept)
        cols[1].caption(f"Your model without attention, D = {hidden}, trained on this page.")
    else:
        hidden = ui.linked(cols[1].select_slider, "Context size D", list(seq2seq_bottleneck.CONTEXT_SIZES), value=32,
                           key="seq2seq_bottleneck.demo_d")  # fmt: skip
        result = squeeze_random(kept, hidden)
    S = len(result.tokens)
    ui.plotly(seq2seq_bottleneck.squeeze_figure(result), key="seq2seq_bottleneck.states")  # states, c, bars: one figure
    st.markdown(
        f"{ui.literal(kept)} is {S - 1} characters (+ the end mark) read into {S} × {hidden} = {S * hidden} numbers; "
        f"the decoder receives **{result.context.size}** of them. Type a longer string: the states grow by one "
        "row per character, c does not."
    )
    st.caption(seq2seq_bottleneck.squeeze_caption(trained=use_own))


squeeze_section()
ui.show_code(Seq2Seq.forward, seq2seq_bottleneck.squeeze)

# --- 2. The experiment ------------------------------------------------------------------------------------
st.header("2 · Where it breaks: accuracy against length", divider="gray")
ui.explain(
    f"The experiment: the copy task, strings of {seq2seq_bottleneck.MIN_LEN} to {seq2seq_bottleneck.MAX_LEN} "
    "characters, trained **without attention** and **with Bahdanau's additive attention** (the next lessons), each "
    f"for the same {seq2seq_bottleneck.STEPS} steps from the same seeds on the same data, for each context size D. "
    f"Then about {seq2seq_bottleneck.PER_LENGTH} test strings of every length, never seen in training, are decoded "
    "and scored. These are the shipped results (their caption says over which seeds); section 3 re-runs them for you."
)
results = ui.shipped_results(lesson, what="The shipped results")


@st.fragment
def experiment_section() -> None:
    if results is None:
        return
    cols = st.columns(2)
    hidden = ui.linked(
        cols[0].select_slider, "Context size D (hidden_size)", list(seq2seq_bottleneck.hidden_sizes(results)),
        value=64, key="seq2seq_bottleneck.d",
    )  # fmt: skip
    metric = ui.linked(
        cols[1].radio, "Score", list(seq2seq_bottleneck.METRICS), format_func=seq2seq_bottleneck.METRICS.get,
        horizontal=True, key="seq2seq_bottleneck.metric",
        help="Exact match: the whole string right. Token accuracy: the share of characters (and end marks) right.",
    )  # fmt: skip
    ui.plotly(seq2seq_bottleneck.length_chart(results, hidden, metric), key="seq2seq_bottleneck.curves")
    st.markdown(seq2seq_bottleneck.summary(results, hidden, metric))
    st.markdown(f"The lecture's sentence, growing, copied by the shipped models with D = {hidden}:")
    ui.table(seq2seq_bottleneck.example_rows(results, hidden))
    st.markdown("Every context size at once (hover a cell for its score):")
    ui.plotly(seq2seq_bottleneck.grid_heatmap(results, metric), key="seq2seq_bottleneck.grid")
    ui.provenance(results.meta, note=seq2seq_bottleneck.provenance_note(results, hidden))


experiment_section()
ui.explain(
    "What to read from it: without attention, every extra character must share the same D numbers, so the score "
    "falls with length, and a bigger D only moves the fall a little to the right. With attention the decoder "
    "reads all the encoder states again at every step; nothing has to fit in one vector, and the curve stays "
    "high. That is why attention was invented (Bahdanau, Cho & Bengio 2015)."
)
ui.show_code(seq2seq_bottleneck.accuracy_by_length, seq2seq_bottleneck.evaluate_by_length)

# --- 3. Re-run it yourself --------------------------------------------------------------------------------
st.header("3 · Re-run it yourself", divider="gray")
ui.explain(
    "One click trains the pair for you alone: two fresh models with the same seed, data, D and recipe, one after "
    f"the other. First the model **with attention**, for {seq2seq_bottleneck.LIVE_STEPS} steps (the shipped ones "
    f"had {seq2seq_bottleneck.STEPS}), then the one **without**, for exactly as many steps; both together take at "
    f"most {seq2seq_bottleneck.LIVE_BUDGET_SECONDS:g} s, so on a busy server both get fewer steps (the charts say "
    f"how many). At every report the models are scored on {seq2seq_bottleneck.LIVE_PER_LENGTH} test strings of each "
    "length: your curves are dashed, the shipped results at the same D solid. The heatmap is the attention of the "
    f"model with attention while it copies {ui.literal(seq2seq_bottleneck.PROBE_TEXT)}: watch it turn from a blur "
    "into a diagonal. The bar and the two curves right under the buttons follow the run as one timeline, so they "
    "jump back up when the second model starts from scratch."
)


def draw(report: seq2seq_bottleneck.PairReport, key: str) -> None:
    """Both models' progress: their length curves, held-out exact match, and the attention on the probe."""
    ui.plotly(seq2seq_bottleneck.live_length_chart(results, report), key=f"{key}.lengths")  # `key`: the replay's
    started = [(name, live) for name in seq2seq_bottleneck.MODELS if (live := report.latest(name)) is not None]
    st.markdown(
        "  \n".join(
            f"**{seq2seq_bottleneck.MODELS[name].capitalize()}** after {live.step} steps copies "
            f"{ui.literal(seq2seq_bottleneck.PROBE_TEXT)} as {ui.literal(live.prediction)}"
            for name, live in started
        )
    )
    cols = st.columns([2, 3])
    with cols[0]:
        ui.plotly(seq2seq_bottleneck.progress_chart(report), key=f"{key}.progress")
        if report.latest("gru-none") is None:
            st.info("The model without attention starts when the one with attention has finished.")
        st.caption("Without attention there is no heatmap to draw: its decoder has no attention weights, only c.")
    attended = report.latest("gru-additive")
    if attended is not None:
        with cols[1]:
            ui.plotly(seq2seq_bottleneck.probe_heatmap(attended), key=f"{key}.attention")


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    cols = st.columns(2)
    train_d = ui.linked(
        cols[0].select_slider, "Context size D of your models", list(seq2seq_bottleneck.CONTEXT_SIZES), value=32,
        key="seq2seq_bottleneck.train_d",
    )  # fmt: skip
    seed = int(ui.linked(cols[1].number_input, "Seed", 0, 9999, seq2seq_bottleneck.SEED, key="seq2seq_bottleneck.seed"))
    ui.training_panel(
        TRAIN_KEY, lambda: seq2seq_bottleneck.new_run(train_d, seed), draw, train_label="Train both",
        budget_seconds=seq2seq_bottleneck.LIVE_BUDGET_SECONDS, replay_frame=seq2seq_bottleneck.replay_frame,
    )  # fmt: skip


train_yourself()
ui.page_tail(
    lesson,
    code=[("The code that computes this", (seq2seq_bottleneck.new_training,))],
    exercises=seq2seq_bottleneck.exercises(results),
)
