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
    assert exercises["seq2seq_bottleneck.ex3"].answer == 41 - 13 + 1  # positions S = 41 down to 13
    assert exercises["seq2seq_bottleneck.ex4"].answer == pytest.approx(1.5)  # (2 + 0 + 1 + 3) / 4
    assert exercises["seq2seq_bottleneck.ex5"].answer == pytest.approx(0.3 * 4 + 0.1 * 2 + 0.1 * 2)
    assert (
        exercises["seq2seq_bottleneck.ex6"].check("In the middle of the string").correct
        and not exercises["seq2seq_bottleneck.ex6"].check(0).correct
    )
    for ex in exercises.values():
        assert "read it off" not in ex.prompt.lower() and "chart" not in ex.prompt.lower()
        wrong = ex.check((ex.answer + 1) % len(ex.choices) if ex.is_choice else float(ex.answer) + 7)
        assert not wrong.correct and "Worked answer" in wrong.message and ex.explanation in wrong.message
    assert exercises == {ex.key: ex for ex in seq2seq_bottleneck.exercises(None)}  # no shipped results needed


def test_no_exercise_can_be_answered_by_the_pages_own_widgets():
    """The pooling widget takes three states of two numbers: the exercises pool four. The directions table takes a
    string of at most the models' length: the exercise's is longer."""
    from lessons.seq2seq_bottleneck import experiment, pooling

    assert (
        len(pooling.EXERCISE_STATES) != 3
        and pooling.parse_states("; ".join(" ".join(f"{x:g}" for x in h) for h in pooling.EXERCISE_STATES)).error
    )
    assert both_directions.LONG > experiment.MAX_LEN
    text = (
        " ".join(ex.explanation for ex in seq2seq_bottleneck.exercises() if ex.key.endswith(("ex6",)))
        + both_directions.TEXT
    )
    assert "middle" not in both_directions.TEXT and "middle" in text  # the page does not say it; the answer does
