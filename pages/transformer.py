"""Lesson: the Transformer, the whole encoder–decoder (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import transformer
from minimodels.tasks import get_task
from minimodels.transformer import DecoderLayer, EncoderLayer, FeedForward, _Residual

lesson = ui.lesson("transformer")
st.markdown(transformer.INTRO)
st.latex(transformer.EQUATIONS)
st.caption(transformer.layer_norm_note())

cols = st.columns([2, 3])
task_name = cols[0].selectbox(
    "Task", list(transformer.TASKS), format_func=transformer.TASKS.get, key="transformer.task"
)
task = get_task(task_name)
if (loaded := ui.pretrained(task_name, transformer.MODEL)) is None:
    st.stop()
shipped, info = loaded

model = ui.model_choice(shipped, ui.trained_model(f"transformer.train.{task_name}"), key=f"transformer.use.{task_name}",
                        own_data=transformer.MODEL)  # fmt: skip
reads = ui.model_data(model, task, task_name, transformer.DEFAULT_TEXT[task_name])  # your own data's, if yours
task = reads.task
st.caption(reads.caption or transformer.shipped_note(shipped, info))

with cols[1]:
    words = ui.sentence_input("Your sentence", reads.text, f"transformer.text.{reads.name}", transformer.parser(task),
                              tokens_key=f"transformer.tokens.{reads.name}")  # fmt: skip
text = " ".join(words)
w = ui.model_output(
    ui.shared_view(transformer.walk, model, task, text)
)  # a refusal cannot happen for parsed text; said if it does

# --- The diagram -------------------------------------------------------------------------------------
ui.section(
    "1 · Your sentence through the model",
    "The model as it runs on your sentence, read from the bottom up: the shapes in the boxes and on the arrows are "
    f"this sentence's ({len(w.source)} source tokens, {len(w.output)} output positions, d_model = {w.config.d_model}). "
    "The encoder runs once; its output is the keys and values of *every* decoder layer's encoder–decoder "
    "attention. The decoder runs once per output token, fed its own previous outputs.",
)
ui.plotly(transformer.diagram_figure, transformer.block_diagram(w), key="transformer.diagram")
st.caption(transformer.maps_caption(w.config))

# --- Every map ---------------------------------------------------------------------------------------
ui.section(
    "2 · Every layer, every head",
    "Pick a kind of attention and a layer. Rows are queries, columns keys; each row is a softmax and sums to 1. "
    "Heads of one layer run side by side on the same input, each with its own W^Q, W^K, W^V: compare what they "
    "pick.",
)


@st.fragment
def every_head() -> None:
    c = st.columns([3, 1, 2])
    kind = transformer.KIND[c[0].radio("Attention", [k.key for k in transformer.KINDS], key="transformer.kind",
                                       format_func=lambda k: transformer.KIND[k].label)]  # fmt: skip
    layers = transformer.layer_count(w.config, kind)
    layer = c[1].selectbox("Layer", range(layers), format_func=lambda i: f"{i + 1}", key="transformer.layer")
    head = c[2].selectbox("Head", transformer.head_choices(w.config), key="transformer.head")
    st.caption(kind.note)
    key = "transformer.heads" if head == transformer.ALL_HEADS else "transformer.head_map"
    ui.plotly(transformer.layer_figure, w, kind, layer, head, key=key)
    ui.table(transformer.head_summary(w, kind, layer))
    if st.toggle(f"Show all {transformer.maps_per_sentence(w.config)} maps at once", key="transformer.every_map"):
        ui.plotly(transformer.heads_grid, transformer.every_map(w), row_height=230, key="transformer.every")


every_head()
st.caption(transformer.DECODER_ROWS_NOTE)

# --- "it" ---------------------------------------------------------------------------------------------
ui.section("3 · What does “it” refer to? An honest look")


@ui.cached_resource(show_spinner=False)
def it_checks() -> tuple[transformer.LectureCheck, transformer.PronounCheck | None]:
    return transformer.it_checks(ui.pretrained("toy-translation", transformer.MODEL)[0])


lecture, pronoun = it_checks()
for paragraph in transformer.it_lines(lecture, pronoun):
    st.markdown(paragraph)
if pronoun is None:
    st.info("The shipped translator does not translate “I see it” as its grammar does, so there is nothing to show.")

# --- Residuals, layer norm and the feed-forward network -----------------------------------------------
ui.section("4 · Residuals, layer norm and the feed-forward network, by their effect", transformer.ABLATION_TEXT)
if not isinstance(check := ui.shared_view(transformer.convex_check, model, task, text), str):
    ui.plotly(transformer.convex_figure, check, key="transformer.convex")
    st.markdown(transformer.convex_text(check))
if (results := ui.shipped_results(lesson)) is not None:
    for prediction in filter(None, (transformer.residual_prediction(results), transformer.ffn_prediction(results))):
        ui.exercise(prediction)

    def ablation() -> None:
        ui.measured(
            results, rows=transformer.table_rows(results), observations=transformer.observations(results),
            curves=partial(transformer.ablation_curves, results), key="transformer.ablation",
            note=transformer.provenance_note(results.meta), axis_key="transformer.axis",
            height=transformer.CHART_HEIGHT,
        )  # fmt: skip

    ui.reveal("the measured results", ablation, key="transformer.reveal_ablation", predictions=2)

# --- Depth ---------------------------------------------------------------------------------------------
ui.section("5 · Deeper stacks, with and without residuals", transformer.DEPTH_TEXT)
sweep = ui.shipped_results(lesson, lesson.results[1], loader="load_depth_results", what="The depth sweep")
if sweep is not None:
    if (prediction := transformer.depth_prediction(sweep)) is not None:
        ui.exercise(prediction)

    def depth() -> None:
        ui.measured(
            sweep, rows=transformer.depth_rows(sweep), observations=transformer.depth_observations(sweep),
            curves=partial(transformer.depth_curves, sweep), key="transformer.depth", names=("loss", "exact"),
            note=transformer.depth_provenance_note(sweep.meta), height=transformer.CHART_HEIGHT,
        )  # fmt: skip

    ui.reveal("the depth sweep", depth, key="transformer.reveal_depth")

# --- Teacher forcing, then beam search ---------------------------------------------------------------------
ui.section("6 · Teacher forcing, then beam search", transformer.DECODING_TEXT)
forced = ui.shared_view(transformer.teacher_forcing, model, task)
st.markdown(transformer.teacher_forcing_text(forced))
ui.table(forced.rows, formats={"p(gold)": "%.4f"})


@st.fragment  # the beam width reruns this figure only
def beams() -> None:
    width = ui.linked(st.slider, "Beam width k", 1, transformer.MAX_BEAM, 3, key="transformer.beam")
    view = ui.shared_view(transformer.beam_view, model, task, text, width)
    if isinstance(view, str):
        st.warning(view)
        return
    ui.plotly(transformer.beam_figure(view), key="transformer.beams")
    st.markdown(transformer.beam_text(view, w.translation.text))
    ui.table(transformer.beam_rows(view), formats={"log p": "%.4f", "p": "%.4f"})


beams()

# --- Train it yourself ---------------------------------------------------------------------------------
ui.section("7 · Train it yourself", transformer.train_text(task_name))


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_yourself() -> None:
    c = st.columns([2, 1, 2])
    variant = c[0].selectbox(
        "Variant", list(transformer.VARIANTS), format_func=transformer.VARIANT_LABELS.get, key="transformer.variant"
    )
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="transformer.seed"))
    budget = c[2].select_slider("Seconds at most", [5, 15, 30, 60, 120], value=60, key="transformer.budget")

    def draw(snapshot, key: str) -> None:
        ui.plotly(transformer.heads_grid, transformer.probe_panels(snapshot), row_height=300, key=key)
        st.caption(
            f"Encoder–decoder attention on the fixed example after {snapshot.step} steps (teacher forced: rows are "
            f"the correct output). The model's own output for it now: {ui.literal(snapshot.prediction)}"
        )

    ui.training_panel(
        f"transformer.train.{task_name}",
        lambda: transformer.new_run(task_name, variant, seed, budget),
        draw,
        budget_seconds=float(budget),
        target=transformer.LIVE_TARGET,
    )


train_yourself()

ui.page_tail(
    lesson,
    code=[
        ("The model's code (minimodels.transformer)", (EncoderLayer, DecoderLayer, _Residual, FeedForward)),
        ("The code of this page", (transformer.walk, transformer.block_diagram, transformer.new_training)),
    ],
    exercises=ui.shared_view(transformer.exercises, shipped, get_task(task_name)),  # once per server and task
)
