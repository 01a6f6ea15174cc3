r"""Lesson: scaling the dot product by √d_k (Part 2).

The Transformer lecture, under "What about √d_k?": "For large values of d_k will also make dot-product attention
large", next to the softmax. Vaswani et al. (2017, §3.2.1 and its footnote) give the argument computed here: if
the components of q and k are independent with mean 0 and variance 1, then

.. math:: q \cdot k = \sum_{i=1}^{d_k} q_i k_i,\qquad \mathbb{E}[q \cdot k] = 0,\qquad
          \operatorname{Var}(q \cdot k) = d_k,

so the scores spread like √d_k, the softmax puts nearly all its weight on one key, and its gradient, the
Jacobian :math:`\partial\alpha/\partial e = \operatorname{diag}(\alpha) - \alpha\alpha^\top`, goes to zero.
Dividing by √d_k gives the scores unit variance whatever d_k is. No streamlit import.

Letters: d_k query/key size, N keys, n samples, S source and T target positions, α the softmax's weights, e the
scores it is given.

The page's sections, in order:

* :mod:`~lessons.scaling.thinking_machines` — 1, the lecture's example, without the division;
* :mod:`~lessons.scaling.saturation` — 2, the softmax of N random scores, scaled and unscaled: entropy, largest
  weight and the Jacobian's size;
* :mod:`~lessons.scaling.variance` — 3, the variance of q·k for random q, k, measured at every d_k with its
  standard error;
* :mod:`~lessons.scaling.recall` — 4, one self-attention layer trained on a recall task with and without the
  scale at d_k = 8 … 512 over several seeds (trained by :mod:`~lessons.scaling.recall_training`,
  ``scripts/scaling_results.py``);
* :mod:`~lessons.scaling.gru_race` — 5, why lesson 4's GRU race showed no stall (an untrained GRU's small states);
* :mod:`~lessons.scaling.score_cost` — 6, what additive and dot-product scores cost in time and memory.

Shared by several sections: :mod:`~lessons.scaling.scores` (the two scores, the sizes d_k every sweep runs through,
and the softmax's entropy and Jacobian).
"""

from __future__ import annotations

from lessons.common.exercises import Exercise
from lessons.scaling import score_cost, variance

INTRO = (
    "Attention scores a key by the dot product q·k, a sum of d_k products. The more terms, the larger the sum "
    "can get, and the softmax turns large differences between scores into weights of almost exactly 0 and 1. "
    "The Transformer lecture puts it in one line under “What about √d_k?”:"
)
QUOTE = "“For large values of d_k will also make dot-product attention large.” — the Transformer lecture"
WHY = (
    "Vaswani et al. (2017) add why that matters: the large dot products push the softmax into regions where its "
    "gradient is extremely small, so the scores stop learning. Their fix is the √d_k in the equation below. On "
    "this page you measure the claim, see what it does to the softmax, train one self-attention layer with and "
    "without the scale from small to large d_k, and time the two kinds of score the lecture compares."
)
INTRO_EQUATIONS = (
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V",
    r"\begin{gathered} q \cdot k = \sum_{i=1}^{d_k} q_i k_i,\qquad \operatorname{Var}(q \cdot k) = d_k \\"
    r" \text{when the } q_i, k_i \text{ are independent} \\ \text{with mean 0 and variance 1} \end{gathered}",
)


def exercises() -> list[Exercise]:
    """The computations by hand (the check-yourself section), at sizes the page's sweeps never show."""
    return [variance.std_exercise(), variance.scaled_variance_exercise(), score_cost.memory_exercise()]
