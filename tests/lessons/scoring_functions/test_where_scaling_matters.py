"""Section 4: where scaling matters, computed from the sweep and flipping with it, and the shipped sweep drawn with
its spread."""

import dataclasses

from lessons import scoring_functions
from lessons.scoring_functions import race_softmax, reduced_race, shipped_race, where_scaling_matters
from tests.lessons.scoring_functions.made_up_races import sweep_of


def test_where_scaling_matters_is_computed_from_the_sweep_and_flips_with_it(rule_on_made_up_seeds):
    sweep = sweep_of({4: (0.07, 0.07), 16: (0.24, 0.21), 64: (0.55, 0.79), 256: (0.75, 0.98)})
    summary = where_scaling_matters.sweep_summary(sweep)
    assert summary == (
        "scaling clearly helps at d = 64, 256; it makes no difference the rule can call at d = 4; unscaled dot is "
        "clearly ahead at d = 16"
    )
    lines = where_scaling_matters.sweep_lines(sweep)
    assert lines[2].startswith("d = 64: scaled dot beats dot") and "too close to call" in lines[0]
    swapped = sweep_of({4: (0.07, 0.07), 16: (0.21, 0.24), 64: (0.79, 0.55), 256: (0.98, 0.75)})
    assert where_scaling_matters.sweep_summary(swapped) == (
        "scaling clearly helps at d = 16; it makes no difference the rule can call at d = 4; unscaled dot is "
        "clearly ahead at d = 64, 256"
    )
    assert "Here scaling clearly helps at d = 64, 256" in where_scaling_matters.sweep_caption(sweep)
    assert where_scaling_matters.sweep_problem(sweep) is None
    ex5 = next(e for e in scoring_functions.exercises(None, sweep) if e.key == "scoring_functions.ex5")
    assert ex5.choices[ex5.answer] == "unscaled dot, clearly"
    ex5 = next(
        e
        for e in scoring_functions.exercises(None, sweep_of({4: (0.1, 0.1)}, small=(0.16, 0.98)))
        if e.key == "scoring_functions.ex5"
    )
    assert ex5.choices[ex5.answer] == "scaled dot, clearly"


def test_the_shipped_sweep_has_every_d_and_seed_and_draws_its_spread():
    results = shipped_race.load_results()
    sweep = where_scaling_matters.load_sweep(results)
    assert sweep.param_values("d") == reduced_race.SWEEP_DS and len(sweep.seeds) >= 3
    for config in reduced_race.sweep_configs():
        for score in reduced_race.SWEEP_SCORES:
            assert len(sweep.runs_of(score, {"d": config.d, "sigma": round(config.sigma, 4)})) == len(sweep.seeds)
    for r in results.runs:  # the race's dot models carry what their softmax saw, at the start and the end
        if r.variant in race_softmax.STAT_SCORES:
            assert set(r.extra["scores"]) == {"start", "end"} and r.extra["scores"]["start"]["d"] == 64
    by_d, curves = where_scaling_matters.sweep_charts(sweep, 256)
    for chart in (by_d, curves):
        kinds = {v["kind"] for v in chart["data"]["values"]}
        assert {"seed", "mean"} <= kinds and any(
            v.get("kind") == "mean" and v["n"] >= 3 for v in chart["data"]["values"]
        )
    assert by_d["encoding"]["x"]["scale"]["type"] == "log"
    rows = where_scaling_matters.sweep_rows(sweep)
    assert [(r["d"], r["score"]) for r in rows] == [
        (d, label) for d in reduced_race.SWEEP_DS for label in ("dot", "scaled dot")
    ]
    assert all(r["n"] == len(sweep.seeds) for r in rows)
    broken = dataclasses.replace(sweep, runs=tuple(r for r in sweep.runs if r.params["d"] != 16 or r.seed == 0))
    assert "1 seed(s) of dot at d = 16" in where_scaling_matters.sweep_problem(broken)
    assert where_scaling_matters.load_sweep(dataclasses.replace(results, meta={})) is None
