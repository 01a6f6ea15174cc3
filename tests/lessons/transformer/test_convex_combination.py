"""Section 4's convex-combination check: every attention output is a weighted average of the values."""

from dataclasses import replace

import numpy as np

from lessons.transformer import convex_combination


def test_every_attention_output_is_a_convex_combination_of_the_values(translator):
    model, task = translator
    check = convex_combination.convex_check(model, task, "Jane visits Africa in September")
    assert check.min_weight >= 0 and check.max_sum_error < 1e-5 and check.max_reconstruction_error < 1e-5
    assert check.outside == 0 and check.coordinates == check.heads * len(check.tokens) * check.d_k
    assert all(convex_combination.inside_hull(z, check.values_2d) for z in check.outputs_2d)
    assert 0 < check.relu_zero_share < 1 and check.d_ff == model.config.d_ff
    text = convex_combination.convex_text(check)
    assert "every one of them lies within" in text and f"{check.relu_zero_share:.0%}" in text
    broken = convex_combination.convex_text(replace(check, outside=3))  # the sentence follows the count
    assert "**3** of them fall outside" in broken and "every one of them" not in broken
    fig = convex_combination.convex_figure(check)
    assert len(fig.data[1].x) == len(check.tokens) and len(fig.data[2].x) == len(check.tokens)
    assert isinstance(convex_combination.convex_check(model, task, "   "), str)


def test_convex_hull_and_inside_hull():
    square = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]], dtype=float)
    assert sorted(convex_combination.convex_hull(square)) == [0, 1, 2, 3]
    assert convex_combination.inside_hull(np.array([1.0, 0.5]), square)
    assert convex_combination.inside_hull(np.array([2.0, 1.0]), square)  # on an edge
    assert not convex_combination.inside_hull(np.array([2.1, 1.0]), square)
    assert not convex_combination.inside_hull(np.array([0.5, 0.5]), square[:2])  # no hull of two points
