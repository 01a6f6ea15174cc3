"""Two maps in one figure, side by side on one pair of axes."""

import numpy as np
import pytest

from lessons.common import grids
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


def test_on_a_phone_the_maps_stand_one_under_the_other_each_titled_above_it():
    off, on = np.full((2, 3), 1 / 3), np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    token = grids.NARROW.set(True)
    try:
        fig = side_by_side.pair_figure([("off", off), ("on", on)], ["a", "b", "<pad>"], ["a", "b"])
    finally:
        grids.NARROW.reset(token)
    first, second = fig.data
    assert list(first.x) == list(second.x) == [0, 1, 2]  # the same columns
    assert min(second.y) > max(first.y) + side_by_side.TITLE_ROWS - 1  # below the first, room for its title
    assert list(fig.layout.yaxis.ticktext) == ["a", "b", "a", "b"]  # every map's rows named
    titles = {note.text: note.y for note in fig.layout.annotations}
    assert titles["off"] < min(first.y) and max(first.y) < titles["on"] < min(second.y)  # each over its own map
