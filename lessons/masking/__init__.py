r"""Lesson: masking (Part 2).

The Transformer lecture's slide "Masking" — *let the model only focus on what it should focus on* — and Vaswani et
al., *Attention Is All You Need*, §3.2.3 ("masking out (setting to −∞) all values in the input of the softmax which
correspond to illegal connections"):

* **padding mask**: set "padded element attention to −inf", so a sentence padded to its batch's length gives
  exactly 0 weight to its ``<pad>`` tokens and its result does not depend on its batch-mates;
* **sequence (causal) mask**: "bans the decoder from seeing future information" (set "future attention to
  −inf"), so position t reads positions ≤ t only.

.. math:: \mathrm{softmax}\Big(\frac{QK^\top}{\sqrt{d_k}} + M\Big)V,
          \qquad M_{ij} = \begin{cases} 0 & \text{allowed} \\ -\infty & \text{masked} \end{cases}

Masks are bool, True where attention is allowed (:mod:`minimodels.attention`). The causal mask is shown on a
decoder-only model with one self-attention that predicts the next character of "word=cipher" sequences. Trained
without the mask it is the *cheating decoder*: it reads the next token from its own input, its training loss falls
below what any honest decoder can reach, and it fails once it must generate. Measured over seeds by
``scripts/masking_results.py``. This package never imports streamlit.

Letters: Q, K, V queries, keys, values; d_k the size of a key; M the mask; B sentences in a batch padded to S
positions; T a decoder's input positions, i a query's position and j a key's; W = 8 letters per word.

The page's sections, in order:

* :mod:`~lessons.masking.padding` — 1, the padding mask on the student's batch;
* :mod:`~lessons.masking.causal` — 2, the causal mask on one row of scores, then on the two trained decoders;
* :mod:`~lessons.masking.cheating` — 3, the cheating decoder: predictions, outputs and the measured results;
* :mod:`~lessons.masking.train_yourself` — 4, train both decoders live;
* :mod:`~lessons.masking.translator` — 5, next: a translator's decoder on its own translation.

Shared by several sections: :mod:`~lessons.masking.word_cipher` (the sequences), :mod:`~lessons.masking.decoders`
(the two models, shipped and fresh), :mod:`~lessons.masking.training` (how they are trained and scored, and the
measured comparison read back), :mod:`~lessons.masking.side_by_side` (two maps in one figure).
"""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.masking import causal, cheating, padding

INTRO = (
    "The Transformer lecture's intuition for masking: *let the model only focus on what it should focus on.* "
    "Two masks do that. The **padding mask** sets “padded element attention to −inf”: sentences of different "
    "lengths share a batch by being padded to one length, and no word should attend to the padding. The "
    "**sequence mask** “bans the decoder from seeing future information” (set “future attention to −inf”): "
    "while it learns to predict word t + 1, the decoder must not read it. A mask adds −∞ to the scores it "
    "forbids; e^−∞ = 0, so the softmax gives them **exactly** zero weight and shares the rest among the "
    "allowed keys."
)
# in lines (gathered): as one row it is wider than a phone's 390 px (tests/browser/test_phone.py)
INTRO_EQUATION = (
    r"\begin{gathered} \mathrm{Attention}(Q, K, V) = \\ \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V"
    r" \\ M_{ij} = \begin{cases} 0 & \text{key } j \text{ allowed for query } i \\"
    r" -\infty & \text{masked} \end{cases} \end{gathered}"
)


def exercises() -> list[Exercise]:
    """The check-yourself questions at the end of the page, by hand or by reasoning: a softmax with padding, the
    causal mask's count, where the −∞ go, and what the cheating decoder can read."""
    return [
        padding.pad_weight_exercise(),
        causal.allowed_pairs_exercise(),
        causal.where_minus_infinity_exercise(),
        cheating.shortcut_exercise(),
    ]


def all_exercises(results: Comparison | None) -> list[Exercise]:
    """Every exercise of the lesson: the four at the end, the loss floor and, with the measured results, the
    cheater's prediction."""
    extra = [cheating.cheat_prediction(results)] if results is not None else []
    return [*exercises(), cheating.floor_prediction(), *extra]
