"""Lesson: multi-head attention (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import multi_head_attention
from lessons.common.charts import head_grid
from minimodels.attention import MultiHeadAttention
from minimodels.coreference import ItResolver

lesson = ui.lesson("multi_head_attention")
st.markdown(multi_head_attention.INTRO)
st.latex(multi_head_attention.EQUATIONS)

# --- 1. The split ----------------------------------------------------------------------------------------
ui.section("1 · Split into h heads, with real shapes", multi_head_attention.SPLIT_TEXT)
ui.exercise(ui.cached(multi_head_attention.split_prediction, max_entries=1, show_spinner=False)())
split = ui.cached(multi_head_attention.split_example, max_entries=64, show_spinner=False)
counted = ui.cached(multi_head_attention.parameter_table, max_entries=16, show_spinner=False)


@st.fragment
def the_split() -> None:
    tokens = ui.sentence_input(f"Your words (up to {multi_head_attention.MAX_TOKENS})",
                               multi_head_attention.DEFAULT_SENTENCE, "multi_head_attention.sentence",
                               multi_head_attention.parse, tokens_key="multi_head_attention.tokens")  # fmt: skip
    c = st.columns([3, 3, 1])
    d_model = c[0].select_slider("d_model", multi_head_attention.D_MODEL_CHOICES, key="multi_head_attention.d_model",
                                 value=multi_head_attention.LECTURE_D_MODEL)  # fmt: skip
    choices = multi_head_attention.head_choices(d_model)
    st.session_state.setdefault("multi_head_attention.heads", multi_head_attention.LECTURE_HEADS)
    if (wanted := st.session_state["multi_head_attention.heads"]) not in choices:
        st.info(f"d_model = {d_model} cannot be cut into {wanted} whole heads: h = {max(choices)} instead.")
        st.session_state["multi_head_attention.heads"] = max(choices)
    n_heads = c[1].select_slider("heads h", choices, key="multi_head_attention.heads")
    seed = int(c[2].number_input("Seed", 0, 9999, 0, key="multi_head_attention.seed"))
    try:
        example = split(tokens, d_model, n_heads, seed)
    except ValueError as error:
        st.error(str(error))
        return
    st.markdown(multi_head_attention.split_sentence(example, d_model))
    ui.table(multi_head_attention.shape_rows(example))
    for key, figure, caption in multi_head_attention.split_figures(example):  # the lecture's steps 2–3, 4 and 5
        ui.plotly(figure, key=f"multi_head_attention.{key}")
        st.caption(caption)
    metrics = multi_head_attention.parity_metrics(example)
    for col, (label, value, why) in zip(st.columns(len(metrics)), metrics, strict=True):
        col.metric(label, value, help=why)
    st.caption(multi_head_attention.PARITY_CAPTION)
    rows, sentence = counted(d_model)

    def answer() -> None:
        ui.table(rows)
        st.markdown(sentence)

    ui.reveal("the parameter count for every h", answer, key="multi_head_attention.reveal_count")


the_split()

# --- 2. A trained model -------------------------------------------------------------------------------------
ui.section("2 · Every head of a trained Transformer", multi_head_attention.EVERY_HEAD_TEXT)
TRAIN_KEY = "multi_head_attention.train"


@ui.cached(max_entries=4, show_spinner="Checking every head against the gold alignment…")
def alignment(task_name: str) -> dict[str, list[float]]:
    return multi_head_attention.task_alignment(ui.pretrained(task_name, multi_head_attention.MODEL)[0], task_name)


@ui.cached(max_entries=16, show_spinner=False)  # the same for every student: computed once (~60 ms a run)
def shipped_reading(task_name: str, text: str) -> multi_head_attention.Reading | str:
    return multi_head_attention.read_text(ui.pretrained(task_name, multi_head_attention.MODEL)[0], task_name, text)


def enlarge(reading: multi_head_attention.Reading, names: list[str]) -> None:
    """One head (or the heads' mean) of one sublayer drawn large, with each head's numbers below."""
    c = st.columns([2, 3])
    name = c[0].selectbox("Enlarge: sublayer", names, index=len(names) - 1, key="multi_head_attention.enlarge.sublayer",
                          format_func=multi_head_attention.sublayer_label)  # fmt: skip
    options = [*range(reading.maps[name].shape[0]), "mean"]
    if st.session_state.get("multi_head_attention.enlarge.head", 0) not in options:
        st.session_state["multi_head_attention.enlarge.head"] = 0
    head = c[1].radio("head", options, horizontal=True, key="multi_head_attention.enlarge.head",
                      format_func=multi_head_attention.head_label)  # fmt: skip
    ui.plotly(multi_head_attention.enlarged_figure, reading, name, head, key="multi_head_attention.enlarged")
    ui.table(multi_head_attention.head_rows(reading, name))
    st.caption(multi_head_attention.HEAD_ROWS_CAPTION)


@st.fragment  # the task, the model and the sentence redraw this section only, not the whole lesson
def every_head() -> None:
    cols = st.columns([2, 3])
    task_name = cols[0].selectbox("Task", list(multi_head_attention.TASKS), format_func=multi_head_attention.TASKS.get,
                                  key="multi_head_attention.task")  # fmt: skip
    if (loaded := ui.pretrained(task_name, multi_head_attention.MODEL)) is None:
        return
    shipped, info = loaded
    own = ui.trained_model(TRAIN_KEY) if task_name == multi_head_attention.LIVE_TASK else None
    model = ui.model_choice(shipped, own, key="multi_head_attention.use", own_data=multi_head_attention.MODEL,
                            yours_label=multi_head_attention.yours_label(own))  # fmt: skip
    reads = ui.model_data(model, task_name, task_name, multi_head_attention.default_text(task_name))  # yours, if yours
    st.caption(reads.caption or multi_head_attention.shipped_note(shipped, info))
    text = cols[1].text_input("Source sentence", value=reads.text, key=f"multi_head_attention.text.{reads.name}",
                              max_chars=500, help="Type your own. Words the model never saw become <unk>.")  # fmt: skip
    reading = (
        shipped_reading(task_name, text)
        if model is shipped
        else multi_head_attention.read_text(model, reads.task, text)
    )
    if isinstance(reading, str):  # not ui.model_output's refusal: that would stop the sections below as well
        st.warning(f"{reading} Nothing to show until the model can read it.")
        return
    ui.model_output(reading)
    names = multi_head_attention.sublayers(list(reading.maps))
    kind = st.radio("Show", list(multi_head_attention.KINDS), format_func=multi_head_attention.KINDS.get,
                    horizontal=True, key="multi_head_attention.kind")  # fmt: skip
    shown = multi_head_attention.sublayers(names, kind)
    ui.plotly(head_grid, multi_head_attention.grid_rows(reading, shown), key="multi_head_attention.grid")
    st.caption(multi_head_attention.GRID_CAPTION)
    st.fragment(enlarge)(reading, names)
    st.subheader("Do the heads divide the work?")
    notes = multi_head_attention.specialisation_notes(reading, alignment(task_name) if model is shipped else None)
    st.markdown("\n".join(f"- {line}" for line in notes))
    st.caption(multi_head_attention.HEADS_CAUTION)


every_head()

# --- 3. Several head counts -----------------------------------------------------------------------------------
ui.section(multi_head_attention.COMPARISON_TITLE)
results = ui.shipped_results(lesson, what="The measured comparison")
ui.explain(multi_head_attention.comparison_text(results))


@st.fragment
def measured() -> None:
    ui.measured(results, rows=multi_head_attention.results_rows(results), caption=multi_head_attention.RESULTS_CAPTION,
                observations=multi_head_attention.observations(results), key="multi_head_attention.shipped",
                curves=partial(multi_head_attention.curves, results), note=multi_head_attention.SHARED_NOTE,
                height=300)  # fmt: skip
    name = st.radio("Cross-attention heads on the fixed example, at the end of training, for",
                    multi_head_attention.probe_variants(results), horizontal=True,
                    key="multi_head_attention.shipped.heads")  # fmt: skip
    ui.plotly(multi_head_attention.probe_grid, results, name, key="multi_head_attention.shipped.maps")


if results is not None:
    ui.exercise(multi_head_attention.alignment_prediction(results))
    ui.reveal("the measured results", measured, key="multi_head_attention.reveal_measured")

st.subheader("Train one yourself")
st.markdown(multi_head_attention.live_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([3, 1])
    live_heads = c[0].radio("Heads", multi_head_attention.RESULT_HEADS, index=2, horizontal=True,
                            format_func=lambda h: f"h = {h}", key="multi_head_attention.live.heads")  # fmt: skip
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="multi_head_attention.live.seed"))

    def draw(snapshot, key: str) -> None:
        ui.plotly(multi_head_attention.snapshot_grid, snapshot, key=key)
        st.caption(f"The model's output for it now: {ui.literal(snapshot.prediction)}")

    budget = multi_head_attention.LIVE_BUDGET
    ui.training_panel(TRAIN_KEY, lambda: multi_head_attention.new_run(live_heads, live_seed, budget), draw,
                      budget_seconds=budget, target=multi_head_attention.LIVE_TARGET)  # fmt: skip


train_yourself()

# --- 4. Which head resolves "it"? ----------------------------------------------------------------------------
ui.section(multi_head_attention.IT_TITLE, multi_head_attention.IT_TEXT)
it_reading = ui.cached(multi_head_attention.shipped_reading_it, max_entries=64, show_spinner=False)  # for all


@st.fragment  # typing a sentence redraws this figure only
def resolve_it() -> None:
    tokens = ui.sentence_input("Your sentence, in the grammar's words", multi_head_attention.IT_DEFAULT,
                               "multi_head_attention.it", multi_head_attention.parse_it,
                               tokens_key="multi_head_attention.it.tokens")  # fmt: skip
    reading = it_reading(tokens)
    st.markdown(multi_head_attention.it_answer(reading))
    ui.plotly(multi_head_attention.it_figure, reading, key="multi_head_attention.it.heads")
    st.caption(multi_head_attention.IT_FIGURE_CAPTION)


resolver = ui.pretrained("coreference", "it-resolver", loader=multi_head_attention.shipped_resolver)
if resolver is not None:
    ui.exercise(ui.cached(multi_head_attention.shipped_switch_prediction, max_entries=1, show_spinner=False)())
    resolve_it()
    ui.table(multi_head_attention.shipped_head_rows())  # measured once per process, the same for every student
    st.caption(multi_head_attention.it_shipped_note(resolver[1]))
it_results = ui.shipped_results(lesson, multi_head_attention.IT_RESULTS, loader="load_it_results")
if it_results is not None:
    ui.measured(it_results, rows=multi_head_attention.it_rows(it_results),
                observations=multi_head_attention.it_observations(it_results),
                curves=partial(multi_head_attention.it_curves, it_results), key="multi_head_attention.it.shipped",
                caption=multi_head_attention.IT_ROWS_CAPTION, height=280)  # fmt: skip

ui.page_tail(lesson, code=[
    ("The code: by hand, and the module every model uses", (multi_head_attention.heads_by_hand, MultiHeadAttention)),
    ("The code of section 2",
     (multi_head_attention.read_sentence, multi_head_attention.head_rows, multi_head_attention.head_distance)),
    ("The code of section 4", (ItResolver, multi_head_attention.read_it, multi_head_attention.head_measures)),
], exercises=multi_head_attention.tail_exercises())  # fmt: skip
