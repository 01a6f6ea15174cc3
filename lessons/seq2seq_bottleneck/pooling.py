r"""Section 4, attention generalises pooling (the NLP lecture's "generalisation of pooling").

Mean pooling :math:`Enc(x) = \frac{1}{|x|}\sum_i h_i` is attention with fixed, equal weights; attention
:math:`Enc(x, g) = \sum_i p(i|g) h_i` lets the weights change with the decoder's state g. The student pools three
states of two numbers by hand with the lecture's weights (60%, 35%, 5% while the decoder writes *mi* for *I like
pizza*); then the same pair of ideas, trained: the shipped file trains ``MeanPooledSeq2Seq`` (the model without
attention whose context is the mean of the states, :mod:`.experiment`) at D = ``POOL_D`` beside the other two.

Letters: |x| source positions, d the numbers per state, g the decoder's state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from lessons.common.charts import figure
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.seq2seq_bottleneck.experiment import COLORS, MAX_LEN, METRICS, MIN_LEN, POOL_D, POOLED
from lessons.seq2seq_bottleneck.shipped import compare_lengths, lengths_text

TITLE = "4 · Attention generalises pooling"
TEXT = (
    "Without attention the whole source becomes one vector, Enc(x). The last state is one choice; the lecture "
    "calls the general idea *pooling*, and the simplest pool is the **mean** of all the states. Attention "
    "generalises it: a probability distribution p(i | g) over the source positions, computed from the decoder's "
    "state g, and the weighted sum of the states. The mean is attention with every weight fixed at 1/|x|; "
    "attention lets the weights change at every step. The lecture's example: while the decoder writes *mi* for "
    "*I like pizza*, p = 60% on *I*, 35% on *like*, 5% on *pizza*. Edit the weights and the states."
)
EQUATION = (
    r"\begin{gathered}\text{mean pooling: } Enc(x) = \frac{1}{|x|}\sum_{i=1}^{|x|} h_i \\ "
    r"\text{attention: } Enc(x, g) = \sum_{i=1}^{|x|} p(i \mid g)\, h_i\end{gathered}"
)
LECTURE_WORDS = ("I", "like", "pizza")  # the NLP lecture's source sentence
LECTURE_WEIGHTS = "60, 35, 5"  # its p(i | g₀) in percent, while the decoder writes "mi"
DEFAULT_STATES = "1 0; 0 1; 1 1"  # three 2-number states to pool (the lecture gives none: pick your own)


@dataclass(frozen=True)
class ParsedNumbers:
    """Numbers typed by the student, or why they cannot be used (``error``), and what was changed (``note``)."""

    values: tuple[tuple[float, ...], ...]  # one row per word
    error: str | None = None
    note: str | None = None


def _numbers(part: str) -> tuple[float, ...] | None:
    try:
        values = tuple(float(v) for v in part.replace(",", " ").split())
    except ValueError:
        return None
    return values if all(np.isfinite(values)) else None


def parse_states(text: object) -> ParsedNumbers:
    """Three states of two numbers each, ``"1 0; 0 1; 1 1"``: a clear message for anything else, never an error."""
    if not isinstance(text, str) or not text.strip():
        return ParsedNumbers((), "Type three states, e.g. 1 0; 0 1; 1 1.")
    parts = [p for p in text.split(";")]
    rows = [_numbers(p) for p in parts]
    if len(parts) != 3 or any(r is None or len(r) != 2 for r in rows):
        return ParsedNumbers((), "Type three states of two numbers each, separated by semicolons: 1 0; 0 1; 1 1.")
    if any(abs(v) > 1000 for r in rows for v in r):
        return ParsedNumbers((), "Keep each number between −1000 and 1000.")
    return ParsedNumbers(tuple(rows))


def parse_weights(text: object) -> ParsedNumbers:
    """Three weights in percent, ``"60, 35, 5"``; weights that do not add up to 100 are scaled so they do (a note
    says so), as a softmax's would."""
    values = _numbers(text) if isinstance(text, str) else None
    if values is None or len(values) != 3:
        return ParsedNumbers((), "Type three weights in percent, one per word, e.g. 60, 35, 5.")
    if any(v < 0 for v in values) or sum(values) <= 0:
        return ParsedNumbers((), "Weights are a probability distribution: none below 0, and not all 0.")
    total = sum(values)
    note = None if abs(total - 100) < 1e-9 else f"Your weights add up to {total:g}%, so they are scaled to 100%."
    return ParsedNumbers((tuple(v / total for v in values),), note=note)


@dataclass(frozen=True)
class Pooled:
    states: np.ndarray  # (3, 2) hᵢ
    weights: np.ndarray  # (3,) p(i | g)
    mean: np.ndarray  # (2,) (1/|x|) Σ hᵢ
    attended: np.ndarray  # (2,) Σ p(i | g) hᵢ


def pool(states: Sequence[Sequence[float]], weights: Sequence[float]) -> Pooled:
    """Mean pooling and attention over the same states: the mean is attention with every weight 1/|x|."""
    h = np.asarray(states, dtype=float)  # (|x|, d)
    p = np.asarray(weights, dtype=float)  # (|x|,)
    return Pooled(h, p, h.mean(axis=0), p @ h)  # (d,), (|x|,) @ (|x|, d) -> (d,)


def _vec(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.2f}" for x in v) + ")"


def pooling_text(result: Pooled, words: Sequence[str] = LECTURE_WORDS) -> str:
    """Both sums written out with the numbers, as a student would on paper."""
    h = [f"h_{{{w}}}" for w in words]
    mean = " + ".join(h)
    att = " + ".join(f"{p:.2f}\\,{name}" for p, name in zip(result.weights, h, strict=True))
    return (  # each sum on its own line and its value on the next: one line overflows a phone
        f"\\begin{{aligned}}\\text{{mean: }} & \\tfrac{{1}}{{{len(words)}}}({mean}) \\\\ & = {_vec(result.mean)} \\\\ "
        f"\\text{{attention: }} & {att} \\\\ & = {_vec(result.attended)}\\end{{aligned}}"
    )


