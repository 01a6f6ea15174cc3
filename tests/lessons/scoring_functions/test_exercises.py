"""The check-yourself questions: every answer computed, every explanation worked."""

import pytest

from lessons import scoring_functions
from lessons.scoring_functions import race_softmax, reduced_race, shipped_race, where_scaling_matters


def test_exercise_answers_are_computed():
    results = shipped_race.load_results()
    sweep = where_scaling_matters.load_sweep(results)
    ex = {e.key: e for e in scoring_functions.exercises(results, sweep)}
    assert ex["scoring_functions.ex1"].answer == pytest.approx(2.0)
    assert ex["scoring_functions.ex1"].check(2.0).correct and not ex["scoring_functions.ex1"].check(4.0).correct
    assert "= 4" in ex["scoring_functions.ex1"].explanation and "4 / 2 = 2" in ex["scoring_functions.ex1"].explanation
    ex2 = ex["scoring_functions.ex2"]  # the additive score by hand: d″(d + d′) + 2d″, not a lookup of the notes
    assert ex2.answer == 24 * (64 + 128) + 2 * 24 and ex2.check(4656).correct and not ex2.check(8192).correct
    assert "24 × 192 = 4,608" in ex2.explanation
    assert (
        ex["scoring_functions.ex3"].answer == 64 * 128 and "64 × 128 = 8,192" in ex["scoring_functions.ex3"].explanation
    )
    # the GRU's state entries shrink as d grows (PyTorch's U(-1/√d, 1/√d)), so its q·k does not widen like √d
    small, large = race_softmax.fresh_stats("dot", 64), race_softmax.fresh_stats("dot", 256)
    assert large["query variance"] < small["query variance"] / 2
    ex4 = ex["scoring_functions.ex4"]
    wider = large["score sd"] / small["score sd"] > 1.5
    assert ex4.choices[ex4.answer] == race_softmax.WIDER[0 if wider else 1]
    assert f"{small['score sd']:.2f} at d = 64" in ex4.explanation
    # the unshown arm of the sweep: small entries at the largest d
    ex5 = ex["scoring_functions.ex5"]
    arm = {"d": max(reduced_race.SWEEP_DS), "sigma": round(reduced_race.SMALL_SIGMA, 4)}
    alpha = {s: sweep.spread(reduced_race.early_metric(), s, arm).mean for s in reduced_race.SWEEP_SCORES}
    verdict = sweep.compare("scaled_dot", "dot", reduced_race.early_metric(), where=arm)
    assert ex5.answer == where_scaling_matters.verdict_choice(verdict)
    if verdict.clear:
        winner = max(alpha, key=alpha.get)
        assert ex5.choices[ex5.answer].startswith({"dot": "unscaled", "scaled_dot": "scaled"}[winner])
    for e in ex.values():  # never a figure to read off the page: no "look at", and every explanation is worked
        assert "look at" not in e.prompt.lower() and "read it off" not in e.prompt.lower()
        assert any(ch.isdigit() for ch in e.explanation)
    assert [e.key for e in scoring_functions.exercises(None)] == [f"scoring_functions.ex{i}" for i in range(1, 5)]
