r"""Section 2, reading both ways: the lecture's bidirectional encoder, :math:`h_i = [\overrightarrow{h}_i;
\overleftarrow{h}_i]`.

A second GRU reads the source right to left; position i's state joins what the forward GRU has read (x_1..x_i) and
what the backward one has read (x_i..x_S), so D = 2H. Without attention the context is then
:math:`c = [\overrightarrow{h}_S; \overleftarrow{h}_1]`. Every shipped model has a unidirectional encoder; a live run
(section 5) trains either kind. The exercises count what the decoder is given, and what a direction has read.

Letters: S source positions (characters + EOS), H numbers per direction, D = 2H.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch
from torch import nn

from lessons.common.exercises import Exercise
from lessons.seq2seq_bottleneck.experiment import build, lesson_task, shown
from minimodels.tokenizers import EOS_ID

TITLE = "2 · Reading both ways: a bidirectional encoder"
TEXT = (
    "A unidirectional encoder's hᵢ has read only x₁ … xᵢ: nothing to the right of position i. The lecture's "
    "encoders read the sentence **both ways**: a second GRU runs from the end mark back to x₁, and each position "
    "keeps both states side by side, hᵢ = [→hᵢ; ←hᵢ]. With H numbers per direction a state has **D = 2H** numbers. "
    "Without attention the decoder still gets one vector, now c = [→h_S; ←h₁]: the forward GRU's state after the "
    "end mark and the backward GRU's state after it came back to the first character, so the *start* of the "
    "string is fresh in one half. Attention reads every hᵢ, each of which has seen the whole sentence."
)
EQUATION = (  # three short lines: one long line overflows a phone
    r"\begin{gathered}\overrightarrow{h}_i = \mathrm{GRU}(E\,x_i,\ \overrightarrow{h}_{i-1}) \\ "
    r"\overleftarrow{h}_i = \mathrm{GRU}'(E\,x_i,\ \overleftarrow{h}_{i+1}) \\ "
    r"h_i = [\overrightarrow{h}_i;\ \overleftarrow{h}_i] \in \mathbb{R}^{2H}\end{gathered}"
)
NOTE = (
    "What each direction has read at every position of your string (the count in brackets). "
    "Every shipped model on this page has a **unidirectional** encoder; section 5 trains either kind."
)


def tokens_read(length: int, position: int, direction: str) -> int:
    """How many source tokens (of ``length``, the end mark included) a bidirectional encoder's state at
    ``position`` (1-based) has read in ``direction``: forward x_1..x_i, backward x_S..x_i."""
    if not 1 <= position <= length:
        raise ValueError(f"position {position} is outside 1..{length}")
    return {"forward": position, "backward": length - position + 1}[direction]


def directions_read(tokens: Sequence[str]) -> list[dict]:
    """For each source position i: the token, and the source tokens the forward state →hᵢ (x_1..x_i, read left to
    right) and the backward state ←hᵢ (x_i..x_S, read right to left from the end mark) have read, with their count.
    hᵢ = [→hᵢ; ←hᵢ] holds both."""
    labels = [shown(t) for t in tokens]
    S = len(labels)
    return [
        {
            "i": i,
            "xᵢ": labels[i - 1],
            "→hᵢ has read (left to right)": "".join(labels[:i]) + f" ({tokens_read(S, i, 'forward')})",
            "←hᵢ has read (right to left)": "".join(labels[i - 1 :]) + f" ({tokens_read(S, i, 'backward')})",
        }
        for i in range(1, S + 1)
    ]


# ------------------------------------------------------------------------------------------------- exercises
EXERCISE_TEXT = "i like pizza"
# ex3: a string longer than the page's table takes (experiment.MAX_LEN), so the table cannot answer it
LONG, LONG_AT = 40, 13


@functools.cache
def decoder_numbers(model_name: str, context_size: int, text: str, bidirectional: bool = False) -> int:
    """:func:`numbers_given_to_decoder` of a fresh model (the count does not depend on its weights), once per server."""
    return numbers_given_to_decoder(build(model_name, context_size, bidirectional=bidirectional), text)


@torch.inference_mode()
def numbers_given_to_decoder(model: nn.Module, text: str) -> int:
    """How many numbers about the source the decoder can read at each step: c alone, or every h_t'."""
    ids = lesson_task().source_tokenizer.encode(text)
    source = torch.tensor([[*ids, EOS_ID]])  # (1, S)
    memory = model.encode(source, torch.tensor([source.size(1)]))
    return memory.context.numel() if model.config.attention == "none" else memory.states.numel()


def exercises() -> list[Exercise]:
    """Two counts of what the decoder is given, by the models themselves, and one of what a direction has read."""
    text, h = EXERCISE_TEXT, 24
    S = len(text) + 1
    return [
        Exercise(
            key="seq2seq_bottleneck.ex1",
            prompt=(
                f"A **bidirectional** GRU encoder with H = {h} numbers per direction, **no attention**, reads "
                f"*{text}* ({len(text)} characters + the end mark). How many numbers about the source does the "
                "decoder get?"
            ),
            answer=decoder_numbers("gru-none", 2 * h, text, True),
            explanation=(
                f"Only c = [→h_S; ←h_1]: the forward state after the end mark and the backward state at the first "
                f"character, {h} + {h} = {2 * h} numbers, whatever the sentence's length."
            ),
            hint="One vector, but a bidirectional one has two halves.",
        ),
        Exercise(
            key="seq2seq_bottleneck.ex2",
            prompt=(
                f"The same bidirectional encoder (H = {h} per direction) **with attention** reads *{text}*. How "
                "many numbers are in the encoder states h₁ … h_S that attention reads at every step?"
            ),
            answer=decoder_numbers("gru-additive", 2 * h, text, True),
            explanation=(
                f"S = {len(text)} characters + 1 end mark = {S} states, each hᵢ = [→hᵢ; ←hᵢ] of D = 2 × {h} = "
                f"{2 * h} numbers: {S} × {2 * h} = {S * 2 * h}. They grow with the sentence; c did not."
            ),
            hint="Count the end mark, and both directions.",
        ),
        Exercise(
            key="seq2seq_bottleneck.ex3",
            prompt=(
                f"A bidirectional encoder reads a string of {LONG} characters and its end mark (S = {LONG + 1}), "
                f"longer than this page's models take. How many source tokens has the **backward** state "
                f"←h_{LONG_AT} read?"
            ),
            answer=tokens_read(LONG + 1, LONG_AT, "backward"),
            explanation=(
                f"The backward GRU starts at the end mark and reads right to left, so at position {LONG_AT} it has "
                f"read positions {LONG + 1} down to {LONG_AT}: {LONG + 1} − {LONG_AT} + 1 = "
                f"{tokens_read(LONG + 1, LONG_AT, 'backward')} tokens. The forward →h_{LONG_AT} has read "
                f"{tokens_read(LONG + 1, LONG_AT, 'forward')}: together every position, as at every i."
            ),
            hint="It reads from the end, the end mark included.",
        ),
    ]