def pooling_figure(result: Pooled, words: Sequence[str] = LECTURE_WORDS) -> go.Figure:
    """The three states, their mean and their attention-weighted sum, in the plane (each weight in its hover)."""
    h = result.states
    data = [
        {
            "type": "scatter",
            "x": h[:, 0],
            "y": h[:, 1],
            "mode": "markers+text",
            "name": "states hᵢ",
            "text": [f"h({w}) · p = {p:.0%}" for w, p in zip(words, result.weights, strict=True)],
            "textposition": "top center",
            "marker": {"size": 12, "color": "#7f7f7f"},
            "cliponaxis": False,
        },
        {
            "type": "scatter",
            "x": [result.mean[0]],
            "y": [result.mean[1]],
            "mode": "markers",
            "name": "mean pooling",
            "marker": {"size": 16, "symbol": "x", "color": COLORS["gru-mean"]},
        },
        {
            "type": "scatter",
            "x": [result.attended[0]],
            "y": [result.attended[1]],
            "mode": "markers",
            "name": "attention Σ p(i|g) hᵢ",
            "marker": {"size": 16, "symbol": "diamond", "color": COLORS["gru-additive"]},
        },
    ]
    lo, hi = float(min(h.min(), 0)) - 0.5, float(max(h.max(), 1)) + 0.5
    layout = {
        "title": {"text": "Three states, pooled two ways"},
        "height": 360,
        "xaxis": {"title": {"text": "first number"}, "range": [lo, hi], "zeroline": True},
        "yaxis": {"title": {"text": "second number"}, "range": [lo, hi], "zeroline": True},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
    }
    return figure(data, layout)


# ------------------------------------------------------------------------------------------ the same, trained
TRAINED = (
    "The same pair of ideas, trained: three models with the same unidirectional encoder, D, seeds and steps, "
    "whose decoder gets the **last state**, the **mean of the states**, or **attention** over them."
)
POOL_ORDER = ("gru-none", POOLED, "gru-additive")  # last state, mean of states, attention: the pooling section's order


def pooling_summary(results: Comparison, metric: str = "exact_match") -> str:
    """The pooling comparison at D = ``POOL_D``, computed: mean-pooled context against the last state, and
    attention against mean pooling, each on every length (2–18) over the seeds."""
    every = (MIN_LEN, MAX_LEN)
    if POOLED not in results.variants or not results.runs_of(POOLED, {"hidden_size": POOL_D}):
        return "The shipped results have no mean-pooled model: run the script again."
    mean_last = compare_lengths(results, POOLED, "gru-none", POOL_D, every, metric)
    attn_mean = compare_lengths(results, "gru-additive", POOLED, POOL_D, every, metric)
    name = f"{METRICS[metric]} over {lengths_text(every)}"
    return f"At D = {POOL_D}: {mean_last.sentence(metric_name=name)} {attn_mean.sentence(metric_name=name)}"


# ------------------------------------------------------------------------------------------------- exercises
# Four states, the end mark's included: the page's widget takes three, so it cannot compute these for the student
EXERCISE_WORDS = (*LECTURE_WORDS, "</s>")
EXERCISE_STATES = ((2.0, 0.0), (0.0, 4.0), (1.0, 2.0), (3.0, 2.0))
EXERCISE_WEIGHTS = (0.50, 0.30, 0.10, 0.10)


def exercises() -> list[Exercise]:
    """Both pools by hand, on states that are not the page's, answers computed by :func:`pool`."""
    pooled = pool(EXERCISE_STATES, EXERCISE_WEIGHTS)
    states = "; ".join(f"h_{w} = ({a:g}, {b:g})" for w, (a, b) in zip(EXERCISE_WORDS, EXERCISE_STATES, strict=True))
    shares = ", ".join(f"{p:.0%} *{w}*" for w, p in zip(EXERCISE_WORDS, EXERCISE_WEIGHTS, strict=True))
    mean_parts = " + ".join(f"{a:g}" for a, _ in EXERCISE_STATES)
    att_parts = " + ".join(f"{p:.2f}·{b:g}" for p, (_, b) in zip(pooled.weights, EXERCISE_STATES, strict=True))
    return [
        Exercise(
            key="seq2seq_bottleneck.ex4",
            prompt=f"Mean pooling by hand: {states}. What is the **first** number of Enc(x) = (1/|x|) Σ hᵢ?",
            answer=round(float(pooled.mean[0]), 4),
            tolerance=0.01,
            explanation=(
                f"Add the first numbers and divide by |x| = {len(EXERCISE_STATES)}: ({mean_parts}) / "
                f"{len(EXERCISE_STATES)} = {pooled.mean[0]:.2f}. The end mark's state counts like any other."
            ),
        ),
        Exercise(
            key="seq2seq_bottleneck.ex5",
            prompt=(
                f"The same four states, weighted {shares}: what is the **second** number of Enc(x, g) = Σ p(i | g) hᵢ?"
            ),
            answer=round(float(pooled.attended[1]), 4),
            tolerance=0.01,
            explanation=(
                f"Weight each state's second number: {att_parts} = {pooled.attended[1]:.2f}. The mean gave "
                f"{pooled.mean[1]:.2f}: the same sum with every weight 1/{len(EXERCISE_STATES)}."
            ),
            hint="Use the second numbers, and the weights as fractions.",
        ),
    ]
