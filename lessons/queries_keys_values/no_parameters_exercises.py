"""Section 2's exercises: a dot product by hand, which word *it* attends to most with no parameters, and why
symmetric scores need not give symmetric weights. Their vectors are their own (not the page's defaults), so no
answer can be read off the page, and every answer and explanation is computed from them."""

from __future__ import annotations

import math

from lessons.common.exercises import Exercise
from lessons.queries_keys_values.no_parameters import _num, dot_product, plain_self_attention, row_tops

EXERCISE_DOT = ((2, -1, 3), (1, 4, -2))
EXERCISE_IT = (("animal", (3.0, 1.0, 0.0)), ("street", (0.0, 1.0, 2.0)), ("it", (1.0, 1.0, 0.0)))
EXERCISE_PAIR = (("a", (2.0, 0.0)), ("b", (1.0, 1.0)), ("c", (0.0, 2.0)))


def _vec(values) -> str:
    return "[" + ", ".join(_num(v) for v in values) + "]"


def _dot_exercise() -> Exercise:
    a, b = EXERCISE_DOT
    d = dot_product(a, b)
    sign = "positive" if d.value > 0 else "negative" if d.value < 0 else "zero"
    return Exercise(
        key="queries_keys_values.dot",
        prompt=f"By hand, as the lecture does: what is {_vec(a)} · {_vec(b)}?",
        answer=d.value,
        tolerance=1e-6,
        explanation=f"Multiply entry by entry, then add: {d.steps()}. The result is {sign}: as word vectors, "
        "these two would count as "
        + (
            "similar."
            if d.value > 0
            else "dissimilar (they point in opposing directions)."
            if d.value < 0
            else "unrelated (perpendicular)."
        ),
        hint="A product of two negatives is positive, and a negative times a positive is negative.",
    )


def _it_exercise() -> Exercise:
    r = plain_self_attention(EXERCISE_IT)
    i = r.words.index("it")
    top = row_tops(r.scores)[i]
    choices = tuple("*it* itself" if w == "it" else f"*{w}*" for w in r.words) + ("all of them equally",)
    if len(top.best) != 1:  # a tie has no one answer to predict
        raise ValueError("the exercise's vectors must give *it*'s row a single largest score")
    answer = top.best[0]
    x = dict(EXERCISE_IT)
    row = "; ".join(f"it·{w} = {dot_product(x['it'], x[w]).steps()}" for w in r.words)
    exps = " + ".join(f"e^{_num(float(s))}" for s in r.scores[i])
    winner = r.words[top.best[0]]
    return Exercise(
        key="queries_keys_values.it",
        prompt="Predict, then run it: three words, as section 2's table would read them: "
        + ", ".join(f"`{w}: {' '.join(_num(x) for x in v)}`" for w, v in EXERCISE_IT)
        + ". With no parameters, in Softmax(XXᵀ), which word gets the largest weight in *it*'s row?",
        choices=choices,
        answer=answer,
        explanation=f"Row *it* of XXᵀ: {row}. The softmax keeps the order of the scores, so *{winner}* wins with "
        f"e^{_num(float(r.scores[i, top.best[0]]))} / ({exps}) = {float(r.weights[i, top.best[0]]):.2f}. "
        + (
            f"*{winner}*'s projection onto *it* (it·{winner} / ‖it‖ = "
            f"{float(r.scores[i, top.best[0]]) / math.sqrt(top.self_score):.2f}) is longer than *it* itself "
            f"(‖it‖ = {math.sqrt(top.self_score):.2f}), so the guess that every word attends most to itself "
            "(true of vectors of equal length) fails here: it holds only when ‖xᵢ‖² ≥ xᵢ·xⱼ for every j."
            if winner != "it"
            else "Here ‖it‖² is the largest score in its row, as it is for vectors of equal length."
        ),
        hint="The softmax does not change which score is largest: compare it·x for every word, it·it included.",
    )


def _symmetric_exercise() -> Exercise:
    r = plain_self_attention(EXERCISE_PAIR)
    ab, ba = float(r.weights[0, 1]), float(r.weights[1, 0])
    choices = (
        "equal: XXᵀ is symmetric, so the weights are too",
        "α(a→b) is larger",
        "α(b→a) is larger",
    )
    answer = 0 if abs(ab - ba) < 1e-9 else 1 if ab > ba else 2

    def row_text(i: int) -> str:
        return " + ".join(f"e^{_num(float(s))}" for s in r.scores[i])

    return Exercise(
        key="queries_keys_values.symmetric",
        prompt="Predict: three words "
        + ", ".join(f"*{w}* = {_vec(v)}" for w, v in EXERCISE_PAIR)
        + ". XXᵀ is symmetric, so a·b = b·a. In Softmax(XXᵀ), how does α(a→b) (row *a*'s weight on *b*) compare "
        "with α(b→a) (row *b*'s weight on *a*)?",
        choices=choices,
        answer=answer,
        explanation=f"Both scores are a·b = {_num(float(r.scores[0, 1]))}, but each row is normalised by its own "
        f"sum: α(a→b) = e^{_num(float(r.scores[0, 1]))} / ({row_text(0)}) = {ab:.2f}, while "
        f"α(b→a) = e^{_num(float(r.scores[1, 0]))} / ({row_text(1)}) = {ba:.2f}. The scores are symmetric; the "
        f"weights need not be: each row has its own denominator, and row *a*'s holds a·a = "
        f"{_num(float(r.scores[0, 0]))} where row *b*'s holds b·b = {_num(float(r.scores[1, 1]))}.",
        hint="Each row of the softmax has its own denominator.",
    )


def exercises() -> list[Exercise]:
    """The section's three questions, in the order the page asks them."""
    return [_dot_exercise(), _it_exercise(), _symmetric_exercise()]
