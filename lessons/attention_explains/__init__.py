r"""Lesson: does attention explain? (Part 4).

A trained model's attention weights look like explanations. The lesson tests that reading on the induction-heads
lesson's two-layer, attention-only decoder (the course's recipe or the student's own run): it changes one head's
weights at a time (zeroed, permuted, made uniform) and measures how far the output moves, and it sets each head's
weights beside two measures of which tokens matter (leave one out; gradient × input), over five seeds through the
course's verdict rule. Last, two planted bugs (no 1/√d_k; the mask on the wrong side) are found from behaviour. It
follows Jain & Wallace, *Attention is not Explanation* (NAACL 2019: permuted weights, and weights against gradient
and leave-one-out rankings by Kendall's τ), Serrano & Smith, *Is Attention Interpretable?* (ACL 2019: zeroing
weights) and Wiegreffe & Pinter, *Attention is not not Explanation* (EMNLP 2019: uniform weights as the baseline).
Their findings are said in our own words; every number on the page is this model's, measured.

.. math:: I^{\text{LOO}}_{ij} = \log p(y_i \mid x) - \log p(y_i \mid x_{j \to x'_j}), \qquad
          I^{\nabla}_{ij} = \big\lvert \nabla_{e_j} \log p(y_i \mid x) \cdot e_j \big\rvert

Letters: V the vocabulary, R the random part's length, T = 2R positions, i a query's position and j a key's,
:math:`\alpha_{ij}` a head's weights, :math:`e_j` the token vector at j, :math:`y_i` the right next token, L layers,
h heads per layer, d_k a head's width, τ Kendall's rank correlation. This package never imports streamlit.

The page's sections, in order:

* :mod:`~lessons.attention_explains.question` — 1, the question and what three papers found; τ by hand;
* :mod:`~lessons.attention_explains.live` — 2, a model to question, trained live (or mystery model A);
* :mod:`~lessons.attention_explains.interventions` — 3, change a head's weights: zeroed, permuted, uniform;
* :mod:`~lessons.attention_explains.agreement` — 4, the weights beside leave-one-out and gradient importance;
* :mod:`~lessons.attention_explains.bugs` — 5, find the planted bug from behaviour.

Shared by several sections: :mod:`~lessons.attention_explains.measure` (the roles, the interventions' effects, the
agreement) and :mod:`~lessons.attention_explains.results` (the measured seeds, read back).
"""

from __future__ import annotations

from lessons.attention_explains import question
from lessons.common.exercises import Exercise

INTRO = (
    "A heat map of attention weights is the most common picture of what a Transformer does, and it is easy to read "
    "as a reason: the model predicted this *because* it looked there. In 2019 three papers tested that reading and "
    "disagreed about the answer. Here you run their tests on a model you train yourself, the two-layer decoder of "
    "the induction-heads lesson: change one head's weights and see whether the output moves, then set the weights "
    "beside other measures of which tokens matter. Last, two bugs are planted in attention code, and you find them "
    "from what the model does."
)


def exercises() -> list[Exercise]:
    """The check-yourself questions at the end of the page: a shuffled head's output and Kendall's τ, by hand.
    (The predictions that need the shipped results sit in their sections.)"""
    return [question.permutation_exercise(), question.tau_exercise()]
