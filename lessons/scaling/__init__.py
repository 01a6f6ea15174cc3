r"""Lesson: scaling the dot product by √d_k (Part 2).

The Transformer lecture, under "What about √d_k?": "For large values of d_k will also make dot-product attention
large", next to the softmax. Vaswani et al. (2017, §3.2.1 and its footnote) give the argument computed here: if
the components of q and k are independent with mean 0 and variance 1, then

.. math:: q \cdot k = \sum_{i=1}^{d_k} q_i k_i,\qquad \mathbb{E}[q \cdot k] = 0,\qquad
          \operatorname{Var}(q \cdot k) = d_k,

so the scores spread like √d_k, the softmax puts nearly all its weight on one key, and its gradient, the
Jacobian :math:`\partial\alpha/\partial e = \operatorname{diag}(\alpha) - \alpha\alpha^\top`, goes to zero.
Dividing by √d_k gives the scores unit variance whatever d_k is.

Three things are computed here:

* the variance of q·k for random q, k, measured at every d_k with its standard error (from the sample size);
* the softmax of N such scores, scaled and unscaled: entropy, largest weight and the Jacobian's size;
* one self-attention layer (one head, d_k = d_model) trained on a recall task with and without the scale at
  d_k = 8 … 512 over several seeds (``scripts/scaling_results.py``): the softmax's largest weight and entropy
  and the gradient reaching W^Q and W^K at step 0, and the training curves;
* why lesson 4's GRU race showed no stall (an untrained GRU's small states), and what additive and dot-product
  scores cost in time and memory on this machine.

Letters: d_k query/key size, N keys, n samples, S source and T target positions. No streamlit import.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import altair as alt
import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons import scoring_functions as scoring
from lessons.common.charts import (
    attention_coloraxis,
    figure,
    panel_axis,
    subplot_grid,
    vega_lite_spec,
    with_values,
)
from lessons.common.comparison import Comparison, Run, Spread, Verdict, by_outcome, curves_chart, first_reached, verdict
from lessons.common.exercises import Exercise
from minimodels.adam import Adam
from minimodels.attention import AdditiveAttention, DotProductAttention, ScaledDotProductAttention, masked_softmax
from minimodels.tasks import Task, get_task, make_batch
from minimodels.tokenizers import PAD_ID
from minimodels.train import build_model

D_SWEEP: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)  # the d_k of every curve
SAMPLE_CHOICES: tuple[int, ...] = (100, 500, 2000, 8000)  # (q, k) pairs drawn per d_k
HEATMAP_DS: tuple[int, ...] = (1, 4, 16, 64, 256, 1024)  # the rows of the one-query heatmaps
MAX_KEYS = 16
SATURATED = 0.99  # a softmax row counts as saturated when its largest weight is above this
FLAT = 0.25  # the scaled curves count as flat when their largest α moves at most this share of the unscaled range
SWEEP_SAMPLES = 500  # random queries per d_k in the softmax sweep
CHUNK = 1000  # pairs drawn at once, so 8000 pairs at d_k = 1024 never hold more than 2 × 4 MB

# The lecture's worked example ("Thinking Machines"): q₁·k₁ = 112, q₁·k₂ = 96, divided by √64 = 8.
LECTURE_SCORES: tuple[float, float] = (112.0, 96.0)
LECTURE_TOKENS: tuple[str, str] = ("Thinking", "Machines")
LECTURE_D_K = 64

TASK = "dates"
SCORES: tuple[str, ...] = ("dot", "scaled_dot")  # the two trained models: the same seq2seq, scale off and on
LABELS = {"dot": "unscaled q·k", "scaled_dot": "scaled q·k / √d_k"}
COLORS = {"dot": scoring.COLORS["dot"], "scaled_dot": scoring.COLORS["scaled_dot"]}
MODEL_NAMES = {score: scoring.model_name(score) for score in SCORES}
SPREAD_SENTENCES = 200  # held-out dates the trained models' score spreads are measured on


INTRO = (
    "Attention scores a key by the dot product q·k, a sum of d_k products. The more terms, the larger the sum "
    "can get, and the softmax turns large differences between scores into weights of almost exactly 0 and 1. "
    "The Transformer lecture puts it in one line under “What about √d_k?”:"
)
QUOTE = "“For large values of d_k will also make dot-product attention large.” — the Transformer lecture"
WHY = (
    "Vaswani et al. (2017) add why that matters: the large dot products push the softmax into regions where its "
    "gradient is extremely small, so the scores stop learning. Their fix is the √d_k in the equation below. On "
    "this page you measure the claim, see what it does to the softmax, train one self-attention layer with and "
    "without the scale from small to large d_k, and time the two kinds of score the lecture compares."
)


def lecture_text() -> str:
    """Section 1's text: the lecture's d_k and its square root, computed."""
    return (
        f"In the “Thinking Machines” example, d_k = {LECTURE_D_K}, so the scores are divided by "
        f"√{LECTURE_D_K} = {math.sqrt(LECTURE_D_K):g} before the softmax. The last row of the table is what the "
        "softmax gives without it."
    )


def one_query_text() -> str:
    """Section 2's text, its sizes read from the sweep the figure draws."""
    return (
        f"A random query against a few random keys, all with unit-variance components, at d_k from {HEATMAP_DS[0]} "
        f"to {HEATMAP_DS[-1]}. Both maps use the **same** scores; the left one takes their softmax as they are, the "
        "right one divides them by √d_k first. Hover a cell for its score."
    )


VARIANCE_TEXT = (
    "Draw many (q, k) pairs with independent N(0, 1) components, compute q·k, and measure its variance at every "
    "d_k. The error bars are ±1.96 standard errors of each measured variance, computed from the sample itself "
    "(its fourth moment and the number of pairs): the theory should fall inside about 19 times out of 20."
)


def theoretical_std(d_k: int) -> float:
    """Standard deviation of q·k for q, k with independent unit-variance components: √d_k."""
    return math.sqrt(d_k)


