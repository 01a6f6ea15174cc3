"""Lesson: Bahdanau (additive) attention (Part 2)."""

import streamlit as st

import ui
from lessons import bahdanau_attention
from minimodels.attention import AdditiveAttention
from minimodels.seq2seq import Seq2Seq
from minimodels.tasks import get_task

lesson = ui.lesson("bahdanau_attention")
ui.explain(bahdanau_attention.INTRO)
st.latex(bahdanau_attention.equations())
ui.symbols("bahdanau_attention")


measured_cost = ui.cached(bahdanau_attention.measure_cost, max_entries=4, show_spinner="Timing both decoders…")

cols = st.columns([2, 3])
task_name = ui.linked(cols[0].selectbox, "Task", list(bahdanau_attention.TASKS),
                      format_func=bahdanau_attention.TASKS.get, key="bahdanau_attention.task")  # fmt: skip
task = get_task(task_name)
loaded = ui.pretrained(task_name, bahdanau_attention.MODEL)
if loaded is None:
    st.stop()
shipped, info = loaded
model = ui.model_choice(shipped, ui.trained_model(f"bahdanau_attention.train.{task_name}"),
                        key=f"bahdanau_attention.use.{task_name}", own_data=bahdanau_attention.MODEL)  # fmt: skip
reads = ui.model_data(model, task, task_name, bahdanau_attention.default_text(task_name))  # your own data's, if yours
task = reads.task


def run(what: str, text: str, **how):
    """The chosen model's decoding or walk (a shipped one's computed once per server and shared by every student)."""
    return ui.shared_view(getattr(bahdanau_attention, what), model, task, text, **how)


st.caption(reads.caption or bahdanau_attention.model_caption(model, shipped, info))
text = ui.linked(cols[1].text_input, "Source sentence", value=reads.text, key=f"bahdanau_attention.text.{reads.name}",
                 max_chars=500,
                 help="Type your own. Words the model never saw become <unk>.")  # fmt: skip
decoding = ui.model_output(run("decode", text))  # nothing to decode: the student is told why

st.header("1 · One output token at a time", divider="gray")
ui.explain(bahdanau_attention.STEP_TEXT)
T = len(decoding.target)
STEP = "bahdanau_attention.step"
st.session_state[STEP] = min(max(1, st.session_state.get(STEP, 1)), T)


def _next_token() -> None:
    st.session_state[STEP] = min(st.session_state[STEP] + 1, T)


@st.fragment
def step_by_step() -> None:
    c = st.columns([1, 4])
    c[0].button("Next token", on_click=_next_token, icon=":material/skip_next:", key="bahdanau_attention.next",
                disabled=st.session_state[STEP] >= T)  # fmt: skip
    t = c[1].slider("Decoder step t", 1, T, key=STEP) if T > 1 else 1
    st.markdown(f"Written so far: {ui.literal(' '.join(decoding.target[:t]))}")
    steps = run("walk", text)
    alpha, context = bahdanau_attention.step_figures(decoding, t)
    left, right = st.columns(2)
    with left:
        ui.plotly(alpha, key="bahdanau_attention.alpha")
    ui.table(bahdanau_attention.score_rows(steps, t), formats={"score eₜ,ᵢ": "%.3f", "αₜ,ᵢ = softmax(e)": "%.4f"},
             container=right)  # fmt: skip
    ui.plotly(context, key="bahdanau_attention.context")
    left, right = st.columns(2)
    ui.table(bahdanau_attention.vector_rows(steps, t), formats={"‖·‖": "%.3f"}, container=left)
    ui.table(bahdanau_attention.top_rows(steps, t), formats={"p(yₜ | y₍<t₎, x)": "%.4f"}, container=right)
    st.caption(bahdanau_attention.step_sentence(steps, t))


step_by_step()

st.header("2 · The whole alignment", divider="gray")
figure = bahdanau_attention.alignment_figure(decoding, "α: which source each output read")
ui.plotly(figure, key="bahdanau_attention.heatmap")
st.caption(bahdanau_attention.alignment_note(decoding))

st.header("3 · The lecture's example: c⟨1⟩ as a weighted sum", divider="gray")
ui.explain(bahdanau_attention.JANE_TEXT)


