"""Lesson: the architecture lab (Part 4), after Sockeye's "How much attention do you need?" (ACL 2018)."""

import streamlit as st

import ui
from lessons import architecture_lab
from lessons.common.live import TrainingRun
from minimodels.chains import language, model
from minimodels.tasks import get_task

lesson = ui.lesson("architecture_lab")
st.markdown(
    "Is it the attention that makes the Transformer good, or everything around it? Domhan's *How much attention "
    "do you need?* (ACL 2018) answered by writing encoders and decoders as **chains of layers** in a small "
    "language, then swapping one kind of layer for another: self-attention, recurrent (RNN) or convolutional "
    "(CNN) layers, on the source side, the target side, or both. Here you write chains in the same language, "
    "see the architecture they make, train it, and compare it with the paper's combinations."
)
st.markdown(
    "Every layer maps a sequence of d-dimensional vectors to another, so any chain of layers is a model. "
    "`res(l)` adds a layer's input to its output, and `repeat(n, l)` stacks n copies, each with its own weights:"
)
st.latex(r"\mathrm{res}(l)(x) = x + l(x) \qquad \mathrm{repeat}(n, l) = l^{(n)} \circ \dots \circ l^{(1)}")
st.latex(
    r"\underbrace{\texttt{pos}\to\texttt{repeat}(6,\ \texttt{res}(\texttt{norm}\to\texttt{mh\_dot\_self\_att})"
    r"\to\texttt{res}(\texttt{norm}\to\texttt{ff}))\to\texttt{norm}}_{\text{a Transformer encoder}}"
)


def the_language() -> None:
    ui.table(architecture_lab.layer_table())
    st.markdown(architecture_lab.language_notes())


ui.folded("The language: every layer, and what it costs", the_language, key="architecture_lab.language",
          icon=":material/menu_book:")  # fmt: skip


# --- state, in one place -------------------------------------------------------------------------------
def _use_preset() -> None:
    preset = architecture_lab.PRESET_BY_KEY[st.session_state["architecture_lab.preset"]]
    st.session_state["architecture_lab.encoder"] = preset.encoder
    st.session_state["architecture_lab.decoder"] = preset.decoder
    st.session_state["architecture_lab.steps"] = None  # a shipped row's fixed steps end with it


def _rerun_row(results) -> None:  # a shipped row's preset, task, seed and steps into sections 1 and 2
    st.session_state.update(architecture_lab.rerun_settings(results, st.session_state["architecture_lab.rerun"]))


first = architecture_lab.PRESETS[0]
defaults = {"preset": first.key, "encoder": first.encoder, "decoder": first.decoder, "task": "reverse", "seed": 0,
            "budget": 30, "steps": None, "runs": []}  # runs: the finished runs of "Your runs"  # fmt: skip
for name, default in defaults.items():
    st.session_state.setdefault(f"architecture_lab.{name}", default)


untrained = ui.cached(architecture_lab.untrained_maps, max_entries=32, show_spinner=False)  # fresh models only


def show_error(checked: architecture_lab.Checked, texts: dict[str, str]) -> None:
    """The parser's message, and the text with a caret under the place (all shown as code: never rendered)."""
    st.error(f"Nothing was built: {ui.literal(checked.error)}", icon=":material/error:")
    if checked.side and checked.line is not None:
        st.code(architecture_lab.caret(texts[checked.side], checked.line, checked.column), language=None)


# --- write the chains -------------------------------------------------------------------------------------
ui.section(
    "1 · Write an encoder and a decoder",
    "Start from one of the paper's combinations, made small (2 layers, d = 64), or write your own. The presets "
    "follow the paper's recipe: a Transformer whose self-attention sublayer is replaced by an RNN or a CNN.",
)


