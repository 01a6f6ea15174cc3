"""The lesson's exercises, in page order: every answer computed, none read off a chart."""

import pytest

from lessons import seq2seq_bottleneck
from lessons.seq2seq_bottleneck import both_directions


def test_exercise_answers_are_computed_and_none_is_read_off_a_chart():
    exercises = {ex.key: ex for ex in seq2seq_bottleneck.exercises()}
    assert len(exercises) >= 3 and set(exercises) == {f"seq2seq_bottleneck.ex{i}" for i in range(1, 7)}
    n = len(both_directions.EXERCISE_TEXT)
    assert exercises["seq2seq_bottleneck.ex1"].answer == 48  # c = [→h_S; ←h_1]: 24 + 24
    assert exercises["seq2seq_bottleneck.ex2"].answer == (n + 1) * 48
    assert exercises["seq2seq_bottleneck.ex3"].answer == 5  # </s>, a, z, z, i
    assert exercises["seq2seq_bottleneck.ex4"].answer == pytest.approx(1.0)  # (2 + 0 + 1) / 3
    assert exercises["seq2seq_bottleneck.ex5"].answer == pytest.approx(0.35 * 4 + 0.05 * 2)
    assert (
        exercises["seq2seq_bottleneck.ex6"].check(0).correct
        and not exercises["seq2seq_bottleneck.ex6"].check(2).correct
    )
    for ex in exercises.values():
        assert "read it off" not in ex.prompt.lower() and "chart" not in ex.prompt.lower()
        wrong = ex.check(1 if ex.is_choice and ex.answer == 0 else float(ex.answer) + 7)
        assert not wrong.correct and "Worked answer" in wrong.message and ex.explanation in wrong.message
    assert exercises == {ex.key: ex for ex in seq2seq_bottleneck.exercises(None)}  # no shipped results needed