# ---------------------------------------------------------------------------------- variance of q·k
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
    the same curves as a Plotly figure were drawn anew on every move."""
    values = [{"d_k": p.d_k, "series": f"theory: Var = {label}", "variance": v}
              for p in points for label, v in (("d_k", p.d_k), ("1", 1.0))]  # fmt: skip
    for name in SCORES:
        for p in points:
            v, se = (p.variance, p.variance_se) if name == "dot" else (p.scaled_variance, p.scaled_variance_se)
            values.append({"d_k": p.d_k, "series": f"measured: {LABELS[name]}", "variance": v, "low": v - z * se,
                           "high": v + z * se, "error": z * se})  # fmt: skip
    return with_values(_variance_chart_spec(), values)


VARIANCE_SERIES = ("theory: Var = d_k", "theory: Var = 1", *(f"measured: {LABELS[s]}" for s in SCORES))


@functools.cache
def _variance_chart_spec() -> str:
    """The Altair chart of :func:`variance_chart` as Vega-Lite JSON without its data."""
    x = alt.X("d_k:Q", scale=alt.Scale(type="log", base=2), axis=alt.Axis(values=list(D_SWEEP)),
              title="d_k (log scale)")  # fmt: skip
    y = alt.Y("variance:Q", scale=alt.Scale(type="log"), title="variance of the score (log scale)")
    color = alt.Color(
        "series:N",
        scale=alt.Scale(domain=list(VARIANCE_SERIES), range=["#999", "#bbb", COLORS["dot"], COLORS["scaled_dot"]]),
        legend=alt.Legend(orient="bottom", title=None, columns=1, labelLimit=300, symbolType="stroke"),  # fits a phone
    )
    dashes = [[6, 4], [2, 3], [1, 0], [1, 0]]
    dash = alt.StrokeDash("series:N", scale=alt.Scale(domain=list(VARIANCE_SERIES), range=dashes), legend=None)
    tooltip = ["series:N", "d_k:Q", alt.Tooltip("variance:Q", format=".3f"), alt.Tooltip("error:Q", format=".3f",
               title="± 1.96 SE")]  # fmt: skip
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


# ----------------------------------------------------------------------------------- softmax of N scores
def softmax_jacobian(weights: torch.Tensor) -> torch.Tensor:
    r"""The softmax's Jacobian :math:`\partial\alpha_i/\partial e_j = \alpha_i(\delta_{ij} - \alpha_j)` for rows
    of weights ``(..., N)``: ``(..., N, N)``. Every gradient that reaches the scores is multiplied by it."""
    return torch.diag_embed(weights) - weights.unsqueeze(-1) * weights.unsqueeze(-2)  # (..., N, N)


def entropy_bits(weights: torch.Tensor) -> torch.Tensor:
    """Entropy in bits of each row ``(..., N)``: log₂ N when uniform, 0 when one key takes everything."""
    logs = torch.where(weights > 0, torch.log2(weights.clamp_min(1e-300)), torch.zeros_like(weights))
    return -(weights * logs).sum(-1)


def random_scores(d_k: int, n_keys: int, samples: int, generator: torch.Generator) -> torch.Tensor:
    """Raw scores q·k_i of ``samples`` random queries against ``n_keys`` random keys each, components N(0, 1):
    ``(samples, N)``."""
    q = torch.randn(samples, 1, d_k, generator=generator, dtype=torch.float64)  # (n, 1, d_k)
    k = torch.randn(samples, n_keys, d_k, generator=generator, dtype=torch.float64)  # (n, N, d_k)
    return (q @ k.transpose(1, 2)).squeeze(1)  # (n, 1, d_k) @ (n, d_k, N) -> (n, N)


def softmax_statistics(scores: torch.Tensor) -> dict[str, float]:
    """What a softmax makes of rows of scores ``(n, N)``: mean entropy (bits), mean largest weight, the share of
    saturated rows, and the mean Frobenius norm of its Jacobian (how much gradient gets through)."""
    weights = torch.softmax(scores, dim=-1)  # (n, N)
    largest = weights.amax(-1)
    return {
        "entropy (bits)": float(entropy_bits(weights).mean()),
        "largest α": float(largest.mean()),
        "saturated rows": float((largest > SATURATED).double().mean()),
        "gradient ‖∂α/∂e‖": float(torch.linalg.matrix_norm(softmax_jacobian(weights)).mean()),
    }


def sweep_scores(ds: Sequence[int] = D_SWEEP, samples: int = SWEEP_SAMPLES, seed: int = 0) -> torch.Tensor:
    """The raw scores of ``samples`` random queries against ``MAX_KEYS`` random keys at each d_k of ``ds``:
    ``(len(ds), samples, MAX_KEYS)``. A sweep with N keys reads the first N: moving N adds or takes away keys,
    every query and the other keys stay the same (and the draw, the slow part, is made once per seed)."""
    generator = torch.Generator().manual_seed(seed)
    return torch.stack([random_scores(d_k, MAX_KEYS, samples, generator) for d_k in ds])  # (D, n, MAX_KEYS)


def softmax_sweep(
    n_keys: int,
    ds: Sequence[int] = D_SWEEP,
    samples: int = SWEEP_SAMPLES,
    seed: int = 0,
    scores: torch.Tensor | None = None,
) -> list[dict]:
    """For every d_k: the softmax of ``n_keys`` random scores, unscaled and divided by √d_k, averaged over
    ``samples`` queries. Both use the same draws, so the only difference is the scale. ``scores``: the draws of
    :func:`sweep_scores` with these ``ds``, ``samples`` and ``seed``, when they are at hand already."""
    if not 2 <= n_keys <= MAX_KEYS:
        raise ValueError(f"use between 2 and {MAX_KEYS} keys; got {n_keys}")
    scores = sweep_scores(ds, samples, seed) if scores is None else scores
    rows = []
    for d_k, raw in zip(ds, scores[..., :n_keys], strict=True):  # raw: (samples, N)
        for name, e in (("dot", raw), ("scaled_dot", raw / math.sqrt(d_k))):
            rows.append({"d_k": d_k, "score": LABELS[name], **softmax_statistics(e)})
    return rows


def uniform_statistics(n_keys: int) -> dict[str, float]:
    """The same figures for equal scores (a uniform softmax): the entropy's ceiling, and a reference gradient."""
    return softmax_statistics(torch.zeros(1, n_keys, dtype=torch.float64))


SOFTMAX_PANELS = ("entropy (bits)", "largest α", "gradient ‖∂α/∂e‖")
UNIFORM = "equal scores (uniform α)"


def softmax_charts_note(n_keys: int) -> str:
    """The text above :func:`softmax_charts`: what each of the three panels measures, for ``n_keys`` keys."""
    return (
        f"Averaged over {SWEEP_SAMPLES} random queries per d_k with the same N: how spread out the weights are "
        "(entropy: "
        f"log₂ N = {uniform_statistics(n_keys)['entropy (bits)']:.2f} bits when uniform, 0 when one key "
        "takes all), the largest weight, and the size of the softmax's Jacobian ∂α/∂e = diag(α) − ααᵀ, which "
        "multiplies every gradient on its way to the scores."
    )


def softmax_charts(rows: Sequence[dict], n_keys: int) -> list[dict]:
    """One chart per statistic of :data:`SOFTMAX_PANELS` against d_k (log scale), scaled vs not, and the value at
    equal scores (the entropy's ceiling, the largest weight's floor 1/N). Vega-Lite specs, side by side on the page
    (the middle one holds the legend).

    Built once (:func:`_softmax_chart_spec`); a move of N or the seed only puts new numbers in, and Streamlit updates
    the drawn charts in place. Measured in Chromium: the same curves as one three-panel Plotly figure cost the
    browser about 0.4 s per move, being drawn anew each time."""
    uniform = uniform_statistics(n_keys)
    ds = sorted({r["d_k"] for r in rows})
    charts = []
    for panel in SOFTMAX_PANELS:
        values = [{"d_k": r["d_k"], "series": r["score"], "value": r[panel]} for r in rows]
        values += [{"d_k": d, "series": UNIFORM, "value": uniform[panel]} for d in ds]  # largest α: its floor, 1/N
        charts.append(with_values(_softmax_chart_spec(panel), values))
    return charts


def saturation_summary(rows: Sequence[dict]) -> str:
    """What the softmax sweep says at its largest d_k, computed from its rows: the share of saturated rows and the
    gradient unscaled, against the gradient scaled."""
    worst = max((r for r in rows if r["score"] == LABELS["dot"]), key=lambda r: r["d_k"])
    scaled = next(r for r in rows if r["score"] == LABELS["scaled_dot"] and r["d_k"] == worst["d_k"])
    ds = sorted({r["d_k"] for r in rows})
    ranges = {
        name: {
            panel: (min(r[panel] for r in rows if r["score"] == LABELS[name]),
                    max(r[panel] for r in rows if r["score"] == LABELS[name]))
            for panel in ("largest α", "entropy (bits)")
        }
        for name in SCORES
    }  # fmt: skip
    width = {name: ranges[name]["largest α"][1] - ranges[name]["largest α"][0] for name in SCORES}
    low, high = ranges["scaled_dot"]["largest α"]
    e_low, e_high = ranges["scaled_dot"]["entropy (bits)"]
    flat = width["scaled_dot"] <= FLAT * width["dot"]
    return (
        f"At d_k = {worst['d_k']}, unscaled, **{worst['saturated rows']:.0%}** of the softmax rows put more than "
        f"{SATURATED} on one key and the gradient is **{worst['gradient ‖∂α/∂e‖']:.3f}**, against "
        f"**{scaled['gradient ‖∂α/∂e‖']:.3f}** scaled: a gradient that small is what Vaswani et al. say stalls "
        f"training. Across d_k = {ds[0]} … {ds[-1]}, the scaled softmax's mean largest α stays between "
        f"**{low:.2f} and {high:.2f}** and its entropy between {e_low:.2f} and {e_high:.2f} bits, while unscaled the "
        f"largest α runs from {ranges['dot']['largest α'][0]:.2f} to {ranges['dot']['largest α'][1]:.2f}: "
        + (
            "the division keeps the softmax's input at one scale whatever d_k is."
            if flat
            else "the division does not keep the softmax at one scale here."
        )
    )


