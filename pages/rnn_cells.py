"""Lesson: RNN cells (Part 1)."""

import streamlit as st

import ui
from lessons import rnn_cells
from lessons.rnn_cells import training as rnn_training
from minimodels.cells import GRUCell, LSTMCell, RNNCell

lesson = ui.lesson("rnn_cells")
trace = st.cache_data(max_entries=64, show_spinner=False)(rnn_cells.trace_sentence)
spinner = "Back-propagating through 3 cells × 5 seeds…"
experiment = st.cache_data(max_entries=32, show_spinner=spinner)(rnn_cells.vanishing_experiment)

ui.explain(
    "A recurrent network reads a sentence one token at a time and carries what it has read in a **hidden "
    "state**: a few numbers, rewritten at every step from the old state and the new token. In *“The cat, "
    "which already ate …, was full.”* the cell has to remember that *cat* is singular through the whole "
    "clause to get *was* right. A plain RNN rewrites its entire state at every step; the GRU and the LSTM "
    "add **gates**, numbers between 0 and 1 that decide, unit by unit, how much to keep and how much to "
    "overwrite."
)

st.subheader("RNN")
st.latex(rnn_cells.EQUATIONS["RNN"])
for column, kind in zip(st.columns(2), ("GRU", "LSTM"), strict=True):
    with column:
        st.subheader(kind)
        st.latex(rnn_cells.EQUATIONS[kind])
st.caption(rnn_cells.EQUATION_NOTES)

# --- 1. Step through a sentence -----------------------------------------------------------------------------
st.header("1 · Step through a sentence", divider="gray")
ui.explain(
    "Each token becomes a fixed random vector x⟨t⟩ (the same vector for the same word everywhere in the "
    "course). Move the step to watch the cell read the sentence: each panel is a heatmap of **hidden units × "
    "time steps**, one column per token read. The weights are **random (seeded), not trained**, so the gates "
    "open and close by chance rather than because *cat* matters: what you see is the mechanism, not a "
    "learned memory."
)


def move_step(delta: int, length: int) -> None:
    st.session_state["rnn_cells.step"] = rnn_cells.moved_step(st.session_state["rnn_cells.step"], delta, length)


@st.fragment
def step_through() -> None:
    label = f"Your sentence (up to {rnn_cells.MAX_TOKENS} words and punctuation marks)"
    tokens = ui.sentence_input(label, rnn_cells.DEFAULT_SENTENCE, "rnn_cells.sentence", rnn_cells.parse_sentence,
                               tokens_key="rnn_cells.tokens")  # fmt: skip
    if st.session_state.get("rnn_cells.step_for") != tokens or "rnn_cells.step" not in st.session_state:
        st.session_state["rnn_cells.step_for"] = tokens
        st.session_state["rnn_cells.step"] = len(tokens)  # a new sentence starts fully read

    cols = st.columns([2, 2, 1])
    kind = ui.linked(cols[0].radio, "Cell", list(rnn_cells.CELLS), index=2, horizontal=True, key="rnn_cells.kind")
    hidden_size = ui.linked(cols[1].select_slider, "Hidden size H", [2, 4, 8, 16, 32], value=8, key="rnn_cells.hidden")
    seed = int(ui.linked(cols[2].number_input, "Seed of the weights", 0, 10_000, 0, key="rnn_cells.seed"))
    step_and_figure(trace(kind, tokens, hidden_size, seed))


@st.fragment  # a step reruns this part only: the sentence box and the cell's controls above stay as they are
def step_and_figure(result: rnn_cells.Trace) -> None:
    tokens = result.tokens
    if len(tokens) > 1:
        cols = st.columns([1, 8, 1], vertical_alignment="bottom")
        cols[0].button("◀ back", key="rnn_cells.back", on_click=move_step, args=(-1, len(tokens)), width="stretch")
        step = cols[1].slider("Step t: tokens read so far", 1, len(tokens), key="rnn_cells.step")
        cols[2].button("next ▶", key="rnn_cells.next", on_click=move_step, args=(1, len(tokens)), width="stretch")
    else:
        step = 1

    ui.plotly(rnn_cells.cell_figure(result, step), key="rnn_cells.cells")
    st.markdown(rnn_cells.step_summary(result, step))
    st.caption(rnn_cells.CELL_FIGURE_CAPTION)


