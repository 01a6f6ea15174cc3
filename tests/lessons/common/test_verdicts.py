"""The verdict rule against the cross-machine drift measured by ``bench/drift.py`` (``assets/results/drift.json``):
a gap below a metric's recorded drift is refused even when Welch's t-test is far below α, a gap above it is called;
the drift a comparison uses is its results file's own when that file was measured."""

import json

import pytest

from lessons.common import verdicts
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, Spread


def _recorded() -> dict:
    return json.loads(verdicts.DRIFT_FILE.read_text(encoding="utf-8"))


def test_the_drift_file_is_measured_and_says_on_what():
    table = _recorded()
    assert table["format"] == verdicts.DRIFT_FORMAT
    assert {"cpu", "best_capability", "torch"} <= set(table["machine"]) and table["speed_ms"] > 0
    assert len({s.split("/")[0] for s in table["settings"]}) >= 2  # at least two vector units
    for entry in table["slices"].values():  # each slice's figures compare at least two settings it finished
        assert len(entry["settings"]) >= 2 and set(entry["settings"]) <= set(table["settings"])
    for name in ("transformer", "scoring_functions", "seq2seq_bottleneck", "architecture_lab"):
        assert table["slices"][name]["metrics"], name
    for metric, drift in table["metrics"].items():  # the per-metric figure is the largest over the slices
        assert drift == pytest.approx(
            max(s["metrics"][metric]["drift"] for s in table["slices"].values() if metric in s["metrics"]), rel=1e-5
        )


def _five(centre: float, wobble: float) -> Spread:
    return Spread(tuple(centre + wobble * k for k in (-2, -1, 0, 1, 2)))


def test_a_gap_below_the_recorded_drift_is_refused_and_one_above_it_is_called():
    table = _recorded()
    drifting = {(name, m): s["metrics"][m]["drift"] for name, s in table["slices"].items() for m in s["metrics"]}
    (name, metric), drift = max(drifting.items(), key=lambda item: item[1])
    assert drift > 0, "every setting gave the same figures: nothing to hold a gap against"
    assert verdicts.measured_drift(metric, name) == pytest.approx(drift)
    wobble = drift / 1000  # Welch's p far below α either way: only the drift decides
    below = verdicts.verdict(_five(1 + 0.5 * drift, wobble), _five(1, wobble), metric=metric, results=name)
    assert below[0] == "too close" and "no more than the cross-machine drift" in below[1]
    above = verdicts.verdict(_five(1 + 2 * drift, wobble), _five(1, wobble), metric=metric, results=name)
    assert above[0] == "better" and "exceeds the cross-machine drift" in above[1]
    flipped = verdicts.verdict(_five(1, wobble), _five(1 + 2 * drift, wobble), metric=metric, results=name)
    assert flipped[0] == "worse"


def test_a_comparison_loaded_from_a_measured_file_uses_that_files_drift(tmp_path):
    table = _recorded()
    name = "transformer"
    metric, found = next(iter(table["slices"][name]["metrics"].items()))
    runs = tuple(Run(v, s, final={metric: 1.0 + (v == "a") + s / 1e6}) for v in ("a", "b") for s in range(5))
    loaded = Comparison.load(Comparison(("a", "b"), runs).save(tmp_path / f"{name}.json"))
    assert loaded.source == name
    v = loaded.compare("a", "b", metric)
    assert v.outcome == ("better" if found["drift"] < 1.0 else "too close")
    assert "Welch's t-test, α = 0.05" in v.sentence(".3f") and "(n = 5)" in v.sentence(".3f")


def test_a_metric_no_slice_measured_is_never_called():
    assert verdicts.measured_drift("a metric nobody measured") is None
    outcome, reason = verdicts.verdict(_five(2, 0.01), _five(1, 0.01), metric="a metric nobody measured")
    assert outcome == "too close" and "no cross-machine drift has been measured" in reason


def test_a_verdict_is_weighed_only_with_five_seeds_a_side_and_a_measured_drift(tmp_path):
    name = "transformer"
    metric = next(iter(_recorded()["slices"][name]["metrics"]))

    def compared(seeds: int, measured: str) -> Comparison:
        runs = tuple(Run(v, s, final={measured: 1.0 + s / 1e3}) for v in ("a", "b") for s in range(seeds))
        return Comparison.load(Comparison(("a", "b"), runs).save(tmp_path / f"{name}.json"))

    assert compared(5, metric).compare("a", "b", metric).weighed
    assert not compared(4, metric).compare("a", "b", metric).weighed  # too few seeds: no evidence either way
    unmeasured = compared(5, "a metric nobody measured").compare("a", "b", "a metric nobody measured")
    assert unmeasured.outcome == "too close" and not unmeasured.weighed


def test_runs_without_a_value_are_weighed_only_when_the_count_test_decides():
    metric = "a metric nobody measured"  # counts need no drift
    mixed = verdicts.judge(Spread((1.0, 1.1, None, 1.2, 1.3)), Spread((1.0, None, 1.1, 1.2, 1.3)), metric=metric)
    assert mixed.outcome == "too close" and not mixed.weighed  # some of each side missing: no test was run
    reached = Spread((10.0, 11.0, 12.0, 13.0, 14.0))
    never = Spread((None,) * 5)
    counted = verdicts.judge(reached, never, higher_is_better=False, metric=metric)
    assert counted.outcome == "better" and "Fisher's exact test" in counted.reason and counted.weighed
    seldom = Spread((9.0, None, None, 10.0, None))  # two of five reach it, against none
    alike = verdicts.judge(seldom, never, higher_is_better=False, metric=metric)
    assert alike.outcome == "too close" and "Fisher's exact test gives" in alike.reason and alike.weighed
