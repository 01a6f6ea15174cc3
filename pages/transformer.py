"""Lesson: the Transformer, the whole encoder–decoder (Part 2)."""

from functools import partial

import streamlit as st

import ui
from lessons import transformer
from lessons.transformer import (
    ablation,
    ablation_runs,
    convex_combination,
    decoding,
    depth,
    diagram,
    every_head,
    maps,
    reading,
    resolving_it,
    train_it_yourself,
)
from minimodels.tasks import get_task
from minimodels.transformer import DecoderLayer, EncoderLayer, FeedForward, _Residual

lesson = ui.lesson("transformer", transformer.INTRO, intro_folds=False)
st.latex(transformer.EQUATIONS)
st.caption(transformer.layer_norm_note())

ui.symbols("transformer")


@ui.cached_resource(show_spinner=False)
def it_checks() -> tuple[resolving_it.LectureCheck, resolving_it.PronounCheck | None]:
    return resolving_it.it_checks(ui.pretrained("toy-translation", reading.MODEL)[0])


@st.fragment  # the task, the model and the sentence rerun what depends on them, not the lesson's introduction
def on_the_task() -> None:
    cols = st.columns([2, 3])
    task_name = cols[0].selectbox("Task", list(reading.TASKS), format_func=reading.TASKS.get, key="transformer.task")
    task = get_task(task_name)
    if (loaded := ui.pretrained(task_name, reading.MODEL)) is None:
        return
    shipped, info = loaded

    model = ui.model_choice(
        shipped,
        ui.trained_model(f"transformer.train.{task_name}"),
        key=f"transformer.use.{task_name}",
        own_data=reading.MODEL,
    )
    reads = ui.model_data(model, task, task_name, reading.DEFAULT_TEXT[task_name])  # your own data's, if yours
    task = reads.task
    own_run = ui.current_run(f"transformer.train.{task_name}")
    st.caption(reads.caption or reading.model_note(model, shipped, info, own_run.latest if own_run else None))

    with cols[1]:
        words = ui.sentence_input(
            "Your sentence",
            reads.text,
            f"transformer.text.{reads.name}",
            reading.parser(task),
            tokens_key=f"transformer.tokens.{reads.name}",
        )
    text = " ".join(words)
    # a refusal cannot happen for parsed text; said if it does
    w = ui.model_output(ui.shared_view(reading.walk, model, task, text))

    # --- The diagram -------------------------------------------------------------------------------------
    ui.section(diagram.TITLE, diagram.text(w))
    ui.plotly(diagram.diagram_figure, diagram.block_diagram(w), key="transformer.diagram")
    st.caption(diagram.maps_caption(w.config))

    # --- Every map ---------------------------------------------------------------------------------------
    ui.section(every_head.TITLE, every_head.TEXT)

    @st.fragment
    def one_layer() -> None:
        c = st.columns([3, 1, 2])
        picked = c[0].radio(
            "Attention", [k.key for k in maps.KINDS], key="transformer.kind", format_func=lambda k: maps.KIND[k].label
        )
        kind = maps.KIND[picked]
        layers = maps.layer_count(w.config, kind)
        layer = c[1].selectbox("Layer", range(layers), format_func=lambda i: f"{i + 1}", key="transformer.layer")
        head = c[2].selectbox("Head", every_head.head_choices(w.config), key="transformer.head")
        st.caption(kind.note)
        key = "transformer.heads" if head == every_head.ALL_HEADS else "transformer.head_map"
        ui.plotly(every_head.layer_figure, w, kind, layer, head, key=key)
        ui.table(every_head.head_summary(w, kind, layer))
        if st.toggle(f"Show all {maps.maps_per_sentence(w.config)} maps at once", key="transformer.every_map"):
            ui.plotly(maps.heads_grid, every_head.every_map(w), row_height=230, key="transformer.every")

    one_layer()
    st.caption(every_head.DECODER_ROWS_NOTE)

    # --- "it" ---------------------------------------------------------------------------------------------
    ui.section(resolving_it.TITLE)

    lecture, pronoun = it_checks()
    for paragraph in resolving_it.it_lines(lecture, pronoun):
        st.markdown(paragraph)
    if pronoun is None:
        st.info(resolving_it.NOT_TRANSLATED)

    # --- Residuals, layer norm and the feed-forward network -----------------------------------------------
    ui.section(ablation.TITLE, ablation.TEXT)
    if not isinstance(check := ui.shared_view(convex_combination.convex_check, model, task, text), str):
        ui.plotly(convex_combination.convex_figure, check, key="transformer.convex")
        st.markdown(convex_combination.convex_text(check))
    if (results := ui.shipped_results(lesson, loader=ablation_runs.load_results)) is not None:
        ablation_predictions = list(
            filter(None, (ablation.residual_prediction(results), ablation.ffn_prediction(results)))
        )
        for prediction in ablation_predictions:
            ui.exercise(prediction)

        def measured_ablation() -> None:
            ui.measured(
                results,
                rows=ablation.table_rows(results),
                observations=ablation.observations(results),
                curves=partial(ablation.ablation_curves, results),
                key="transformer.ablation",
                note=ablation.provenance_note(results.meta),
                axis_key="transformer.axis",
                height=ablation.CHART_HEIGHT,
            )

        ui.reveal(
            "the measured results",
            measured_ablation,
            key="transformer.reveal_ablation",
            predictions=2,
            after=[p.key for p in ablation_predictions],
        )

    # --- Depth ---------------------------------------------------------------------------------------------
    ui.section(depth.TITLE, depth.TEXT)
    sweep = ui.shipped_results(lesson, lesson.results[1], loader=depth.load_depth_results, what="The depth sweep")
    if sweep is not None:
        if (depth_prediction := depth.depth_prediction(sweep)) is not None:
            ui.exercise(depth_prediction)

        def measured_depth() -> None:
            ui.measured(
                sweep,
                rows=depth.depth_rows(sweep),
                observations=depth.depth_observations(sweep),
                curves=partial(depth.depth_curves, sweep),
                key="transformer.depth",
                names=("loss", "exact"),
                note=depth.depth_provenance_note(sweep.meta),
                height=ablation.CHART_HEIGHT,
            )

        ui.reveal(
            "the depth sweep",
            measured_depth,
            key="transformer.reveal_depth",
            after=[depth_prediction.key] if depth_prediction is not None else [],
        )

    # --- Teacher forcing, then beam search ---------------------------------------------------------------------
    ui.section(decoding.TITLE, decoding.TEXT)
    forced = ui.shared_view(decoding.teacher_forcing, model, task)
    st.markdown(decoding.teacher_forcing_text(forced))
    ui.table(forced.rows, formats={"p(gold)": "%.4f"})

    @st.fragment  # the beam width reruns this figure only
    def beams() -> None:
        width = ui.linked(st.slider, "Beam width k", 1, decoding.MAX_BEAM, 3, key="transformer.beam")
        view = ui.shared_view(decoding.beam_view, model, task, text, width)
        if isinstance(view, str):
            st.warning(view)
            return
        ui.plotly(decoding.beam_figure(view), key="transformer.beams")
        st.markdown(decoding.beam_text(view, w.translation.text))
        ui.table(decoding.beam_rows(view), formats={"log p": "%.4f", "p": "%.4f"})

    beams()

    # --- Train it yourself ---------------------------------------------------------------------------------
    ui.section(train_it_yourself.TITLE, train_it_yourself.text(task_name))

    @st.fragment  # moving these controls reruns this section only, not the whole lesson
    def train_yourself() -> None:
        c = st.columns([2, 1, 2])
        variant = c[0].selectbox(
            "Variant",
            list(ablation_runs.VARIANTS),
            format_func=ablation_runs.VARIANT_LABELS.get,
            key="transformer.variant",
        )
        seed = int(c[1].number_input("Seed", 0, 9999, 0, key="transformer.seed"))
        budget = c[2].select_slider("Seconds at most", [5, 15, 30, 60, 120], value=60, key="transformer.budget")

        def draw(snapshot, key: str) -> None:
            ui.plotly(maps.heads_grid, train_it_yourself.probe_panels(snapshot), row_height=300, key=key)
            st.caption(train_it_yourself.probe_caption(snapshot.step, ui.literal(snapshot.prediction)))

        ui.training_panel(
            f"transformer.train.{task_name}",
            lambda: train_it_yourself.new_run(task_name, variant, seed, budget),
            draw,
            budget_seconds=float(budget),
            target=train_it_yourself.LIVE_TARGET,
        )

    train_yourself()

    for label, objects in (
        ("The model's code (minimodels.transformer)", (EncoderLayer, DecoderLayer, _Residual, FeedForward)),
        ("The code of this page", (reading.walk, diagram.block_diagram, train_it_yourself.new_training)),
    ):
        ui.show_code(*objects, label=label)
    ui.check_yourself(ui.shared_view(transformer.exercises, shipped, get_task(task_name)))  # once per server and task


on_the_task()
ui.page_tail(lesson)
