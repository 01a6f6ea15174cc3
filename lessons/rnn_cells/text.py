"""Lesson: RNN cells, the page's prose: what the page says around its figures (no result is typed here; every
sentence that states one is a function of the numbers, in the modules next to this one)."""

from __future__ import annotations

import math

from lessons.rnn_cells import sequential, standard_network
from lessons.rnn_cells import training as rt

INTRO = (
    "A recurrent network reads a sentence one token at a time and carries what it has read in a **hidden "
    "state**: a few numbers, rewritten at every step from the old state and the new token. In *“The cat, "
    "which already ate …, was full.”* the cell has to remember that *cat* is singular through the whole "
    "clause to get *was* right. A plain RNN rewrites its entire state at every step; the GRU and the LSTM "
    "add **gates**, numbers between 0 and 1 that decide, unit by unit, how much to keep and how much to "
    "overwrite."
)

STEP = (
    "Each token becomes a fixed random vector x⟨t⟩ (the same vector for the same word everywhere in the "
    "course). Move the step to watch the cell read the sentence: each panel is a heatmap of **hidden units × "
    "time steps**, one column per token read. The weights are **random (seeded), not trained**, so the gates "
    "open and close by chance rather than because *cat* matters: what you see is the mechanism, not a "
    "learned memory."
)

STANDARD = (
    "The lecture's first question: why not a standard (feed-forward) network, reading the whole sentence at "
    "once? Its two answers are **variable length** and **no sharing across positions**. A standard network "
    "reads a window of T words: its first layer has a separate block of weights for every position, so its "
    "size is tied to T. An RNN applies one cell at every step, with the same weights. Pick T and count the "
    "parameters of both layers, taken from real `torch.nn` modules (E = "
    f"{standard_network.EMBED} numbers per word, H = {standard_network.HIDDEN} units):"
)

SHARING = (
    "Sharing, shown: the lecture's named-entity example as a toy. Sentences of "
    f"{standard_network.LENGTH} words each hold one name (*{standard_network.NAMES[0]}* or "
    f"*{standard_network.NAMES[1]}*), and the model tags every word as name or not. A window network (the standard "
    "one, one hidden layer) and an RNN (one cell and one output layer for every position) train for "
    f"{standard_network.STEPS} steps on sentences whose name is at positions 1–4 only, then are tested with names at "
    "positions 5–8: the share of names each finds, trained here on this server, once, "
    f"{len(standard_network.SEEDS)} seeds each."
)

GRADIENT = (
    "Training teaches the cell to keep *cat* by sending a gradient from the loss at *was* back to the input "
    "*cat*. By the chain rule that gradient is a product of one Jacobian per step in between. In a plain RNN "
    "each factor is W_aa scaled by tanh′ ≤ 1: if those factors are smaller than 1 the product shrinks "
    "exponentially with the distance (it **vanishes**), if larger it **explodes**. In the LSTM the memory's "
    "own path is multiplied by Γ_f at each step (in the GRU by 1 − Γ_u): a gate held near 1 copies the memory, "
    "and the gradient, across many steps."
)

GRADIENT_LATEX = (  # one short line each, so that a phone shows all three
    r"\begin{aligned}"
    r"\frac{\partial a^{\langle T\rangle}}{\partial x^{\langle t\rangle}} &= "
    r"\Bigg(\prod_{k=t+1}^{T} \frac{\partial a^{\langle k\rangle}}{\partial a^{\langle k-1\rangle}}\Bigg)"
    r"\frac{\partial a^{\langle t\rangle}}{\partial x^{\langle t\rangle}} \\"
    r"\text{RNN: } \frac{\partial a^{\langle k\rangle}}{\partial a^{\langle k-1\rangle}} &= "
    r"\operatorname{diag}\!\big(1 - (a^{\langle k\rangle})^2\big)\,W_{aa} \\"
    r"\text{LSTM: } \frac{\partial c^{\langle k\rangle}}{\partial c^{\langle k-1\rangle}} &= "
    r"\operatorname{diag}(\Gamma_f) + \dots"
    r"\end{aligned}"
)


