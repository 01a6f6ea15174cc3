"""Lesson: the architecture lab (Part 4), after Sockeye's "How much attention do you need?" (ACL 2018)."""

from functools import partial

import streamlit as st

import ui
from lessons import architecture_lab
from lessons.architecture_lab import (
    architecture_drawing,
    attention_maps,
    compare,
    compare_runs,
    layer_reference,
    learning_curves,
    paper_numbers,
    presets,
    training,
    writing_chains,
)
from minimodels.chains import language, model
from minimodels.tasks import get_task

lesson = ui.lesson("architecture_lab", architecture_lab.INTRO, intro_folds=False)
st.markdown(architecture_lab.CHAINS)
st.latex(architecture_lab.EQUATION)
st.latex(architecture_lab.TRANSFORMER_CHAIN)


def the_language() -> None:
    ui.table(layer_reference.layer_table())
    st.markdown(layer_reference.language_notes())


ui.folded(layer_reference.TITLE, the_language, key="architecture_lab.language", icon=":material/menu_book:")


# --- state, in one place -------------------------------------------------------------------------------
def _use_preset() -> None:
    preset = presets.PRESET_BY_KEY[st.session_state["architecture_lab.preset"]]
    st.session_state["architecture_lab.encoder"] = preset.encoder
    st.session_state["architecture_lab.decoder"] = preset.decoder
    st.session_state["architecture_lab.steps"] = None  # a shipped row's fixed steps end with it


def _rerun_row(results) -> None:  # a shipped row's preset, task, seed and steps into sections 1 and 2
    st.session_state.update(compare.rerun_settings(results, st.session_state["architecture_lab.rerun"]))


first = presets.PRESETS[0]
defaults = {
    "preset": first.key,
    "encoder": first.encoder,
    "decoder": first.decoder,
    "task": "reverse",
    "seed": 0,
    "budget": 30,
    "steps": None,
    "runs": [],  # the finished runs of "Your runs"
}
for name, default in defaults.items():
    st.session_state.setdefault(f"architecture_lab.{name}", default)


untrained = ui.cached(writing_chains.untrained_maps, max_entries=32, show_spinner=False)  # fresh models only


def show_error(checked: writing_chains.Checked, texts: dict[str, str]) -> None:
    """The parser's message, and the text with a caret under the place (all shown as code: never rendered)."""
    st.error(f"Nothing was built: {ui.literal(checked.error)}", icon=":material/error:")
    if checked.side and checked.line is not None:
        st.code(writing_chains.caret(texts[checked.side], checked.line, checked.column), language=None)


ui.symbols("architecture_lab")

# --- write the chains -------------------------------------------------------------------------------------
ui.section(writing_chains.TITLE, writing_chains.TEXT)


