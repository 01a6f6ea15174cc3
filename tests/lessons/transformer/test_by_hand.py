"""The check-yourself exercises: every answer computed from the model or by hand."""

import pytest

from lessons import transformer
from lessons.transformer import by_hand, maps, reading


def test_exercise_answers_are_computed_from_the_model(translator):
    model, task = translator
    exercises = {e.key: e for e in transformer.exercises(model, task)}
    assert set(exercises) == {f"transformer.ex{i}" for i in (1, 2, 3, 4, 8, 9)}  # the predictions sit in sections 4-5
    assert exercises["transformer.ex1"].answer == 6 * 8 + 2 * 6 * 8  # the paper's base model, not on the page
    assert "48" in exercises["transformer.ex1"].explanation and "96" in exercises["transformer.ex1"].explanation
    assert exercises["transformer.ex3"].answer == 2 * 512 * 2048 + 2048 + 512
    assert maps.maps_per_sentence(model.config) != exercises["transformer.ex1"].answer  # not readable
    w = reading.walk(model, task, task.probe.source)
    assert exercises["transformer.ex2"].answer == len(w.output) * len(w.source)
    ex4 = exercises["transformer.ex4"]  # by hand, for T = 30: the diagonal and below, T(T + 1)/2
    assert ex4.answer == 30 * 31 // 2 and not ex4.check(30 * 29 // 2).correct


def test_hand_exercises_are_computed():
    assert by_hand.two_step_beam(1) == ("Ax", pytest.approx(0.3))
    assert by_hand.two_step_beam(2) == ("Bx", pytest.approx(0.36))
    ex8, ex9 = by_hand.hand_exercises()
    assert ex8.answer == max(v[0] for v in by_hand.CONVEX_VALUES) == 2
    assert ex9.answer == pytest.approx(0.36) and "0.36" in ex9.explanation and "0.30" in ex9.explanation
    assert ex9.check(0.3).correct is False and "Worked answer" in ex9.check(0.3).message