def gradient_setup(hidden: int, seeds: tuple[int, ...]) -> str:
    return (
        f"The experiment: a random sequence of T inputs, cells of H = {hidden} units with random weights (seeds "
        f"{', '.join(map(str, seeds))}), and autograd's ‖∂a⟨T⟩/∂x⟨t⟩‖ for every earlier input. With PyTorch's "
        "initialisation the gates start around 0.5, so expect every cell to forget; then push the keep gates "
        "towards 1, or scale the RNN's recurrent weights up."
    )


GRADIENT_READING = (
    "What to read from it: with random, untrained weights no cell *remembers* anything in particular, yet "
    "the shape of the curves is already set. The plain RNN's gradient falls by a roughly constant factor per "
    "step, a straight line on the log scale. The gated cells fall as fast as their keep gates let them: at "
    "Γ_f ≈ 0.5 they forget almost as quickly, and near 1 their curves flatten. Training (or initialising the "
    "forget-gate bias high, a common trick) is what puts the gates there. Attention, later in the course, "
    "adds a direct shortcut from every output to every input instead."
)

KINDS = (
    "The same cell, wired differently, serves tasks with different numbers of inputs ($T_x$) and outputs ($T_y$). "
    "▢ is one step of the cell; the examples are the lecture's."
)


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


TRAIN = (
    "The lecture's sentence as a task a cell can be trained on: a sequence starts with *cat* or *cats*, then "
    "**T** distractor words follow (*which, already, ate, the, mice, …*), and the model must answer *was* or "
    f"*were* from its last state. An embedding of {rt.EMBED} numbers, one cell of H = {rt.HIDDEN} units, a "
    "linear layer on the last state: an RNN, a GRU and an LSTM, from the same seed, trained on the same "
    f"batches with the same recipe (Adam, learning rate {rt.LR:g}). Half the sequences are *cat*, so guessing "
    f"scores about 50%. The gated cells start with their keep gates mostly open (bias {rt.KEEP_BIAS:g}, "
    f"σ ≈ {sigmoid(rt.KEEP_BIAS):.2f}: section 3's slider); the measured chart adds an LSTM started from the "
    f"usual forget-gate bias of {rt.STANDARD_BIAS:g} (σ ≈ {sigmoid(rt.STANDARD_BIAS):.2f}). The plain RNN has no "
    "gate to set."
)

TRAIN_READING = (
    "What to look for: in the keep-gate heatmaps, a dark row is a unit that copies its memory forward, and "
    "a unit that stays dark from *cat* to the end carries the subject across the clause. The plain RNN has no "
    "such gate: *cat* must survive T multiplications by W_aa, and its gradient (section 3) fades with T. Try "
    "T = 5, then T = 40, and compare with the measured chart above."
)

SEQUENTIAL = (
    "The lecture's *Limitation?* slide: RNN, GRU, LSTM, more and more complex, and **sequential**. Step t needs "
    "a⟨t−1⟩, so reading T tokens takes T steps, one after the other, however many cores are free. A feed-forward "
    "network applied to every position, or self-attention over the sequence (lesson 5), is one operation over "
    "all T positions at once. Timed here, on this server, once (the forward pass only, a batch of "
    f"{sequential.BATCH} sequences, vectors of {sequential.SIZE} numbers):"
)

SEQUENTIAL_CAPTION = (
    "Both axes are logarithmic: a slope of 1 is time proportional to T. Measured on this server's CPU with the "
    "threads the page uses; a busy server only adds time. On one thread every layer does its multiply-adds one "
    "after another, so the gap here is the cost of T small steps against one large one; a GPU runs one large "
    "operation on thousands of cores at once, which the RNN's chain of steps cannot use (not measured here). "
    "`python -m bench.rnn_sequential` prints the same figures with the machine's load."
)
