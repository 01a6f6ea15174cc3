"""Joining drift files (``bench/drift.py --merge``): a slice measured again (the whole training after a few steps)
keeps, per metric, the larger of its two drifts, so a new measurement never forgets a difference already seen."""

import json

from bench import drift


def _slice(command: str, **drifts: float) -> dict:
    return {
        "command": command,
        "settings": ["avx512/1", "default/1"],
        "seconds": {"avx512/1": 1.0, "default/1": 2.0},
        "metrics": {m: {"drift": d, "where": "seed 0", "missing_in_some": 0} for m, d in drifts.items()},
    }


def _file(path, **slices) -> None:
    document = {
        "format": 1,
        "date": "2026-11-29T00:00:00+00:00",
        "machine": {"cpu": "a test CPU"},
        "speed_ms": 100.0,
        "load_1min_before": 1.0,
        "load_1min_after": 1.0,
        "seconds": 10.0,
        "settings": ["avx512/1", "default/1"],
        "command": f"python -m bench.drift --out {path.name}",
        "slices": slices,
    }
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_slice_measured_again_keeps_the_larger_drift_of_each_metric(tmp_path):
    short, whole, other = tmp_path / "short.json", tmp_path / "whole.json", tmp_path / "other.json"
    _file(short, scaling=_slice("60 steps", accuracy=0.125, loss=0.3, entropy=0.01))
    _file(whole, scaling=_slice("whole", accuracy=0.07, loss=0.5))
    _file(other, masking=_slice("masking", accuracy=0.2))
    out = tmp_path / "drift.json"
    drift.merge([short, whole, other], out)
    merged = json.loads(out.read_text(encoding="utf-8"))
    scaling = merged["slices"]["scaling"]
    assert scaling["command"] == "whole" and [e["command"] for e in scaling["earlier"]] == ["60 steps"]
    drifts = {m: found["drift"] for m, found in scaling["metrics"].items()}
    assert drifts == {"accuracy": 0.125, "loss": 0.5, "entropy": 0.01}  # the larger of each; none forgotten
    assert scaling["metrics"]["accuracy"]["where"] == "seed 0, by 60 steps"  # the earlier measurement, named
    assert scaling["metrics"]["loss"]["where"] == "seed 0"
    assert merged["metrics"] == {"accuracy": 0.2, "loss": 0.5, "entropy": 0.01}  # the largest over every slice
