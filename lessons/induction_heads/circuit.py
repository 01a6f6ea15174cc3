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
from dataclasses import dataclass

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
# in lines (gathered): as one row it is wider than a phone's 390 px (tests/browser/test_phone.py)
SCORES = (
    r"\begin{gathered} \text{previous-token score} = \operatorname*{mean}_{1 \le i < T} \alpha_{i,\,i-1} \\"
    r" \text{prefix-matching score} = \operatorname*{mean}_{R \le i < 2R} \alpha_{i,\,i-R+1} \end{gathered}"
)
EVEN = float(np.mean([1 / (i + 1) for i in range(PROBE_REPEAT, 2 * PROBE_REPEAT)]))  # prefix score of even attention
SCORES_TEXT = (
    "The first is the weight a position puts on the one before it. The second, read in the copy only, is the weight "
    "a position puts on the token that *followed* the earlier occurrence of its own token (R − 1 places back): the "
    "token an induction head copies. A head that spreads its attention evenly over the i + 1 positions it may read "
    f"puts 1/(i + 1) there: a prefix-matching score of {EVEN:.1%} on the sequences the scores are read on "
    f"(R = {PROBE_REPEAT})."
)


WINDOW = 300  # "a few hundred steps"
EARLY = 1 / 3  # "for a while": the first third of the run
FLAT, MOST = 0.2, 0.5  # flat: under 20% of the fall in the first third; most: half of it or more in one window


@dataclass(frozen=True)
class Fall:
    """How one run's loss fell, as shares of its whole fall (first report to last)."""

    fell: float  # the whole fall as a share of the first report's loss
    early: float  # share of the fall done by the end of the run's first third
    window: float  # the largest share done within any WINDOW steps

    @property
    def sudden(self) -> bool:
        return self.early < FLAT and self.window >= MOST


def fall(curve: Sequence[dict], metric: str = "loss_copy") -> Fall:
    values = np.array([p[metric] for p in curve], dtype=float)
    steps = np.array([p["step"] for p in curve], dtype=float)
    drop = values[0] - values[-1]
    if drop <= 0:
        return Fall(0.0, 0.0, 0.0)
    early = (values[0] - values[steps <= EARLY * steps[-1]][-1]) / drop
    window = max(
        (values[a] - values[b]) / drop
        for a in range(len(values))
        for b in range(a, len(values))
        if steps[b] - steps[a] <= WINDOW
    )
    return Fall(float(drop / values[0]), float(early), float(window))


SHAPES = (
    "Steadily: a little lower at every report from the first step on.",
    "Flat for a while, then most of the way down within a few hundred steps.",
    "It does not fall: the copy stays as unpredictable as the random half.",
)


def shape_exercise(results: Comparison) -> Exercise:
    """Predict, then train: how the loss on the copy falls. The answer is read from the shipped runs' curves: the
    shape most seeds have (no real fall: under 20% of the first loss)."""
    curves = [run.curve for run in results.runs_of("intact")]
    falls = [fall(c) for c in curves]
    votes = [2 if f.fell < 0.2 else (1 if f.sudden else 0) for f in falls]
    answer = max(range(len(SHAPES)), key=votes.count)
    early = float(np.median([f.early for f in falls]))
    window = float(np.median([f.window for f in falls]))
    steps = curves[0][-1]["step"]
    why = {
        1: "That is the phase change Olsson et al. describe in far larger models: induction heads form within a short "
        "window and in-context learning appears with them. Before it, the model has only what one token tells about "
        "the next, and here that is nothing.",
        0: "Olsson et al. saw a sudden phase change in their models; this small model's copy loss fell more evenly.",
        2: "Olsson et al. saw induction heads form in their models; this recipe's seeds mostly did not get there.",
    }[answer]
    return Exercise(
        key="induction_heads.shape",
        prompt=(
            "**Predict before you train (section 3).** The loss on the random half cannot fall below ln V whatever "
            "the model learns. How will the loss **on the copy** fall during training?"
        ),
        choices=SHAPES,
        answer=answer,
        explanation=(
            f"Over the {len(curves)} shipped seeds of {steps:.0f} steps: {votes.count(1)} fell suddenly, "
            f"{votes.count(0)} steadily, {votes.count(2)} hardly at all. In the median, {early:.0%} of the copy's fall "
            f"was done in the run's first third and {window:.0%} within the steepest {WINDOW} steps. {why} Watch the "
            "two scores in your own run: does the prefix-matching score climb when the loss falls?"
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
