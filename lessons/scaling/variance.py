r"""Section 3 of the scaling lesson: measure it, the variance of q·k grows like d_k.

Vaswani et al. (2017, §3.2.1 and its footnote): if the components of q and k are independent with mean 0 and
variance 1, then

.. math:: q \cdot k = \sum_{i=1}^{d_k} q_i k_i,\qquad \mathbb{E}[q \cdot k] = 0,\qquad
          \operatorname{Var}(q \cdot k) = d_k.

Measured here at every d_k from many random pairs, with the standard error of each measured variance computed from
the sample itself; dividing by √d_k gives the same sample variance 1. Two exercises compute both by hand.

Letters: d_k the size of q and k, n sampled pairs, s² a sample variance, μ₄ the fourth central moment.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import torch

from lessons.common.exercises import Exercise
from lessons.common.vega import vega_lite_spec, with_values
from lessons.scaling.scores import COLORS, D_SWEEP, LABELS, SCORES

TITLE = "3 · Measure it: the variance of q·k grows like d_k"
VARIANCE_TEXT = (
    "Draw many (q, k) pairs with independent N(0, 1) components, compute q·k, and measure its variance at every "
    "d_k. The error bars are ±1.96 standard errors of each measured variance, computed from the sample itself "
    "(its fourth moment and the number of pairs): the theory should fall inside about 19 times out of 20."
)
SAMPLE_CHOICES: tuple[int, ...] = (100, 500, 2000, 8000)  # (q, k) pairs drawn per d_k
CHUNK = 1000  # pairs drawn at once, so 8000 pairs at d_k = 1024 never hold more than 2 × 4 MB


def theoretical_std(d_k: int) -> float:
    """Standard deviation of q·k for q, k with independent unit-variance components: √d_k."""
    return math.sqrt(d_k)


@dataclass(frozen=True)
class VariancePoint:
    """The measured spread of q·k at one d_k, over ``samples`` independent (q, k) pairs."""

    d_k: int
    samples: int
    mean: float  # sample mean of q·k (theory: 0)
    variance: float  # unbiased sample variance of q·k (theory: d_k)
    variance_se: float  # its standard error, estimated from the sample's fourth moment

    @property
    def scaled_variance(self) -> float:
        """Variance of q·k / √d_k: the same sample divided by √d_k, so its variance is divided by d_k."""
        return self.variance / self.d_k

    @property
    def scaled_variance_se(self) -> float:
        return self.variance_se / self.d_k


def dot_products(d_k: int, samples: int, generator: torch.Generator) -> torch.Tensor:
    """``samples`` values of q·k, each from a fresh q and k with N(0, 1) components: ``(samples,)``."""
    parts = []
    for start in range(0, samples, CHUNK):
        n = min(CHUNK, samples - start)
        q = torch.randn(n, d_k, generator=generator, dtype=torch.float64)  # (n, d_k)
        k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)  # (n, d_k)
        parts.append((q * k).sum(-1))  # (n,)
    return torch.cat(parts)


def variance_with_error(x: torch.Tensor) -> tuple[float, float]:
    r"""Unbiased sample variance :math:`s^2` of ``x`` and its standard error.

    For n independent draws, :math:`\operatorname{Var}(s^2) = \frac{1}{n}\left(\mu_4 - \frac{n-3}{n-1}\sigma^4
    \right)`; the fourth central moment :math:`\mu_4` and :math:`\sigma^2` are estimated from the same sample,
    so the error bar assumes nothing about the distribution of q·k.
    """
    n = x.numel()
    if n < 4:
        raise ValueError(f"need at least 4 samples for a variance and its error, got {n}")
    centred = x.double() - x.double().mean()
    s2 = float((centred**2).sum() / (n - 1))
    m4 = float((centred**4).mean())
    return s2, math.sqrt(max(m4 - (n - 3) / (n - 1) * s2**2, 0.0) / n)


def variance_sweep(ds: Sequence[int] = D_SWEEP, samples: int = 2000, seed: int = 0) -> list[VariancePoint]:
    """Measure mean and variance of q·k at every d_k of ``ds`` from ``samples`` random pairs each."""
    if not 4 <= samples <= max(SAMPLE_CHOICES):
        raise ValueError(f"use between 4 and {max(SAMPLE_CHOICES)} samples per d_k; got {samples}")
    generator = torch.Generator().manual_seed(seed)
    points = []
    for d_k in ds:
        x = dot_products(d_k, samples, generator)
        variance, se = variance_with_error(x)
        points.append(VariancePoint(d_k, samples, float(x.mean()), variance, se))
    return points


def variance_chart(points: Sequence[VariancePoint], z: float = 1.96) -> dict:
    """Measured variance of q·k and of q·k/√d_k against d_k (log–log), with ±``z`` standard errors, and the
    theory: d_k and 1. A Vega-Lite spec for ``st.vega_lite_chart``: curves are Altair's (STYLE.md), the chart is
    built once (:func:`_variance_chart_spec`) and a move only puts new numbers in, which Streamlit draws in place;
    a Plotly figure of the same curves would be drawn anew on every move."""
    values = [
        {"d_k": p.d_k, "series": f"theory: Var = {label}", "variance": v}
        for p in points
        for label, v in (("d_k", p.d_k), ("1", 1.0))
    ]
    for name in SCORES:
        for p in points:
            v, se = (p.variance, p.variance_se) if name == "dot" else (p.scaled_variance, p.scaled_variance_se)
            values.append(
                {
                    "d_k": p.d_k,
                    "series": f"measured: {LABELS[name]}",
                    "variance": v,
                    "low": v - z * se,
                    "high": v + z * se,
                    "error": z * se,
                }
            )
    return with_values(_variance_chart_spec(), values)


VARIANCE_SERIES = ("theory: Var = d_k", "theory: Var = 1", *(f"measured: {LABELS[s]}" for s in SCORES))


@functools.cache
def _variance_chart_spec() -> str:
    """The Altair chart of :func:`variance_chart` as Vega-Lite JSON without its data."""
    x = alt.X(
        "d_k:Q", scale=alt.Scale(type="log", base=2), axis=alt.Axis(values=list(D_SWEEP)), title="d_k (log scale)"
    )
    y = alt.Y("variance:Q", scale=alt.Scale(type="log"), title="variance of the score (log scale)")
    color = alt.Color(
        "series:N",
        scale=alt.Scale(domain=list(VARIANCE_SERIES), range=["#999", "#bbb", COLORS["dot"], COLORS["scaled_dot"]]),
        legend=alt.Legend(orient="bottom", title=None, columns=1, labelLimit=300, symbolType="stroke"),  # fits a phone
    )
    dashes = [[6, 4], [2, 3], [1, 0], [1, 0]]
    dash = alt.StrokeDash("series:N", scale=alt.Scale(domain=list(VARIANCE_SERIES), range=dashes), legend=None)
    tooltip = [
        "series:N",
        "d_k:Q",
        alt.Tooltip("variance:Q", format=".3f"),
        alt.Tooltip("error:Q", format=".3f", title="± 1.96 SE"),
    ]
    theory = alt.Chart().transform_filter("!isValid(datum.error)").mark_line()  # theory rows have no error
    measured = alt.Chart().transform_filter("isValid(datum.error)")
    chart = alt.layer(
        theory.encode(x=x, y=y, color=color, strokeDash=dash),
        measured.mark_line(point=alt.OverlayMarkDef(size=60)).encode(x=x, y=y, color=color, tooltip=tooltip),
        measured.mark_rule().encode(x=x, y="low:Q", y2="high:Q", color=alt.Color("series:N", legend=None)),
        data=alt.Data(name="variance"),
    ).properties(height=380)
    return json.dumps(vega_lite_spec(chart))


def variance_rows(points: Sequence[VariancePoint], z: float = 1.96) -> list[dict]:
    """One table row per d_k: the measured figures next to the theory, and whether the theory lies inside the
    ±``z`` standard-error interval."""
    return [
        {
            "d_k": p.d_k,
            "mean of q·k": round(p.mean, 3),
            "Var(q·k)": round(p.variance, 2),
            "± 1.96 SE": round(z * p.variance_se, 2),
            "theory": p.d_k,
            "theory inside": abs(p.variance - p.d_k) <= z * p.variance_se,
            "Var(q·k/√d_k)": round(p.scaled_variance, 3),
        }
        for p in points
    ]


def variance_summary(points: Sequence[VariancePoint], z: float = 1.96) -> str:
    """What the measured sweep says, computed from it: at how many sizes the theory lies inside the interval, and
    the largest d_k's variance before and after the division."""
    rows = variance_rows(points, z)
    inside = sum(r["theory inside"] for r in rows)
    big = points[-1]
    return (
        f"With {big.samples:,} pairs per d_k, the theory Var = d_k lies inside the 95% interval at **{inside} of "
        f"{len(rows)}** sizes. At d_k = {big.d_k} the measured variance is **{big.variance:.0f} ± "
        f"{z * big.variance_se:.0f}**: a standard deviation of about {big.variance**0.5:.0f}. Divided by "
        f"√{big.d_k}, the same sample has variance **{big.scaled_variance:.3f}**."
    )


