"""The Q/K/V lesson's check-yourself questions: every answer comes from the computation it asks about, none can be
read off the page, and the ones on embeddings and recurrence answer from the models."""

import math

import pytest

from lessons import queries_keys_values
from lessons.queries_keys_values import embeddings, no_recurrence


def test_exercise_answers_come_from_the_computation():
    by_key = {ex.key: ex for ex in queries_keys_values.exercises()}
    assert len(by_key) == len(queries_keys_values.exercises()) >= 3
    ex1 = by_key["queries_keys_values.ex1"]  # 112 and 104 at d_k = 64: softmax(14, 13)[1]
    assert ex1.check(1 / (1 + math.e)).correct
    assert not ex1.check(0.12).correct  # the page's own 0.12 is not the answer: nothing to read off
    ex2 = by_key["queries_keys_values.ex2"]  # 112 and 96 at d_k = 100: softmax(11.2, 9.6)[0]
    assert ex2.check(1 / (1 + math.exp(-1.6))).correct and not ex2.check(0.88).correct
    ex3 = by_key["queries_keys_values.ex3"]  # sheep, bull, fly and snail tie at the top for "a creature"
    assert ex3.check(0.25).correct and not ex3.check(0.5).correct
    assert by_key["queries_keys_values.ex4"].check(0).correct and not by_key["queries_keys_values.ex4"].check(1).correct
    dot = by_key["queries_keys_values.dot"]  # [2, −1, 3] · [1, 4, −2] = 2 − 4 − 6
    assert dot.check(-8).correct and not dot.check(8).correct
    assert "(2)(1) + (−1)(4) + (3)(−2) = 2 − 4 − 6 = −8" in dot.explanation
    it = by_key["queries_keys_values.it"]
    assert it.choices[it.answer] == "*animal*" and "it·animal = (1)(3) + (1)(1) + (0)(0)" in it.explanation
    sym = by_key["queries_keys_values.symmetric"]
    assert sym.choices[sym.answer] == "α(b→a) is larger"
    assert "= 0.12" in sym.explanation and "= 0.33" in sym.explanation
    shape = by_key["queries_keys_values.shape"]
    assert shape.choices[shape.answer] == "(6, 3)" and len(set(shape.choices)) == len(shape.choices)


def test_the_new_exercises_answer_from_the_models():
    by_key = {ex.key: ex for ex in queries_keys_values.exercises()}
    one_hot = by_key["queries_keys_values.one_hot"]
    n = embeddings.EXERCISE_ONE_HOT
    assert one_hot.answer == pytest.approx(math.e / (math.e + n - 1))
    bi = by_key["queries_keys_values.bidirectional"]
    assert bi.choices[bi.answer] == str(no_recurrence.EXERCISE_BIDIRECTIONAL)
    stacked = by_key["queries_keys_values.stacked"]
    assert stacked.choices[stacked.answer] == str(no_recurrence.EXERCISE_STACKED + 1)
    assert f"{2 * no_recurrence.EXERCISE_STACKED}" in stacked.explanation
    assert len(by_key) >= 3 and all(ex.explanation for ex in by_key.values())
