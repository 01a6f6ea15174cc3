r"""Lesson: induction heads, forming live (Part 4).

A two-layer, attention-only decoder is trained on the page on sequences that repeat (R random tokens, then the same
R again). It learns to predict the copy through an *induction head*: a layer-2 head that attends to the token after
the earlier occurrence of the current token and copies it, helped by a layer-1 *previous-token head*. The lesson
follows Elhage et al., *A Mathematical Framework for Transformer Circuits* (Transformer Circuits Thread, 2021: the
attention-only models, the residual stream as what later layers read, the two-head circuit) and Olsson et al.,
*In-context Learning and Induction Heads* (Transformer Circuits Thread, 2022: the prefix-matching score, the phase
change in the loss, head knock-outs). Facts are theirs, said in our own words; the numbers on the page are this
model's, measured.

.. math:: \text{previous-token score} = \operatorname{mean}_i\ \alpha_{i,i-1}, \qquad
          \text{prefix-matching score} = \operatorname{mean}_{R \le i < 2R}\ \alpha_{i,i-R+1}

Letters: V the vocabulary, R the random part's length, T = 2R positions, i a query's position and j a key's,
:math:`\alpha_{ij}` a head's weight, L layers, h heads per layer, d = d_model. This package never imports streamlit.

The page's sections, in order:

* :mod:`~lessons.induction_heads.sequences` — 1, the sequences that repeat, and which next tokens can be predicted;
* :mod:`~lessons.induction_heads.circuit` — 2, the two-head circuit and the two scores; predict the loss's shape;
* :mod:`~lessons.induction_heads.forming` — 3, train it live and watch the heads form; the shipped seeds;
* :mod:`~lessons.induction_heads.knockout` — 4, knock a head out: the student's model and the shipped verdicts.

Shared by several sections: :mod:`~lessons.induction_heads.training` (the model, the recipe and the scores) and
:mod:`~lessons.induction_heads.results` (the measured seeds and knock-outs, read back).
"""

from __future__ import annotations

from lessons.common.exercises import Exercise
from lessons.induction_heads import circuit, sequences

INTRO = (
    "Give a language model a passage it has seen earlier in the same prompt and it predicts the repeat far better "
    "than the first time: it learns *in context*. Olsson et al. (2022) traced much of that to **induction heads**, a "
    "pair of attention heads in two layers that find the earlier occurrence of the current token and copy what came "
    "after it, and they followed those heads as they formed during training. Here you train a model small enough to "
    "watch them form in under a minute: two layers of attention and nothing else, as in Elhage et al. (2021). Then "
    "you switch heads off one at a time and see which ones the in-context accuracy needs."
)


def exercises() -> list[Exercise]:
    """The check-yourself questions at the end of the page: the chance level by hand, and why one layer is not
    enough. (The predictions that need the shipped results sit in their sections.)"""
    return [sequences.chance_exercise(), circuit.layer_exercise()]
