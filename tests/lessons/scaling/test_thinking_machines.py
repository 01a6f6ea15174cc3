"""The lecture's "Thinking Machines" example (section 1), with and without the division."""

import math

import pytest

from lessons.scaling import thinking_machines


def test_the_lecture_example():
    ex = thinking_machines.lecture_example()
    assert ex.scaled == (14.0, 12.0)
    assert [round(a, 2) for a in ex.weights_scaled] == [0.88, 0.12]  # the lecture's table
    assert ex.weights_unscaled[1] == pytest.approx(1 / (1 + math.exp(16)))
    assert ex.gradient_unscaled < 1e-6 < 0.1 < ex.gradient_scaled
    rows = thinking_machines.lecture_rows(ex)
    assert rows[2] == {"": "Softmax", "Thinking": "0.88", "Machines": "0.12"}
    caption = thinking_machines.gradient_caption(ex)
    assert f"**{ex.gradient_scaled:.3f}** with the division" in caption
    assert f"**{ex.gradient_unscaled:.1e}** without" in caption and ex.gradient_unscaled > 0


def test_the_gradient_caption_claims_nothing_about_w_q_that_section_4_measures_otherwise():
    """Section 4 measures a larger gradient at W^Q unscaled: the caption only says what the softmax multiplies."""
    caption = thinking_machines.gradient_caption(thinking_machines.lecture_example())
    assert "where they are" not in caption and "section 4 measures" in caption
    swapped = thinking_machines.gradient_caption(thinking_machines.lecture_example((96, 112)))
    assert swapped == caption  # only the difference of the two scores matters, so swapping them changes nothing
