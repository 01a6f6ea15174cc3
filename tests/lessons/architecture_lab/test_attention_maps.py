"""The lab's attention maps: each head kept beside the average, the per-head figure (one map per head and layer,
each its own head's numbers), and the choice offered only where a layer has more than one head."""

import numpy as np
import pytest

from lessons.architecture_lab import attention_maps, compare, compare_runs
from lessons.common import grids


def maps_of(heads: int, rows: int = 3, columns: int = 2, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = rng.random((heads, rows, columns))
    return m / m.sum(axis=-1, keepdims=True)


def test_a_view_keeps_each_head_and_averages_them_for_the_grid():
    maps = {"encoder.0.self": maps_of(4, 2, 2), "decoder.0.cross": maps_of(1, 3, 2)}
    enc, dec = attention_maps.map_views(maps, ["a", "b"], ["x", "y", "z"])
    np.testing.assert_allclose(enc.per_head, maps["encoder.0.self"])
    np.testing.assert_allclose(enc.weights, maps["encoder.0.self"].mean(axis=0))
    assert enc.title == "encoder self-att 1 · 4 heads averaged" and dec.title == "decoder source att 1 · 1 head"
    assert attention_maps.most_heads([enc, dec]) == 4 and attention_maps.most_heads([dec]) == 1


def test_the_per_head_figure_draws_each_head_of_each_layer_with_its_own_numbers():
    maps = {"encoder.0.self": maps_of(4, 2, 2, seed=1), "decoder.0.cross": maps_of(2, 3, 2, seed=2)}
    views = attention_maps.map_views(maps, ["a", "b"], ["x", "y", "z"])
    figure = attention_maps.heads_figure(views)
    assert [t.type for t in figure.data] == ["heatmap"] * 6
    drawn = [np.asarray(t.z) for t in figure.data]
    expected = [*maps["encoder.0.self"], *maps["decoder.0.cross"]]
    for got, want in zip(drawn, expected, strict=True):
        np.testing.assert_allclose(got, want)
    assert not np.allclose(drawn[0], drawn[1])  # two heads, two maps: not the average twice


def test_on_a_phone_the_heads_of_a_layer_wrap_two_a_row():
    views = attention_maps.map_views({"encoder.0.self": maps_of(4, 2, 2)}, ["a", "b"], [])
    token = grids.NARROW.set(True)
    try:
        figure = attention_maps.heads_figure(views)
    finally:
        grids.NARROW.reset(token)
    assert len({t.yaxis for t in figure.data}) == 2  # four heads, two rows of two


def test_a_map_that_does_not_match_its_tokens_is_refused():
    views = attention_maps.map_views({"encoder.0.self": maps_of(2, 3, 3)}, ["a", "b"], [])
    with pytest.raises(ValueError, match="do not match"):
        attention_maps.heads_figure(views)


def test_the_shipped_trained_models_show_each_of_their_heads():
    results = compare_runs.load_results()
    views = compare.shipped_views(results, "transformer")
    assert attention_maps.most_heads(views) == 4
    figure = attention_maps.heads_figure(views)
    assert len(figure.data) == sum(v.heads for v in views[: attention_maps.MAX_MAPS])
