"""Section 3, train one yourself: the student's model and the maps of every cross-attention head it reports."""

import numpy as np

from lessons.multi_head_attention import head_counts_runs, train_yourself
from minimodels.train import Progress


def test_live_training_reports_every_cross_head():
    model, _ = train_yourself.new_training(2, seed=0, budget_seconds=1.0)
    assert model.config.n_heads == 2 and model.config.d_model == head_counts_runs.RESULT_D_MODEL
    maps = {
        "decoder.0.cross": np.full((2, 3, 4), 0.25),
        "decoder.0.self": np.zeros((2, 3, 3)),
        "decoder.1.cross": np.full((2, 3, 4), 0.25),
    }
    snapshot = Progress(25, 1.0, 1.0, 0.0, None, None, maps, list("abc") + ["</s>"], ["x", "y", "</s>"], "x")
    rows = train_yourself.snapshot_rows(snapshot)
    assert [r.title for r in rows] == ["decoder layer 1 · cross-attention", "decoder layer 2 · cross-attention"]
    figure = train_yourself.snapshot_grid(snapshot)
    assert figure.layout.title.text == "cross-attention heads on a fixed example after 25 steps"
    assert sum(t.type == "heatmap" for t in figure.data) == 4  # 2 layers × 2 heads
