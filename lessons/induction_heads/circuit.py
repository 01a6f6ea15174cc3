r"""Section 2 of the induction-heads lesson: two heads, one circuit, and the two scores that find them.

Elhage et al. (2021) describe the circuit and Olsson et al. (2022) the scores. A head in layer 1 attends to the
previous position and writes "the token before me was A" into each position's stream. A head in layer 2, at a
position holding A, looks for a key whose stream says "the token before me was A": the token right after the earlier
A. It copies that token to the read-out. Neither head can do it alone: a layer-1 head reads token and position only,
so it cannot match on the token *before* a key.

Letters: T positions, i a query's position, j a key's, R the random part's length, :math:`\alpha_{ij}` a head's
weight, L layers, h heads per layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.induction_heads.sequences import PROBE_REPEAT
from lessons.induction_heads.training import MODEL_TEXT

TITLE = "2 · Two heads, one circuit"
TEXT = (
    f"{MODEL_TEXT} How can attention predict the copy? Two heads in two layers can do it together. A head in "
    "**layer 1** attends to the position just before its own and adds *what the previous token was* to each "
    "position's vector. A head in **layer 2**, at a position holding token A, can then look for the position whose "
    "vector says *the token before me was A*: the position right after the earlier A, whose token is the next one to "
    "predict. It copies that token to the read-out. This pair is an **induction head** (the layer-2 head; the "
    "layer-1 head is its **previous-token head**). Two scores find them in a trained model, each a mean of attention "
    "weights on sequences of R random tokens and their copy:"
)
SCORES = (
    r"\text{previous-token score} = \operatorname*{mean}_{1 \le i < T} \alpha_{i,\,i-1}"
    r"\qquad"
    r"\text{prefix-matching score} = \operatorname*{mean}_{R \le i < 2R} \alpha_{i,\,i-R+1}"
)
EVEN = float(np.mean([1 / (i + 1) for i in range(PROBE_REPEAT, 2 * PROBE_REPEAT)]))  # prefix score of even attention
SCORES_TEXT = (
    "The first is the weight a position puts on the one before it. The second, read in the copy only, is the weight "
    "a position puts on the token that *followed* the earlier occurrence of its own token (R − 1 places back): the "
    "token an induction head copies. A head that spreads its attention evenly over the i + 1 positions it may read "
    f"puts 1/(i + 1) there: a prefix-matching score of {EVEN:.1%} on the sequences the scores are read on "
    f"(R = {PROBE_REPEAT})."
)


def sudden_drop(curves: Sequence[Sequence[dict]], metric: str = "loss_copy") -> tuple[float, float]:
    """How sudden the fall of ``metric`` is over the runs: ``(median steps from 90% to 10% of the way down,
    median share of the run those steps are)``. The way down of a run is from its first report to its lowest."""
    windows, shares = [], []
    for curve in curves:
        values = np.array([p[metric] for p in curve])
        steps = np.array([p["step"] for p in curve])
        top, bottom = values[0], values.min()
        if top - bottom <= 0:
            continue
        above = top - 0.1 * (top - bottom)  # 10% of the way down
        below = bottom + 0.1 * (top - bottom)  # 90% of the way down
        start = steps[np.argmax(values <= above)]
        end = steps[np.argmax(values <= below)]
        windows.append(float(end - start))
        shares.append(float(end - start) / float(steps[-1]))
    if not windows:
        return float("nan"), float("nan")
    return float(np.median(windows)), float(np.median(shares))


SHAPES = (
    "Steadily: a little lower at every report from the first step on.",
    "Flat for a while, then most of the way down within a few hundred steps.",
    "It does not fall: the copy stays as unpredictable as the random half.",
)
SUDDEN_SHARE = 0.25  # a fall that takes at most this share of the run is called sudden


def shape_exercise(results: Comparison) -> Exercise:
    """Predict, then train: how the loss on the copy falls. The answer is read from the shipped runs' curves."""
    curves = [run.curve for run in results.runs_of("intact")]
    window, share = sudden_drop(curves)
    fell = [c[-1]["loss_copy"] < 0.8 * c[0]["loss_copy"] for c in curves]
    answer = 2 if sum(fell) * 2 <= len(curves) else (1 if share <= SUDDEN_SHARE else 0)
    return Exercise(
        key="induction_heads.shape",
        prompt=(
            "**Predict before you train (section 3).** The loss on the random half cannot fall below ln V whatever "
            "the model learns. How will the loss **on the copy** fall during training?"
        ),
        choices=SHAPES,
        answer=answer,
        explanation=(
            f"Over the {len(curves)} shipped seeds, the copy's loss went from 90% to 10% of its way down in "
            f"{window:.0f} steps in the median, {share:.0%} of a {curves[0][-1]['step']:.0f}-step run. Olsson et "
            "al. saw the same in models far larger than this one: a phase change, in which induction heads form "
            "within a short window and in-context learning appears with them. Before it, the model has only "
            "what one token tells about the next, and here that is nothing. Watch the two scores in your own run: "
            "the prefix-matching score climbs at the moment the loss falls."
        ),
    )


def layer_exercise() -> Exercise:
    """Reasoning: why a one-layer attention-only model cannot be an induction head."""
    return Exercise(
        key="induction_heads.one_layer",
        prompt=(
            "A model with **one** attention layer (same width, same heads) is trained on the same sequences. What "
            "can its best head do at a position in the copy holding token A?"
        ),
        choices=(
            "Attend to the token after the earlier A, as a layer-2 induction head does.",
            "Attend to the earlier A itself (it matches on the token it holds), not to the token after it.",
            "Nothing useful: a one-layer model cannot attend by content at all.",
        ),
        answer=1,
        explanation=(
            "A layer-1 key holds its own token and position, nothing about the token before it, so a query holding A "
            "can match the earlier A (same token) but not *the position after* A. To find that one, the key must "
            "carry \u201cthe token before me was A\u201d, which only an earlier layer's previous-token head writes. "
            "That is why induction heads need two layers (Elhage et al. 2021)."
        ),
    )
