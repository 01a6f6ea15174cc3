"""Section 3 of the attention-explains lesson: change one head's weights and measure how far the output moves.

Each head in turn is zeroed (it writes nothing: the knock-out of the induction-heads lesson), permuted (each query's
weights shuffled over the keys it may read, Jain & Wallace's test) or made uniform (every readable key weighted
alike, Wiegreffe & Pinter's baseline); everything else stays as trained
(:func:`~lessons.attention_explains.measure.effects`). The output's move is read two ways on the copy's rows: the
in-context accuracy left, and KL(intact ‖ changed). Over the shipped seeds, each change against the intact model
and the permutation against zeroing go through the course's verdict rule.

Letters: L layers, h heads per layer, V the vocabulary.
"""

from __future__ import annotations

from lessons.attention_explains import results as shipped
from lessons.attention_explains.measure import KIND_WORDS, KINDS, ROLES, effects, head_label, roles
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.common.verdicts import Verdict
from lessons.induction_heads import training
from lessons.induction_heads.training import HEADS
from minimodels.attention_only import AttentionOnlyDecoder

TITLE = "3 · Change a head's weights"
TEXT = (
    "Three changes, one head at a time, everything else as trained: **zeroed** (the head writes nothing), "
    "**permuted** (each position's weights shuffled over the tokens it may read: the same numbers on other tokens) "
    "and **made uniform** (every readable token weighted alike). How far the output moves is read on the copy's "
    "positions two ways: the **in-context accuracy** left, and the KL divergence from the intact model's next-token "
    "distribution (nats; 0 when nothing moved). If a head's weights did not matter, permuting them would cost "
    "nothing."
)
NOTE = (
    "Each verdict is the course's one rule for comparisons (lessons.common.verdicts) on the seeds' in-context "
    "accuracies; where it cannot separate two readings it says too close to call. The heads are named by their "
    "role in each seed's model, read from its own scores."
)
CHOICES = tuple(KIND_WORDS[k] for k in KINDS)
WHY = {
    "permute": (
        "Zeroing removes what the head writes; a uniform head still writes the mean of the values it reads; a "
        "permuted head writes, at full strength, the value of a token it did not choose, which the next step then "
        "reads as if it were the right one. A wrong message can cost more than no message."
    ),
    "zero": (
        "A permuted or uniform head still writes a mix of the values it reads, some of which the read-out can use; a "
        "zeroed head writes nothing at all, so here no message cost more than a wrong one."
    ),
    "uniform": (
        "A uniform head writes the mean of every value it reads, which drowns the one token that mattered; a permuted "
        "head at least sometimes lands its weight on it, and a zeroed one leaves the stream to the other heads."
    ),
}


def permutation_exercise(results: Comparison) -> Exercise:
    """Predict, then reveal: which change to the induction head costs the most in-context accuracy (seed mean)."""
    role = ROLES[2]
    means = [results.spread(shipped.ACCURACY, shipped.changed(role, k)).mean for k in KINDS]
    answer = min(range(len(KINDS)), key=means.__getitem__)
    numbers = "; ".join(
        f"{KIND_WORDS[k]}: {results.spread(shipped.ACCURACY, shipped.changed(role, k)).text('.0%')}" for k in KINDS
    )
    intact = results.spread(shipped.ACCURACY, shipped.INTACT).text(".0%")
    return Exercise(
        key="attention_explains.permute",
        prompt=(
            "**Predict before you reveal.** In each shipped model the **induction head** (the layer-2 head that "
            "looks back to the token to copy) is changed three ways, one at a time. Which change leaves the lowest "
            "**in-context accuracy**, in the mean over the seeds?"
        ),
        choices=CHOICES,
        answer=answer,
        explanation=f"Intact: {intact}; {numbers}. {WHY[KINDS[answer]]} The table below has every head and verdicts.",
    )


def rows(results: Comparison) -> list[dict]:
    """One row per role: the in-context accuracy and KL after each change, mean ± sd over the seeds."""
    out = []
    for role in ROLES:
        row = {"head": role}
        for kind in KINDS:
            variant = shipped.changed(role, kind)
            row[f"accuracy, {KIND_WORDS[kind]}"] = results.spread(shipped.ACCURACY, variant).text(".0%", with_n=False)
        for kind in KINDS:
            row[f"KL, {KIND_WORDS[kind]}"] = results.spread(shipped.KL, shipped.changed(role, kind)).text(
                ".2f", with_n=False
            )
        out.append(row)
    return out


def rows_caption(results: Comparison) -> str:
    intact = results.spread(shipped.ACCURACY, shipped.INTACT)
    return (
        f"Shipped seeds (n = {intact.n}), mean ± sd. The intact models' in-context accuracy: {intact.text('.1%')}. "
        "KL in nats, on the copy's positions."
    )


def verdicts(results: Comparison) -> dict[str, Verdict]:
    """Intact against the permutation of each head, and the permutation against zeroing, on the in-context
    accuracy (the shared rule)."""
    found = {}
    for role in ROLES:
        permuted, zeroed = shipped.changed(role, "permute"), shipped.changed(role, "zero")
        found[f"{role}: intact vs permuted"] = results.compare(shipped.INTACT, permuted, shipped.ACCURACY)
        found[f"{role}: zeroed vs permuted"] = results.compare(zeroed, permuted, shipped.ACCURACY)
    return found


def verdict_sentences(results: Comparison) -> list[str]:
    sentences = [v.sentence(".1%", shipped.ACCURACY) for v in verdicts(results).values()]
    return [s[:1].upper() + s[1:] for s in sentences]


def own_rows(model: AttentionOnlyDecoder) -> list[dict]:
    """The student's model on the probe sequences: every head, each change."""
    found = roles(training.read(model))
    moved = effects(model)
    out = []
    for layer, head in HEADS:
        row = {"head": head_label(layer, head, found)}
        for kind in KINDS:
            row[f"accuracy, {KIND_WORDS[kind]}"] = f"{moved[layer, head][kind].accuracy:.1%}"
        for kind in KINDS:
            row[f"KL, {KIND_WORDS[kind]}"] = f"{moved[layer, head][kind].kl:.2f}"
        out.append(row)
    return out


def own_caption(model: AttentionOnlyDecoder) -> str:
    intact = training.read(model)
    return (
        f"Your model, on the same {training.PROBE_N} held-out sequences: intact in-context accuracy "
        f"{intact.accuracy_copy:.1%}. One permutation draw, one model: the shipped verdicts above are over seeds."
    )
