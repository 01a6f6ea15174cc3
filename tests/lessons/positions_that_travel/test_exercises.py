"""The positions-that-travel lesson's exercise list: every question once, keys unique, the race only with results."""

from lessons import positions_that_travel
from tests.lessons.positions_that_travel.test_longer_inputs import made_up


def test_the_list_holds_every_exercise_once():
    without = positions_that_travel.exercises()
    with_results = positions_that_travel.exercises(made_up())
    assert len(with_results) == len(without) + 2
    keys = [ex.key for ex in with_results]
    assert len(keys) == len(set(keys)) and all(k.startswith("positions_that_travel.") for k in keys)
    assert [ex.key for ex in positions_that_travel.by_hand()] == keys[:3]
    assert positions_that_travel.INTRO.count("Train Short, Test Long") == 1
