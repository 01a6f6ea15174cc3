"""Section 1 of the scaling lesson: the lecture's "Thinking Machines" example, without the division.

The lecture divides q₁·k₁ = 112 and q₁·k₂ = 96 by √64 = 8 and gets weights 0.88 and 0.12; without the division the
softmax gives "Machines" less than one in a million, and its gradient all but vanishes. The student predicts that
weight before the table shows it.

Letters: q₁ the query of "Thinking", k₁ and k₂ the keys, d_k their size, α the weights, e the scores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from lessons.common.exercises import Exercise
from lessons.scaling.scores import softmax_jacobian

TITLE = "1 · The lecture's example, without the division"

# The lecture's worked example ("Thinking Machines"): q₁·k₁ = 112, q₁·k₂ = 96, divided by √64 = 8.
LECTURE_SCORES: tuple[float, float] = (112.0, 96.0)
LECTURE_TOKENS: tuple[str, str] = ("Thinking", "Machines")
LECTURE_D_K = 64


def lecture_text() -> str:
    """Section 1's text: the lecture's d_k and its square root, computed."""
    return (
        f"In the “Thinking Machines” example, d_k = {LECTURE_D_K}, so the scores are divided by "
        f"√{LECTURE_D_K} = {math.sqrt(LECTURE_D_K):g} before the softmax. The last row of the table is what the "
        "softmax gives without it."
    )


BUCKETS = ("about 0.12, as with scaling", "about 0.5", "about 0.01", "less than one in a million")


def lecture_prediction() -> Exercise:
    """Predict, before section 1's table shows it: the lecture's weight for "Machines" without the division."""
    example = lecture_example()
    machines = example.weights_unscaled[1]
    gap = LECTURE_SCORES[0] - LECTURE_SCORES[1]
    if machines < 1e-6:
        bucket = 3
    elif machines < 0.05:
        bucket = 2
    else:
        bucket = 1 if abs(machines - 0.5) < abs(machines - 0.12) else 0
    return Exercise(
        key="scaling.ex3",
        prompt=(
            f"**Predict before you look at the table.** The lecture divides q₁·k₁ = {LECTURE_SCORES[0]:g} and "
            f"q₁·k₂ = {LECTURE_SCORES[1]:g} by √{LECTURE_D_K} = {math.sqrt(LECTURE_D_K):g} and gets weights "
            f"{example.weights_scaled[0]:.2f} and {example.weights_scaled[1]:.2f}. Without the division, what weight "
            f"would “{LECTURE_TOKENS[1]}” get?"
        ),
        choices=BUCKETS,
        answer=bucket,
        explanation=(
            f"Only the difference of the scores matters: softmax({LECTURE_SCORES[0]:g}, {LECTURE_SCORES[1]:g}) "
            f"gives “{LECTURE_TOKENS[1]}” e^−{gap:g} / (1 + e^−{gap:g}) = {machines:.2e}, since e^−{gap:g} ≈ "
            f"{math.exp(-gap):.1e}. Divided by {math.sqrt(LECTURE_D_K):g} the gap is only "
            f"{gap / math.sqrt(LECTURE_D_K):g}. The softmax is saturated, and its gradient shrinks from "
            f"{example.gradient_scaled:.3f} to {example.gradient_unscaled:.1e}."
        ),
        hint="Only the difference of the two scores matters: how big is e to the minus that difference?",
    )


@dataclass(frozen=True)
class LectureExample:
    scores: tuple[float, ...]  # q₁·k₁, q₁·k₂
    scaled: tuple[float, ...]  # divided by √d_k
    weights_scaled: tuple[float, ...]  # softmax of the scaled scores: the lecture's 0.88, 0.12
    weights_unscaled: tuple[float, ...]  # softmax of the raw scores
    gradient_scaled: float  # ‖∂α/∂e‖ at the scaled scores
    gradient_unscaled: float  # ... at the raw ones


def lecture_example(scores: Sequence[float] = LECTURE_SCORES, d_k: int = LECTURE_D_K) -> LectureExample:
    """The lecture's "Thinking Machines" row, with and without the division by √d_k."""
    e = torch.tensor(scores, dtype=torch.float64)
    scaled = e / math.sqrt(d_k)
    a_scaled, a_raw = torch.softmax(scaled, -1), torch.softmax(e, -1)
    norm = torch.linalg.matrix_norm
    return LectureExample(
        tuple(e.tolist()),
        tuple(scaled.tolist()),
        tuple(a_scaled.tolist()),
        tuple(a_raw.tolist()),
        float(norm(softmax_jacobian(a_scaled))),
        float(norm(softmax_jacobian(a_raw))),
    )


def lecture_rows(example: LectureExample) -> list[dict]:
    """The lecture's table, with one more row: what the softmax gives without the division."""
    d = math.sqrt(LECTURE_D_K)
    rows = [
        ("Score q₁·kᵢ", [f"{s:g}" for s in example.scores]),
        (f"Divide by {d:g} (√d_k)", [f"{s:g}" for s in example.scaled]),
        ("Softmax", [f"{a:.2f}" for a in example.weights_scaled]),
        ("Softmax without dividing", [f"{a:.7f}" for a in example.weights_unscaled]),
    ]
    return [{"": name, **dict(zip(LECTURE_TOKENS, values, strict=True))} for name, values in rows]


def gradient_caption(example: LectureExample) -> str:
    """The caption under :func:`lecture_rows`' table: the softmax's gradient with and without the division."""
    return (
        f"Size of the softmax's gradient, ‖∂α/∂e‖: **{example.gradient_scaled:.3f}** with the division, "
        f"**{example.gradient_unscaled:.1e}** without. Every gradient that reaches the scores through this softmax "
        "is multiplied by it. That is not the whole gradient of W_Q and W_K: unscaled, a score's own derivative with "
        "respect to them is √d_k times larger, and section 4 measures which wins in a trained layer."
    )
