"""Section 1's figures: every head marked, in the lecture's order, each with its caption."""

import numpy as np

from lessons.multi_head_attention import split, split_heatmaps


def test_split_figures_mark_every_head():
    ex = split.split_example(("I", "like", "pizza"), 32, 4)
    fig = split_heatmaps.projection_figure(ex)
    assert [t.type for t in fig.data] == ["heatmap"] * 3 + ["scatter"]  # Q, K, V, then the heads' boundaries
    assert fig.data[0].z.shape == (3, 32) and [t.name for t in fig.data[:3]] == ["Q = XW^Q", "K = XW^K", "V = XW^V"]
    layout = fig.layout.to_plotly_json()
    assert not any(name.startswith(("xaxis2", "yaxis2")) for name in layout)  # one pair of axes
    assert [list(t.y) for t in fig.data[:3]] == [[1, 2, 3], [5, 6, 7], [9, 10, 11]]  # a blank row above each
    assert layout["yaxis"]["ticktext"] == ["I", "like", "pizza"] * 3
    texts = [a["text"] for a in layout["annotations"]]
    assert texts[:3] == ["<b>Q = XW^Q</b>  3 × 32", "<b>K = XW^K</b>  3 × 32", "<b>V = XW^V</b>  3 × 32"]
    assert texts[3:] == ["head 1", "head 2", "head 3", "head 4"]
    lines = fig.data[3]  # 3 boundaries through each of Q, K and V, from top to bottom
    assert [x for x in lines.x if x is not None] == [7.5, 7.5, 15.5, 15.5, 23.5, 23.5] * 3
    assert [y for y in lines.y if y is not None] == [0.5, 3.5] * 3 + [4.5, 7.5] * 3 + [8.5, 11.5] * 3
    grid = split_heatmaps.split_grid(ex)
    assert len(grid.data) == 4
    np.testing.assert_allclose(grid.data[1].z, ex.heads.weights[1].numpy())
    concat = split_heatmaps.concat_figure(ex)
    assert [t.type for t in concat.data] == ["heatmap", "heatmap", "scatter"]
    assert [y for y in concat.data[2].y if y is not None] == [0.5, 3.5] * 3  # only Concat(Zᵢ): after W^O the


def test_split_figures_come_in_the_lectures_order_each_with_its_caption():
    ex = split.split_example(("I", "like", "pizza"), 32, 4)
    shown = split_heatmaps.split_figures(ex)
    assert [key for key, _, _ in shown] == ["projections", "split.heads", "concat"]
    assert [caption.split(":")[0] for _, _, caption in shown] == ["Steps 2–3", "Step 4", "Step 5"]
    for (_, figure, _), builder in zip(
        shown, (split_heatmaps.projection_figure, split_heatmaps.split_grid, split_heatmaps.concat_figure), strict=True
    ):
        assert figure.to_json() == builder(ex).to_json()
    assert "nn.MultiheadAttention" in split.PARITY_CAPTION
