"""The positions-that-travel lesson's live run (section 4): one report, its figure and line, and what it refuses."""

import pytest

from lessons.positions_that_travel import live_training
from tests.helpers import recipe_of


def test_one_report_has_the_probe_map_and_the_three_lengths():
    run = live_training.new_run("alibi", 0, 30)
    reports = []
    _, train_fn = recipe_of(run)  # what its worker builds, built here
    train_fn(lambda p: reports.append(p) or False)
    (report,) = reports
    assert report.step == live_training.LIVE_REPORT_EVERY
    assert report.attention.shape == (32, 32) and len(report.by_length) == 3
    assert live_training.PROBE == "defghijklmnopqrstuvwxyzabcdefghi"
    assert live_training.by_length_text(report).startswith(f"After {report.step} steps, letters right at 1× (16")
    fig = live_training.snapshot_figure(report, "alibi")
    assert "ALiBi (distance penalty) · step 25" in fig.layout.title.text
    with pytest.raises(ValueError):
        live_training.new_run("rotary", 0, 5)
    with pytest.raises(ValueError):
        live_training.new_run("rope", 0, 0)
