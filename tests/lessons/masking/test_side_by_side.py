"""Two maps in one figure, side by side on one pair of axes."""

import numpy as np
import pytest

from lessons.masking import side_by_side


def test_pair_figure_draws_the_maps_side_by_side_on_one_pair_of_axes():
    off, on = np.full((2, 3), 1 / 3), np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    drawn = side_by_side.pair_figure([("off", off), ("mask: <b>on</b>", on)], ["a", "b", "<pad>"], ["a", "b"])
    fig = drawn.to_plotly_json()
    assert [t["name"] for t in fig["data"]] == ["off", "mask: &lt;b&gt;on&lt;/b&gt;"]  # escaped
    assert {t.get("xaxis", "x") for t in fig["data"]} == {"x"} and "xaxis2" not in fig["layout"]
    first, second = (list(t["x"]) for t in fig["data"])
    assert first == [0, 1, 2] and min(second) > max(first) + 1  # a blank column between the maps
    np.testing.assert_array_equal(drawn.data[1].z, on)
    with pytest.raises(ValueError, match="does not match"):
        side_by_side.pair_figure([("off", off)], ["a", "b"], ["a", "b"])
