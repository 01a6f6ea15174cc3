"""Section 4 of the induction-heads lesson: knock a head out and watch the in-context accuracy fall.

A knocked-out head's output is zeroed before the layer's W^O (``keep`` in :mod:`minimodels.attention_only`); every
other weight stays as trained, so what the accuracy loses is what that head contributed. On the student's own model
every head is knocked out in turn; over the shipped seeds, each kind of head (chosen per seed from that model's own
scores, :mod:`~lessons.induction_heads.results`) against the intact model, through the course's verdict rule.

Letters: L layers, h heads per layer, V the vocabulary.
"""

from __future__ import annotations

import torch

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.induction_heads import results as shipped
from lessons.induction_heads.sequences import VOCAB
from lessons.induction_heads.training import CONFIG, HEADS, head_name, knocked_out, read
from minimodels.attention_only import AttentionOnlyDecoder

TITLE = "4 · Knock a head out"
TEXT = (
    "If the induction head is what predicts the copy, switching it off should cost the copy's accuracy and leave "
    "the random half at chance. A knocked-out head's output is set to zero before the layer mixes its heads "
    "(W^O); every other weight stays as trained. Which head matters most?"
)
CHOICES = (
    "the previous-token head (layer 1)",
    "the other layer-1 head",
    "the strongest induction head (layer 2)",
)
VERDICT_NOTE = (
    "Each verdict is the course's one rule for comparisons (lessons.common.verdicts) on the seeds' in-context "
    "accuracies; where it cannot separate two readings it says too close to call."
)
CHOICE_VARIANTS = ("previous-token head out", "other layer-1 head out", "induction head out")


def knockout_exercise(results: Comparison) -> Exercise:
    """Predict, then reveal: which single knock-out costs the most in-context accuracy, over the shipped seeds."""
    means = [results.spread(shipped.ACCURACY, v).mean for v in CHOICE_VARIANTS]
    answer = min(range(len(means)), key=means.__getitem__)
    intact = results.spread(shipped.ACCURACY, shipped.INTACT)
    numbers = "; ".join(
        f"{label}: {results.spread(shipped.ACCURACY, v).text('.0%')}"
        for label, v in zip(CHOICES, CHOICE_VARIANTS, strict=True)
    )
    return Exercise(
        key="induction_heads.knockout",
        prompt=(
            "**Predict before you reveal.** In each trained model, one head at a time is knocked out. Which single "
            "head, knocked out, lowers the **in-context accuracy** the most (mean over the shipped seeds)?"
        ),
        choices=CHOICES,
        answer=answer,
        explanation=(
            f"Intact: {intact.text('.0%')}; {numbers}. The induction head needs the previous-token head: without "
            "it, no key says which token came before it, so no layer-2 head can find the token to copy. Knocking out "
            "one induction head leaves the other layer-2 head, which often learned part of the same job. The table "
            "below has every knock-out and the verdicts."
        ),
    )


def knockout_rows(results: Comparison) -> list[dict]:
    return results.table(
        {shipped.ACCURACY: ".1%", shipped.RANDOM_ACCURACY: ".1%"}, variant_header="the model read with"
    )


def verdict_sentences(results: Comparison) -> list[str]:
    """Intact against each knock-out, in words the shared rule chose (it can say too close to call)."""
    sentences = [v.sentence(".1%", "in-context accuracy") for v in shipped.knockout_verdicts(results).values()]
    return [s[:1].upper() + s[1:] for s in sentences]  # the labels are written to be read mid-sentence


@torch.inference_mode()
def own_knockouts(model: AttentionOnlyDecoder) -> list[dict]:
    """The student's model on the probe sequences: intact, then with each head knocked out in turn, and with the
    whole of layer 2 out."""
    intact = read(model)
    rows = [_row("none (intact)", intact, intact)]
    for layer, head in HEADS:
        rows.append(_row(head_name(layer, head), read(model, knocked_out(layer, head)), intact))
    keep = torch.ones(CONFIG.n_layers, CONFIG.n_heads)
    keep[-1] = 0.0
    rows.append(_row(f"all of layer {CONFIG.n_layers}", read(model, keep), intact))
    return rows


def _row(name: str, reading, intact) -> dict:
    return {
        "knocked out": name,
        "in-context accuracy": f"{reading.accuracy_copy:.1%}",
        "change": f"{reading.accuracy_copy - intact.accuracy_copy:+.1%}",
        "random-half accuracy": f"{reading.accuracy_random:.1%}",
    }


def own_caption(model: AttentionOnlyDecoder) -> str:
    intact = read(model)
    layer, head = intact.strongest
    return (
        f"Your model, read on the same held-out sequences. Its strongest prefix-matching head is "
        f"{head_name(layer, head)} ({intact.prefix_matching[layer, head]:.0%}); its strongest previous-token head "
        f"{head_name(*intact.previous_head)}. Chance is {1 / VOCAB:.1%}. One model is one seed: the shipped "
        "verdicts above are over several."
    )
