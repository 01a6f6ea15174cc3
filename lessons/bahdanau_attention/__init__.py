r"""Lesson: Bahdanau (additive) attention, decoded one token at a time.

Follows the NLP lecture's attention slides ("I like pizza" → "mi piace la pizza", the context c⟨1⟩ as a weighted sum
for "Jane visite l'Afrique en septembre") and Bahdanau, Cho & Bengio 2015:

.. math:: e_{t,t'} = v^\top \tanh(W[s_{t-1}; h_{t'}]),\quad
          \alpha_{t,t'} = \mathrm{softmax}_{t'}(e_{t,t'}),\quad c_t = \sum_{t'} \alpha_{t,t'} h_{t'}

The model is ``minimodels.seq2seq.Seq2Seq`` with ``attention="additive"``, which attends with the previous
decoder state :math:`s_{t-1}` before each step, exactly as above.

Letters: hᵢ the encoder state of source token i (h⃗ᵢ, h⃖ᵢ its two directions), sₜ the decoder state after output
step t, eₜ,ᵢ the score, αₜ,ᵢ the weight, cₜ the context, yₜ the output token; T_x and T_y the source and output
lengths; H the encoder's size per direction, D the size of hᵢ (2H both ways), A the score's hidden size.

Sections, in page order:

- :mod:`~lessons.bahdanau_attention.decoding`: the task, the model and its decoding of the student's sentence;
- :mod:`~lessons.bahdanau_attention.step_by_step`: 1, one output token at a time;
- :mod:`~lessons.bahdanau_attention.alignment`: 2, the whole alignment;
- :mod:`~lessons.bahdanau_attention.weighted_sum`: 3, the lecture's c⟨1⟩ as a weighted sum;
- :mod:`~lessons.bahdanau_attention.beam_search`: 4, greedy or beam search;
- :mod:`~lessons.bahdanau_attention.forced_attention`: 5, what if the model looked elsewhere;
- :mod:`~lessons.bahdanau_attention.attention_cost`: 6, what attention costs;
- :mod:`~lessons.bahdanau_attention.training`: 7, train it yourself.

:mod:`~lessons.bahdanau_attention.wording` writes tokens and numbers the same way in every section's sentences.
"""

from __future__ import annotations

from torch import nn

from lessons.bahdanau_attention import alignment, attention_cost, step_by_step, weighted_sum
from lessons.bahdanau_attention.decoding import MODEL, TASKS
from lessons.common.exercises import Exercise
from lessons.common.pretrained import shipped_config

INTRO = (
    "A seq2seq model without attention must squeeze the whole source sentence into one vector. Bahdanau, Cho "
    "and Bengio (2015) let the decoder **look back**: before writing output token t it scores every encoder "
    "state hᵢ against its own previous state sₜ₋₁ (eₜ,ᵢ), turns the scores into a distribution α with a "
    "softmax, reads the weighted sum cₜ, and only then updates its state and predicts the token. The α's are "
    "the alignment the model learned, with no one telling it which word translates which. {encoders} A decoder "
    "reading the encoder's states this way is what the Transformer lecture calls **encoder–decoder attention**, "
    "or cross-attention: the same idea, with other scores, comes back in every later lesson that translates."
)


def shipped_encoders() -> dict[str, bool]:
    """Task -> whether its shipped model's encoder is bidirectional, read from the checkpoints' configs."""
    return {task: bool(shipped_config(task, MODEL).get("bidirectional")) for task in TASKS}


def encoders_sentence(bidirectional: dict[str, bool]) -> str:
    """Which shipped models read the sentence both ways, from :func:`shipped_encoders`; what that means."""
    both = [TASKS[t] for t, b in bidirectional.items() if b]
    one = [TASKS[t] for t, b in bidirectional.items() if not b]
    parts = []
    if both:
        parts.append(
            f"The shipped model{'s' * (len(both) > 1)} for {' and '.join(both)} {'have' if len(both) > 1 else 'has'} "
            "a **bidirectional** encoder: one RNN reads the sentence left to right, another right to left, and hᵢ is "
            "the two states of token i side by side, so hᵢ knows the words on both sides of i."
        )
    if one:
        parts.append(
            f"The shipped model{'s' * (len(one) > 1)} for {' and '.join(one)} {'read' if len(one) > 1 else 'reads'} "
            "left to right only (**unidirectional**: hᵢ = h⃗ᵢ knows only the words up to i)."
        )
    return " ".join(parts)


def intro(bidirectional: dict[str, bool]) -> str:
    """:data:`INTRO` with the shipped encoders said as they are (:func:`encoders_sentence`)."""
    return INTRO.format(encoders=encoders_sentence(bidirectional))


# Bahdanau's step, one line per equation (so that each fits a phone's width), with the model's own letters
EQUATIONS = (
    r"h_i = [\overrightarrow{h}_i;\ \overleftarrow{h}_i]\ \text{or}\ \overrightarrow{h}_i",
    r"e_{t,i} = v^\top \tanh\!\big(W_q\, s_{t-1} + W_k\, h_i\big)",
    r"\alpha_{t,i} = \frac{\exp(e_{t,i})}{\sum_{j} \exp(e_{t,j})}",
    r"c_t = \sum_{i} \alpha_{t,i}\, h_i",
    r"s_t = \mathrm{GRU}\big([E\,y_{t-1};\ c_t],\ s_{t-1}\big)",
    r"\tilde s_t = \tanh\!\big(W_c[c_t;\ s_t]\big)",
    r"p(y_t \mid y_{<t}, x) = \mathrm{softmax}(W_o\, \tilde s_t)",
)


def equations() -> str:
    """Bahdanau's step as one LaTeX block (one ``st.latex``), an equation per line: each fits a phone's width."""
    return r"\begin{gathered}" + r" \\[6pt] ".join(EQUATIONS) + r"\end{gathered}"


def exercises(model: nn.Module) -> list[Exercise]:
    """By hand (softmax, context, one additive score) and about the shipped Italian-like model's sizes; every
    answer computed here, from the given numbers or the model."""
    return [
        step_by_step._softmax_exercise(),
        weighted_sum._context_exercise(),
        step_by_step._score_exercise(),
        attention_cost._cost_exercise(),
        step_by_step._parameters_exercise(model),
        weighted_sum._context_size_exercise(model),
        alignment._row_sum_exercise(),
    ]
