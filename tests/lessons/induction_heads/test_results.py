"""The measured seeds read back: formation counted from the runs, the knock-out verdicts through the shared rule,
a file with too few seeds refused, and the shipped file readable."""

import json

import pytest

from lessons.induction_heads import results as measured


def test_formation_counts_the_seeds_that_formed_and_their_median(make_results, typical):
    f = measured.formation(typical)
    assert f.seeds == 5 and f.steps == (150, 200, 175, 225, 200) and f.median == 200
    assert f.sentence().startswith("5 of 5 seeds formed an induction head") and "step 200 in the median" in f.sentence()
    some = make_results({v: [0.5] * 5 for v in measured.VARIANTS}, [100, None, None, 300, None])
    assert measured.formation(some).sentence().startswith("2 of 5 seeds")
    none = make_results({v: [0.5] * 5 for v in measured.VARIANTS}, [None] * 5)
    assert measured.formation(none).sentence().startswith("None of the 5 seeds")


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_knockout_verdicts_come_from_the_shared_rule_both_ways(make_results, typical):
    verdicts = measured.knockout_verdicts(typical)
    assert verdicts["previous-token head out"].outcome == "better"  # intact is clearly ahead
    assert verdicts["layer 2 out"].outcome == "better"
    assert verdicts["other layer-1 head out"].outcome == "too close"
    same = make_results({v: [0.9, 0.91, 0.92, 0.9, 0.93] for v in measured.VARIANTS}, [100] * 5)
    assert all(v.outcome == "too close" for v in measured.knockout_verdicts(same).values())


def test_a_file_with_fewer_than_five_seeds_is_refused(tmp_path, make_results):
    short = make_results({v: [0.5] * 3 for v in measured.VARIANTS}, [100] * 3)
    path = short.save(tmp_path / "induction_heads.json")
    with pytest.raises(ValueError, match="five seeds"):
        measured.load_results(path)
    five = make_results({v: [0.5] * 5 for v in measured.VARIANTS}, [100] * 5)
    assert measured.load_results(five.save(tmp_path / "five.json")).seeds == (0, 1, 2, 3, 4)


def test_the_switches_pick_heads_from_the_models_own_scores():
    import numpy as np

    from lessons.induction_heads.training import Reading

    reading = Reading(0, 0, 0, 0, np.array([[0.1, 0.5], [0.0, 0.0]]), np.array([[0.0, 0.0], [0.7, 0.2]]), None)
    keep = measured.switches(reading)
    assert keep["previous-token head out"].tolist() == [[1, 0], [1, 1]]
    assert keep["other layer-1 head out"].tolist() == [[0, 1], [1, 1]]
    assert keep["induction head out"].tolist() == [[1, 1], [0, 1]]
    assert keep["layer 2 out"].tolist() == [[1, 1], [0, 0]]


def test_the_shipped_results_load_with_the_machine_they_ran_on():
    results = measured.load_results()
    assert len(results.seeds) >= 5
    machine = results.meta["machine"]
    assert machine["torch_threads"] >= 1 and results.meta["cpu_capability"] and "torch" in results.meta
    assert json.dumps(results.meta)  # plain JSON
    for run in results.runs_of(measured.INTACT):
        assert run.curve and "induction score" in run.curve[-1]
