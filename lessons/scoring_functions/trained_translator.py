"""Section 6, a trained model's scores on the student's sentence: the additive score of a Bahdanau model (the
shipped translator, or the student's own GRU + attention from Your own data), raw and after the softmax."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from torch import nn

from lessons.bahdanau_attention import step_by_step
from lessons.common import charts, colorscales

TITLE = "6 · A trained model's scores, on your sentence"
TEXT = (
    "The scores above came from random vectors. Here is the additive score of a **trained** model: at every step t "
    "of its translation, the decoder's state scores every source word, e_{t,i} = vᵀ tanh(W s_{t−1} + U hᵢ). The "
    "raw scores are any real numbers; the softmax over each row turns them into the weights α that the model "
    "reads with. Choose the shipped translator, or your own GRU + attention trained on Your own data, and type a "
    "sentence in its language."
)


TRAINED_PROBE = "Jane visits Africa in September"  # the lecture's sentence, in the shipped translator's language


def trained_scores(model: nn.Module, task, text: str):
    """The model's raw scores e and weights α at each step of its greedy translation of ``text``
    (:func:`lessons.bahdanau_attention.step_by_step.walk`, which follows the model's own parts), or a message for
    the page."""
    return step_by_step.walk(model, task, text)


def trained_scores_figure(steps) -> tuple[go.Figure, go.Figure]:
    """Two maps side by side: the raw scores e_{t,i} (signed: the diverging scale, centred on 0) and the weights
    α_{t,i} = softmax_i(e_{t,i}) (0 to 1), rows the output tokens, columns the source tokens."""
    outputs = [*steps.previous[1:], "</s>"][: len(steps.scores)]
    raw = charts.attention_heatmap(
        steps.scores,
        steps.source,
        outputs,
        title="raw scores e",
        zmax=None,
        x_title="source token",
        y_title="output token",
        value_name="e",
    )
    raw.update_traces(colorscale=colorscales.DIVERGING_COLORSCALE, zmid=0.0, zmin=None, zmax=None)
    weights = charts.attention_heatmap(
        steps.weights,
        steps.source,
        outputs,
        title="weights α = softmax(e)",
        x_title="source token",
        y_title="output token",
        value_name="α",
    )
    return raw, weights


def trained_scores_sentence(steps) -> str:
    """What the two maps show, computed from them: the range of the raw scores, how far apart a row's scores
    lie, and how peaked the softmax makes each row."""
    e, a = np.asarray(steps.scores), np.asarray(steps.weights)
    spread = e.max(axis=1) - e.min(axis=1)
    peak = a.max(axis=1)
    return (
        f"The raw scores run from {e.min():+.2f} to {e.max():+.2f}; within one step they lie "
        f"{np.median(spread):.2f} apart (median over the {len(e)} steps). After the softmax the largest weight of a "
        f"step is {np.median(peak):.0%} (median; from {peak.min():.0%} to {peak.max():.0%}): each row sums to 1 "
        f"({np.abs(a.sum(axis=1) - 1).max():.1e} off at most), whatever the scale of its scores."
    )
