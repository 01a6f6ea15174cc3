"""Lesson: queries, keys and values.

Attention as a soft lookup: each word asks with a query, every word offers a key and a value, and the answer is
the values weighted by how well each key matches the query, softmax(QKᵀ/√d_k)V. The lesson follows the Transformer
lecture's "Okay.. But why? What is Q,K,V?" slides (self-attention with no parameters, Softmax(XXᵀ)X, its dot
product [1, 3, −5] · [4, −2, −1] = 3, and why that is not enough), the same lecture's "Thinking Machines" worked
example (q₁·k₁ = 112 and q₁·k₂ = 96, divided by √d_k = 8, softmax 0.88 / 0.12, then z₁ = Σ softmax × value) and its
"Limitation? … Sequential" and "Bringing tensors into the picture" slides (1-hot vectors and learned
embeddings), and the NLP lecture's database analogy (a query looked up softly against a key → value table). Every
number is computed with :mod:`minimodels.attention`.

Letters: X the word vectors, one row per word (T × d; x_i its row i), |V| the vocabulary's size; Q = XW^Q,
K = XW^K, V = XW^V the queries, keys and values (d_model wide in, d_k wide out); q₁, k₁, k₂, v₁, v₂ and z₁ the
worked example's vectors; E and H a GRU encoder's embedding and state sizes.

The page's sections, in order:

1. :mod:`.embeddings`: words as vectors, 1-hot or learned (the shipped translator's embedding table)
2. :mod:`.no_parameters`: self-attention with no parameters, Softmax(XXᵀ)X; its exercises in
   :mod:`.no_parameters_exercises`
3. :mod:`.worked_example`: the lecture's "Thinking Machines", step by step
4. :mod:`.database`: a database you query softly
5. :mod:`.matrix_form`: all queries at once, softmax(QKᵀ/√d_k)V, on the student's sentence
6. :mod:`.trained_weights`: the same product with a trained Transformer's own W^Q, W^K, W^V
7. :mod:`.no_recurrence`: why no recurrence, all positions at once
"""

from __future__ import annotations

from lessons.common.exercises import Exercise
from lessons.queries_keys_values import (
    database,
    embeddings,
    matrix_form,
    no_parameters,
    no_parameters_exercises,
    no_recurrence,
    trained_weights,
    worked_example,
)


def _number(title: str) -> str:
    """A section's number, read off its title ("4 · A database …" -> "4"), so the introduction cannot go stale."""
    return title.split(" · ", 1)[0]


INTRO = (
    "Attention is a **soft lookup**. Each word asks a question (its *query*), every word offers a label "
    "(its *key*) and a content (its *value*). The query is compared with every key; the better a key "
    f"matches, the more of its value flows into the answer. Section {_number(embeddings.TITLE)} makes words into "
    "vectors, as the lecture does before attention; section "
    f"{_number(no_parameters.TITLE)} then attends without any of the three: the words' own vectors play every part. "
    f"Section {_number(worked_example.TITLE)} works the lecture's example with separate queries and keys, section "
    f"{_number(database.TITLE)} reads attention as a database looked up softly, and section "
    f"{_number(matrix_form.TITLE)} brings in the three learned matrices $W^Q$, $W^K$, $W^V$ and the formula this "
    f"lesson is about; section {_number(trained_weights.TITLE)} reads a trained model's own matrices, and section "
    f"{_number(no_recurrence.TITLE)} asks what it buys over a recurrent encoder:"
)
EQUATION = r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"


def exercises() -> list[Exercise]:
    """The questions the page's tail asks, each from its section, every answer computed from the same functions the
    figures use."""
    return [
        *no_parameters_exercises.exercises(),
        *worked_example.exercises(),
        database.hard_lookup_exercise(),
        matrix_form.shape_exercise(),
        embeddings.one_hot_exercise(),
        *no_recurrence.exercises(),
        matrix_form.rows_exercise(),
    ]


__all__ = [
    "EQUATION",
    "INTRO",
    "exercises",
]
