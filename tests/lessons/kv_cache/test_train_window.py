"""The live window panel's run: reports with the held-out accuracy and the probe's map, honouring the window, and a
Stop that ends it."""

import numpy as np
import pytest

from lessons.kv_cache import train_window
from lessons.kv_cache.window_task import LETTERS
from tests.helpers import recipe_of


def test_a_run_reports_accuracy_and_a_map_that_stays_inside_its_window():
    run = train_window.new_run(window=4, seed=0, budget_seconds=5)
    seen = []

    def on_progress(snapshot):
        seen.append(snapshot)
        return len(seen) < 2

    _, train_fn = recipe_of(run)  # what its worker builds, built here
    model = train_fn(on_progress)
    assert len(seen) == 2 and seen[1].step == 2 * train_window.REPORT_EVERY
    snap = seen[-1]
    assert 0.0 <= snap.exact_match <= 1.0 and snap.window == 4
    T = LETTERS + 1
    assert snap.attention.shape == (T, T)
    outside = np.tril(np.ones((T, T)), -4)  # keys 4 or more positions back
    assert float((snap.attention * outside).sum()) == 0.0
    np.testing.assert_allclose(snap.attention.sum(1), 1.0, atol=1e-6)
    assert model.window == 4
    assert "best a window of 4" in train_window.snapshot_caption(snap)
    assert train_window.snapshot_figure(snap).data[0].z.shape == (T, T)


def test_a_budget_out_of_range_is_refused():
    with pytest.raises(ValueError):
        train_window.new_run(window=4, seed=0, budget_seconds=10_000)
