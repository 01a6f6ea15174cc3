"""Lesson: Bahdanau (additive) attention (Part 2)."""

import streamlit as st

import ui
from lessons import bahdanau_attention as bahdanau
from lessons.common import charts
from lessons.common.live import TrainingRun
from lessons.common.pretrained import load_pretrained
from minimodels.attention import AdditiveAttention
from minimodels.seq2seq import Seq2Seq
from minimodels.tasks import get_task

ui.page("Bahdanau attention", icon="👀")

st.title("Bahdanau attention")
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


def show_alignment(weights, source, target, title: str, key: str) -> None:
    """An α heatmap: output tokens down, source tokens across, the exact α on hover."""
    ui.plotly(
        charts.attention_heatmap(
            weights, source, target, x_title="source token", y_title="output token", value_name="α", title=title
        ),
        key=key,
    )


@st.cache_resource(show_spinner="Loading the pretrained model…")
def pretrained(task_name: str):
    """Shared read-only by every student: never trained or modified."""
    return load_pretrained(task_name, bahdanau.MODEL)


@st.cache_data(max_entries=256, show_spinner=False)
def shipped_decoding(task_name: str, text: str, **how) -> bahdanau.Decoding | str:
    """The shipped model's decoding of ``text``: the same for every student, so computed once per input."""
    return bahdanau.decode(pretrained(task_name)[0], get_task(task_name), text, **how)


cols = st.columns([2, 3])
task_name = ui.linked(
    cols[0].selectbox, "Task", list(bahdanau.TASKS), format_func=bahdanau.TASKS.get, key="bahdanau_attention.task"
)
task = get_task(task_name)
try:
    shipped, meta = pretrained(task_name)
except (LookupError, ValueError) as error:
    st.error(f"The pretrained model for this task cannot be loaded: {error}")
    st.stop()

model = ui.model_choice(
    shipped, ui.trained_model(f"bahdanau_attention.train.{task_name}"), key=f"bahdanau_attention.use.{task_name}"
)


def decode(text: str, **how) -> bahdanau.Decoding | str:
    """``bahdanau.decode`` with the model chosen here (the shipped one's decodings are cached)."""
    if model is shipped:
        return shipped_decoding(task_name, text, **how)
    return bahdanau.decode(model, task, text, **how)


training = meta.get("training", {})
st.caption(
    f"Shipped model: GRU encoder–decoder with additive attention, {sum(p.numel() for p in shipped.parameters()):,} "
    f"parameters, trained {training.get('seconds', 0):.0f} s ({training.get('steps', '?')} steps) to "
    f"{training.get('exact_match', 0):.0%} held-out exact match."
)

text = ui.linked(
    cols[1].text_input,
    "Source sentence",
    value=bahdanau.default_text(task_name),
    key=f"bahdanau_attention.text.{task_name}",
    max_chars=500,
    help="Type your own. Words the model never saw become <unk>.",
)
decoding = decode(text)
if isinstance(decoding, str):
    st.warning(decoding)
    st.stop()
if decoding.translation.message:
    st.info(decoding.translation.message)
st.markdown(f"**Output:** {ui.literal(decoding.translation.text)}")

# --- Step by step -----------------------------------------------------------------------------------
st.header("1 · One output token at a time", divider="gray")
T = len(decoding.target)
step_key = "bahdanau_attention.step"
st.session_state.setdefault(step_key, 1)
st.session_state[step_key] = min(max(1, st.session_state[step_key]), T)


def _next_token() -> None:
    st.session_state[step_key] = min(st.session_state[step_key] + 1, T)


@st.fragment
def step_by_step() -> None:
    c = st.columns([1, 4])
    c[0].button(
        "Next token",
        on_click=_next_token,
        icon=":material/skip_next:",
        key="bahdanau_attention.next",
        disabled=st.session_state[step_key] >= T,
    )
    t = c[1].slider("Decoder step t", 1, T, key=step_key) if T > 1 else 1
    st.markdown(f"Written so far: {ui.literal(' '.join(decoding.target[:t]))}")
    left, right = st.columns(2)
    with left:
        ui.plotly(
            charts.weight_bars(
                decoding.source, decoding.weights[t - 1], title=f"α at step {t} over the source", value_name="α"
            ),
            key="bahdanau_attention.alpha",
        )
    with right:
        ui.plotly(
            charts.vector_strip(
                decoding.contexts[t - 1],
                [f"c_{t}"],
                title=f"context vector c_{t} (D = {decoding.contexts.shape[1]})",
                height=140,
            ),
            key="bahdanau_attention.context",
        )
        st.caption(
            f"Step {t} wrote {ui.literal(decoding.target[t - 1])} looking mostly at "
            f"{ui.literal(bahdanau.most_attended(decoding, t - 1))}."
        )


