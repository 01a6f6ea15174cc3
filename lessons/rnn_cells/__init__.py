"""Lesson: RNN cells (Part 1).

Follows the Transformer lecture's "RNN cells" slides: the plain RNN, the GRU and the LSTM in the lecture's
notation (a⟨t⟩, c⟨t⟩, c̃⟨t⟩, Γ_u, Γ_r, Γ_f, Γ_o), its example "The cat, which already ate …, was full." (the
cell must carry *cat* across the clause to choose *was*), its "different types of RNNs" slide and its
"Limitation?" slide, and the NLP lecture's remark that attention "helps with vanishing gradient problem via shortcut
to far-away states". Every number is computed by :mod:`minimodels.cells` and torch's own layers.

Sections, in page order:

- :mod:`.step_through`: a seeded random cell reads the student's sentence; every gate and state at every step.
- :mod:`.standard_network`: why not a standard network: parameters against length, and sharing across positions.
- :mod:`.vanishing_gradient`: why gates matter: ‖∂a⟨T⟩/∂x⟨t⟩‖ against distance, measured with autograd.
- :mod:`.kinds`: the kinds of RNN (one-to-many, many-to-one, …), with the lecture's examples.
- :mod:`.agreement`: the three cells trained on *cat … was* / *cats … were* (shipped and live), and their gates.
- :mod:`.sequential`: the price of recurrence: T steps one after another, timed against one operation.

Shared by the sections: :mod:`.seeded_cells` (the three cells with seeded random weights), :mod:`.training` (section 5's
task, model, training loop and shipped results).

Letters: T sequence length, I input (embedding) size, H hidden size, B batch.
"""

from __future__ import annotations

from lessons.common.exercises import Exercise
from lessons.rnn_cells import kinds, sequential, standard_network, vanishing_gradient

INTRO = (
    "A recurrent network reads a sentence one token at a time and carries what it has read in a **hidden "
    "state**: a few numbers, rewritten at every step from the old state and the new token. In *“The cat, "
    "which already ate …, was full.”* the cell has to remember that *cat* is singular through the whole "
    "clause to get *was* right. A plain RNN rewrites its entire state at every step; the GRU and the LSTM "
    "add **gates**, numbers between 0 and 1 that decide, unit by unit, how much to keep and how much to "
    "overwrite."
)


# The lecture's equations (its slide's typos fixed: a⟨t−1⟩ on the RNN's right-hand side, * not + in the GRU's
# last line). The GRU's output is its memory, a⟨t⟩ = c⟨t⟩.
EQUATIONS: dict[str, str] = {
    "RNN": r"""\begin{aligned}
        a^{\langle t\rangle} &= \tanh(W_{aa}\,a^{\langle t-1\rangle} + W_{ax}\,x^{\langle t\rangle} + b_a) \\
        \hat y^{\langle t\rangle} &= g(W_{ya}\,a^{\langle t\rangle} + b_y)
        \end{aligned}""",
    "GRU": r"""\begin{aligned}
        \Gamma_r &= \sigma(W_r[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_r) \\
        \Gamma_u &= \sigma(W_u[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u) \\
        \tilde c^{\langle t\rangle} &= \tanh(W_c[\Gamma_r * c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_c) \\
        c^{\langle t\rangle} &= \Gamma_u * \tilde c^{\langle t\rangle} + (1 - \Gamma_u) * c^{\langle t-1\rangle} \\
        a^{\langle t\rangle} &= c^{\langle t\rangle}
        \end{aligned}""",
    "LSTM": r"""\begin{aligned}
        \tilde c^{\langle t\rangle} &= \tanh(W_c[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_c) \\
        \Gamma_u &= \sigma(W_u[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u) \\
        \Gamma_f &= \sigma(W_f[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_f) \\
        \Gamma_o &= \sigma(W_o[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_o) \\
        c^{\langle t\rangle} &= \Gamma_u * \tilde c^{\langle t\rangle} + \Gamma_f * c^{\langle t-1\rangle} \\
        a^{\langle t\rangle} &= \Gamma_o * \tanh(c^{\langle t\rangle})
        \end{aligned}""",
}


EQUATION_NOTES = (  # the caption under the three cells' equations
    "σ is the sigmoid (a gate: between 0 and 1), * multiplies unit by unit, [·, ·] stacks two vectors. As in "
    "`torch.nn.GRUCell`, our GRU applies Γ_r after multiplying c⟨t−1⟩ by its weights rather than before; "
    "the lecture's slide also writes the RNN's a⟨t−1⟩ as a⟨t⟩ and the GRU's last * as +, typos fixed here."
)


def exercises() -> list[Exercise]:
    """The check-yourself questions: four computed by hand (what a gate keeps, a window's parameters, the steps a
    stacked RNN takes in a row) and one about the kinds of RNN; every answer from the lesson's own functions. The
    prediction about the sharing demo is asked in its section, before its table
    (:func:`~lessons.rnn_cells.standard_network.sharing_prediction`)."""
    return [
        *vanishing_gradient.exercises(),
        *standard_network.exercises(),
        *sequential.exercises(),
        *kinds.exercises(),
    ]
