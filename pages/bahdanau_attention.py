"""Lesson: Bahdanau (additive) attention (Part 2)."""

import streamlit as st

import ui
from lessons import bahdanau_attention
from minimodels.attention import AdditiveAttention
from minimodels.seq2seq import Seq2Seq
from minimodels.tasks import get_task

lesson = ui.lesson("bahdanau_attention")
ui.explain(
    "A seq2seq model without attention must squeeze the whole source sentence into one vector. Bahdanau, Cho "
    "and Bengio (2015) let the decoder **look back**: before writing each output token it scores every "
    "encoder state hₜ′ against its own previous state sₜ₋₁, turns the scores into a distribution α with a "
    "softmax, and reads the weighted sum cₜ, a fresh context vector for every step. The α's are the "
    "alignment the model learned, with no one telling it which word translates which."
)
st.latex(
    r"e_{t,t'} = v^\top \tanh\!\big(W[s_{t-1};\, h_{t'}]\big) \qquad "
    r"\alpha_{t,t'} = \frac{\exp(e_{t,t'})}{\sum_{t''} \exp(e_{t,t''})} \qquad "
    r"c_t = \sum_{t'} \alpha_{t,t'}\, h_{t'}"
)


@st.cache_data(max_entries=256, show_spinner=False)
def shipped_decoding(_shipped, task_name: str, text: str, **how) -> bahdanau_attention.Decoding | str:
    """The shipped model's decoding of ``text``: the same for every student, so computed once per input."""
    return bahdanau_attention.decode(_shipped, get_task(task_name), text, **how)


cols = st.columns([2, 3])
task_name = ui.linked(
    cols[0].selectbox,
    "Task",
    list(bahdanau_attention.TASKS),
    format_func=bahdanau_attention.TASKS.get,
    key="bahdanau_attention.task",
)
task = get_task(task_name)
loaded = ui.pretrained(task_name, bahdanau_attention.MODEL)
if loaded is None:
    st.stop()
shipped, info = loaded
model = ui.model_choice(
    shipped, ui.trained_model(f"bahdanau_attention.train.{task_name}"), key=f"bahdanau_attention.use.{task_name}"
)


def decode(text: str, **how) -> bahdanau_attention.Decoding | str:
    """The chosen model's decoding (the shipped one's are shared by every student)."""
    if model is shipped:
        return shipped_decoding(shipped, task_name, text, **how)
    return bahdanau_attention.decode(model, task, text, **how)


st.caption(bahdanau_attention.shipped_caption(shipped, info))
text = ui.linked(
    cols[1].text_input,
    "Source sentence",
    value=bahdanau_attention.default_text(task_name),
    key=f"bahdanau_attention.text.{task_name}",
    max_chars=500,
    help="Type your own. Words the model never saw become <unk>.",
)
decoding = ui.model_output(decode(text))  # nothing to decode: the student is told why

# --- Step by step -----------------------------------------------------------------------------------
st.header("1 · One output token at a time", divider="gray")
T = len(decoding.target)
STEP = "bahdanau_attention.step"
st.session_state[STEP] = min(max(1, st.session_state.get(STEP, 1)), T)


def _next_token() -> None:
    st.session_state[STEP] = min(st.session_state[STEP] + 1, T)


@st.fragment
def step_by_step() -> None:
    c = st.columns([1, 4])
    c[0].button(
        "Next token",
        on_click=_next_token,
        icon=":material/skip_next:",
        key="bahdanau_attention.next",
        disabled=st.session_state[STEP] >= T,
    )
    t = c[1].slider("Decoder step t", 1, T, key=STEP) if T > 1 else 1
    st.markdown(f"Written so far: {ui.literal(' '.join(decoding.target[:t]))}")
    alpha, context = bahdanau_attention.step_figures(decoding, t)
    left, right = st.columns(2)
    with left:
        ui.plotly(alpha, key="bahdanau_attention.alpha")
    with right:
        ui.plotly(context, key="bahdanau_attention.context")
        st.caption(
            f"Step {t} wrote {ui.literal(decoding.target[t - 1])} looking mostly at "
            f"{ui.literal(bahdanau_attention.most_attended(decoding, t - 1))}."
        )