step_through()
ui.show_code(RNNCell, GRUCell, LSTMCell, rnn_cells.make_cell, rnn_cells.run_cell)

# --- 2. Why gates matter --------------------------------------------------------------------------------------
st.header("2 · Why gates matter: the vanishing gradient", divider="gray")
ui.explain(
    "Training teaches the cell to keep *cat* by sending a gradient from the loss at *was* back to the input "
    "*cat*. By the chain rule that gradient is a product of one Jacobian per step in between. In a plain RNN "
    "each factor is W_aa scaled by tanh′ ≤ 1: if those factors are smaller than 1 the product shrinks "
    "exponentially with the distance (it **vanishes**), if larger it **explodes**. In the LSTM the memory's "
    "own path is multiplied by Γ_f at each step (in the GRU by 1 − Γ_u): a gate held near 1 copies the memory, "
    "and the gradient, across many steps."
)
st.latex(
    r"\frac{\partial a^{\langle T\rangle}}{\partial x^{\langle t\rangle}} = "
    r"\Bigg(\prod_{k=t+1}^{T} \frac{\partial a^{\langle k\rangle}}{\partial a^{\langle k-1\rangle}}\Bigg)"
    r"\frac{\partial a^{\langle t\rangle}}{\partial x^{\langle t\rangle}},\qquad "
    r"\text{RNN: } \frac{\partial a^{\langle k\rangle}}{\partial a^{\langle k-1\rangle}} = "
    r"\operatorname{diag}\!\big(1 - (a^{\langle k\rangle})^2\big)\,W_{aa},\qquad "
    r"\text{LSTM: } \frac{\partial c^{\langle k\rangle}}{\partial c^{\langle k-1\rangle}} = "
    r"\operatorname{diag}(\Gamma_f) + \dots"
)
ui.explain(
    f"The experiment: a random sequence of T inputs, cells of H = {rnn_cells.GRADIENT_HIDDEN} units with random "
    f"weights (seeds {', '.join(map(str, rnn_cells.GRADIENT_SEEDS))}), and autograd's ‖∂a⟨T⟩/∂x⟨t⟩‖ for every "
    "earlier input. With PyTorch's initialisation the gates start around 0.5, so expect every cell to "
    "forget; then push the keep gates towards 1, or scale the RNN's recurrent weights up."
)


@st.fragment
def vanishing() -> None:
    cols = st.columns(3)
    length = ui.linked(
        cols[0].slider, "Sequence length T", 10, 100, rnn_cells.DEFAULT_LENGTH, 10, key="rnn_cells.length"
    )
    gate_bias = ui.linked(
        cols[1].slider, "Keep-gate bias", -2.0, 5.0, 0.0, 0.5, key="rnn_cells.gate_bias",
        help="Added to the bias of the LSTM's forget gate Γ_f and of the GRU's 1 − Γ_u. Positive: keep more.",
    )  # fmt: skip
    scale = ui.linked(
        cols[2].select_slider, "Recurrent weight scale", [0.5, 1.0, 2.0, 3.0, 4.0], value=1.0, key="rnn_cells.scale",
        help="Multiplies every cell's recurrent weights (W_aa for the RNN).",
    )  # fmt: skip
    result = experiment(length, gate_bias, scale)
    ui.vega(rnn_cells.gradient_chart(result), key="rnn_cells.gradients")
    st.markdown(rnn_cells.gradient_summary(result))