@st.fragment  # the chains, task and cell redraw sections 1 and 2 only, not the comparison below
def write_and_train() -> None:
    c = st.columns([3, 1, 1])
    c[0].selectbox(
        "Preset",
        list(presets.PRESET_BY_KEY),
        key="architecture_lab.preset",
        on_change=_use_preset,
        format_func=lambda k: presets.PRESET_BY_KEY[k].label,
    )
    tasks = writing_chains.TASKS
    task_name = c[1].selectbox("Task", tasks, key="architecture_lab.task")
    cell = c[2].selectbox("RNN cell", model.CELLS, format_func=str.upper, key="architecture_lab.cell")
    st.caption(presets.PRESET_BY_KEY[st.session_state["architecture_lab.preset"]].note)
    encoder_text = st.text_area("Encoder chain", key="architecture_lab.encoder", height=80, max_chars=4000)
    decoder_text = st.text_area("Decoder chain", key="architecture_lab.decoder", height=80, max_chars=4000)

    task = get_task(task_name)
    checked = writing_chains.check(encoder_text, decoder_text, task, cell)
    heads = 1  # the most heads an attention layer of these chains has
    if checked.error:
        show_error(checked, {"encoder": encoder_text, "decoder": decoder_text})
        st.info("Fix the chain (or pick a preset) to see its drawing, its size and its attention.")
    else:
        m = st.columns(4)
        m[0].metric("Parameters", f"{checked.parameters:,}")
        m[1].metric("Encoder layers", language.count_layers(checked.encoder))
        m[2].metric("Decoder layers", language.count_layers(checked.decoder))
        m[3].metric("Attention layers", writing_chains.attention_layers(checked.encoder + checked.decoder))
        left, right = st.columns([2, 3])
        with left:
            st.markdown("**The architecture** (data flows up; × n: repeated n times, each copy its own weights)")
            st.image(
                architecture_drawing.architecture_svg(checked.encoder, checked.decoder),
                width="stretch",
                alt=f"Diagram of the chains: encoder {' '.join(encoder_text.split())[:300]}; "
                f"decoder {' '.join(decoder_text.split())[:300]}",
            )
        with right:
            views = untrained(encoder_text, decoder_text, task_name, cell)
            heads = attention_maps.most_heads(views)
            if views:
                figure = attention_maps.attention_figure(views, caption=writing_chains.UNTRAINED_TITLE, columns=2)
                ui.plotly(figure, key="architecture_lab.untrained")
                st.caption(writing_chains.UNTRAINED_CAPTION)
            if len(views) > attention_maps.MAX_MAPS:
                st.caption(f"The first {attention_maps.MAX_MAPS} of {len(views)} attention layers are drawn.")

    # --- train it ---------------------------------------------------------------------------------------------
    ui.section(training.TITLE)
    st.markdown(training.TEXT)

    @st.fragment  # moving these controls reruns this section only, not the whole lesson
    def train_yourself() -> None:
        seed_col, budget_col, _ = st.columns([1, 2, 3])
        seed = int(seed_col.number_input("Seed", 0, 9999, key="architecture_lab.seed"))
        budget = budget_col.select_slider("Seconds", training.BUDGETS, key="architecture_lab.budget")
        steps = st.session_state["architecture_lab.steps"]
        if steps:
            st.caption(f"As the shipped row: {steps} steps, no early stop (pick a preset to go back to the recipe).")

        def make_run():
            run, row = training.live_run(
                checked, task_name, cell, encoder_text, decoder_text, seed, float(budget), steps
            )
            st.session_state["architecture_lab.pending"] = (run, row)  # recorded in the table once the run is over
            return run

        each_head = heads > 1 and st.session_state.get("architecture_lab.heads") == attention_maps.HEAD_CHOICES[1]

        def draw(snapshot, key: str) -> None:
            ui.plotly(training.snapshot_figure, snapshot, each_head, key=key)
            if each_head:
                shown = ui.literal(training.snapshot_caption(snapshot))
                st.caption(f"Each head of your model's attention layers, a layer a row: {shown}")

        if checked.error:
            st.info("Fix the chains above to train them.")
        else:
            if heads > 1:
                st.radio(
                    "Attention maps of your model",
                    attention_maps.HEAD_CHOICES,
                    horizontal=True,
                    key="architecture_lab.heads",
                    help=f"Up to {heads} heads a layer: averaged, they can hide heads that each look at one place.",
                )
            stop_at = training.STOP_AT
            ui.training_panel("architecture_lab.train", make_run, draw, budget_seconds=budget, target=stop_at)

    train_yourself()


write_and_train()

pending = st.session_state.get("architecture_lab.pending")
if pending is not None and not pending[0].active and pending[0].result is not None:
    del st.session_state["architecture_lab.pending"]
    st.session_state["architecture_lab.runs"].append(pending[1](pending[0].result))

# --- compare ----------------------------------------------------------------------------------------------
ui.section(compare.TITLE)
st.subheader(compare.YOUR_RUNS)
if st.session_state["architecture_lab.runs"]:
    ui.table(st.session_state["architecture_lab.runs"], key="architecture_lab.your_runs")
    if st.button("Clear your table", key="architecture_lab.clear"):
        st.session_state["architecture_lab.runs"] = []
        st.rerun()
