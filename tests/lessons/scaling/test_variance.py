"""The variance of q·k (section 3): d_k within its sampling error, a test that can fail, the standard error the page
reports, and the chart and table built from the sweep."""

import json
import math
from statistics import NormalDist

import numpy as np
import pytest
import torch

from lessons.scaling import scores, variance


def exact_variance_se(d_k: int, n: int) -> float:
    """Standard error of the sample variance of q·k for N(0, 1) components, from the exact moments:
    σ² = d_k and μ₄ = E[(q·k)⁴] = 3d_k² + 6d_k (each term q_i k_i has variance 1 and fourth moment 9)."""
    sigma2, mu4 = d_k, 3 * d_k**2 + 6 * d_k
    return math.sqrt((mu4 - (n - 3) / (n - 1) * sigma2**2) / n)


def two_sided_z(alpha: float, tests: int) -> float:
    """The normal quantile for a family-wise two-sided level ``alpha`` over ``tests`` comparisons (Bonferroni)."""
    return NormalDist().inv_cdf(1 - alpha / (2 * tests))


SEEDS = (0, 1, 2)
SAMPLES = 2000


@pytest.fixture(scope="module")
def sweeps():
    return {seed: variance.variance_sweep(samples=SAMPLES, seed=seed) for seed in SEEDS}


def test_variance_of_q_dot_k_is_d_k_within_sampling_error(sweeps):
    """Var(q·k) = d_k: every measured variance lies within z standard errors of d_k, the standard error computed
    exactly from the sample size, z for a 1-in-1000 family-wise false alarm over every d_k and seed."""
    z = two_sided_z(1e-3, len(SEEDS) * len(scores.D_SWEEP))
    for seed, points in sweeps.items():
        assert [p.d_k for p in points] == list(scores.D_SWEEP)
        for p in points:
            assert p.samples == SAMPLES
            assert abs(p.variance - p.d_k) <= z * exact_variance_se(p.d_k, SAMPLES), (seed, p)
            assert abs(p.mean) <= z * math.sqrt(p.d_k / SAMPLES), (seed, p)  # E[q·k] = 0, SE √(d_k / n)
            assert abs(p.scaled_variance - 1) <= z * exact_variance_se(p.d_k, SAMPLES) / p.d_k, (seed, p)


def test_the_variance_test_can_fail(sweeps):
    """The tolerance is narrow enough to reject a wrong law: Var = √d_k, 2·d_k or 1 lies outside it."""
    z = two_sided_z(1e-3, len(SEEDS) * len(scores.D_SWEEP))
    big = sweeps[0][-1]
    se = exact_variance_se(big.d_k, SAMPLES)
    assert abs(big.variance - math.sqrt(big.d_k)) > z * se
    assert abs(big.variance - 2 * big.d_k) > z * se
    assert abs(big.variance - 1) > z * se


def test_the_reported_standard_error_matches_the_exact_one(sweeps):
    """The page's error bars are estimated from each sample's fourth moment; pooled over seeds, they agree with the
    exact standard error within the estimate's own sampling error (a few per cent at n = 2000)."""
    for i, d_k in enumerate(scores.D_SWEEP):
        estimated = np.mean([sweeps[seed][i].variance_se for seed in SEEDS])
        assert estimated == pytest.approx(exact_variance_se(d_k, SAMPLES), rel=0.15), d_k


def test_variance_with_error_on_a_sample_with_known_moments():
    n = 1000
    x = torch.tensor([-1.0, 1.0] * (n // 2))  # mean 0, every |x| = 1: m₂ = 1, m₄ = 1
    s2, se = variance.variance_with_error(x)
    assert s2 == pytest.approx(n / (n - 1))
    assert se == pytest.approx(math.sqrt((1 - (n - 3) / (n - 1) * (n / (n - 1)) ** 2) / n))
    with pytest.raises(ValueError):
        variance.variance_with_error(torch.ones(3))


def test_same_seed_same_figures_and_sample_bounds():
    a = variance.variance_sweep(ds=(4, 64), samples=100, seed=3)
    assert a == variance.variance_sweep(ds=(4, 64), samples=100, seed=3)
    assert a != variance.variance_sweep(ds=(4, 64), samples=100, seed=4)
    with pytest.raises(ValueError):
        variance.variance_sweep(samples=10**6)


def test_variance_chart_and_rows():
    points = variance.variance_sweep(ds=(1, 16, 256), samples=500)
    spec = variance.variance_chart(points)
    by = {}
    for row in spec["data"]["values"]:
        by.setdefault(row["series"], []).append(row)
    assert list(by) == list(variance.VARIANCE_SERIES)
    assert [r["variance"] for r in by["theory: Var = d_k"]] == [1, 16, 256]
    assert [r["variance"] for r in by[f"measured: {scores.LABELS['dot']}"]] == [p.variance for p in points]
    scaled = by[f"measured: {scores.LABELS['scaled_dot']}"]
    assert [r["high"] - r["variance"] for r in scaled] == pytest.approx([1.96 * p.scaled_variance_se for p in points])
    assert json.loads(variance._variance_chart_spec())["layer"]  # the data-less chart, made once
    rows = variance.variance_rows(points)
    assert [r["theory"] for r in rows] == [1, 16, 256]
    assert all(r["theory inside"] == (abs(r["Var(q·k)"] - r["theory"]) <= r["± 1.96 SE"] + 0.01) for r in rows)
