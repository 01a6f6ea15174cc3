"""Section 3: the Transformer lecture's "Thinking Machines" worked example, step by step.

One query through by hand: q₁·k₁ = 112 and q₁·k₂ = 96, divided by √d_k = 8, softmax 0.88 / 0.12, then
z₁ = Σ softmax × value. The lecture does not print the vectors, so they are chosen (small integers, seeded) so that
its dot products come out exactly, and the attention is computed by
:func:`minimodels.attention.scaled_dot_product_attention`. Then the same dot products at another d_k, and two
exercises on both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from lessons.common import charts
from lessons.common.exercises import Exercise
from minimodels.attention import masked_softmax, scaled_dot_product_attention

TITLE = "3 · “Thinking Machines”, step by step"
TEXT = (
    "The Transformer lecture works one query through by hand: the input *Thinking Machines*, d_k = {d_k}. The "
    "lecture does not print the vectors, so we chose q₁, k₁ and k₂ (small integers, seeded) so that its dot "
    "products come out exactly; v₁ and v₂ are random. Everything below is computed by "
    "`minimodels.attention.scaled_dot_product_attention`."
)
LECTURE_D_K = 64
LECTURE_SCORES = (112, 96)  # q1·k1 and q1·k2 as printed in the lecture


def _integer_vector_with_dot(rng: np.random.Generator, q: np.ndarray, target: int) -> np.ndarray:
    """A vector of small integers whose dot product with ``q`` is exactly ``target``.

    Start from random integers in [-2, 2], then move one entry at a time by ±1 where ``|q| == 1`` (each move
    changes the dot product by exactly 1) until the dot product is the target. Integers keep the float32
    arithmetic exact, so 112 is 112, not 111.99999.
    """
    k = rng.integers(-2, 3, size=q.shape[0])
    unit = np.flatnonzero(np.abs(q) == 1)
    while (residual := int(q @ k) - target) != 0:
        step = -int(np.sign(residual))
        # nudge an entry that can still move without leaving [-3, 3]
        movable = [i for i in unit if abs(k[i] + step * q[i]) <= 3]
        i = movable[int(rng.integers(len(movable)))]
        k[i] += step * q[i]
    return k


@dataclass(frozen=True)
class WorkedExample:
    tokens: tuple[str, str]
    q1: torch.Tensor  # (d_k,)
    keys: torch.Tensor  # (2, d_k): k1, k2
    values: torch.Tensor  # (2, d_v): v1, v2
    scores: torch.Tensor  # (2,): q1·k1, q1·k2
    scaled: torch.Tensor  # (2,): scores / √d_k
    weights: torch.Tensor  # (2,): softmax of the scaled scores
    z1: torch.Tensor  # (d_v,): Σ weight × value

    @property
    def d_k(self) -> int:
        return self.q1.shape[0]


def thinking_machines(seed: int = 0, d_k: int = LECTURE_D_K) -> WorkedExample:
    """The lecture's two-word example, with vectors chosen so the lecture's dot products come out exactly.

    The lecture does not print q1, k1, k2; we draw small random integers (seeded) and adjust k1 and k2 until
    q1·k1 = 112 and q1·k2 = 96. v1 and v2 are seeded random values. The attention itself is then computed
    by :func:`minimodels.attention.scaled_dot_product_attention`, exactly as any model computes it.
    """
    rng = np.random.default_rng(seed)
    q1 = rng.choice([-1, 1], size=d_k)  # entries ±1, so every nudge in _integer_vector_with_dot is exact
    k1 = _integer_vector_with_dot(rng, q1, LECTURE_SCORES[0])
    k2 = _integer_vector_with_dot(rng, q1, LECTURE_SCORES[1])
    values = rng.normal(size=(2, d_k)).round(2)

    q = torch.tensor(q1, dtype=torch.float32)
    keys = torch.tensor(np.stack([k1, k2]), dtype=torch.float32)  # (2, d_k)
    v = torch.tensor(values, dtype=torch.float32)  # (2, d_v)
    z1, weights = scaled_dot_product_attention(q[None], keys, v)  # (1, d_v), (1, 2)
    scores = keys @ q  # (2,)
    return WorkedExample(
        tokens=("Thinking", "Machines"),
        q1=q,
        keys=keys,
        values=v,
        scores=scores,
        scaled=scores / math.sqrt(d_k),
        weights=weights[0],
        z1=z1[0],
    )


def worked_table(example: WorkedExample) -> dict[str, list[str]]:
    """The lecture's table, one column per word: the score, the scaled score, the softmax, the weighted value."""
    table = {"": ["Score  q₁·kᵢ", f"Divide by √d_k = {example.d_k**0.5:g}", "Softmax", "Softmax × value"]}
    for i, token in enumerate(example.tokens):
        w = float(example.weights[i])
        table[token] = [f"{example.scores[i]:g}", f"{example.scaled[i]:g}", f"{w:.2f}", f"{w:.2f} · v{'₁₂'[i]}"]
    return table


