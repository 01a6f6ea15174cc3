"""The shipped race: all four scores with consistent fields, and results that do not fit refused with a reason."""

import argparse
import json

import numpy as np
import pytest

from lessons.scoring_functions import four_scores, race_training, shipped_race


def test_the_shipped_results_have_all_four_with_consistent_fields():
    data = json.loads(shipped_race.RESULTS.read_text(encoding="utf-8"))
    meta = data["meta"]
    for key in ("command", "date", "machine", "seeds", "task", "budget_seconds", "train_config", "script"):
        assert key in meta, key
    assert meta["task"] == race_training.TASK and meta["command"].startswith(
        "python scripts/scoring_functions_results.py"
    )
    assert meta["script"] == "scripts/scoring_functions_results.py"
    results = shipped_race.load_results()
    assert results.variants == four_scores.SCORES and list(results.seeds) == meta["seeds"] and len(meta["seeds"]) >= 5
    for score in four_scores.SCORES:
        runs = results.runs_of(score)
        assert [r.seed for r in runs] == meta["seeds"]
        for r in runs:
            steps = [p["step"] for p in r.curve]
            assert steps == sorted(steps) and steps[-1] == r.final["steps"]
            assert r.final["held-out exact match"] == r.curve[-1]["exact_match"]
            for level in race_training.LEVELS:
                assert r.final[race_training.level_metric("steps", level)] == r.reached("exact_match", level)
            assert r.extra["stopped"] in ("target", "budget", "max_steps")
            assert 0 <= r.final["test exact match"] <= 1 and 0 <= r.final["alignment accuracy"] <= 1
        probe = shipped_race.shipped_maps(results)[score]
        z = np.asarray(probe["attention"])
        assert z.shape == (len(probe["target_tokens"]), len(probe["source_tokens"])) and probe["seed"] == 0
        assert np.allclose(z.sum(axis=1), 1.0, atol=1e-3)
    parameters = {s: m["parameters"]["score"] for s, m in meta["models"].items()}
    assert parameters == {"dot": 0, "scaled_dot": 0, "bilinear": 64 * 64, "additive": 8320}


def test_results_that_do_not_fit_are_refused_with_a_reason(tmp_path):
    data = json.loads(shipped_race.RESULTS.read_text(encoding="utf-8"))

    def refused(change, match):
        broken = json.loads(json.dumps(data))
        change(broken)
        path = tmp_path / "scoring_functions.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(ValueError, match=match) as error:
            shipped_race.load_results(path)
        assert "scoring_functions_results.py" in str(error.value)

    def without_additive(d):
        d["variants"].remove("additive")
        d["runs"] = [r for r in d["runs"] if r["variant"] != "additive"]

    refused(without_additive, "must compare the scores")
    refused(lambda d: d["runs"].pop(), "has runs for seeds")
    refused(lambda d: d["runs"][0]["final"].pop("steps to 95%"), "lacks steps to 95%")
    refused(lambda d: d["runs"][0]["extra"]["probe"]["target_tokens"].append("x"), "does not match")
    refused(lambda d: d["runs"][0]["extra"].pop("probe"), "one probe map")
    refused(lambda d: d.pop("format"), "format")
    with pytest.raises(FileNotFoundError, match="scoring_functions_results.py"):
        shipped_race.load_results(shipped_race.RESULTS.with_name("nothing.json"))


def test_the_results_scripts_budget_is_seconds_or_none_for_a_race_stopped_by_steps_only():
    import scripts.scoring_functions_results as script  # here: the script's module puts the repository on sys.path

    assert script.parse_budget("30") == 30.0 and script.parse_budget("none") is None
    assert script.parse_budget(" None ") is None
    for bad in ("0", "-5", "soon"):
        with pytest.raises((ValueError, argparse.ArgumentTypeError)):  # argparse shows either as an error
            script.parse_budget(bad)
