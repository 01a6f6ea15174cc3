"""The positional-encoding lesson's exercises: answers computed, worked solutions shown, none read off the page."""

import math

import pytest

from lessons import positional_encoding
from lessons.positional_encoding import longer_inputs, models


def test_exercise_answers_are_computed():
    results, none = longer_inputs.load_results(), models.load_model("none")[0]
    exercises = {ex.key: ex for ex in positional_encoding.exercises(results, none)}
    assert exercises["positional_encoding.ex1"].answer == pytest.approx(70 * 10000 ** (-4 / 16))  # 7 rad
    assert exercises["positional_encoding.ex2"].answer == pytest.approx(math.cos(150) + math.cos(1.5), abs=1e-6)
    assert "0.699 + 0.071 = 0.770" in exercises["positional_encoding.ex2"].explanation  # a worked solution
    ex3 = exercises["positional_encoding.ex3"]
    assert ex3.choices[ex3.answer] == "what it wrote under the string, reversed" and ex3.prompt.startswith("**Predict")
    assert (
        exercises["positional_encoding.ex5"].answer == 16
        and "32 − 16 = 16" in exercises["positional_encoding.ex5"].explanation
    )
    assert set(exercises) == {f"positional_encoding.ex{i}" for i in range(1, 6)}
    assert {ex.key for ex in positional_encoding.exercises(None, None)} == {
        "positional_encoding.ex1",
        "positional_encoding.ex2",
        "positional_encoding.ex5",
    }
    for ex in exercises.values():  # none asks to read the page's table
        assert "Read" not in (ex.hint or "") and "above" not in ex.prompt
