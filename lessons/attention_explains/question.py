"""Section 1 of the attention-explains lesson: the question, and what three papers found.

A heat map of attention weights looks like a reason ("the model looked here"). Whether it is one can be tested two
ways, and the section names both before the page runs them: change the weights and see whether the output moves;
set the weights beside another measure of which tokens matter and see whether they rank the tokens alike. The
findings of Jain & Wallace (2019), Serrano & Smith (2019) and Wiegreffe & Pinter (2019) are said in our own words;
their numbers are not this model's.

Letters: i a query's position, j a key's, α a head's weights, v a value.
"""

from __future__ import annotations

import torch

from lessons.common.exercises import Exercise
from minimodels.head_interventions import kendall_tau

TITLE = "1 · Weights look like reasons. Are they?"
TEXT = (
    "A head's weights sum to one over the tokens it reads, so they are easy to draw as a heat map and easy to read "
    "as *the model looked here*. Two tests can check that reading. **Change the weights** and see whether the "
    "output moves: if shuffling a head's weights leaves the prediction where it was, the weights did not decide it. "
    "**Set the weights beside another measure** of how much each token matters, such as the log-probability lost "
    "when that token is changed, or the gradient of the prediction with respect to the token's vector, and see "
    "whether the two rank the tokens alike."
)
FINDINGS = (
    "Jain & Wallace (*Attention is not Explanation*, NAACL 2019) ran both tests on recurrent models with one "
    "attention layer, mostly text classifiers. Shuffling the weights, or searching for very different weights, "
    "often left the prediction nearly unchanged, and the weights' ranking of the tokens agreed only weakly with "
    "gradient and leave-one-out rankings (Kendall's τ). Serrano & Smith (*Is Attention Interpretable?*, ACL 2019) "
    "zeroed the highest weights one at a time and found that many had to go before the decision flipped, while a "
    "gradient ranking found the deciding tokens sooner. Wiegreffe & Pinter (*Attention is not not Explanation*, "
    "EMNLP 2019) answered that such tests need baselines: uniform weights, and a model trained without attention; "
    "on several of those tasks uniform weights did as well, so the attention had nothing to explain. Their models "
    "were classifiers reading a whole sentence. Yours is the two-layer decoder of the induction-heads lesson, on a "
    "task it cannot do without looking back, and the page runs both tests on it."
)
TAU_TEXT = (
    "Kendall's τ compares two rankings of the same items: over every pair of tokens, +1 when both measures order "
    "the pair the same way, −1 when they disagree; the sum over pairs, divided by the number of pairs (ties "
    "set aside), is τ: 1 for the same ranking, −1 for the reverse, near 0 for no relation."
)

HAND_WEIGHTS = (0.6, 0.3, 0.1)  # a head's weights on three keys
HAND_VALUES = (2.0, 5.0, 10.0)  # their values (one number each)
HAND_PERMUTED = (0.1, 0.6, 0.3)  # the same weights, shuffled
TAU_WEIGHTS = (0.5, 0.3, 0.2)
TAU_IMPORTANCE = (0.1, 0.6, 0.3)


def head_output(weights, values) -> float:
    """A head's output on one-number values: the weighted sum Σ_j α_j v_j."""
    return float(torch.tensor(weights) @ torch.tensor(values))


def permutation_exercise() -> Exercise:
    """By hand: how far one head's output moves when its weights are shuffled."""
    before, after = head_output(HAND_WEIGHTS, HAND_VALUES), head_output(HAND_PERMUTED, HAND_VALUES)
    return Exercise(
        key="attention_explains.permute_by_hand",
        prompt=(
            f"A head reads three tokens with weights α = {HAND_WEIGHTS} and values v = {HAND_VALUES} (one number "
            f"each). Its weights are shuffled to {HAND_PERMUTED}. By how much does the head's output **grow**? "
            "(Output after minus output before.)"
        ),
        answer=after - before,
        tolerance=0.01,
        explanation=(
            f"Before: Σ α_j v_j = {' + '.join(f'{a}·{v:g}' for a, v in zip(HAND_WEIGHTS, HAND_VALUES, strict=True))} "
            f"= {before:g}. After: {' + '.join(f'{a}·{v:g}' for a, v in zip(HAND_PERMUTED, HAND_VALUES, strict=True))}"
            f" = {after:g}. The change is {after - before:g}. A shuffle moves the output only as far as the values "
            "differ: had all three values been equal, no shuffle could move it, and the weights would say nothing "
            "about what decided the output."
        ),
    )


def tau_exercise() -> Exercise:
    """By hand: Kendall's τ between three weights and three importances."""
    tau = float(kendall_tau(torch.tensor(TAU_WEIGHTS), torch.tensor(TAU_IMPORTANCE), torch.ones(3, dtype=torch.bool)))
    return Exercise(
        key="attention_explains.tau_by_hand",
        prompt=(
            f"A head's weights on three tokens are {TAU_WEIGHTS}; the log-probability lost when each token is "
            f"changed is {TAU_IMPORTANCE}. What is **Kendall's τ** between the two rankings? (Between −1 and 1.)"
        ),
        answer=tau,
        tolerance=0.01,
        explanation=(
            "Three pairs. Tokens 1 and 2: the weights say 1 > 2, the importance 1 < 2: they disagree (−1). Tokens 1 "
            "and 3: 1 > 3 against 1 < 3: disagree (−1). Tokens 2 and 3: 2 > 3 both ways: agree (+1). "
            f"τ = (1 − 2) / 3 = {tau:.3f}. The most-weighted token is the one whose change costs least."
        ),
    )
