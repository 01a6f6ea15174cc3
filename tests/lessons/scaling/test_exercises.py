"""The scaling lesson's exercises: every answer computed, at sizes the page never shows."""

import pytest

from lessons import scaling
from lessons.scaling import score_cost, scores, thinking_machines, variance


def test_exercise_answers_are_computed():
    ex = {e.key: e for e in scaling.exercises()}
    assert variance.EX_D_K not in scores.D_SWEEP and variance.EX_D_BIG not in scores.D_SWEEP  # not on the page
    assert ex["scaling.ex1"].answer == pytest.approx(10.0) and ex["scaling.ex1"].check(10).correct
    assert not ex["scaling.ex1"].check(100).correct and "√100 = 10" in ex["scaling.ex1"].explanation
    assert ex["scaling.ex2"].answer == pytest.approx(1.0)
    T, d = score_cost.COST_EX["T"], score_cost.COST_EX["d"]
    assert T not in score_cost.COST_LENGTHS and d not in score_cost.COST_D
    assert ex["scaling.ex6"].answer == T * T * d and ex["scaling.ex6"].check(T * T * d).correct
    assert not ex["scaling.ex6"].check(T * T).correct and f"{T * T * d:,}" in ex["scaling.ex6"].explanation
    lecture = thinking_machines.lecture_prediction()
    assert lecture.choices[lecture.answer] == "less than one in a million" and lecture.prompt.startswith("**Predict")
    assert "e^−16" in lecture.explanation
    assert len(scaling.exercises()) >= 3
