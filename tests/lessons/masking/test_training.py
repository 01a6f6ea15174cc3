"""How the decoders are trained and the measured comparison read back: a tiny training, unusable files refused."""

import json

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.masking import training


def test_unusable_results_files_are_refused_with_a_message(tmp_path):
    path = tmp_path / "masking.json"
    lacking = Comparison(("causal mask",), (Run("causal mask", 0, final={"x": 1.0}),)).to_dict()
    for content in ("{}", "[]", json.dumps(lacking)):
        path.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match="masking_results.py"):
            training.load_results(path)
    with pytest.raises(FileNotFoundError, match="masking_results.py"):
        training.load_results(tmp_path / "missing.json")


def test_a_tiny_training_writes_a_curve_and_the_runs_metrics():
    run, model = training.trained_run(True, 0, steps=training.REPORT_EVERY)
    assert run.variant == "causal mask" and run.curve[-1]["step"] == training.REPORT_EVERY
    assert set(training.METRICS) <= set(run.final) and model.config.causal
