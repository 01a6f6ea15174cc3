"""Section 2 of the masking lesson: the sequence (causal) mask.

A decoder predicts the next token at every position at once, so query i may read keys j ≤ i only: the mask is the
lower triangle, and the future gets −∞ before the softmax, hence exactly 0 weight. Shown on one row of random scores,
then on the two trained decoders (:mod:`lessons.masking.decoders`) reading the student's word: the one with the mask
reads back, the cheating one reads the next position.

Letters: T input positions, i the query's position, j a key's, W = ``WORD`` letters per word.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_heatmap
from lessons.common.exercises import Exercise
from lessons.masking.decoders import DecoderView
from lessons.masking.word_cipher import PROBE, SEP, SHIFT, WORD, cipher
from minimodels.attention import causal_mask, masked_softmax

TITLE = "2 · The sequence (causal) mask"
TEXT = (
    "A decoder predicts the next token at every position, all positions at once: its input is the sequence and its "
    "target the same sequence shifted by one. Position t's target is position t + 1's input. So query i may attend "
    "to keys j ≤ i only: the mask is the lower triangle. Here on sequences like “word=cipher” (section 3)."
)


@dataclass(frozen=True)
class MaskedRow:
    """One query row of random scores, with the future set to −inf, then the softmax."""

    position: int  # t, 0-based: the query's position
    scores: torch.Tensor  # (T,) raw scores
    masked_scores: torch.Tensor  # (T,) −inf after position t
    weights: torch.Tensor  # (T,) masked_softmax: exactly 0 after position t

    def table(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """The row as the page shows it: each key (labelled by ``keys``), its score, masked score and weight."""
        return {
            "key": [f"{j + 1}: {tok}" for j, tok in enumerate(keys)],
            "score": [f"{v:.2f}" for v in self.scores.tolist()],
            "future → −∞": [f"{v:.2f}" for v in self.masked_scores.tolist()],
            "softmax": [f"{v:.3f}" for v in self.weights.tolist()],
        }


def causal_row(T: int, position: int, seed: int = 0) -> MaskedRow:
    """Seeded N(0, 1) scores for one query at ``position`` of ``T``, through the causal mask's row."""
    if not 0 <= position < T:
        raise ValueError(f"position {position} is outside 0..{T - 1}")
    scores = torch.randn(T, generator=torch.Generator().manual_seed(seed)).round(decimals=2)  # (T,)
    allowed = causal_mask(T)[position]  # (T,) True at positions ≤ t
    return MaskedRow(position, scores, scores.masked_fill(~allowed, -math.inf), masked_softmax(scores, allowed))


def causal_mask_figure(inputs: Sequence[str]) -> go.Figure:
    """``causal_mask(T)`` as a map over the decoder's input tokens: 1 where query i may read key j."""
    T = len(inputs)
    return attention_heatmap(
        causal_mask(T).float(), inputs, inputs, title=f"causal_mask({T}): 1 = allowed", value_name="allowed"
    )


def causal_row_caption(row: MaskedRow, token: str, quote=repr) -> str:
    """Under the table of one query's scores; ``quote`` shows the (model's) token verbatim."""
    return (
        f"Random scores (seeded) for query {row.position + 1} ({quote(token)}): keys after it get −∞ and "
        "then weight exactly 0; the allowed ones share all of it."
    )


# ------------------------------------------------------------------------------------ the two trained decoders
MAP_TITLES = {True: "causal mask: on", False: "causal mask: off (cheating)"}  # short: two maps share a phone's width

MAPS_TEXT = (
    "Two decoders of the same size, each one self-attention with one W^Q, W^K, W^V and a linear read-out, trained "
    f"on sequences like “{PROBE}{SEP}{cipher(PROBE)}”: a random {WORD}-letter word, “{SEP}”, then the word in "
    f"Caesar's cipher (each letter {SHIFT} further on in the alphabet). At every position they predict the next "
    "character. One has the causal mask, one does not (the *cheating decoder*). Their attention on your word, fed "
    "the whole sequence: rows, the position predicting; columns, the position read."
)
POSITIONS_NOTE = (
    "To know which letter sits where, each decoder adds a learned vector for each position to each letter's "
    "vector: without it, attention cannot tell positions apart. How and why is lesson 8."
)


def future_weight(self_attention: torch.Tensor | np.ndarray) -> float:
    """Mean over query rows (and heads) of the weight on *later* positions, the part above the diagonal.

    ``self_attention`` is ``(T, T)`` or ``(h, T, T)``. A causal decoder gives exactly 0.
    """
    w = torch.as_tensor(self_attention, dtype=torch.float32).detach()
    T = w.size(-1)
    future = ~causal_mask(T)  # (T, T) True strictly above the diagonal
    return float((w * future).sum(-1).mean())


def diagonal_weight(weights: np.ndarray, offset: int, first_row: int = 0) -> float:
    """Mean over rows ``first_row`` … of the weight on key ``row + offset`` (rows where that key exists)."""
    rows = [t for t in range(first_row, len(weights)) if 0 <= t + offset < weights.shape[1]]
    return float(np.mean([weights[t, t + offset] for t in rows]))


def maps_caption(normal: DecoderView, cheater: DecoderView) -> str:
    """Under the two maps: where each decoder's rows put their weight, computed from the maps."""
    back = diagonal_weight(normal.attention, -WORD, first_row=WORD)  # cipher rows reading the letter WORD back
    ahead = diagonal_weight(cheater.attention, 1)
    return (
        f"With the mask, the rows from “{SEP}” on put {back:.0%} of their weight (mean) on the letter {WORD} places "
        f"back, the one the next cipher letter is made from. Without it, rows put {ahead:.0%} of their weight "
        "(mean) on the very next position: the answer, handed over by the input."
    )


def allowed_pairs_exercise() -> Exercise:
    """By hand: how many (query, key) pairs the causal mask allows over the decoder's input."""
    T = 2 * WORD  # the decoder's input positions
    allowed = int(causal_mask(T).sum())
    return Exercise(
        key="masking.ex2",
        prompt=(
            f"The decoder's input has T = {T} positions ({WORD} letters, “{SEP}”, {WORD - 1} cipher letters). How "
            "many (query, key) pairs does the causal mask allow?"
        ),
        answer=allowed,
        explanation=(
            f"Row t (counting from 1) may read positions 1 … t: t keys. Over all rows, 1 + 2 + … + {T} = "
            f"{T} · {T + 1} / 2 = {allowed}, the lower triangle with its diagonal, out of {T} × {T} = {T * T}."
        ),
        hint="Count the lower triangle, diagonal included.",
    )


EXERCISE_T = 50  # longer than any sentence the page's widgets take, so its mask cannot be counted off a figure


def where_minus_infinity_exercise() -> Exercise:
    """By hand: how many scores the causal mask sets to −∞ in a T × T map (counted on the mask itself)."""
    T = EXERCISE_T
    hidden = int((~causal_mask(T)).sum())  # True where a position may read: the rest gets −∞
    return Exercise(
        key="masking.ex3",
        prompt=f"By hand: a decoder reads T = {T} tokens. How many of the {T} × {T} = {T * T:,} scores of its "
        "self-attention does the causal mask set to −∞ before the softmax?",
        answer=hidden,
        explanation=f"Position i may read itself and what came before it (keys j ≤ i); the future, j > i, gets −∞, "
        f"and e^−∞ = 0. Row i hides T − i keys: 0 + 1 + … + {T - 1} = {T}·{T - 1}/2 = {hidden:,}, the part above "
        f"the diagonal (counted on `causal_mask({T})`).",
        hint="Count the keys row i may not read, then add the rows.",
    )
