"""Lesson 4's GRU race (section 5): the scoring lesson's own runs, and the sentence that follows them."""

import dataclasses

import pytest

from lessons.common.runs import Run
from lessons.scaling import gru_race, scores
from lessons.scoring_functions.shipped_race import load_results as load_scoring_results


def test_the_gru_race_is_the_scoring_lessons_own_runs(tmp_path):
    race, everything = gru_race.load_gru_race(), load_scoring_results()
    assert race.variants == scores.SCORES and race.seeds == everything.seeds and race.meta == everything.meta
    assert race.runs == tuple(r for r in everything.runs if r.variant in scores.SCORES)
    with pytest.raises(FileNotFoundError, match="scoring_functions_results.py"):
        gru_race.load_gru_race(tmp_path / "scoring_functions.json")


def test_the_race_sentence_follows_the_race(rule_on_made_up_seeds):
    """Whether the unscaled model stalled is computed from the race; swap the two models' runs and it turns."""
    race = gru_race.load_gru_race()
    said = gru_race.race_verdict(race)
    pace = race.compare("dot", "scaled_dot", "steps to 90%", higher_is_better=False)
    assert "did not stall" in said and race.spread("steps to 90%", "dot").text(".0f") in said
    assert {"better": "in fewer steps", "worse": "later", "too close": "too close to call"}[pace.outcome] in said
    stalled = [
        Run(r.variant, r.seed, r.params, r.curve, {**r.final, "steps to 90%": None}) if r.variant == "dot" else r
        for r in race.runs
    ]
    assert "did stall: it never reached 90%" in gru_race.race_verdict(dataclasses.replace(race, runs=tuple(stalled)))
    slow = [
        Run(r.variant, r.seed, r.params, r.curve, {**r.final, "steps to 90%": 1000.0 + r.seed})
        if r.variant == "dot"
        else r
        for r in race.runs
    ]
    assert "it reached 90%, later" in gru_race.race_verdict(dataclasses.replace(race, runs=tuple(slow)))
    assert said in gru_race.untrained_note(gru_race.fresh_spread("dot"), race)