@functools.cache
def _softmax_chart_spec(panel: str) -> str:
    """The Altair chart of one panel of :func:`softmax_charts`, as Vega-Lite JSON without its data."""
    series = [LABELS[s] for s in SCORES] + [UNIFORM]
    # one legend for the three, under the middle panel; "fit-x" keeps it from taking height from that panel's plot,
    # so the three plots keep one size and line up
    legend = (
        alt.Legend(orient="bottom", title=None, labelLimit=300, symbolType="stroke", values=series, columns=1)
        if panel == "largest α"
        else None
    )
    colors = [COLORS["dot"], COLORS["scaled_dot"], "#bbb"]
    color = alt.Color("series:N", scale=alt.Scale(domain=series, range=colors), legend=legend)
    dash = alt.StrokeDash("series:N", scale=alt.Scale(domain=series, range=[[1, 0], [1, 0], [2, 3]]), legend=None)
    x = alt.X("d_k:Q", scale=alt.Scale(type="log", base=2), axis=alt.Axis(values=list(D_SWEEP[::2])), title="d_k")
    y = alt.Y("value:Q", title=panel, scale=alt.Scale(domain=[0, 1.02]) if panel == "largest α" else alt.Undefined)
    tooltip = ["series:N", "d_k:Q", alt.Tooltip("value:Q", format=".4f", title=panel)]
    chart = (
        alt.Chart(alt.Data(name="softmax"))
        .mark_line(point=True)
        .encode(x=x, y=y, color=color, strokeDash=dash, tooltip=tooltip)
    )
    chart = chart.properties(title=f"{panel} of softmax", height=220, autosize={"type": "fit-x", "contains": "padding"})
    return json.dumps(vega_lite_spec(chart))


@dataclass(frozen=True)
class OneQuery:
    """One random query against ``N`` random keys at each d_k of ``ds``: raw scores and both softmaxes."""

    ds: tuple[int, ...]
    scores: np.ndarray  # (len(ds), N) raw q·k_i
    weights: dict[str, np.ndarray]  # score -> (len(ds), N) α

    @property
    def key_labels(self) -> list[str]:
        return [f"k{i + 1}" for i in range(self.scores.shape[1])]

    @property
    def row_labels(self) -> list[str]:
        return [f"d_k = {d}" for d in self.ds]


def one_query(n_keys: int, ds: Sequence[int] = HEATMAP_DS, seed: int = 0) -> OneQuery:
    """A fresh random query and ``n_keys`` keys at each d_k; softmax of the scores unscaled and scaled."""
    if not 2 <= n_keys <= MAX_KEYS:
        raise ValueError(f"use between 2 and {MAX_KEYS} keys; got {n_keys}")
    generator = torch.Generator().manual_seed(seed)
    scores = torch.cat([random_scores(d, n_keys, 1, generator) for d in ds])  # (len(ds), N)
    root = torch.tensor([math.sqrt(d) for d in ds], dtype=torch.float64).unsqueeze(1)  # (len(ds), 1)
    weights = {"dot": torch.softmax(scores, -1).numpy(), "scaled_dot": torch.softmax(scores / root, -1).numpy()}
    return OneQuery(tuple(ds), scores.numpy(), weights)


def one_query_figure(example: OneQuery) -> go.Figure:
    """Two heatmaps side by side: α of the same scores, unscaled (left) and divided by √d_k (right); rows d_k."""
    layout = subplot_grid(1, 2, titles=[f"α = softmax({LABELS[s]})" for s in SCORES], horizontal_spacing=0.08)
    xs = example.key_labels
    ys = example.row_labels
    roots = np.broadcast_to(np.sqrt(np.array(example.ds))[:, None], example.scores.shape)
    data = []
    for col, name in enumerate(SCORES):
        z = example.weights[name]
        shown = "e = %{customdata[0]:.2f}" if name == "dot" else "e = %{customdata[0]:.2f} / %{customdata[1]:.1f}"
        n = panel_axis(0, col, 2)
        data.append(
            {"type": "heatmap", "z": z, "x": xs, "y": ys, "customdata": np.stack([example.scores, roots], -1),
             "coloraxis": "coloraxis", "xgap": 1, "ygap": 1, "text": np.char.mod("%.2f", z),
             "texttemplate": "%{text}", "xaxis": f"x{n}", "yaxis": f"y{n}",
             "hovertemplate": "%{y}, %{x}<br>" + shown + "<br>α = %{z:.4f}<extra>" + LABELS[name] + "</extra>"}
        )  # fmt: skip
        layout[f"yaxis{n}"] |= {"autorange": "reversed", "showticklabels": col == 0}
    layout |= {
        "height": 120 + 44 * len(ys),
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "coloraxis": attention_coloraxis(),
    }
    return figure(data, layout)


# ---------------------------------------------------------------------------------- the lecture's example
@dataclass(frozen=True)
class LectureExample:
    scores: tuple[float, ...]  # q₁·k₁, q₁·k₂
    scaled: tuple[float, ...]  # divided by √d_k
    weights_scaled: tuple[float, ...]  # softmax of the scaled scores: the lecture's 0.88, 0.12
    weights_unscaled: tuple[float, ...]  # softmax of the raw scores
    gradient_scaled: float  # ‖∂α/∂e‖ at the scaled scores
    gradient_unscaled: float  # ... at the raw ones


def lecture_example(scores: Sequence[float] = LECTURE_SCORES, d_k: int = LECTURE_D_K) -> LectureExample:
    """The lecture's "Thinking Machines" row, with and without the division by √d_k."""
    e = torch.tensor(scores, dtype=torch.float64)
    scaled = e / math.sqrt(d_k)
    a_scaled, a_raw = torch.softmax(scaled, -1), torch.softmax(e, -1)
    norm = torch.linalg.matrix_norm
    return LectureExample(
        tuple(e.tolist()),
        tuple(scaled.tolist()),
        tuple(a_scaled.tolist()),
        tuple(a_raw.tolist()),
        float(norm(softmax_jacobian(a_scaled))),
        float(norm(softmax_jacobian(a_raw))),
    )


def lecture_rows(example: LectureExample) -> list[dict]:
    """The lecture's table, with one more row: what the softmax gives without the division."""
    d = math.sqrt(LECTURE_D_K)
    rows = [
        ("Score q₁·kᵢ", [f"{s:g}" for s in example.scores]),
        (f"Divide by {d:g} (√d_k)", [f"{s:g}" for s in example.scaled]),
        ("Softmax", [f"{a:.2f}" for a in example.weights_scaled]),
        ("Softmax without dividing", [f"{a:.7f}" for a in example.weights_unscaled]),
    ]
    return [{"": name, **dict(zip(LECTURE_TOKENS, values, strict=True))} for name, values in rows]


def gradient_caption(example: LectureExample) -> str:
    """The caption under :func:`lecture_rows`' table: the softmax's gradient with and without the division."""
    return (
        f"Size of the softmax's gradient, ‖∂α/∂e‖: **{example.gradient_scaled:.3f}** with the division, "
        f"**{example.gradient_unscaled:.1e}** without. A gradient that small leaves the scores, and so W_Q and W_K, "
        "where they are."
    )


# ------------------------------------------------------------------------------------ the trained models


def _decoder_queries(model: nn.Module, memory, target_in: torch.Tensor) -> torch.Tensor:
    """The decoder states sₜ ``(B, T, D)`` a Luong-style model (attending after its step) scores the keys with,
    fed ``target_in`` (BOS and the previous tokens): as in ``Seq2Seq.forward``."""
    if model.config.query != "current":
        raise ValueError(f"the {model.config.attention} model attends before its step; this lesson reads sₜ")
    queries, _ = model._fused(model.target_embedding(target_in), memory.final)  # (B, T, D)
    return queries


