"""Section 2, the whole alignment: every output step's α as one heatmap (output tokens down, source tokens across),
where the most-attended source token moves, and the question of what each row sums to."""

from __future__ import annotations

from lessons.bahdanau_attention.decoding import Decoding
from lessons.bahdanau_attention.wording import as_code
from lessons.common import charts
from lessons.common.exercises import Exercise

TITLE = "2 · The whole alignment"
FIGURE_TITLE = "α: which source each output read"


def alignment_heatmap(weights, source: list[str], target: list[str], title: str):
    """An α heatmap: output tokens down, source tokens across, the exact α on hover."""
    return charts.attention_heatmap(
        weights, source, target, x_title="source token", y_title="output token", value_name="α", title=title
    )


def alignment_figure(decoding: Decoding, title: str):
    """The alignment of one decoding: row t is the α that wrote output token t."""
    return alignment_heatmap(decoding.weights, decoding.source, decoding.target, title)


def alignment_note(decoding: Decoding) -> str:
    """How the most-attended source position moves from one output token to the next, counted from the α's."""
    path = decoding.weights.argmax(axis=1)  # (T,) the most-attended source position of each output step
    back = [t for t in range(1, len(path)) if path[t] < path[t - 1]]
    if not back:
        return (
            "Hover a cell for its exact α. The most-attended source token moves left to right (or stays) at every step."
        )
    steps = ", ".join(as_code(decoding.target[t]) for t in back)
    return (
        f"Hover a cell for its exact α. The most-attended source token moves back {len(back)} time"
        f"{'s' if len(back) > 1 else ''} (writing {steps}): a word-order change the model learned by itself."
    )


def _row_sum_exercise() -> Exercise:
    """Predict: what every row of the alignment heatmap sums to."""
    return Exercise(
        key="bahdanau_attention.ex3",
        prompt="Before you look: every row of the alignment heatmap sums to…",
        choices=(
            "1, because α is a softmax over the source tokens",
            "the number of source tokens",
            "1, because α is a softmax over the output tokens",
            "anything: α is unnormalised",
        ),
        answer=0,
        explanation="α_{t,·} = softmax over i (source positions), so each output step spreads exactly 1.",
        hint="Over which index does the softmax run?",
    )
