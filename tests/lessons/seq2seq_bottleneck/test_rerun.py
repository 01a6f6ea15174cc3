"""Section 5's figures: the length curves over the shipped ones, held-out exact match, the probe's attention."""

import html

import numpy as np
import pytest

from lessons.seq2seq_bottleneck import rerun, shipped


def test_the_live_figures_draw_each_model_that_has_started(pair_run):
    _, _, reports = pair_run
    early = rerun.progress_chart(reports[1])
    assert [t.name for t in early.data] == ["with attention"]
    late = rerun.progress_chart(reports[-1])
    assert [t.name for t in late.data] == ["without attention", "with attention"]
    assert list(late.data[1].y) == [r.exact_match for r in reports[-1].reports["gru-additive"]]
    attended = reports[-1].latest("gru-additive")
    heatmap = rerun.probe_heatmap(attended)
    np.testing.assert_allclose(np.asarray(heatmap.data[0].z), attended.attention)
    assert [html.unescape(t) for t in heatmap.layout.xaxis.ticktext] == rerun.probe_tokens()  # escaped
    assert [html.unescape(t) for t in heatmap.layout.yaxis.ticktext] == list(attended.written)  # what it wrote
    assert "its own copy (greedy)" in heatmap.layout.title.text
    with pytest.raises(ValueError, match="no attention"):
        rerun.probe_heatmap(reports[-1].latest("gru-none"))


def test_length_chart_draws_both_models_the_other_sizes_and_the_students_runs(results):
    own = [("yours: without attention, D = 32, 10 steps", shipped.accuracy_of(results, "gru-none", 16))]
    fig = rerun.length_chart(results, 32, "token_accuracy", own=own)
    names = [trace.name for trace in fig.data]
    assert names[-3:-1] == ["shipped: without attention, D = 32", "shipped: with attention, D = 32"]
    assert names[-1].startswith("yours") and fig.data[-1].line.dash == "dash"
    assert sum("D = " in n and "shipped" not in n and "yours" not in n for n in names) == 3
    assert list(fig.data[-2].y) == list(shipped.accuracy_of(results, "gru-additive", 32).token_accuracy)
    lone = rerun.length_chart(results, 32, others=False)
    assert len(lone.data) == 2
    only_own = rerun.length_chart(None, 32, own=own)  # no shipped results: the student's curves alone
    assert [trace.name for trace in only_own.data] == [own[0][0]]