@dataclass(frozen=True)
class ScoreSpread:
    """What a trained model's attention scores look like over held-out sentences (teacher forced)."""

    score: str  # "dot" | "scaled_dot"
    d_k: int  # the size of q and k (the GRU's hidden size)
    q_std: float  # std of the query components (decoder states sₜ)
    k_std: float  # std of the key components (encoder states hᵢ)
    raw_std: float  # std of q·k within a row (around the row's mean), averaged over rows
    raw_range: tuple[float, float]  # the smallest and largest q·k seen
    seen_std: float  # the same for the scores the softmax sees (q·k, or q·k/√d_k)
    largest: float  # mean largest α
    saturated: float  # share of rows whose largest α is above SATURATED
    entropy: float  # mean entropy of α, bits
    rows: int  # softmax rows measured

    @property
    def predicted_raw_std(self) -> float:
        """√d_k · σ_q · σ_k: the spread q·k would have if its components were independent random numbers."""
        return math.sqrt(self.d_k) * self.q_std * self.k_std


@torch.inference_mode()
def score_spread(
    model: nn.Module, task: Task, score: str, split: str = "valid", limit: int = SPREAD_SENTENCES
) -> ScoreSpread:
    """The raw q·k of a trained Luong-style model (query sₜ after the decoder step) on ``limit`` sentences of
    ``split``, fed the gold previous characters. Padding positions are left out everywhere."""
    batch = make_batch(list(getattr(task, split))[:limit], task).to(next(model.parameters()).device)
    memory = model.encode(batch.source, batch.source_lengths)
    queries = _decoder_queries(model, memory, batch.target_in)  # (B, T, D)
    raw = queries @ memory.states.transpose(1, 2)  # (B, T, D) @ (B, D, S) -> (B, T, S)
    seen = model.scores(queries, memory)  # (B, T, S): what the softmax sees
    weights = masked_softmax(seen, memory.mask.unsqueeze(1))  # (B, T, S)
    live = batch.target_in != PAD_ID  # (B, T)
    row_keys = memory.mask.unsqueeze(1).expand_as(raw)[live]  # (R, S)

    def row_std(e: torch.Tensor) -> float:
        e = e[live]  # (R, S)
        n = row_keys.sum(-1, keepdim=True)
        mean = (e * row_keys).sum(-1, keepdim=True) / n
        return float((((e - mean) ** 2 * row_keys).sum(-1) / n).sqrt().mean())

    alpha = weights[live]  # (R, S)
    largest = alpha.amax(-1)
    raw_values = raw[live][row_keys]
    return ScoreSpread(
        score=score,
        d_k=int(queries.size(-1)),
        q_std=float(queries[live].std()),
        k_std=float(memory.states[memory.mask].std()),
        raw_std=row_std(raw),
        raw_range=(float(raw_values.min()), float(raw_values.max())),
        seen_std=row_std(seen),
        largest=float(largest.mean()),
        saturated=float((largest > SATURATED).float().mean()),
        entropy=float(entropy_bits(alpha.double()).mean()),
        rows=int(live.sum()),
    )


def fresh_spread(score: str, seed: int = 0) -> ScoreSpread:
    """The same figures for an untrained model (weights drawn from ``seed``): where training starts."""
    task = get_task(TASK)
    return score_spread(build_model(MODEL_NAMES[score], task, seed=seed).eval(), task, score)


def race_verdict(results: Comparison) -> str:
    """Whether the unscaled model stalled in the shipped race, computed from it: steps to 90% (fewer is better)
    and test exact match, each with the verdict's spread rule."""
    pace = results.compare("dot", "scaled_dot", "steps to 90%", higher_is_better=False)
    end = results.compare("dot", "scaled_dot", "test exact match")
    stalled = pace.outcome == "worse" and pace.a_spread.n == 0
    lead = (
        "did stall: it never reached 90% held-out exact match"
        if stalled
        else "did not stall: "
        + {
            "better": "it reached 90% in fewer steps",
            "worse": "it reached 90%, later",
            "too close": "it reached 90% as fast, within the spread",
        }[pace.outcome]  # fmt: skip
    )
    return (
        f"In its shipped race, the unscaled model {lead} ({pace.a_spread.text('.0f')} steps against "
        f"{pace.b_spread.text('.0f')} scaled); {end.sentence('.1%', 'test exact match')}"
    )


def untrained_note(start: ScoreSpread, results: Comparison | None = None) -> str:
    """Why the unscaled model did (or did not) stall here: the race's verdict (:func:`race_verdict`, when the
    results are loaded) and the untrained model's figures (:func:`fresh_spread`)."""
    race = f"{race_verdict(results)} " if results is not None else ""
    return (
        f"Lesson 4 raced two GRU encoder–decoders on dates that differ only in the scale (d_k = {start.d_k}, the "
        f"GRU's state). {race}Before training, its GRU's states are small (components with standard deviations of "
        f"{start.q_std:.2f} and {start.k_std:.2f}), so its first raw scores spread by only {start.raw_std:.2f} and its "
        f"softmax starts far from saturated (mean largest α {start.largest:.2f}). The stall needs q and k with "
        "unit-variance components at a large d_k, as in section 4's self-attention, whose queries and keys are "
        "projections of unit-variance vectors."
    )


def load_gru_race(path: Path | str | None = None) -> Comparison:
    """The scoring lesson's shipped race (``assets/results/scoring_functions.json``), its two dot-product models
    only: the same runs, seeds and meta (``ValueError``/``FileNotFoundError`` as ``scoring.load_results``)."""
    race = scoring.load_results(path)
    return Comparison(SCORES, tuple(r for r in race.runs if r.variant in SCORES), race.meta, race.labels)


# ------------------------------------------------------------------------------------------- live race


# ------------------------------------------------------------------ a self-attention layer at four sizes of d_k
# The GRU race of lesson 4 cannot show the stall: its states are small and bounded. Here queries and keys are what
# the √d_k argument assumes, projections of unit-variance vectors whose components have variance about 1.
RECALL_KEYS = 16  # key words an item can have
RECALL_VALUES = 16  # value words an item can have: the answer is one of them
RECALL_ITEMS = 8  # items per example, each with a different key
RECALL_D_K: tuple[int, ...] = (8, 32, 128, 512)  # d_k = d_model: one head
RECALL_STEPS = 400  # Adam steps per run
RECALL_BATCH = 64  # examples per step
RECALL_LR = 3e-3  # Adam's learning rate, the same for every d_k and both scores
RECALL_REPORT = 25  # steps between two measurements on the held-out examples
RECALL_TEST = 512  # held-out examples (the same for every run: seed RECALL_TEST_SEED)
RECALL_TEST_SEED = 12345
RECALL_LEVEL = 0.9  # "steps to 90%"
RECALL_SEEDS: tuple[int, ...] = (0, 1, 2)
INIT_METRICS = {  # final metric -> what the page calls it (measured on the untrained model)
    "initial largest α": "largest α at step 0",
    "initial entropy (bits)": "entropy of α at step 0 (bits)",
    "initial ‖∂L/∂W^Q‖": "‖∂L/∂W^Q‖ at step 0",
    "initial ‖∂L/∂W^K‖": "‖∂L/∂W^K‖ at step 0",
}


class RecallBatch(NamedTuple):
    """Examples of the recall task: ``RECALL_ITEMS`` (key, value) items and a question naming one key."""

    keys: torch.Tensor  # (B, n) distinct key ids
    values: torch.Tensor  # (B, n) value ids
    question: torch.Tensor  # (B,) one of the example's keys
    answer: torch.Tensor  # (B,) the value paired with it


