"""Lesson: multi-head attention (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import multi_head_attention
from lessons.common.grids import head_grid
from lessons.multi_head_attention import (
    every_head,
    head_counts,
    it_instead,
    resolving_it,
    resolving_it_runs,
    split,
    split_heatmaps,
    train_yourself,
    transformer_maps,
)
from minimodels.attention import MultiHeadAttention
from minimodels.coreference import ItResolver

lesson = ui.lesson("multi_head_attention", multi_head_attention.INTRO, intro_folds=False)
st.latex(multi_head_attention.EQUATIONS)

ui.symbols("multi_head_attention")

# --- 1. The split ----------------------------------------------------------------------------------------
ui.section(split.TITLE, split.TEXT)
split_prediction = ui.cached(split.split_prediction, max_entries=1, show_spinner=False)()
ui.exercise(split_prediction)
# tensors, read only: kept as they are for every session (st.cache_data would unpickle a copy on every run)
example_of = ui.cached_resource(split.split_example, max_entries=64, show_spinner=False)
counted = ui.cached(split.parameter_table, max_entries=16, show_spinner=False)


@st.fragment
def the_split() -> None:
    tokens = ui.sentence_input(
        f"Your words (up to {split.MAX_TOKENS})",
        split.DEFAULT_SENTENCE,
        "multi_head_attention.sentence",
        split.parse,
        tokens_key="multi_head_attention.tokens",
    )
    c = st.columns([3, 3, 1])
    d_model = c[0].select_slider(
        "d_model", split.D_MODEL_CHOICES, key="multi_head_attention.d_model", value=split.LECTURE_D_MODEL
    )
    choices = split.head_choices(d_model)
    st.session_state.setdefault("multi_head_attention.heads", split.LECTURE_HEADS)
    if (wanted := st.session_state["multi_head_attention.heads"]) not in choices:
        st.info(f"d_model = {d_model} cannot be cut into {wanted} whole heads: h = {max(choices)} instead.")
        st.session_state["multi_head_attention.heads"] = max(choices)
    n_heads = c[1].select_slider("heads h", choices, key="multi_head_attention.heads")
    seed = int(c[2].number_input("Seed", 0, 9999, 0, key="multi_head_attention.seed"))
    try:
        example = example_of(tokens, d_model, n_heads, seed)
    except ValueError as error:
        st.error(str(error))
        return
    st.markdown(split.split_sentence(example, d_model))
    ui.table(split.shape_rows(example))
    for key, figure, caption in split_heatmaps.split_figures(example):  # the lecture's steps 2–3, 4 and 5
        ui.plotly(figure, key=f"multi_head_attention.{key}")
        st.caption(caption)
    metrics = split.parity_metrics(example)
    for col, (label, value, why) in zip(st.columns(len(metrics)), metrics, strict=True):
        col.metric(label, value, help=why)
    st.caption(split.PARITY_CAPTION)
    rows, sentence = counted(d_model)

    def answer() -> None:
        ui.table(rows)
        st.markdown(sentence)

    ui.reveal(
        "the parameter count for every h", answer, key="multi_head_attention.reveal_count", after=[split_prediction.key]
    )


the_split()

# --- 2. A trained model -------------------------------------------------------------------------------------
ui.section(every_head.TITLE, every_head.TEXT)
TRAIN_KEY = "multi_head_attention.train"


@ui.cached_resource(max_entries=4, show_spinner="Checking every head against the gold alignment…")
def alignment(task_name: str) -> dict[str, list[float]]:
    return transformer_maps.task_alignment(ui.pretrained(task_name, transformer_maps.MODEL)[0], task_name)


@ui.cached_resource(max_entries=16, show_spinner=False)  # the same for every student, read only: computed once
def shipped_reading(task_name: str, text: str) -> transformer_maps.Reading | str:
    return transformer_maps.read_text(ui.pretrained(task_name, transformer_maps.MODEL)[0], task_name, text)


def enlarge(reading: transformer_maps.Reading, names: list[str]) -> None:
    """One head (or the heads' mean) of one sublayer drawn large, with each head's numbers below."""
    c = st.columns([2, 3])
    name = c[0].selectbox(
        "Enlarge: sublayer",
        names,
        index=len(names) - 1,
        key="multi_head_attention.enlarge.sublayer",
        format_func=transformer_maps.sublayer_label,
    )
    options = [*range(reading.maps[name].shape[0]), "mean"]
    if st.session_state.get("multi_head_attention.enlarge.head", 0) not in options:
        st.session_state["multi_head_attention.enlarge.head"] = 0
    head = c[1].radio(
        "head", options, horizontal=True, key="multi_head_attention.enlarge.head", format_func=every_head.head_label
    )
    ui.plotly(every_head.enlarged_figure, reading, name, head, key="multi_head_attention.enlarged")
    ui.table(every_head.head_rows(reading, name))
    st.caption(every_head.HEAD_ROWS_CAPTION)


@st.fragment  # the task, the model and the sentence redraw this section only, not the whole lesson
def all_heads() -> None:
    cols = st.columns([2, 3])
    task_name = cols[0].selectbox(
        "Task", list(every_head.TASKS), format_func=every_head.TASKS.get, key="multi_head_attention.task"
    )
    if (loaded := ui.pretrained(task_name, transformer_maps.MODEL)) is None:
        return
    shipped, info = loaded
    own = ui.trained_model(TRAIN_KEY) if task_name == train_yourself.LIVE_TASK else None
    model = ui.model_choice(
        shipped,
        own,
        key="multi_head_attention.use",
        own_data=transformer_maps.MODEL,
        yours_label=every_head.yours_label(own),
    )
    reads = ui.model_data(model, task_name, task_name, every_head.default_text(task_name))  # yours, if yours
    st.caption(reads.caption or every_head.shipped_note(shipped, info))
    text = cols[1].text_input(
        "Source sentence",
        value=reads.text,
        key=f"multi_head_attention.text.{reads.name}",
        max_chars=500,
        help="Type your own. Words the model never saw become <unk>.",
    )
    reading = (
        shipped_reading(task_name, text) if model is shipped else transformer_maps.read_text(model, reads.task, text)
    )
    if isinstance(reading, str):  # not ui.model_output's refusal: that would stop the sections below as well
        st.warning(f"{reading} Nothing to show until the model can read it.")
        return
    ui.model_output(reading)
    names = transformer_maps.sublayers(list(reading.maps))
    kind = st.radio(
        "Show",
        list(transformer_maps.KINDS),
        format_func=transformer_maps.KINDS.get,
        horizontal=True,
        key="multi_head_attention.kind",
    )
    shown = transformer_maps.sublayers(names, kind)
    ui.plotly(head_grid, every_head.grid_rows(reading, shown), key="multi_head_attention.grid")
    st.caption(every_head.GRID_CAPTION)
    st.fragment(enlarge)(reading, names)
    st.subheader("Do the heads divide the work?")
    notes = every_head.specialisation_notes(reading, alignment(task_name) if model is shipped else None)
    st.markdown("\n".join(f"- {line}" for line in notes))
    st.caption(every_head.HEADS_CAUTION)


all_heads()

# --- 3. Several head counts -----------------------------------------------------------------------------------
ui.section(head_counts.TITLE)
results = ui.shipped_results(lesson, loader=head_counts.load_results, what="The measured comparison")
ui.explain(head_counts.comparison_text(results))


@st.fragment
def measured() -> None:
    ui.measured(
        results,
        rows=head_counts.results_rows(results),
        caption=head_counts.RESULTS_CAPTION,
        observations=head_counts.observations(results),
        key="multi_head_attention.shipped",
        curves=partial(head_counts.curves, results),
        note=head_counts.load_caption(results.meta),
        height=300,
    )
    name = st.radio(
        "Cross-attention heads on the fixed example, at the end of training, for",
        head_counts.probe_variants(results),
        horizontal=True,
        key="multi_head_attention.shipped.heads",
    )
    ui.plotly(head_counts.probe_grid, results, name, key="multi_head_attention.shipped.maps")


if results is not None:
    alignment_prediction = head_counts.alignment_prediction(results)
    ui.exercise(alignment_prediction)
    ui.reveal(
        "the measured results", measured, key="multi_head_attention.reveal_measured", after=[alignment_prediction.key]
    )

st.subheader("Train one yourself")
st.markdown(train_yourself.live_text())


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_one() -> None:
    c = st.columns([3, 1])
    live_heads = c[0].radio(
        "Heads",
        train_yourself.LIVE_HEADS,
        index=2,
        horizontal=True,
        format_func=lambda h: f"h = {h}",
        key="multi_head_attention.live.heads",
    )
    live_seed = int(c[1].number_input("Seed", 0, 9999, 0, key="multi_head_attention.live.seed"))

    def draw(snapshot, key: str) -> None:
        ui.plotly(train_yourself.snapshot_grid, snapshot, key=key)
        st.caption(f"The model's output for it now: {ui.literal(snapshot.prediction)}")

    budget = train_yourself.LIVE_BUDGET
    ui.training_panel(
        TRAIN_KEY,
        lambda: train_yourself.new_run(live_heads, live_seed, budget),
        draw,
        budget_seconds=budget,
        target=train_yourself.LIVE_TARGET,
    )


train_one()

# --- 4. Which head resolves "it"? ----------------------------------------------------------------------------
ui.section(resolving_it.TITLE, resolving_it.TEXT)
it_reading = ui.cached_resource(resolving_it.shipped_reading_it, max_entries=64, show_spinner=False)  # for all


@st.fragment  # typing a sentence redraws this figure only
def resolve_it() -> None:
    tokens = ui.sentence_input(
        "Your sentence, in the grammar's words",
        resolving_it.IT_DEFAULT,
        "multi_head_attention.it",
        resolving_it.parse_it,
        tokens_key="multi_head_attention.it.tokens",
    )
    reading = it_reading(tokens)
    st.markdown(resolving_it.it_answer(reading))
    ui.plotly(resolving_it.it_figure, reading, key="multi_head_attention.it.heads")
    st.caption(resolving_it.IT_FIGURE_CAPTION)


resolver = ui.pretrained("coreference", "it-resolver", loader=resolving_it.shipped_resolver)
if resolver is not None:
    switch_prediction = ui.cached(resolving_it.shipped_switch_prediction, max_entries=1, show_spinner=False)()
    ui.exercise(switch_prediction)

    def resolved() -> None:
        resolve_it()
        ui.table(resolving_it.shipped_head_rows())  # measured once per process, the same for every student
        st.caption(resolving_it.it_shipped_note(resolver[1]))
        instead_rows, instead_lines = resolving_it.shipped_instead()  # once per process, the same for every student
        lines = "\n".join(f"- {line}" for line in instead_lines)
        st.markdown(f"**The lecture's picture beside the model's**\n\n{lines}")
        ui.table(instead_rows)
        st.caption(it_instead.INSTEAD_CAPTION)

    ui.after_answering(switch_prediction.key, "the model's answer and its heads, on your sentence", resolved)
it_results = ui.shipped_results(lesson, resolving_it_runs.IT_RESULTS, loader=resolving_it_runs.load_it_results)
if it_results is not None:
    ui.measured(
        it_results,
        rows=resolving_it_runs.it_rows(it_results),
        observations=resolving_it_runs.it_observations(it_results),
        curves=partial(resolving_it_runs.it_curves, it_results),
        key="multi_head_attention.it.shipped",
        caption=resolving_it_runs.IT_ROWS_CAPTION,
        height=280,
    )

ui.page_tail(
    lesson,
    code=[
        ("The code: by hand, and the module every model uses", (split.heads_by_hand, MultiHeadAttention)),
        ("The code of section 2", (transformer_maps.read_sentence, every_head.head_rows, every_head.head_distance)),
        ("The code of section 4", (ItResolver, resolving_it.read_it, resolving_it_runs.head_measures)),
    ],
    exercises=multi_head_attention.exercises(),
)