@st.fragment
def weighted_sum() -> None:
    french = ui.pretrained("toy-translation", bahdanau_attention.MODEL)
    if french is None:
        return
    fr = model if task_name == "toy-translation" and reads.caption is None else french[0]  # not your own data's
    c = st.columns([3, 2])
    jane = ui.linked(c[0].text_input, "English sentence", value=bahdanau_attention.JANE, key="bahdanau_attention.jane",
                     max_chars=200)  # fmt: skip
    result = ui.shared_view(bahdanau_attention.decode, fr, get_task("toy-translation"), jane)
    if isinstance(result, str):
        st.warning(result)
        return
    t = c[1].slider("Output step t", 1, len(result.target), 1, key="bahdanau_attention.jane_step")
    st.markdown(f"**French-like output:** {ui.literal(result.translation.text)}")
    if result.translation.message:  # unknown words, text cut
        st.info(result.translation.message)
    ui.plotly(bahdanau_attention.weighted_sum_figure, result, t, key="bahdanau_attention.jane_sum")
    st.caption(f"{bahdanau_attention.weighted_sum_sentence(result, t)} Model: {fr.config.describe()}.")


weighted_sum()

st.header("4 · Greedy or beam search", divider="gray")
ui.explain(bahdanau_attention.BEAM_TEXT)


@st.fragment
def beam() -> None:
    width = ui.linked(st.slider, "Beam width k", 1, bahdanau_attention.MAX_BEAM, 3, key="bahdanau_attention.beam")
    result = run("decode", text, method="beam", width=width)
    if isinstance(result, str):
        st.warning(result)
        return
    ui.table(bahdanau_attention.beam_rows(result, task))
    st.caption(bahdanau_attention.beam_note(result, decoding))


beam()

st.header("5 · What if the model looked elsewhere?", divider="gray")
ui.explain(bahdanau_attention.WHAT_IF_TEXT)


@st.fragment
def what_if() -> None:
    left, right = st.columns(2)
    step = left.selectbox("Step", range(T), format_func=lambda i: f"{i + 1}: {decoding.target[i]}",
                          key="bahdanau_attention.force_step")  # fmt: skip
    source_index = right.selectbox("Force attention onto", range(len(decoding.source)),
                                   format_func=lambda i: decoding.source[i],
                                   key="bahdanau_attention.force_source")  # fmt: skip
    forced = run("decode", text, force=(step, source_index))
    st.markdown(
        f"**Original:** {ui.literal(decoding.translation.text)}  \n**Forced:** {ui.literal(forced.translation.text)}"
    )
    ui.plotly(bahdanau_attention.alignment_figure, forced, "α with the forced step", key="bahdanau_attention.forced")
    st.caption(bahdanau_attention.forced_note(forced, decoding, step, source_index))


what_if()

st.header("6 · What attention costs", divider="gray")
cost = measured_cost(shipped.config)
ui.explain(bahdanau_attention.COST_TEXT.format(batch=cost.batch, repeats=cost.repeats))
left, right = st.columns(2)
time_chart, memory_chart = bahdanau_attention.cost_charts(cost)
ui.vega(time_chart, key="bahdanau_attention.cost.time", container=left)
ui.vega(memory_chart, key="bahdanau_attention.cost.memory", container=right)
st.markdown(bahdanau_attention.cost_sentence(cost))
st.caption(bahdanau_attention.cost_caption(cost))

st.header("7 · Train it yourself", divider="gray")
budget = bahdanau_attention.budget_seconds(task_name)
ui.explain(bahdanau_attention.train_text(budget))


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([1, 2])
    seed = int(ui.linked(c[0].number_input, "Seed", 0, 9999, 0, key="bahdanau_attention.seed"))
    both_ways = ui.linked(c[1].toggle, bahdanau_attention.BIDIRECTIONAL_LABEL, value=False,
                          key="bahdanau_attention.bidirectional")  # fmt: skip

    def draw(snapshot, key: str) -> None:
        ui.plotly(bahdanau_attention.snapshot_figure, snapshot, key=key)
        st.caption(f"The model's output for it now: {ui.literal(snapshot.prediction)}")

    ui.training_panel(f"bahdanau_attention.train.{task_name}",
                      lambda: bahdanau_attention.new_run(task_name, seed, budget, both_ways), draw,
                      budget_seconds=budget, target=0.98)  # fmt: skip
    run_now = ui.current_run(f"bahdanau_attention.train.{task_name}")
    if run_now is not None:
        st.caption(f"This run's model: {run_now.model.config.describe()}.")


train_yourself()

italian = ui.pretrained("toy-translation-it", bahdanau_attention.MODEL)
ui.page_tail(
    lesson,
    code=[("The code that computes this", (AdditiveAttention, Seq2Seq._previous_step, bahdanau_attention.walk))],
    exercises=ui.shared_view(bahdanau_attention.exercises, italian[0]) if italian else None,  # once per server
)
