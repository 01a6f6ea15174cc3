"""The positions-that-travel lesson's RoPE section: the student's sentence turned pair by pair, the score grid
constant along its diagonals, and the exercises' answers computed from the formulas."""

import math
import re

import numpy as np
import pytest

from lessons.positions_that_travel import rotation


def test_each_word_is_turned_by_its_position_times_theta_and_keeps_its_length():
    tokens = ("the", "cat", "saw", "the", "dog")
    for pair in range(rotation.D_DRAW // 2):
        theta = 10000 ** (-2 * pair / rotation.D_DRAW)
        rows = rotation.turned_words(tokens, pair)
        for m, row in enumerate(rows):
            assert row["angle (rad)"] == pytest.approx(m * theta)
            (x, y), (a, b) = row["before"], row["after"]
            c, s = math.cos(m * theta), math.sin(m * theta)
            assert (a, b) == pytest.approx((c * x - s * y, s * x + c * y))
        assert rows[0]["before"] == rows[3]["before"]  # "the" twice: one vector, two angles
        assert rows[0]["after"] != pytest.approx(rows[3]["after"])
    table = rotation.rotation_rows(tokens, 0)
    assert [r["length before"] for r in table] == [r["length after"] for r in table]
    fig = rotation.rotation_figure(tokens, 1)
    assert len(fig.data) == 2 * len(tokens)
    assert "pair 1" in fig.layout.title.text


def test_the_sentence_parser_refuses_what_the_section_cannot_draw():
    assert rotation.parse(rotation.DEFAULT_SENTENCE).error is None
    assert rotation.parse("").error
    assert rotation.parse(" ".join(["w"] * (rotation.MAX_WORDS + 1))).error
    assert rotation.parse("x" * 200).error
    odd = rotation.parse("مرحبا <script>alert(1)</script> 🙂")
    assert odd.error is None and rotation.rotation_figure(odd.tokens, 0).data


def test_the_score_grid_is_toeplitz_and_depends_on_the_distance():
    grid = rotation.score_grid("cat", "mat", 20)
    assert grid.shape == (20, 20)
    assert rotation.diagonal_spread(grid) < 1e-12
    assert abs(grid[0, 1] - grid[0, 5]) > 1e-6  # a different distance, a different score
    broken = grid.copy()
    broken[3, 4] += 0.1
    assert rotation.diagonal_spread(broken) == pytest.approx(0.1, abs=1e-9)
    assert re.search(r"differ by at most (\d\.\de-1\d|0\.0e\+00)", rotation.score_caption(grid))
    assert rotation.score_figure(grid, "cat", "mat").data[0].type == "heatmap"


def test_the_exercises_answers_come_from_the_formulas():
    ex = rotation.angle_by_hand()
    assert ex.check(2.0).correct and not ex.check(20).correct
    shift = rotation.shift_prediction()
    assert shift.choices[shift.answer] == "the same"
    grid = rotation.score_grid(*rotation.SHIFT_WORDS, 16)
    assert f"{grid[5, 2]:.6f}" in shift.explanation and np.isclose(grid[5, 2], grid[15, 12])
