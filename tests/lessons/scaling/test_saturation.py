"""The softmax of random scores (section 2): the unscaled one saturates and its gradient vanishes as d_k grows, the
scaled one does not; the charts, the one-query maps, and the summaries and texts computed from their figures."""

import numpy as np
import pytest

from lessons.scaling import gru_race, saturation, scores, thinking_machines, variance


def test_unscaled_softmax_saturates_and_its_gradient_vanishes_as_d_k_grows():
    rows = saturation.softmax_sweep(8, ds=(1, 16, 1024), samples=400)
    by = {(r["d_k"], r["score"]): r for r in rows}
    dot, scaled = scores.LABELS["dot"], scores.LABELS["scaled_dot"]
    assert by[(1, dot)] == {**by[(1, scaled)], "score": dot}  # √1 = 1: the same numbers
    assert by[(1024, dot)]["largest α"] > by[(16, dot)]["largest α"] > by[(1, dot)]["largest α"]
    assert by[(1024, dot)]["saturated rows"] > 0.5
    assert by[(1024, dot)]["entropy (bits)"] < 0.1 * by[(1024, scaled)]["entropy (bits)"]
    assert by[(1024, dot)]["gradient ‖∂α/∂e‖"] < 0.25 * by[(1024, scaled)]["gradient ‖∂α/∂e‖"]
    uniform = saturation.uniform_statistics(8)
    assert uniform["entropy (bits)"] == pytest.approx(3.0)
    for d_k in (16, 1024):  # scaled: well below the uniform ceiling but nowhere near saturated, whatever d_k
        assert 0.5 * uniform["entropy (bits)"] < by[(d_k, scaled)]["entropy (bits)"] < uniform["entropy (bits)"]
        assert by[(d_k, scaled)]["saturated rows"] < 0.05
    with pytest.raises(ValueError):
        saturation.softmax_sweep(1)


def test_softmax_charts_hold_the_sweep_and_the_uniform_reference():
    rows = saturation.softmax_sweep(8, ds=(1, 16, 1024), samples=100)
    charts = saturation.softmax_charts(rows, 8)
    uniform = saturation.uniform_statistics(8)
    for panel, spec in zip(saturation.SOFTMAX_PANELS, charts, strict=True):
        assert spec["title"] == f"{panel} of softmax"
        values = spec["data"]["values"]
        measured = [(v["d_k"], v["series"], v["value"]) for v in values if v["series"] != saturation.UNIFORM]
        assert measured == [(r["d_k"], r["score"], r[panel]) for r in rows]
        assert {(v["d_k"], v["value"]) for v in values if v["series"] == saturation.UNIFORM} == {
            (d, uniform[panel]) for d in (1, 16, 1024)
        }
    assert [c["encoding"]["color"]["legend"] is not None for c in charts] == [False, True, False]  # one legend


def test_one_query_uses_the_same_scores_for_both_maps():
    example = saturation.one_query(5, seed=2)
    assert example.scores.shape == (len(saturation.HEATMAP_DS), 5)
    for name in scores.SCORES:
        assert np.allclose(example.weights[name].sum(1), 1.0)
    assert np.allclose(example.weights["dot"][0], example.weights["scaled_dot"][0])  # d_k = 1
    root = np.sqrt(np.array(saturation.HEATMAP_DS))[:, None]
    expected = np.exp(example.scores / root) / np.exp(example.scores / root).sum(1, keepdims=True)
    assert np.allclose(example.weights["scaled_dot"], expected)
    fig = saturation.one_query_figure(example)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert list(fig.data[0].y) == [f"d_k = {d}" for d in saturation.HEATMAP_DS]


def test_the_summaries_are_computed_from_the_figures():
    points = variance.variance_sweep(ds=(1, 16, 256), samples=500)
    inside = sum(r["theory inside"] for r in variance.variance_rows(points))
    text = variance.variance_summary(points)
    assert text.startswith(
        f"With 500 pairs per d_k, the theory Var = d_k lies inside the 95% interval at **{inside} of 3"
    )
    assert f"At d_k = 256 the measured variance is **{points[-1].variance:.0f} ±" in text
    rows = saturation.softmax_sweep(8, ds=(1, 1024), samples=200)
    worst = next(r for r in rows if r["d_k"] == 1024 and r["score"] == scores.LABELS["dot"])
    text = saturation.saturation_summary(rows)
    assert text.startswith(f"At d_k = 1024, unscaled, **{worst['saturated rows']:.0%}**")
    scaled = [r for r in rows if r["score"] == scores.LABELS["scaled_dot"]]
    low, high = min(r["largest α"] for r in scaled), max(r["largest α"] for r in scaled)
    assert f"stays between **{low:.2f} and {high:.2f}**" in text  # measured, no "same distribution" claim
    assert "keeps the softmax's input at one scale" in text and "same distribution" not in text
    moved = [r | {"largest α": 0.3 + 0.6 * (r["d_k"] == 1024)} for r in rows]
    assert "does not keep the softmax at one scale" in saturation.saturation_summary(moved)
    start = gru_race.fresh_spread("dot")
    assert f"spread by only {start.raw_std:.2f}" in gru_race.untrained_note(start)
    assert f"d_k = {start.d_k}, the GRU's state" in gru_race.untrained_note(start)


def test_section_texts_read_their_numbers():
    assert "√64 = 8 before" in thinking_machines.lecture_text()
    assert f"from {saturation.HEATMAP_DS[0]} to {saturation.HEATMAP_DS[-1]}" in saturation.one_query_text()
    assert f"Averaged over {saturation.SWEEP_SAMPLES} random queries" in saturation.softmax_charts_note(8)
    assert "log₂ N = 3.00 bits when uniform" in saturation.softmax_charts_note(8)