@st.fragment  # the chains, task and cell redraw sections 1 and 2 only, not the comparison below
def write_and_train() -> None:
    c = st.columns([3, 1, 1])
    c[0].selectbox("Preset", list(architecture_lab.PRESET_BY_KEY), key="architecture_lab.preset", on_change=_use_preset,
                   format_func=lambda k: architecture_lab.PRESET_BY_KEY[k].label)  # fmt: skip
    tasks = architecture_lab.TASKS
    task_name = c[1].selectbox("Task", tasks, key="architecture_lab.task")
    cell = c[2].selectbox("RNN cell", model.CELLS, format_func=str.upper, key="architecture_lab.cell")
    st.caption(architecture_lab.PRESET_BY_KEY[st.session_state["architecture_lab.preset"]].note)
    encoder_text = st.text_area("Encoder chain", key="architecture_lab.encoder", height=80, max_chars=4000)
    decoder_text = st.text_area("Decoder chain", key="architecture_lab.decoder", height=80, max_chars=4000)

    task = get_task(task_name)
    checked = architecture_lab.check(encoder_text, decoder_text, task, cell)
    if checked.error:
        show_error(checked, {"encoder": encoder_text, "decoder": decoder_text})
        st.info("Fix the chain (or pick a preset) to see its drawing, its size and its attention.")
    else:
        m = st.columns(4)
        m[0].metric("Parameters", f"{checked.parameters:,}")
        m[1].metric("Encoder layers", language.count_layers(checked.encoder))
        m[2].metric("Decoder layers", language.count_layers(checked.decoder))
        m[3].metric("Attention layers", architecture_lab.attention_layers(checked.encoder + checked.decoder))
        left, right = st.columns([2, 3])
        with left:
            st.markdown("**The architecture** (data flows up; × n: repeated n times, each copy its own weights)")
            st.image(architecture_lab.architecture_svg(checked.encoder, checked.decoder), width="stretch",
                     alt=f"Diagram of the chains: encoder {' '.join(encoder_text.split())[:300]}; "
                     f"decoder {' '.join(decoder_text.split())[:300]}")  # fmt: skip
        with right:
            views = untrained(encoder_text, decoder_text, task_name, cell)
            if views:
                figure = architecture_lab.attention_figure(views, caption=architecture_lab.UNTRAINED_TITLE, columns=2)
                ui.plotly(figure, key="architecture_lab.untrained")
                st.caption(architecture_lab.UNTRAINED_CAPTION)
            if len(views) > architecture_lab.MAX_MAPS:
                st.caption(f"The first {architecture_lab.MAX_MAPS} of {len(views)} attention layers are drawn.")

    # --- train it ---------------------------------------------------------------------------------------------
    ui.section("2 · Train it")
    st.markdown(
        "The recipe is the same for every chain: Adam, learning rate 10⁻² after a 50-step warm-up, then decaying "
        f"as 1/√step, batches of 128. Every {architecture_lab.REPORT_EVERY} steps, 200 held-out examples are decoded "
        f"greedily; training stops at {architecture_lab.STOP_AT:.0%} exact match or when the time is up. Each "
        "finished run joins your comparison table below."
    )

    @st.fragment  # moving these controls reruns this section only, not the whole lesson
    def train_yourself() -> None:
        seed_col, budget_col, _ = st.columns([1, 2, 3])
        seed = int(seed_col.number_input("Seed", 0, 9999, key="architecture_lab.seed"))
        budget = budget_col.select_slider("Seconds", architecture_lab.BUDGETS, key="architecture_lab.budget")
        steps = st.session_state["architecture_lab.steps"]
        if steps:
            st.caption(f"As the shipped row: {steps} steps, no early stop (pick a preset to go back to the recipe).")

        def make_run() -> TrainingRun:
            run, row = architecture_lab.live_run(
                checked, task_name, cell, encoder_text, decoder_text, seed, float(budget), steps
            )
            st.session_state["architecture_lab.pending"] = (run, row)  # recorded in the table once the run is over
            return run

        def draw(snapshot, key: str) -> None:
            ui.plotly(architecture_lab.snapshot_figure, snapshot, key=key)

        if checked.error:
            st.info("Fix the chains above to train them.")
        else:
            stop_at = architecture_lab.STOP_AT
            ui.training_panel("architecture_lab.train", make_run, draw, budget_seconds=budget, target=stop_at)

    train_yourself()


write_and_train()

pending = st.session_state.get("architecture_lab.pending")
if pending is not None and not pending[0].active and pending[0].result is not None:
    del st.session_state["architecture_lab.pending"]
    st.session_state["architecture_lab.runs"].append(pending[1](pending[0].result))

# --- compare ----------------------------------------------------------------------------------------------
ui.section("3 · Compare")
st.subheader("Your runs (this session)")
if st.session_state["architecture_lab.runs"]:
    ui.table(st.session_state["architecture_lab.runs"], key="architecture_lab.your_runs")
    if st.button("Clear your table", key="architecture_lab.clear"):
        st.session_state["architecture_lab.runs"] = []
        st.rerun()
else:
    st.caption("Nothing yet: every run you train above is added here, with its chains, size and speed.")


@st.fragment  # picking a model redraws its maps only
def shipped_maps(results) -> None:
    probes = architecture_lab.probes(results)
    key = st.selectbox("Attention of the trained model", list(probes), key="architecture_lab.shipped_preset",
                       format_func=lambda k: architecture_lab.PRESET_BY_KEY[k].label)  # fmt: skip
    views, caption = architecture_lab.shipped_views(results, key), architecture_lab.probe_caption(results, key)
    figure = architecture_lab.attention_figure(views, caption=caption, columns=2)
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


st.subheader("The poster's tables, measured on a toy translation")
grid = st.radio("Trained for", list(architecture_lab.GRIDS), horizontal=True, key="architecture_lab.grid")
results = ui.shipped_results(lesson, architecture_lab.GRIDS[grid], what="The shipped runs")
if results is not None:
    st.markdown(architecture_lab.grid_text(results))
    for title, rows in architecture_lab.poster_tables(results):
        st.markdown(f"**{title}**")
        ui.table(rows, key=f"architecture_lab.poster.{title}")
    findings = architecture_lab.findings_markdown(results)
    st.markdown(f"**Which of the poster's findings the toy reproduces**\n\n{findings}")
    ui.provenance(results.meta, note=architecture_lab.provenance_note(results.meta))
    rerun_row(results)
    if architecture_lab.probes(results):
        shipped_maps(results)

st.subheader("The paper's own numbers")
ui.table(architecture_lab.paper_rows(), key="architecture_lab.paper")
st.caption(architecture_lab.paper_caption())

ui.page_tail(
    lesson,
    code=[
        ("The parser: a tokenizer with columns and recursive descent, no eval", (language._Parser,)),
        ("The layers and the model", (model._Attention, model._GatedConvolution, model._Highway, model.ChainModel)),
    ],
    exercises=architecture_lab.exercises(),
)
