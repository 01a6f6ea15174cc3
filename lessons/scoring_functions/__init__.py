r"""Lesson: four scoring functions compared (Part 2).

Every attention in the course is the same three steps: score each key against the query, turn the scores into
a distribution with a softmax, read the weighted sum of the values. Only the score, ``sim(q, k)``, differs. The
NLP lecture lists four ("Similarity between query and key"):

.. math:: q^\top k \qquad \frac{q^\top k}{\sqrt{d}} \qquad q^\top W k \qquad w_2^\top \tanh(W_1[q; k] + b_1)

and warns that the "scale of dot product increases as dimensions get larger" (Vaswani et al. 2017's reason for
dividing by √d). Everything is computed by ``minimodels``' own score modules:

* one query against a handful of keys, scored all four ways: raw scores, softmax, context (keys = values, as
  in the lecture's "until I say otherwise, let's assume our keys and values are identical");
* a *race*: the same GRU encoder–decoder with each of the four scores, trained with the same seed on the same
  data (``dates``), one short segment each in turn, so their curves grow side by side on one core; and what its
  dot models' softmax sees: why unscaled dot is not slowed by its size there;
* a *reduced race* at several d: one attention layer on unit-variance vectors, where the spread √d of q·k does
  saturate the softmax, to show where scaling starts to matter;
* a trained translator's additive scores on the student's sentence, raw and after the softmax.

Letters: q the query, kᵢ a key (in the race q = sₜ, the decoder state, and kᵢ = hᵢ, an encoder state), αᵢ its
weight, c the context; d the size of q (d′ of k when it differs, d″ the additive score's hidden size), N keys;
W the bilinear matrix, W₁, b₁, w₂ the additive score's weights; σ² the variance of one entry of q or k.

Sections, in page order:

- :mod:`~lessons.scoring_functions.four_scores`: 1, four ways to score a key;
- :mod:`~lessons.scoring_functions.one_query`: 2, one query, four scores;
- :mod:`~lessons.scoring_functions.side_by_side`: 3, trained side by side, and
  :mod:`~lessons.scoring_functions.race_softmax`, what the race's softmax sees;
- :mod:`~lessons.scoring_functions.where_scaling_matters`: 4, where scaling starts to matter;
- :mod:`~lessons.scoring_functions.race_yourself`: 5, race them yourself;
- :mod:`~lessons.scoring_functions.trained_translator`: 6, a trained model's scores on your sentence.

Shared by them: :mod:`~lessons.scoring_functions.race_training` (the race of sections 3 and 5),
:mod:`~lessons.scoring_functions.shipped_race` (its shipped results), :mod:`~lessons.scoring_functions.reduced_race`
(section 4's one-layer race) and :mod:`~lessons.scoring_functions.headline` (the claim under the introduction,
computed from both measurements).
"""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.scoring_functions import four_scores, race_softmax, where_scaling_matters

INTRO = (
    "Every attention you will meet does the same three things: **score** each key against the query, turn the "
    "scores into a distribution with a **softmax**, and read the **weighted sum** of the values. The lecture "
    "calls the vector that asks the *query* q and the vectors it is scored against *keys* kᵢ, each paired "
    "with a *value* to read (here a key is its own value); lesson 5 shows where queries, keys and values come "
    "from. Only the first step changes from one paper to the next. The lecture lists four ways to measure how "
    "well a query q matches a key k; here you compute all four on one example, train the same translator four "
    "times, once with each, and then test the lecture's warning about the dot product: “scale of dot product "
    "increases as dimensions get larger”."
)
# The attention step every score plugs into, shown under the introduction
INTRO_EQUATION = (
    r"\alpha_i = \frac{\exp \mathrm{sim}(q, k_i)}{\sum_{i'} \exp \mathrm{sim}(q, k_{i'})}"
    r"\qquad c = \sum_i \alpha_i\, v_i"
)


def exercises(results: Comparison | None, sweep: Comparison | None = None) -> list[Exercise]:
    """Check-yourself questions, each a computation by hand or a prediction of something the page does not show;
    every answer is computed by the modules, a fresh model or the shipped (unshown) measurement."""
    return [
        *four_scores._by_hand_exercises(),
        race_softmax._spread_exercise(),
        *where_scaling_matters._small_entries_exercises(sweep),
    ]
