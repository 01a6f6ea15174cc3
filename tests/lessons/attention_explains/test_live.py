"""Section 2: the live run builds the chosen model, refuses what it cannot train, and keeps the mystery's bug."""

import pytest

from lessons.attention_explains import live
from lessons.attention_explains.measure import BUGS


def test_each_choice_builds_its_models_config():
    for choice in live.MODELS:
        model, _ = live.live_recipe(0, 5, choice)
        assert model.config == BUGS[live.planted(choice)]
    assert live.planted(live.RECIPE) == "none" and live.planted(live.MYSTERY) != "none"


def test_bad_choices_and_budgets_are_refused():
    with pytest.raises(ValueError, match="no model"):
        live.new_run(0, 10, "<script>")
    with pytest.raises(ValueError):
        live.new_run(0, 10_000, live.RECIPE)


def test_the_text_does_not_name_the_mystery_bug():
    assert "wrong side" not in live.TEXT and "√d_k" not in live.TEXT