def recall_batch(size: int, generator: torch.Generator, items: int = RECALL_ITEMS) -> RecallBatch:
    """``size`` random examples: ``items`` distinct keys with random values, and a question about one of them."""
    keys = torch.rand(size, RECALL_KEYS, generator=generator).argsort(-1)[:, :items]  # (B, n)
    values = torch.randint(0, RECALL_VALUES, (size, items), generator=generator)  # (B, n)
    pick = torch.randint(0, items, (size,), generator=generator)  # (B,)
    rows = torch.arange(size)
    return RecallBatch(keys, values, keys[rows, pick], values[rows, pick])


class RecallAttention(nn.Module):
    r"""One self-attention layer with one head (lesson 5's W^Q, W^K, W^V), d_k = d_model, and a linear read-out.

    Its input is ``RECALL_ITEMS + 1`` vectors: each item is the embedding of its key plus that of its value
    (divided by √2, so that its components keep variance 1), then the question, a third embedding. Every vector
    attends to every vector; the question's output :math:`z = \sum_j \alpha_j v_j` is read by a linear layer that
    names the answer. Nothing tells the positions apart, and none is needed: the question must find the item with
    its key by content. The projections are drawn with Glorot's uniform initialisation (variance 1/d_model), so
    q and k have components of variance about 1, as the √d_k argument assumes; the only difference between the
    two models is the attention module, minimodels' :class:`ScaledDotProductAttention` or
    :class:`DotProductAttention`.
    """

    def __init__(self, d_k: int, scaled: bool):
        super().__init__()
        self.d_k, self.scaled = d_k, scaled
        self.key_embedding = nn.Embedding(RECALL_KEYS, d_k)  # N(0, 1) components
        self.value_embedding = nn.Embedding(RECALL_VALUES, d_k)
        self.question_embedding = nn.Embedding(RECALL_KEYS, d_k)
        self.W_q = nn.Linear(d_k, d_k, bias=False)
        self.W_k = nn.Linear(d_k, d_k, bias=False)
        self.W_v = nn.Linear(d_k, d_k, bias=False)
        for linear in (self.W_q, self.W_k, self.W_v):
            nn.init.xavier_uniform_(linear.weight)
        self.attention = ScaledDotProductAttention() if scaled else DotProductAttention()
        self.out = nn.Linear(d_k, RECALL_VALUES)

    def forward(self, batch: RecallBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits over the values ``(B, V)`` and the attention weights ``(B, n + 1, n + 1)`` (last row: the
        question's)."""
        items = (self.key_embedding(batch.keys) + self.value_embedding(batch.values)) / math.sqrt(2)  # (B, n, d)
        x = torch.cat([items, self.question_embedding(batch.question).unsqueeze(1)], dim=1)  # (B, n + 1, d)
        z, weights = self.attention(self.W_q(x), self.W_k(x), self.W_v(x))  # (B, n + 1, d), (B, n + 1, n + 1)
        return self.out(z[:, -1]), weights  # (B, V)


def recall_model(d_k: int, scale: str, seed: int) -> RecallAttention:
    """A fresh model, its weights drawn from ``seed`` (the scaled and unscaled models of a seed start equal)."""
    if scale not in SCORES:
        raise ValueError(f"scale must be one of {', '.join(SCORES)}, not {scale!r}")
    if d_k not in RECALL_D_K:
        raise ValueError(f"d_k must be one of {', '.join(map(str, RECALL_D_K))}, not {d_k!r}")
    with torch.random.fork_rng():  # the seed picks these weights only; torch's global generator is left as it was
        torch.manual_seed(seed)
        return RecallAttention(d_k, scaled=scale == "scaled_dot")


def recall_test() -> RecallBatch:
    """The held-out examples every run is measured on."""
    return recall_batch(RECALL_TEST, torch.Generator().manual_seed(RECALL_TEST_SEED))


def initial_state(model: RecallAttention, batch: RecallBatch) -> dict[str, float]:
    """The untrained model on ``batch``: mean largest α and entropy over every softmax row, and the size (Frobenius
    norm) of the loss's gradient reaching W^Q and W^K. The model's gradients are left as they were."""
    logits, weights = model(batch)
    loss = nn.functional.cross_entropy(logits, batch.answer)
    grad_q, grad_k = torch.autograd.grad(loss, (model.W_q.weight, model.W_k.weight))
    alpha = weights.detach().double()  # (B, n + 1, n + 1)
    return {
        "initial largest α": float(alpha.amax(-1).mean()),
        "initial entropy (bits)": float(entropy_bits(alpha).mean()),
        "initial ‖∂L/∂W^Q‖": float(grad_q.norm()),
        "initial ‖∂L/∂W^K‖": float(grad_k.norm()),
    }


@torch.no_grad()
def _evaluate(model: RecallAttention, test: RecallBatch) -> dict[str, float]:
    logits, weights = model(test)
    return {
        "loss": float(nn.functional.cross_entropy(logits, test.answer)),
        "accuracy": float((logits.argmax(-1) == test.answer).double().mean()),
        "largest α": float(weights[:, -1].amax(-1).mean()),  # the question's row
    }


def train_recall(d_k: int, scale: str, seed: int, steps: int = RECALL_STEPS, on_report=None) -> Run:
    """Train one model from ``seed`` for ``steps`` Adam steps (the batches drawn from ``seed`` too, the same for
    both scores), measuring it on the held-out examples every :data:`RECALL_REPORT` steps. ``on_report(point)``
    after each measurement; training stops when it returns False. Time: this thread's CPU seconds."""
    model = recall_model(d_k, scale, seed)
    test = recall_test()
    start = initial_state(model, test)
    generator = torch.Generator().manual_seed(10_000 + seed)
    optimizer = Adam(model.parameters(), lr=RECALL_LR)
    curve, clock, seconds = [], time.thread_time(), 0.0
    for step in range(steps + 1):
        if step % RECALL_REPORT == 0 or step == steps:
            seconds += time.thread_time() - clock
            curve.append({"step": step, "seconds": round(seconds, 3), **_evaluate(model, test)})
            clock = time.thread_time()
            if on_report is not None and on_report(curve[-1]) is False:
                break
        if step == steps:
            break
        batch = recall_batch(RECALL_BATCH, generator)
        loss = nn.functional.cross_entropy(model(batch)[0], batch.answer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    final = {
        "test accuracy": curve[-1]["accuracy"],
        "test loss": curve[-1]["loss"],
        f"steps to {RECALL_LEVEL:.0%}": first_reached(curve, "accuracy", RECALL_LEVEL),
        "trained largest α": curve[-1]["largest α"],
        **start,
    }
    return Run(scale, seed, {"d_k": d_k}, tuple(curve), final, {"steps": curve[-1]["step"]})


def recall_config(steps: int = RECALL_STEPS) -> dict:
    """How every run of the recall comparison is trained, for the results file (and the page's text)."""
    return {"keys": RECALL_KEYS, "values": RECALL_VALUES, "items": RECALL_ITEMS, "steps": steps,
            "batch": RECALL_BATCH, "optimizer": "Adam", "lr": RECALL_LR, "report_every": RECALL_REPORT,
            "test_examples": RECALL_TEST, "init": "Glorot uniform W^Q, W^K, W^V; N(0, 1) embeddings"}  # fmt: skip


RECALL_RESULTS = Path(__file__).resolve().parents[2] / "assets" / "results" / "scaling.json"


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped recall comparison (``scripts/scaling_results.py``), checked: both scores, a d_k on every run,
    the metrics the page reads (``ValueError``/``FileNotFoundError`` naming the script otherwise)."""
    results = Comparison.load(path if path is not None else RECALL_RESULTS, script="scripts/scaling_results.py")
    if set(results.variants) != set(SCORES):
        raise ValueError(f"scaling.json compares {list(results.variants)}, not {list(SCORES)}: run the script again")
    needed = {"test accuracy", *INIT_METRICS}
    for run in results.runs:
        if "d_k" not in run.params or not needed <= set(run.final):
            missing = sorted(needed - set(run.final))
            raise ValueError(
                f"scaling.json: {run.variant} seed {run.seed} lacks d_k or {missing}: run the script again"
            )
    return results


RECALL_TEXT = (
    "Lesson 4's GRU race could not show the stall: a GRU's states are small and never leave [−1, 1] (section 5). "
    "Here the queries and keys are what the √d_k argument assumes. The task, **recall**: an example is "
    "{items} items, each a key word and a value word (“k3 → v11”), and a question naming one of the keys; the "
    "answer is its value, one of {values}. The model is one self-attention layer with one set of lesson 5's W^Q, "
    "W^K, W^V, so d_k = d_model, over the {items} item vectors (key embedding + value embedding, ÷ √2) and the "
    "question's vector; a linear layer reads the question's output z = Σ αⱼvⱼ. No positions are needed: the "
    "question must find its item by content. W^Q, W^K, W^V start with Glorot's initialisation, so q and k have "
    "components of variance about 1, and the two models of a seed start with the same weights: the only "
    "difference is minimodels' ScaledDotProductAttention or DotProductAttention. Each learns for {steps} Adam "
    "steps (lr {lr:g}, batches of {batch}, the same batches for both) and is measured on {test} held-out examples."
)


def recall_text(results: Comparison | None = None) -> str:
    """Section 4's text, its settings read from the shipped results' config (the lesson's own when absent)."""
    config = {**recall_config(), **((results.meta.get("train_config") or {}) if results is not None else {})}
    return RECALL_TEXT.format(items=config["items"], values=config["values"], steps=config["steps"],
                              lr=config["lr"], batch=config["batch"], test=config["test_examples"])  # fmt: skip


def recall_d_ks(results: Comparison) -> list[int]:
    return list(results.param_values("d_k"))


def recall_verdicts(results: Comparison) -> dict[int, Verdict]:
    """d_k -> is scaled better than unscaled on final held-out accuracy, by more than the spread over seeds?"""
    return {d: results.compare("scaled_dot", "dot", "test accuracy", where={"d_k": d}) for d in recall_d_ks(results)}


def _listed(ds: Sequence[int]) -> str:
    return ", ".join(map(str, ds[:-1])) + (" and " if len(ds) > 1 else "") + str(ds[-1])


def recall_headline(results: Comparison) -> str:
    """The section's claim, computed: at which d_k the scale clearly helps, where it does not matter, and where (if
    anywhere) it hurts, on held-out accuracy at the end of training."""
    verdicts = recall_verdicts(results)
    helps, close, hurts = by_outcome(verdicts).values()
    steps = (results.meta.get("train_config") or {}).get("steps", RECALL_STEPS)
    parts = []
    if helps:
        big = verdicts[helps[-1]]
        parts.append(f"After {steps} steps, the scale clearly helps at d_k = {_listed(helps)}: at d_k = {helps[-1]}, "
                     f"{big.a_spread.text('.0%')} held-out accuracy scaled against {big.b_spread.text('.0%')} "
                     "unscaled.")  # fmt: skip
    else:
        parts.append(f"After {steps} steps, the scale is not clearly better at any d_k measured.")
    if close:
        parts.append(f"At d_k = {_listed(close)} the two are too close to call: there, scaling does not matter.")
    if hurts:
        parts.append(f"At d_k = {_listed(hurts)} the unscaled model is clearly ahead.")
    return " ".join(parts)


def recall_observations(results: Comparison) -> list[str]:
    """One sentence per d_k (the verdict on final accuracy), then what the softmax and the gradient looked like at
    step 0, all computed from the results."""
    lines = [f"d_k = {d}: {v.sentence('.0%', 'held-out accuracy')}" for d, v in recall_verdicts(results).items()]
    ds = recall_d_ks(results)
    lo, hi = ds[0], ds[-1]

    def mean(metric: str, score: str, d: int) -> float:
        return results.spread(metric, score, {"d_k": d}).mean

    alpha, entropy, grad = "initial largest α", "initial entropy (bits)", "initial ‖∂L/∂W^Q‖"
    lines.append(
        f"At step 0, unscaled, the softmax's mean largest α goes from {mean(alpha, 'dot', lo):.2f} at d_k = {lo} to "
        f"**{mean(alpha, 'dot', hi):.2f}** at d_k = {hi} and its entropy from {mean(entropy, 'dot', lo):.2f} to "
        f"**{mean(entropy, 'dot', hi):.2f} bits**; scaled, from {mean(alpha, 'scaled_dot', lo):.2f} to "
        f"{mean(alpha, 'scaled_dot', hi):.2f} and from {mean(entropy, 'scaled_dot', lo):.2f} to "
        f"{mean(entropy, 'scaled_dot', hi):.2f} bits."
    )
    for d in (lo, hi):
        g = results.compare("dot", "scaled_dot", grad, where={"d_k": d})
        said = {"better": "larger than", "worse": "smaller than", "too close": "too close to call against"}[g.outcome]
        lines.append(
            f"The gradient reaching W^Q at step 0, d_k = {d}: {g.a_spread.text('.2g')} unscaled, {said} "
            f"{g.b_spread.text('.2g')} scaled."
            + (
                " So the unscaled model does not start with a vanishing gradient at W^Q: the softmax's Jacobian "
                "shrinks, but a raw score's derivative with respect to W^Q is √d_k times the scaled score's."
                if d == hi and g.outcome == "better"
                else ""
            )
        )
    return lines


def recall_rows(results: Comparison) -> list[dict]:
    """One row per d_k and score: the state at step 0 and the end of training, mean ± sd over seeds."""
    columns = {"initial largest α": ".2f", "initial entropy (bits)": ".2f", "initial ‖∂L/∂W^Q‖": ".2g",
               "initial ‖∂L/∂W^K‖": ".2g", "test accuracy": ".0%", f"steps to {RECALL_LEVEL:.0%}": ".0f"}  # fmt: skip
    rows = results.table(columns, by="d_k", variant_header="score")
    rows.sort(key=lambda r: (r["d_k"], r["score"]))
    names = {**INIT_METRICS, "test accuracy": "held-out accuracy at the end"}
    return [{names.get(k, k): v for k, v in r.items()} for r in rows]


RECALL_CAPTION = (
    "Step 0: the untrained models on the held-out examples, every softmax row (largest α, entropy) and the "
    "Frobenius norm of the loss's gradient with respect to W^Q and W^K. Mean ± sd over seeds (n runs)."
)


def recall_init_charts(results: Comparison, height: int = 260) -> list[dict]:
    """The state at step 0 against d_k (log scale), scaled and unscaled, every seed faint, mean ± sd."""
    common = {"x_title": "d_k (= d_model)", "log_x": True, "height": height, "colors": COLORS}
    charts = [
        curves_chart(results.sweep_points("initial largest α", "d_k"), y_title="mean largest α", title="Largest α",
                     **common),
        curves_chart(results.sweep_points("initial entropy (bits)", "d_k"), y_title="bits", title="Entropy of α",
                     **common),
        curves_chart(results.sweep_points("initial ‖∂L/∂W^Q‖", "d_k"), y_title="‖∂L/∂W^Q‖", log_y=True,
                     title="Gradient reaching W^Q", **common),
    ]  # fmt: skip
    for chart in charts:
        chart["encoding"]["x"] |= {"axis": {"values": recall_d_ks(results), "title": common["x_title"]}}
    return charts


def recall_curves(results: Comparison, d_k: int, x: str = "step", height: int = 280) -> tuple[dict, dict]:
    """Held-out accuracy and loss against ``x`` for one d_k, both scores, every seed faint, mean ± sd."""
    title = {"step": "training step", "seconds": "CPU seconds"}[x]
    common = {"x_title": title, "height": height, "colors": COLORS}
    where = {"d_k": d_k}
    accuracy = curves_chart(results.curve_points("accuracy", x=x, where=where), y_title="held-out accuracy",
                            title=f"Accuracy, d_k = {d_k}", percent=True, **common)  # fmt: skip
    loss = curves_chart(results.curve_points("loss", x=x, where=where), y_title="held-out loss",
                        title=f"Loss, d_k = {d_k}", **common)  # fmt: skip
    return accuracy, loss


def final_accuracy_chart(results: Comparison, height: int = 280) -> dict:
    """Held-out accuracy at the end of training against d_k: where the scale matters."""
    points = results.sweep_points("test accuracy", "d_k")
    chart = curves_chart(points, y_title="held-out accuracy", percent=True, x_title="d_k", log_x=True,
                         title="At the end of training", height=height, colors=COLORS)  # fmt: skip
    chart["encoding"]["x"] |= {"axis": {"values": recall_d_ks(results), "title": "d_k"}}
    return chart


def recall_prediction(results: Comparison) -> Exercise:
    """Predict, before the results are revealed: at the largest d_k, is the unscaled model's accuracy lower?"""
    d = recall_d_ks(results)[-1]
    v = recall_verdicts(results)[d]
    choices = ("clearly lower", "too close to call", "clearly higher")
    answer = {"better": 0, "too close": 1, "worse": 2}[v.outcome]
    start = results.spread("initial largest α", "dot", {"d_k": d}).mean
    return Exercise(
        key="scaling.ex4",
        prompt=(
            f"**Predict before you reveal the results.** At d_k = {d}, the unscaled model's softmax starts with a "
            f"mean largest α of {start:.2f}. After the same training, is its held-out "
            "accuracy, compared with the scaled model's…"
        ),
        choices=choices,
        answer=answer,
        explanation=(
            f"{choices[answer].capitalize()}: {v.b_spread.text('.0%')} unscaled against {v.a_spread.text('.0%')} "
            "scaled. "
            + (
                f"Its softmax started with a mean largest α of {start:.2f} (scaled: "
                f"{results.spread('initial largest α', 'scaled_dot', {'d_k': d}).mean:.2f}): each question attends "
                "to one item before the model has learnt which, and the few rows that are not saturated carry "
                "nearly all the gradient the scores get."
                if answer == 0
                else "The saturated start did not stop it here: compare the curves below."
            )
        ),
        hint="How much gradient passes through a softmax whose largest weight is almost 1?",
    )


def threshold_prediction(results: Comparison) -> Exercise:
    """Predict: the smallest measured d_k at which scaling clearly raises the final accuracy (or none)."""
    verdicts = recall_verdicts(results)
    ds = list(verdicts)
    helps = by_outcome(verdicts)["better"]
    choices = (*(f"d_k = {d}" for d in ds), "at none of them")
    answer = ds.index(helps[0]) if helps else len(ds)
    return Exercise(
        key="scaling.ex5",
        prompt=(
            "**Predict before you reveal the results.** Both models train at "
            f"d_k = {_listed(ds)}. From which d_k on does dividing by √d_k clearly raise the final held-out accuracy "
            "(by more than the spread over seeds)?"
        ),
        choices=choices,
        answer=answer,
        explanation=(
            "Unscaled, q·k has a standard deviation of about √d_k: "
            + ", ".join(f"{math.sqrt(d):.1f} at d_k = {d}" for d in ds)
            + f". {recall_headline(results)}"
        ),
        hint="At what spread of the scores does a softmax of nine of them become nearly one-hot?",
    )


# ------------------------------------------------------------------------ additive or dot product: what each costs
COST_D: tuple[int, ...] = (16, 64, 256)  # d: the size of q and k, and the additive score's hidden layer
COST_LENGTHS: tuple[int, ...] = (8, 32, 128)  # T: queries and keys (self-attention over one sentence)
COST_REPEATS = 5
COST_SCORES = {"additive": "additive vᵀ tanh(W_q q + W_k k)", "scaled_dot": "dot product q·k / √d"}


def score_module(score: str, d: int) -> nn.Module:
    """minimodels' module for ``score``: :class:`AdditiveAttention` with a hidden layer of d (its own W_q, W_k)
    or :class:`ScaledDotProductAttention` (no parameters: q and k come projected)."""
    if score == "additive":
        return AdditiveAttention(d, d, d).eval()
    if score == "scaled_dot":
        return ScaledDotProductAttention().eval()
    raise ValueError(f"score must be one of {', '.join(COST_SCORES)}, not {score!r}")


def saved_bytes(module: nn.Module, T: int, d: int) -> int:
    """Bytes of the tensors autograd keeps for the backward pass while ``module`` attends over one sentence of T
    random tokens of size d (self-attention: queries, keys and values are the same T vectors): the memory a
    training step holds until its backward pass, each tensor counted once however often it is saved."""
    x = torch.randn(1, T, d, requires_grad=True)
    kept: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        module(x, x, x)
    return sum(kept.values())


@dataclass(frozen=True)
class ScoreCost:
    """Time and memory of the two scores over one sentence, at every d and length, measured on this machine."""

    rows: tuple[dict, ...]  # {"score", "d", "T", "repeat", "ms", "saved_bytes"}
    threads: int
    repeats: int

    def values(self, score: str, d: int, T: int, field: str = "ms") -> list[float]:
        return [r[field] for r in self.rows if (r["score"], r["d"], r["T"]) == (score, d, T)]

    @property
    def ds(self) -> list[int]:
        return sorted({r["d"] for r in self.rows})

    @property
    def lengths(self) -> list[int]:
        return sorted({r["T"] for r in self.rows})


def measure_score_cost(ds=COST_D, lengths=COST_LENGTHS, repeats: int = COST_REPEATS) -> ScoreCost:
    """Time (this thread's CPU milliseconds, so another process's work is not counted) of one forward pass of
    each score module over one sentence of T random tokens of size d, ``repeats`` times in alternation after a
    warm-up, and the bytes it keeps for the backward pass (:func:`saved_bytes`)."""
    generator = torch.Generator().manual_seed(0)
    modules = {(s, d): score_module(s, d) for s in COST_SCORES for d in ds}
    inputs = {(d, T): torch.randn(1, T, d, generator=generator) for d in ds for T in lengths}
    kept = {(s, d, T): saved_bytes(modules[s, d], T, d) for s, d in modules for T in lengths}
    rows, threads = [], torch.get_num_threads()
    torch.set_num_threads(1)  # thread time counts this thread only: the work must not go to other threads
    try:
        rows = _timed(modules, inputs, kept, lengths, repeats)
    finally:
        torch.set_num_threads(threads)
    return ScoreCost(tuple(rows), 1, repeats)


@torch.inference_mode()
def _timed(modules: Mapping, inputs: Mapping, kept: Mapping, lengths: Sequence[int], repeats: int) -> list[dict]:
    rows = []
    for (_, d), module in modules.items():  # warm up: the first call of each shape pays for allocation
        module(*[inputs[d, lengths[0]]] * 3)
    for repeat in range(repeats):
        for (s, d), module in modules.items():
            for T in lengths:
                x = inputs[d, T]
                start = time.thread_time()
                module(x, x, x)
                ms = 1000 * (time.thread_time() - start)
                rows.append({"score": s, "d": d, "T": T, "repeat": repeat, "ms": ms, "saved_bytes": kept[s, d, T]})
    return rows


# -------------------------------------------------------------------------------- what the two scores cost: page
COST_TEXT = (
    "The lecture: “Additive attention computes the compatibility function using a feed-forward network with a "
    "single hidden layer. Dot product attention is much faster and space-efficient.” Measured here when the page "
    "was first opened on this server: one sentence of T tokens attends to itself with minimodels' "
    "AdditiveAttention (hidden layer of d, its own W_q and W_k) and ScaledDotProductAttention (q and k of size d, "
    "already projected). Time: this thread's CPU time for one forward pass, {repeats} repeats. Memory: the bytes "
    "autograd keeps for the backward pass, what a training step holds on to."
)


def _cost_label(score: str, d: int) -> str:
    return f"{'additive' if score == 'additive' else 'dot'}, d = {d}"


def cost_charts(cost: ScoreCost, height: int = 460) -> tuple[dict, dict]:
    """Time (mean ± sd over repeats) and memory kept for the backward pass against T, one line per score and d."""
    order = [(s, d) for s in COST_SCORES for d in cost.ds]
    colors = dict(zip([_cost_label(s, d) for s, d in order],
                      ["#f2b28c", "#e8743b", "#a33f0b", "#9ecae1", "#4c78a8", "#1f3f66"], strict=False))  # fmt: skip

    def points(field: str, only_first: bool) -> list[dict]:
        return [{"variant": _cost_label(r["score"], r["d"]), "label": _cost_label(r["score"], r["d"]),
                 "order": order.index((r["score"], r["d"])), "seed": r["repeat"], "x": r["T"], "y": r[field]}
                for r in cost.rows if not (only_first and r["repeat"])]  # fmt: skip

    common = {"x_title": "sentence length T", "log_x": True, "log_y": True, "height": height, "colors": colors}
    time_chart = curves_chart(points("ms", False), y_title="ms per sentence", title="Time", **common)
    memory_chart = curves_chart(points("saved_bytes", True), y_title="bytes kept for backward", title="Memory",
                                **common)  # fmt: skip
    for chart in (time_chart, memory_chart):
        chart["encoding"]["x"] |= {"axis": {"values": cost.lengths, "title": "sentence length T"}}
    return time_chart, memory_chart


def cost_sentence(cost: ScoreCost) -> str:
    """The lecture's claim tested on the measurement: at the smallest and the largest size, which score was faster
    (verdict over repeats) and how many times the bytes additive kept."""
    parts = []
    for d, T in ((cost.ds[0], cost.lengths[0]), (cost.ds[-1], cost.lengths[-1])):
        dot, additive = Spread(tuple(cost.values("scaled_dot", d, T))), Spread(tuple(cost.values("additive", d, T)))
        outcome, _ = verdict(dot, additive, higher_is_better=False)
        ratio = additive.mean / dot.mean
        said = {
            "better": f"the dot product was faster, {ratio:.1f}× (additive {additive.text('.2f', with_n=False)} ms, "
            f"dot {dot.text('.2f', with_n=False)} ms)",
            "worse": f"additive was faster ({additive.text('.2f', with_n=False)} ms against dot's "
            f"{dot.text('.2f', with_n=False)} ms)",
            "too close": f"the two took about as long ({additive.text('.2f', with_n=False)} and "
            f"{dot.text('.2f', with_n=False)} ms, within the spread over repeats)",
        }[outcome]
        kept = cost.values("additive", d, T, "saved_bytes")[0] / cost.values("scaled_dot", d, T, "saved_bytes")[0]
        parts.append(f"at d = {d}, T = {T}, {said}, and additive kept {kept:.1f}× the bytes")
    return (
        f"Measured: {parts[0]}; {parts[1]}. Additive builds a hidden vector of d numbers for every (query, key) "
        "pair, T·T·d numbers, where the dot product keeps one score per pair, T·T."
    )


def cost_caption(cost: ScoreCost) -> str:
    return (
        f"Measured on this server when the page was first opened ({cost.threads} torch thread"
        f"{'s' if cost.threads != 1 else ''}, {cost.repeats} repeats, band ± sd, random inputs and weights; "
        "python -m bench.score_cost prints a larger grid with the machine's load). Log–log axes."
    )


COST_EX = {"T": 40, "d": 50}  # the hand exercise's sizes: not on the page's grid


def memory_exercise() -> Exercise:
    """By hand: how many numbers additive's tanh layer holds for one sentence, against the dot product's scores;
    the answer read from the module (the shape of the tensor its tanh produces)."""
    T, d = COST_EX["T"], COST_EX["d"]
    module = score_module("additive", d)
    x = torch.zeros(1, T, d)
    with torch.inference_mode():
        hidden = torch.tanh(module.W_q(x).unsqueeze(2) + module.W_k(x).unsqueeze(1))  # (1, T, T, d): as score()
    numbers = hidden.numel()
    return Exercise(
        key="scaling.ex6",
        prompt=(
            f"Additive attention with a hidden layer of d = {d} scores a sentence of T = {T} tokens against itself. "
            "How many numbers does its tanh layer hold at once (one sentence)?"
        ),
        answer=float(numbers),
        tolerance=0.5,
        explanation=(
            f"One hidden vector of d = {d} numbers for every (query, key) pair: T · T · d = {T} · {T} · {d} = "
            f"{numbers:,}. The dot product keeps one score per pair, {T * T:,}: {numbers // (T * T)}× fewer, and "
            "that factor d is the “space-efficient” of the lecture."
        ),
        hint="Count the (query, key) pairs first, then how many numbers each pair gets.",
    )


# ------------------------------------------------------------------------------------------ exercises
EX_D_K, EX_D_BIG = 100, 300  # sizes of the hand computations: neither is on the page's sweeps


def exercises() -> list[Exercise]:
    """The computations by hand (the check-yourself section), at sizes the page's sweeps never show."""
    root = theoretical_std(EX_D_K)
    return [
        Exercise(
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
        ),
        Exercise(
            key="scaling.ex2",
            prompt=f"Same q and k with d_k = {EX_D_BIG}. What is the **variance** of q·k / √d_k?",
            answer=theoretical_std(EX_D_BIG) ** 2 / EX_D_BIG,
            tolerance=0.01,
            explanation=(
                f"Var(c·X) = c²·Var(X) with c = 1/√{EX_D_BIG}: Var(q·k)/{EX_D_BIG} = {EX_D_BIG}/{EX_D_BIG} = 1. "
                "Dividing by √d_k gives variance 1 whatever d_k is."
            ),
            hint="Var(c·X) = c²·Var(X).",
        ),
        memory_exercise(),
    ]


BUCKETS = ("about 0.12, as with scaling", "about 0.5", "about 0.01", "less than one in a million")


def lecture_prediction() -> Exercise:
    """Predict, before section 1's table shows it: the lecture's weight for "Machines" without the division."""
    example = lecture_example()
    machines = example.weights_unscaled[1]
    gap = LECTURE_SCORES[0] - LECTURE_SCORES[1]
    if machines < 1e-6:
        bucket = 3
    elif machines < 0.05:
        bucket = 2
    else:
        bucket = 1 if abs(machines - 0.5) < abs(machines - 0.12) else 0
    return Exercise(
        key="scaling.ex3",
        prompt=(
            f"**Predict before you look at the table.** The lecture divides q₁·k₁ = {LECTURE_SCORES[0]:g} and "
            f"q₁·k₂ = {LECTURE_SCORES[1]:g} by √{LECTURE_D_K} = {math.sqrt(LECTURE_D_K):g} and gets weights "
            f"{example.weights_scaled[0]:.2f} and {example.weights_scaled[1]:.2f}. Without the division, what weight "
            f"would “{LECTURE_TOKENS[1]}” get?"
        ),
        choices=BUCKETS,
        answer=bucket,
        explanation=(
            f"Only the difference of the scores matters: softmax({LECTURE_SCORES[0]:g}, {LECTURE_SCORES[1]:g}) "
            f"gives “{LECTURE_TOKENS[1]}” e^−{gap:g} / (1 + e^−{gap:g}) = {machines:.2e}, since e^−{gap:g} ≈ "
            f"{math.exp(-gap):.1e}. Divided by {math.sqrt(LECTURE_D_K):g} the gap is only "
            f"{gap / math.sqrt(LECTURE_D_K):g}. The softmax is saturated, and its gradient shrinks from "
            f"{example.gradient_scaled:.3f} to {example.gradient_unscaled:.1e}."
        ),
        hint="Only the difference of the two scores matters: how big is e to the minus that difference?",
    )