else:
    st.caption("Nothing yet: every run you train above is added here, with its chains, size and speed.")


@st.fragment  # picking a model redraws its maps only
def shipped_maps(results) -> None:
    probes = compare.probes(results)
    key = st.selectbox(
        "Attention of the trained model",
        list(probes),
        key="architecture_lab.shipped_preset",
        format_func=lambda k: presets.PRESET_BY_KEY[k].label,
    )
    views, caption = compare.shipped_views(results, key), compare.probe_caption(results, key)
    each_head = False
    if attention_maps.most_heads(views) > 1:
        shown = st.radio(
            "Attention maps of the trained model",
            attention_maps.HEAD_CHOICES,
            horizontal=True,
            key="architecture_lab.shipped_heads",
        )
        each_head = shown == attention_maps.HEAD_CHOICES[1]
    if each_head:
        ui.plotly(attention_maps.heads_figure, views, key="architecture_lab.shipped_heads_maps")
        st.caption(f"Each head of its attention layers, a layer a row: {ui.literal(caption)}")
    else:
        figure = attention_maps.attention_figure(views, caption=caption, columns=2)
        ui.plotly(figure, key="architecture_lab.shipped_maps")


@st.fragment  # picking a row reruns these two controls only; loading it redraws the page with its settings
def rerun_row(results) -> None:
    pick, load = st.columns([3, 2], vertical_alignment="bottom")
    pick.selectbox("Rerun a row live", results.variants, key="architecture_lab.rerun", format_func=results.label)
    if load.button(
        "Load it into sections 1–2",
        key="architecture_lab.rerun_load",
        on_click=_rerun_row,
        args=(results,),
        help="Sets its chains, task, seed and steps above; then press Train in section 2.",
    ):
        st.rerun()


st.subheader(compare.POSTER_TITLE)


@st.fragment  # "Trained for" redraws the shipped runs only: nothing else on the page depends on it
def poster() -> None:
    grid = st.radio("Trained for", list(compare_runs.GRIDS), horizontal=True, key="architecture_lab.grid")
    results = ui.shipped_results(
        lesson, compare_runs.GRIDS[grid], loader=compare_runs.load_results, what="The shipped runs"
    )
    if results is None:
        return
    st.markdown(compare.grid_text(results))
    for title, rows in compare.poster_tables(results):
        st.markdown(f"**{title}**")
        ui.table(rows, key=f"architecture_lab.poster.{title}")
        if title == compare.LADDER_TITLE:
            st.caption(compare.LADDER_NOTE)
    findings = compare.findings_markdown(results)
    st.markdown(f"**Which of the poster's findings the toy reproduces**\n\n{findings}")
    st.markdown(f"**{learning_curves.TITLE}**")
    group = st.radio("Curves of the presets of", list(compare.POSTER_GROUPS), key="architecture_lab.curves_group")
    ui.comparison_curves(
        partial(learning_curves.curve_charts, results, group),
        "architecture_lab.curves",
        names=("accuracy", "loss"),
        axis_key="architecture_lab.curves_axis",
    )
    st.caption(learning_curves.curves_caption(results, group))
    ui.provenance(results.meta, note=compare.provenance_note(results.meta))
    rerun_row(results)
    if compare.probes(results):
        shipped_maps(results)


poster()

st.subheader(paper_numbers.TITLE)
best_encoder = paper_numbers.best_encoder_exercise()
ui.exercise(best_encoder)


def paper_table() -> None:
    ui.table(paper_numbers.paper_rows(), key="architecture_lab.paper")
    st.caption(paper_numbers.paper_caption())


ui.after_answering(best_encoder.key, "the poster's table", paper_table)
st.markdown(paper_numbers.not_reproduced())

ui.page_tail(
    lesson,
    code=[
        ("The parser: a tokenizer with columns and recursive descent, no eval", (language._Parser,)),
        ("The layers and the model", (model._Attention, model._GatedConvolution, model._Highway, model.ChainModel)),
    ],
    exercises=architecture_lab.exercises(),
)
