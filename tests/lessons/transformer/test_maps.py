"""The attention maps one sentence makes: their count, and the grid of heatmaps that draws them."""

import numpy as np
import pytest

from lessons.transformer import every_head, maps
from minimodels.transformer import TransformerConfig


def test_maps_per_sentence_counts_heads_times_sublayers():
    assert maps.maps_per_sentence(TransformerConfig(encoder_layers=6, decoder_layers=6, n_heads=8)) == 8 * (6 + 12)
    assert maps.maps_per_sentence(TransformerConfig(encoder_layers=1, decoder_layers=3, n_heads=2)) == 2 * 7


def test_heads_grid_draws_one_heatmap_per_head_and_escapes_labels(walked):
    panels = every_head.every_map(walked)
    assert len(panels) == 2 + 2 * 2
    fig = maps.heads_grid(panels[:2])
    assert len(fig.data) == 2 * 4 and {t.type for t in fig.data} == {"heatmap"}
    one = maps.heads_grid([("x", np.full((2, 1, 2), 0.5), ["<b>q</b>"], ["k1", "k2"])])
    assert "&lt;b&gt;q&lt;/b&gt;" in one.layout.yaxis.ticktext
    with pytest.raises(ValueError):
        maps.heads_grid([("x", np.ones((2, 3, 3)), ["a"], ["b"])])
    with pytest.raises(ValueError):
        maps.heads_grid([])