def vectors_figure(example: WorkedExample):
    """q₁, both keys, both values and the answer z₁ as strips, every dimension (values on hover)."""
    return charts.vector_strip(
        [example.q1, example.keys[0], example.keys[1], example.values[0], example.values[1], example.z1],
        ["q₁ (Thinking)", "k₁ (Thinking)", "k₂ (Machines)", "v₁ (Thinking)", "v₂ (Machines)", "z₁ = Σ αᵢ vᵢ"],
        title=f"The vectors, all {example.d_k} dimensions (hover for values)",
    )


def worked_sentence(example: WorkedExample) -> str:
    """Which value z₁ leans towards, read from the example's weights (the lecture's: v₁, 88 %)."""
    w, (a, b) = example.weights, example.tokens
    if abs(float(w[0] - w[1])) < 5e-3:
        said = f"z₁ is an even mix: {w[0]:.0%} of it is *{a}*'s value and {w[1]:.0%} *{b}*'s."
    else:
        i = int(w.argmax())
        said = (
            f"z₁ leans towards v{'₁₂'[i]}: {w[i]:.0%} of it is *{example.tokens[i]}*'s value and {w[1 - i]:.0%} "
            f"*{example.tokens[1 - i]}*'s."
        )
    return f"{said} Try it: how would the split change if the vectors were wider but the dot products the same?"


def weights_at(example: WorkedExample, d_k: int) -> torch.Tensor:
    """The example's softmax weights had the same dot products been scaled by √d_k of another width."""
    return masked_softmax(example.scores / math.sqrt(d_k))


EXERCISE_SCORE = 104  # ex1: Machines' dot product, were it 104 instead of the lecture's 96
EXERCISE_WIDTH = 100  # ex2: a d_k that is not on the what-if slider


def exercises() -> list[Exercise]:
    """The section's two by-hand questions: another dot product at d_k = 64, the lecture's at another d_k."""
    ex = thinking_machines()
    nearer = masked_softmax(torch.tensor([LECTURE_SCORES[0], EXERCISE_SCORE], dtype=torch.float64) / 8)
    wider = weights_at(ex, EXERCISE_WIDTH)
    root = math.sqrt(EXERCISE_WIDTH)
    return [
        Exercise(
            key="queries_keys_values.ex1",
            prompt=(
                f"By hand: in the worked example, suppose q₁·k₂ were {EXERCISE_SCORE} instead of 96 (q₁·k₁ = 112, "
                "d_k = 64). What weight would *Thinking* give to *Machines*? (two decimals)"
            ),
            answer=float(nearer[1]),
            tolerance=0.005,
            explanation=f"Divide by √64 = 8: 112 / 8 = 14 and {EXERCISE_SCORE} / 8 = {EXERCISE_SCORE / 8:g}. "
            f"softmax(14, {EXERCISE_SCORE / 8:g}) puts e^{EXERCISE_SCORE / 8:g} / (e^14 + e^{EXERCISE_SCORE / 8:g}) "
            f"= 1 / (1 + e^{14 - EXERCISE_SCORE / 8:g}) = {float(nearer[1]):.2f} on Machines: a smaller gap "
            "between the scores, a more even split.",
            hint="Divide both scores by √d_k before the softmax.",
        ),
        Exercise(
            key="queries_keys_values.ex2",
            prompt=(
                f"By hand: keep the lecture's dot products (112 and 96) but make the vectors d_k = {EXERCISE_WIDTH} "
                "wide. What weight goes to *Thinking*? (two decimals)"
            ),
            answer=float(wider[0]),
            tolerance=0.005,
            explanation=f"√{EXERCISE_WIDTH} = {root:g}: the scaled scores are {112 / root:g} and {96 / root:g}, a "
            f"gap of {16 / root:g}, so Thinking gets 1 / (1 + e^−{16 / root:g}) = {float(wider[0]):.2f}. The gap "
            "16/√d_k shrinks as d_k grows (2 at d_k = 64), so the weight moves from "
            f"{float(ex.weights[0]):.2f} towards 0.5, never below it, since 112 > 96.",
            hint="Divide both dot products by √d_k, then take the softmax of the two.",
        ),
    ]