vanishing()
ui.explain(
    "What to read from it: with random, untrained weights no cell *remembers* anything in particular, yet "
    "the shape of the curves is already set. The plain RNN's gradient falls by a roughly constant factor per "
    "step, a straight line on the log scale. The gated cells fall as fast as their keep gates let them: at "
    "Γ_f ≈ 0.5 they forget almost as quickly, and near 1 their curves flatten. Training (or initialising the "
    "forget-gate bias high, a common trick) is what puts the gates there. Attention, later in the course, "
    "adds a direct shortcut from every output to every input instead."
)
ui.show_code(rnn_cells.jacobian_norms, rnn_cells.side_by_side, rnn_cells.gradient_norms, rnn_cells.vanishing_experiment)

# --- 3. The kinds of RNN -----------------------------------------------------------------------------------
st.header("3 · The kinds of RNN", divider="gray")
ui.explain(
    "The same cell, wired differently, serves tasks with different numbers of inputs ($T_x$) and outputs ($T_y$). "
    "▢ is one step of the cell; the examples are the lecture's."
)
st.markdown(rnn_cells.kinds_markdown())
st.caption(rnn_cells.KINDS_CAPTION)

# --- 4. Train the three cells ------------------------------------------------------------------------------
st.header("4 · Train the three cells", divider="gray")
ui.explain(
    "The lecture's sentence as a task a cell can be trained on: a sequence starts with *cat* or *cats*, then "
    "**T** distractor words follow (*which, already, ate, the, mice, …*), and the model must answer *was* or "
    f"*were* from its last state. An embedding of {rnn_training.EMBED} numbers, one cell of H = "
    f"{rnn_training.HIDDEN} units, a linear layer on the last state: an RNN, a GRU and an LSTM, from the same "
    "seed, trained on the same batches. Half the sequences are *cat*, so guessing scores 50%. The gated cells "
    f"start with their keep gates mostly open (bias {rnn_training.KEEP_BIAS:g}, σ ≈ 0.95: section 2's slider), "
    "a common initialisation; the plain RNN has no gate to set."
)
shipped = ui.shipped_results(lesson)
if shipped is not None:
    ui.vega(rnn_training.results_chart(shipped), key="rnn_cells.train.shipped")
    st.markdown(rnn_training.results_summary(shipped))
    ui.provenance(shipped.meta, note=rnn_training.provenance_note(shipped))


@st.fragment  # moving these controls reruns this section only, not the whole lesson
def train_three() -> None:
    c = st.columns([3, 1, 2])
    distance = c[0].select_slider(
        "Distance T: distractor words between the subject and the verb", rnn_training.DISTANCES,
        value=rnn_training.DEFAULT_DISTANCE, key="rnn_cells.train.distance",
    )  # fmt: skip
    seed = int(c[1].number_input("Seed", 0, 9999, 0, key="rnn_cells.train.seed"))
    budget = c[2].select_slider("Seconds for the three", rnn_training.LIVE_BUDGETS, value=20,
                                key="rnn_cells.train.budget")  # fmt: skip

    def draw(report: rnn_training.Report, key: str) -> None:
        ui.vega(rnn_training.live_curves(report.histories), key=f"{key}.curves")
        ui.plotly(rnn_training.report_gates(report), key=f"{key}.gates")
        example, answers = ui.literal(" ".join(report.tokens)), rnn_training.answers_text(report)
        st.caption(f"The example: {example} → *was*. Now {answers}. Hover a cell for the token.")

    ui.training_panel("rnn_cells.train", lambda: rnn_training.live_run(distance, seed, float(budget)), draw,
                      budget_seconds=float(budget), replay_frame=rnn_training.replay_frame)  # fmt: skip


train_three()
ui.explain(
    "What to look for: in the keep-gate heatmaps, a dark row is a unit that copies its memory forward, and "
    "a unit that stays dark from *cat* to the end carries the subject across the clause. The plain RNN has no "
    "such gate: *cat* must survive T multiplications by W_aa, and its gradient (section 2) fades with T. Try "
    "T = 5, then T = 40, and compare with the measured table above."
)
ui.page_tail(
    lesson,
    code=[("The code that computes this", (rnn_training.AgreementModel, rnn_training.gate_map, rnn_training.train))],
    exercises=rnn_cells.exercises(experiment(rnn_cells.DEFAULT_LENGTH, 0.0, 1.0)),
)
