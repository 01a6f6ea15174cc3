"""Lesson: RNN cells (Part 1)."""

import streamlit as st

import ui
from lessons import rnn_cells
from lessons.rnn_cells import (
    agreement,
    kinds,
    learning_rates,
    seeded_cells,
    sequential,
    standard_network,
    step_through,
    training,
    vanishing_gradient,
)
from minimodels.cells import GRUCell, LSTMCell, RNNCell

lesson = ui.lesson("rnn_cells", rnn_cells.INTRO)
trace = ui.cached(step_through.trace_sentence, max_entries=64, show_spinner=False)
spinner = "Back-propagating through 3 cells × 5 seeds…"
experiment = ui.cached(vanishing_gradient.vanishing_experiment, max_entries=32, show_spinner=spinner)
sharing = ui.cached(
    standard_network.sharing_demo, max_entries=1, show_spinner="Training 2 taggers × 3 seeds (once per server)…"
)
timed = ui.cached(sequential.measure_sequential, max_entries=1, show_spinner="Timing the layers (once per server)…")
chains = ui.cached(sequential.chain_lengths, max_entries=1, show_spinner="Counting the chains (once per server)…")


st.subheader("RNN")
st.latex(rnn_cells.EQUATIONS["RNN"])
for column, kind in zip(st.columns(2), ("GRU", "LSTM"), strict=True):
    with column:
        st.subheader(kind)
        st.latex(rnn_cells.EQUATIONS[kind])
st.caption(rnn_cells.EQUATION_NOTES)
ui.symbols("rnn_cells")

ui.section(step_through.TITLE, step_through.TEXT)


def move_step(delta: int, length: int) -> None:
    st.session_state["rnn_cells.step"] = step_through.moved_step(st.session_state["rnn_cells.step"], delta, length)


@st.fragment
def sentence_section() -> None:
    label = f"Your sentence (up to {step_through.MAX_TOKENS} words and punctuation marks)"
    tokens = ui.sentence_input(
        label,
        step_through.DEFAULT_SENTENCE,
        "rnn_cells.sentence",
        step_through.parse_sentence,
        tokens_key="rnn_cells.tokens",
    )
    if st.session_state.get("rnn_cells.step_for") != tokens or "rnn_cells.step" not in st.session_state:
        st.session_state["rnn_cells.step_for"] = tokens
        st.session_state["rnn_cells.step"] = len(tokens)  # a new sentence starts fully read

    cols = st.columns([2, 2, 1])
    kind = ui.linked(cols[0].radio, "Cell", list(seeded_cells.CELLS), index=2, horizontal=True, key="rnn_cells.kind")
    hidden_size = ui.linked(cols[1].select_slider, "Hidden size H", [2, 4, 8, 16, 32], value=8, key="rnn_cells.hidden")
    seed = int(ui.linked(cols[2].number_input, "Seed of the weights", 0, 10_000, 0, key="rnn_cells.seed"))
    step_and_figure(trace(kind, tokens, hidden_size, seed))


@st.fragment  # a step reruns this part only: the sentence box and the cell's controls above stay as they are
def step_and_figure(result: step_through.Trace) -> None:
    tokens = result.tokens
    if len(tokens) > 1:
        cols = st.columns([1, 8, 1], vertical_alignment="bottom")
        cols[0].button("◀ back", key="rnn_cells.back", on_click=move_step, args=(-1, len(tokens)), width="stretch")
        step = cols[1].slider("Step t: tokens read so far", 1, len(tokens), key="rnn_cells.step")
        cols[2].button("next ▶", key="rnn_cells.next", on_click=move_step, args=(1, len(tokens)), width="stretch")
    else:
        step = 1

    ui.plotly(step_through.cell_figure, result, step, key="rnn_cells.cells")
    st.markdown(step_through.step_summary(result, step))
    st.caption(step_through.CELL_FIGURE_CAPTION)


sentence_section()
ui.show_code(RNNCell, GRUCell, LSTMCell, seeded_cells.make_cell, step_through.run_cell)

ui.section(standard_network.TITLE, standard_network.TEXT)


@st.fragment
def counts_section() -> None:
    length = ui.linked(st.slider, "Words read T", 1, 200, 20, key="rnn_cells.window")
    ui.vega(standard_network.counts_chart(sorted({1, 5, 10, 20, 50, 100, 200, length})), key="rnn_cells.counts")
    st.markdown(standard_network.counts_text(length))


counts_section()
ui.explain(standard_network.SHARING)
demo = sharing()
sharing_prediction = standard_network.sharing_prediction(demo)
ui.exercise(sharing_prediction)


def sharing_table() -> None:
    ui.table(standard_network.sharing_rows(demo))
    st.markdown(standard_network.sharing_summary(demo))