EX_D_K, EX_D_BIG = 100, 300  # sizes of the hand computations: neither is on the page's sweeps


def std_exercise() -> Exercise:
    """By hand: the standard deviation of q·k at a d_k the page's sweeps never show."""
    root = theoretical_std(EX_D_K)
    return Exercise(
        key="scaling.ex1",
        prompt=(
            f"q and k have independent components with mean 0 and variance 1, and d_k = {EX_D_K}. What is "
            "the **standard deviation** of q·k?"
        ),
        answer=root,
        tolerance=0.05,
        explanation=(
            f"Each product qᵢkᵢ has mean 0 and variance E[qᵢ²]·E[kᵢ²] = 1 · 1 = 1, and the {EX_D_K} of them are "
            f"independent, so their variances add up: Var(q·k) = {EX_D_K}. The standard deviation is "
            f"√{EX_D_K} = {root:g}."
        ),
        hint="Variances of independent terms add up; the standard deviation is the square root of the variance.",
    )


def scaled_variance_exercise() -> Exercise:
    """By hand: the variance of q·k / √d_k, at another d_k the page's sweeps never show."""
    return Exercise(
        key="scaling.ex2",
        prompt=f"Same q and k with d_k = {EX_D_BIG}. What is the **variance** of q·k / √d_k?",
        answer=theoretical_std(EX_D_BIG) ** 2 / EX_D_BIG,
        tolerance=0.01,
        explanation=(
            f"Var(c·X) = c²·Var(X) with c = 1/√{EX_D_BIG}: Var(q·k)/{EX_D_BIG} = {EX_D_BIG}/{EX_D_BIG} = 1. "
            "Dividing by √d_k gives variance 1 whatever d_k is."
        ),
        hint="Var(c·X) = c²·Var(X).",
    )
