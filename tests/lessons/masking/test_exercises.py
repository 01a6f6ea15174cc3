"""The masking lesson's exercises: every answer computed from the lesson."""

import math

import pytest

from lessons import masking
from lessons.masking import cheating, padding, training

DEFAULT = padding.parse_batch(padding.DEFAULT_SENTENCES).sentences


def test_exercise_answers_come_from_the_lesson():
    by_key = {ex.key: ex for ex in masking.all_exercises(training.load_results())}
    demo = padding.padding_attention(DEFAULT)
    S = len(demo.tokens[2])  # "Hello" and its padding
    assert by_key["masking.ex1"].answer == pytest.approx((S - 1) / S)  # equal scores: every key 1/S
    assert f"{S - 1} × 1/{S} = {(S - 1) / S:.2f}" in by_key["masking.ex1"].explanation
    assert by_key["masking.ex2"].answer == 136  # 16 positions: 16·17/2
    assert by_key["masking.ex2"].check(136).correct and not by_key["masking.ex2"].check(256).correct
    ex3 = by_key["masking.ex3"]  # by hand, for a length no widget of the page takes: T(T − 1)/2
    assert ex3.answer == 50 * 49 // 2 and not ex3.check(50 * 51 // 2).correct and "1,225" in ex3.explanation
    floor = by_key["masking.ex4"]
    assert floor.answer == pytest.approx(cheating.loss_floor()) and floor.check(1.425).correct
    assert not floor.check(math.log(26)).correct and f"{cheating.loss_floor():.3f}" in floor.explanation
    assert by_key["masking.ex6"].prompt.startswith("**Predict")
    assert set(by_key) == {f"masking.ex{i}" for i in range(1, 7)}
    assert len(masking.exercises()) >= 3 and "masking.ex6" not in {ex.key for ex in masking.all_exercises(None)}
    for ex in by_key.values():  # none is answered by reading the page's figures
        assert "Read" not in (ex.hint or "") and "heatmap" not in (ex.hint or "")
