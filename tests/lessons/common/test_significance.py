"""The verdict rule's tests, checked against values from published tables: Student's t two-sided tails, Welch's
t-test worked by hand, and Fisher's exact test on small tables."""

import math

import pytest

from lessons.common.significance import fisher_exact, incomplete_beta, t_two_sided, welch


@pytest.mark.parametrize(
    ("t", "df", "p"),
    [
        (2.228139, 10, 0.05),  # the 5% two-sided critical value of t on 10 degrees of freedom
        (2.776445, 4, 0.05),
        (12.706205, 1, 0.05),
        (3.169273, 10, 0.01),
        (1.0, 1, 0.5),  # Cauchy: P(|T| >= 1) = 1/2
        (0.0, 7, 1.0),
    ],
)
def test_the_t_tail_matches_the_tables(t, df, p):
    assert t_two_sided(t, df) == pytest.approx(p, abs=2e-6)
    assert t_two_sided(-t, df) == pytest.approx(p, abs=2e-6)


def test_the_incomplete_beta_on_its_closed_forms():
    for x in (0.0, 0.1, 0.5, 0.93, 1.0):
        assert incomplete_beta(1.0, 1.0, x) == pytest.approx(x)  # uniform
        assert incomplete_beta(2.0, 1.0, x) == pytest.approx(x * x)
        assert incomplete_beta(0.5, 0.5, x) == pytest.approx(2 / math.pi * math.asin(math.sqrt(x)))
    with pytest.raises(ValueError):
        incomplete_beta(0.0, 1.0, 0.5)


def test_welch_worked_by_hand():
    # means 3 and 5.1, variances 2.5 and 3.05: t = -2.1 / sqrt(0.5 + 0.61), df = 1.11² / (0.5²/4 + 0.61²/4)
    t, df, p = welch([1, 2, 3, 4, 5], [3, 4, 5, 6, 7.5])
    assert t == pytest.approx(-2.1 / math.sqrt(1.11))
    assert df == pytest.approx(1.11**2 / (0.25 / 4 + 0.61**2 / 4))
    assert p == pytest.approx(t_two_sided(t, df)) and 0.08 < p < 0.085
    assert welch([1, 1], [1, 1])[2] == 1.0 and welch([1, 1], [2, 2])[2] == 0.0  # no spread at all
    with pytest.raises(ValueError, match="two values a side"):
        welch([1.0], [1.0, 2.0])


def test_fisher_exact_on_small_tables():
    assert fisher_exact(5, 0, 0, 5) == pytest.approx(2 / math.comb(10, 5))  # all against none, five a side
    assert fisher_exact(3, 0, 0, 3) == pytest.approx(0.1)  # three a side can never go below α = 0.05
    assert fisher_exact(3, 2, 2, 3) == pytest.approx(1.0)
    # the tea-tasting lady: 3 of 4 right each way, p = 0.486
    assert fisher_exact(3, 1, 1, 3) == pytest.approx(34 / 70)