step_by_step()

st.header("2 · The whole alignment", divider="gray")
show_alignment(
    decoding.weights, decoding.source, decoding.target, "α: which source each output read", "bahdanau_attention.heatmap"
)
st.caption("Hover a cell for its exact α. Crossing lines are word-order changes the model learned by itself.")

# --- Beam search ------------------------------------------------------------------------------------
st.header("3 · Greedy or beam search", divider="gray")
ui.explain(
    "Greedy decoding keeps the single best token at each step. Beam search keeps the *k* best partial "
    "outputs by log p(y | x), so a choice that looked second-best early can still win. Width 1 is greedy."
)


@st.fragment
def beam() -> None:
    width = ui.linked(st.slider, "Beam width k", 1, bahdanau.MAX_BEAM, 3, key="bahdanau_attention.beam")
    result = decode(text, method="beam", width=width)
    if isinstance(result, str):
        st.warning(result)
        return
    st.dataframe(bahdanau.beam_rows(result, task), hide_index=True, width="stretch")
    same = result.translation.text == decoding.translation.text
    st.caption(
        "The best beam hypothesis is the greedy output."
        if same
        else "Beam search found a different output than greedy decoding."
    )


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
    c = st.columns(2)
    step = c[0].selectbox(
        "Step", range(T), format_func=lambda i: f"{i + 1}: {decoding.target[i]}", key="bahdanau_attention.force_step"
    )
    source_index = c[1].selectbox(
        "Force attention onto",
        range(len(decoding.source)),
        format_func=lambda i: decoding.source[i],
        key="bahdanau_attention.force_source",
    )
    forced = decode(text, force=(step, source_index))
    st.markdown(
        f"**Original:** {ui.literal(decoding.translation.text)}  \n**Forced:** {ui.literal(forced.translation.text)}"
    )
    show_alignment(forced.weights, forced.source, forced.target, "α with the forced step", "bahdanau_attention.forced")


what_if()

# --- Train it yourself ----------------------------------------------------------------------------------
st.header("5 · Train it yourself", divider="gray")
budget = 15.0 if task_name == "dates" else 90.0
ui.explain(
    f"Train a fresh GRU + additive attention model on this task, for you alone (at most {budget:g} s, or until "
    "98% of held-out sentences come out exactly right). Watch the alignment of a fixed example sharpen from "
    "a uniform blur into a path; afterwards, replay the run and use your model in the sections above."
)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    seed = int(ui.linked(st.number_input, "Seed", 0, 9999, 0, key="bahdanau_attention.seed"))

    def make_run() -> TrainingRun:
        fresh, train_fn = bahdanau.new_training(task_name, seed, budget)
        return TrainingRun(train_fn, model=fresh, name=f"bahdanau-{task_name}")

    def draw(snapshot, key: str) -> None:
        title = f"α on a fixed example after {snapshot.step} steps"
        show_alignment(snapshot.attention, snapshot.source_tokens, snapshot.target_tokens, title, key)
        st.caption(f"The model's output for it now: {ui.literal(snapshot.prediction)}")

    ui.training_panel(f"bahdanau_attention.train.{task_name}", make_run, draw, budget_seconds=budget, target=0.98)


train_yourself()

ui.show_code(AdditiveAttention, Seq2Seq._previous_step, bahdanau.decode)

st.header("Check yourself", divider="gray")
it_model, _ = pretrained("toy-translation-it")
for ex in bahdanau.exercises(it_model):
    ui.exercise(ex)

st.caption(
    "Sources: the NLP lecture on attention (“I like pizza” → “mi piace la pizza”); Bahdanau, Cho & Bengio, "
    "*Neural Machine Translation by Jointly Learning to Align and Translate*, ICLR 2015."
)