ui.after_answering(sharing_prediction.key, "the trained taggers' table", sharing_table)
ui.show_code(
    standard_network.parameter_counts,
    standard_network.WindowTagger,
    standard_network.RNNTagger,
    standard_network.sharing_demo,
)

ui.section(vanishing_gradient.TITLE, vanishing_gradient.TEXT)
st.latex(vanishing_gradient.EQUATION)
ui.explain(vanishing_gradient.experiment_text(vanishing_gradient.GRADIENT_HIDDEN, vanishing_gradient.GRADIENT_SEEDS))


@st.fragment
def vanishing() -> None:
    cols = st.columns(3)
    length = ui.linked(
        cols[0].slider, "Sequence length T", 10, 100, vanishing_gradient.DEFAULT_LENGTH, 10, key="rnn_cells.length"
    )
    gate_bias = ui.linked(
        cols[1].slider,
        "Keep-gate bias",
        -2.0,
        5.0,
        0.0,
        0.5,
        key="rnn_cells.gate_bias",
        help="Added to the bias of the LSTM's forget gate Γ_f and of the GRU's 1 − Γ_u. Positive: keep more.",
    )
    scale = ui.linked(
        cols[2].select_slider,
        "Recurrent weight scale",
        [0.5, 1.0, 2.0, 3.0, 4.0],
        value=1.0,
        key="rnn_cells.scale",
        help="Multiplies every cell's recurrent weights (W_aa for the RNN).",
    )
    result = experiment(length, gate_bias, scale)
    ui.vega(vanishing_gradient.gradient_chart(result), key="rnn_cells.gradients")
    st.markdown(vanishing_gradient.gradient_summary(result))


vanishing()
ui.explain(vanishing_gradient.READING)
ui.show_code(
    vanishing_gradient.jacobian_norms,
    vanishing_gradient.side_by_side,
    vanishing_gradient.gradient_norms,
    vanishing_gradient.vanishing_experiment,
)

ui.section(kinds.TITLE, kinds.TEXT)
st.markdown(kinds.kinds_list_markdown() if ui.narrow_screen() else kinds.kinds_markdown())
st.caption(kinds.KINDS_CAPTION)

ui.section(agreement.TITLE, agreement.TEXT)
shipped = ui.shipped_results(lesson, loader=training.load_results)
if shipped is not None:
    ui.vega(ui.shared_view(agreement.results_chart, shipped), key="rnn_cells.train.shipped")
    st.markdown(ui.shared_view(agreement.results_summary, shipped))  # its chance levels: once per server
    ui.provenance(shipped.meta, note=agreement.provenance_note(shipped))
rates = ui.shipped_results(
    lesson, learning_rates.RESULTS, loader=learning_rates.load_results, what="The plain RNN at other learning rates"
)
if rates is not None:
    st.markdown(ui.shared_view(learning_rates.rates_summary, rates))
    ui.provenance(rates.meta)


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_three() -> None:
    c = st.columns([3, 1, 2])
    distance = c[0].select_slider(
        "Distance T: distractor words between the subject and the verb",
        training.DISTANCES,
        value=training.DEFAULT_DISTANCE,
        key="rnn_cells.train.distance",
    )
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="rnn_cells.train.seed"))
    budget = c[2].select_slider("Seconds for the three", training.LIVE_BUDGETS, value=20, key="rnn_cells.train.budget")

    def draw(report: training.Report, key: str) -> None:
        ui.vega(agreement.live_curves(report.histories), key=f"{key}.curves")
        ui.plotly(agreement.report_gates, report, key=f"{key}.gates")
        example, answers = ui.literal(" ".join(report.tokens)), agreement.answers_text(report)
        st.caption(f"The example: {example} → *was*. Now {answers}. Hover a cell for the token.")

    ui.training_panel(
        "rnn_cells.train",
        lambda: training.live_run(distance, seed, float(budget)),
        draw,
        budget_seconds=float(budget),
        replay_frame=training.replay_frame,
    )


train_three()
ui.explain(agreement.READING)

ui.section(sequential.TITLE, sequential.TEXT)
st.markdown(sequential.chain_sentence(chains()))
measured = timed()
ui.vega(sequential.timing_chart(measured), key="rnn_cells.sequential")
st.markdown(sequential.timing_summary(measured))
st.caption(sequential.CAPTION)
ui.show_code(
    sequential.layers,
    sequential.chain_lengths,
    sequential.measure_sequential,
    label="The code that counts and times the three layers",
)
ui.page_tail(
    lesson,
    code=[
        (
            "The code that trains the three cells (section 5)",
            (training.AgreementModel, training.gate_map, training.train),
        )
    ],
    exercises=rnn_cells.exercises(),
)
