"""The positional-encoding lesson's live run (section 6): one report, its figure, and what a run refuses."""

import pytest

from lessons.positional_encoding import live_training
from tests.helpers import recipe_of


def test_snapshot_figure_and_new_run():
    run = live_training.new_run("learned", 0, 30)
    reports = []
    recipe_of(run)[1](lambda p: reports.append(p) or False)
    (report,) = reports
    assert report.step == live_training.LIVE_REPORT_EVERY and report.attention.shape == (8, 8)
    fig = live_training.snapshot_figure(report, "learned")
    assert fig.layout.annotations[0].text == f"learned (one vector each) · step {report.step}"
    with pytest.raises(ValueError):
        live_training.new_run("rotary", 0, 5)
    with pytest.raises(ValueError):
        live_training.new_run("none", 0, 0)