step_by_step()

st.header("2 · The whole alignment", divider="gray")
figure = bahdanau_attention.alignment_figure(decoding, "α: which source each output read")
ui.plotly(figure, key="bahdanau_attention.heatmap")
st.caption("Hover a cell for its exact α. Crossing lines are word-order changes the model learned by itself.")

# --- Beam search ------------------------------------------------------------------------------------
st.header("3 · Greedy or beam search", divider="gray")
ui.explain(
    "Greedy decoding keeps the single best token at each step. Beam search keeps the *k* best partial "
    "outputs by log p(y | x), so a choice that looked second-best early can still win. Width 1 is greedy."
)


@st.fragment
def beam() -> None:
    width = ui.linked(st.slider, "Beam width k", 1, bahdanau_attention.MAX_BEAM, 3, key="bahdanau_attention.beam")
    result = decode(text, method="beam", width=width)
    if isinstance(result, str):
        st.warning(result)
        return
    ui.table(bahdanau_attention.beam_rows(result, task))
    st.caption(bahdanau_attention.beam_note(result, decoding))


beam()

# --- What if ----------------------------------------------------------------------------------------
st.header("4 · What if the model looked elsewhere?", divider="gray")
ui.explain(
    "Force the attention of one step onto a source token of your choice (a one-hot α) and decode again. "
    "The output often changes, but not always the way the heatmap suggests: the decoder state carries "
    "information too, so attention is not the whole explanation."
)


@st.fragment
def what_if() -> None:
    left, right = st.columns(2)
    step = left.selectbox(
        "Step", range(T), format_func=lambda i: f"{i + 1}: {decoding.target[i]}", key="bahdanau_attention.force_step"
    )
    source_index = right.selectbox(
        "Force attention onto",
        range(len(decoding.source)),
        format_func=lambda i: decoding.source[i],
        key="bahdanau_attention.force_source",
    )
    forced = decode(text, force=(step, source_index))
    st.markdown(
        f"**Original:** {ui.literal(decoding.translation.text)}  \n**Forced:** {ui.literal(forced.translation.text)}"
    )
    ui.plotly(bahdanau_attention.alignment_figure(forced, "α with the forced step"), key="bahdanau_attention.forced")


what_if()

# --- Train it yourself ----------------------------------------------------------------------------------
st.header("5 · Train it yourself", divider="gray")
budget = bahdanau_attention.budget_seconds(task_name)
ui.explain(
    f"Train a fresh GRU + additive attention model on this task, for you alone (at most {budget:g} s, or until "
    "98% of held-out sentences come out exactly right). Watch the alignment of a fixed example sharpen from "
    "a uniform blur into a path; afterwards, replay the run and use your model in the sections above."
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    seed = int(ui.linked(st.number_input, "Seed", 0, 9999, 0, key="bahdanau_attention.seed"))

    def draw(snapshot, key: str) -> None:
        ui.plotly(bahdanau_attention.snapshot_figure(snapshot), key=key)
        st.caption(f"The model's output for it now: {ui.literal(snapshot.prediction)}")

    ui.training_panel(
        f"bahdanau_attention.train.{task_name}",
        lambda: bahdanau_attention.new_run(task_name, seed, budget),
        draw,
        budget_seconds=budget,
        target=0.98,
    )


train_yourself()

italian = ui.pretrained("toy-translation-it", bahdanau_attention.MODEL)
ui.page_tail(
    lesson,
    code=[("The code that computes this", (AdditiveAttention, Seq2Seq._previous_step, bahdanau_attention.decode))],
    exercises=bahdanau_attention.exercises(italian[0]) if italian else None,
)
