"""Section 3, the lecture's example: the context c⟨t⟩ as a weighted sum of the encoder states, drawn row by row
for *Jane visits Africa in September* in the English → French-like model; and the exercises on it (the lecture's
*I like pizza* weights by hand, the size of a context vector)."""

from __future__ import annotations

import numpy as np
from torch import nn

from lessons.bahdanau_attention.decoding import Decoding
from lessons.bahdanau_attention.wording import as_code, as_tuple, percent
from lessons.common import charts
from lessons.common.exercises import Exercise

TITLE = "3 · The lecture's example: c⟨1⟩ as a weighted sum"
TEXT = (
    "The lecture draws c⟨1⟩ = α⟨1,1⟩a⟨1⟩ + … + α⟨1,5⟩a⟨5⟩ for *Jane visite l'Afrique en septembre*. Here is "
    "that sum in the trained English → French-like model: each row is one encoder state hᵢ (the lecture's a⟨i⟩) "
    "scaled by its weight αₜ,ᵢ, coloured dimension by dimension; the last row is their sum, the context cₜ. "
    "Change the sentence or the output step."
)
JANE = "Jane visits Africa in September"  # the lecture's example, in the toy-translation training split


def weighted_sum_figure(decoding: Decoding, t: int):
    """Step ``t`` (1-based): one row αₜ,ᵢ·hᵢ per source token, and their sum cₜ as the last row."""
    weights = decoding.weights[t - 1]
    rows = weights[:, None] * decoding.states  # (S, 1) * (S, D) -> (S, D)
    labels = [f"{a:.2f} · h({token})" for a, token in zip(weights, decoding.source, strict=True)]
    return charts.vector_strip(
        np.vstack([rows, decoding.contexts[t - 1]]),
        [*labels, f"= c⟨{t}⟩"],
        title=f"c⟨{t}⟩ = Σᵢ α⟨{t},i⟩ hᵢ, writing “{decoding.target[t - 1]}”",
    )


def weighted_sum_sentence(decoding: Decoding, t: int) -> str:
    """Which encoder states make up c⟨t⟩, computed from the weights (the shares of the whole weight)."""
    weights = decoding.weights[t - 1]
    order = np.argsort(-weights)
    first, second = int(order[0]), int(order[1]) if len(order) > 1 else None
    share = float(weights[first])
    what = "most of" if share >= 0.5 else "the largest share of"
    rest = f"; next comes h({decoding.source[second]}) with {percent(weights[second])}" if second is not None else ""
    return (
        f"c⟨{t}⟩, read to write {as_code(decoding.target[t - 1])}, is {what} h({decoding.source[first]}): "
        f"α = {percent(share)}{rest}."
    )


LECTURE_WEIGHTS = (0.60, 0.35, 0.05)  # the NLP lecture's "I like pizza" weights
CONTEXT_STATES = ((1.0, 2.0), (3.0, 0.0), (-2.0, 4.0))  # h_I, h_like, h_pizza


def _context_exercise() -> Exercise:
    alpha, states = np.array(LECTURE_WEIGHTS), np.array(CONTEXT_STATES)
    c = alpha @ states  # (3,) @ (3, 2) -> (2,)
    words = ("I", "like", "pizza")
    given = "; ".join(f"h({w}) = {as_tuple(h)}" for w, h in zip(words, states, strict=True))
    steps = " + ".join(f"{a:g}·{h[1]:g}" for a, h in zip(alpha, states, strict=True))
    return Exercise(
        key="bahdanau_attention.ex4",
        prompt=(
            f"By hand, with the lecture's weights for *I like pizza*: α = {as_tuple(alpha)} on *I*, *like*, *pizza*, "
            f"whose encoder states are {given}. What is the **second** entry of the context c = Σᵢ αᵢhᵢ?"
        ),
        answer=round(float(c[1]), 4),
        tolerance=0.01,
        explanation=f"Second entries, weighted and added: {steps} = {c[1]:g}. The whole context is c = {as_tuple(c)}.",
        hint="Weight each state's second entry by its α, then add the three.",
    )


def _context_size_exercise(model: nn.Module) -> Exercise:
    """About the shipped model, by hand: how many numbers its decoder cell reads at each step, [embedding of
    yₜ₋₁; cₜ], from the encoder's H and directions and the embedding's E (the answer is counted on the cell)."""
    E, H = model.config.embedding_size, model.config.hidden_size
    directions = 2 if model.config.bidirectional else 1
    D = directions * H
    cell_input = int(model.decoder.weight_ih.shape[1]) if hasattr(model.decoder, "weight_ih") else E + D
    return Exercise(
        key="bahdanau_attention.ex6",
        prompt=(
            f"By hand: the shipped model's encoder {'reads both ways' if directions == 2 else 'reads left to right'}, "
            f"with H = {H} numbers per direction, and each output word enters the decoder as an embedding of "
            f"E = {E} numbers. At each step Bahdanau's decoder cell reads [embedding of yₜ₋₁; cₜ]. How many numbers "
            "is that input?"
        ),
        answer=cell_input,
        tolerance=0,
        explanation=(
            "cₜ is a weighted sum of encoder states hᵢ, so it has their size: "
            + (f"hᵢ = [h⃗ᵢ; h⃖ᵢ] joins 2 directions of H = {H}: {D}. " if directions == 2 else f"H = {H}. ")
            + f"Joined to the embedding: {E} + {D} = {cell_input} (read off the decoder cell's own weights)."
        ),
        hint="A weighted sum of vectors has the size of the vectors; a bidirectional state joins two.",
    )
