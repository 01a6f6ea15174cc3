"""Section 2's exercises: the predicted winner, the comparison and the dot product are computed, so other vectors
give other answers and explanations."""

import pytest

from lessons.queries_keys_values import no_parameters_exercises


def test_exercise_answers_change_with_their_numbers(monkeypatch):
    """The predicted winner and the comparison are computed: other vectors, other answers and explanations."""
    monkeypatch.setattr(no_parameters_exercises, "EXERCISE_IT", (("animal", (3.0, 1.0, 0.0)), ("it", (2.0, 2.0, 0.0))))
    with pytest.raises(ValueError, match="single largest"):  # ‖it‖² = 8 = it·animal: a tie has no answer to predict
        no_parameters_exercises._it_exercise()
    monkeypatch.setattr(no_parameters_exercises, "EXERCISE_IT", (("animal", (3.0, 1.0, 0.0)), ("it", (2.0, 3.0, 0.0))))
    it = no_parameters_exercises._it_exercise()
    assert it.choices[it.answer] == "*it* itself" and "attends to itself most” fails" not in it.explanation
    monkeypatch.setattr(
        no_parameters_exercises, "EXERCISE_PAIR", (("a", (1.0, 1.0)), ("b", (2.0, 0.0)), ("c", (0.0, 2.0)))
    )
    sym = no_parameters_exercises._symmetric_exercise()  # a and b swapped: now row a holds the smaller self-score
    assert sym.choices[sym.answer] == "α(a→b) is larger"
    monkeypatch.setattr(no_parameters_exercises, "EXERCISE_DOT", ((1, 2), (3, 4)))
    dot = no_parameters_exercises._dot_exercise()
    assert dot.check(11).correct and "positive" in dot.explanation and "dissimilar" not in dot.explanation
