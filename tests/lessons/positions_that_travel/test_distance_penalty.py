"""The positions-that-travel lesson's ALiBi section: the slopes, each head's penalty, and the exercises."""

import math

import numpy as np
import pytest

from lessons.positions_that_travel import distance_penalty


def test_the_slopes_table_is_the_papers_sequence_for_eight_heads():
    rows = distance_penalty.slopes_rows()
    assert [r["slope m_h"] for r in rows] == pytest.approx([2.0**-h for h in range(1, 9)])
    assert rows[0]["penalty at distance 10"] == pytest.approx(-5.0)


def test_each_heads_grid_falls_by_its_slope_per_step_back_and_hides_the_future():
    for head in (1, 4, 8):
        grid = distance_penalty.bias_grid(head)
        slope = 2.0 ** (-head)
        assert np.isnan(grid[2, 5]) and grid[5, 5] == 0.0
        assert grid[10, 3] == pytest.approx(-7 * slope)
        fig = distance_penalty.bias_figure(head)
        assert f"Head {head} of 8" in fig.layout.title.text
    assert "1/2" not in distance_penalty.bias_caption(1)  # the caption writes the slope as a number
    assert "0.5" in distance_penalty.bias_caption(1)


def test_the_share_on_itself_is_the_geometric_series():
    r = math.exp(-0.5)
    expected = (1 - r) / (1 - r**64)
    assert distance_penalty.self_share(1, 64) == pytest.approx(expected, rel=1e-9)
    assert distance_penalty.self_share(8, 64) < distance_penalty.self_share(1, 64)  # a flatter head spreads more


def test_the_exercises_answers_come_from_the_formulas():
    ex = distance_penalty.penalty_by_hand()
    assert ex.check(-0.5).correct and not ex.check(0.5).correct
    share = distance_penalty.self_share_prediction()
    e = math.exp(-1)
    assert share.answer == pytest.approx((1 - e) / (1 - e**64), rel=1e-9)  # slope 1: not a head the page draws
    assert share.check(0.632).correct and not share.check(0.3935).correct  # head 1's share is on the page
