"""Section 1: the two by-hand exercises' answers follow from their numbers."""

import pytest

from lessons.attention_explains import question


def test_the_permuted_head_moves_by_the_weighted_sums_difference():
    ex = question.permutation_exercise()
    assert ex.answer == pytest.approx((0.1 * 2 + 0.6 * 5 + 0.3 * 10) - (0.6 * 2 + 0.3 * 5 + 0.1 * 10))
    assert ex.check(ex.answer).correct and not ex.check(0).correct


def test_equal_values_leave_a_permuted_head_where_it_was():
    assert question.head_output(question.HAND_WEIGHTS, (3.0, 3.0, 3.0)) == pytest.approx(
        question.head_output(question.HAND_PERMUTED, (3.0, 3.0, 3.0))
    )


def test_tau_by_hand_is_one_agreeing_pair_of_three():
    ex = question.tau_exercise()
    assert ex.answer == pytest.approx(-1 / 3)
    assert ex.check(-0.333).correct and not ex.check(1 / 3).correct


def test_the_findings_name_the_three_papers():
    for paper in ("Attention is not Explanation", "Is Attention Interpretable?", "Attention is not not Explanation"):
        assert paper in question.FINDINGS
