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
* the two shipped GRU encoder–decoders that differ only in the scale (``dates-gru-dot`` and
  ``dates-gru-scaled_dot``): their attention on one date, the spread of their raw q·k, and a live race of both
  (``lessons.scoring_functions.race``).

Letters: d_k query/key size, N keys, n samples, S source and T target positions. No streamlit import.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import altair as alt
import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots
from torch import nn

from lessons import scoring_functions as scoring
from lessons.common.charts import (
    attention_coloraxis,
    figure,
    hover_pairs,
    panel_axis,
    safe_label,
    subplot_grid,
    vega_lite_spec,
    with_values,
)
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.common.live import TrainingRun, check_budget
from lessons.common.pretrained import CHECKPOINTS
from minimodels.attention import masked_softmax
from minimodels.decode import greedy
from minimodels.tasks import Task, get_task, make_batch
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID
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
DEFAULT_DATE = "Sunday, November 22, 2026"
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
    "this page you measure the claim, see what it does to the softmax, and compare two trained models that "
    "differ only in the scale."
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
SPREAD_TEXT = (
    "The √d_k argument assumes q and k have unit-variance components. Measured on "
    f"{SPREAD_SENTENCES} held-out dates, the gold previous characters fed in (spreads are the standard deviation of "
    "the scores within one softmax row, averaged over rows):"
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
        legend=alt.Legend(orient="bottom", title=None, columns=2, labelLimit=300, symbolType="stroke"),
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
@dataclass(frozen=True)
class Alignment:
    """One date through one trained model: the attention it used and the scores behind it."""

    output: str
    source: list[str]  # S source characters, "</s>" last
    target: list[str]  # T output characters, "</s>" last when the model ended
    weights: np.ndarray  # (T, S) α
    raw: np.ndarray  # (T, S) raw q·k: decoder state sₜ · encoder state hᵢ
    seen: np.ndarray  # (T, S) the scores the softmax saw: q·k, or q·k / √d_k
    message: str | None  # what the tokenizer changed in the text (unknown characters, cut), or None


def check_date_text(text: str) -> str | None:
    """A message for the student when the text cannot be decoded, or None."""
    if not text.strip():
        return "Type a date first, for example “Sunday, November 22, 2026”."
    return None


def _decoder_queries(model: nn.Module, memory, target_in: torch.Tensor) -> torch.Tensor:
    """The decoder states sₜ ``(B, T, D)`` a Luong-style model (attending after its step) scores the keys with,
    fed ``target_in`` (BOS and the previous tokens): as in ``Seq2Seq.forward``."""
    if model.config.query != "current":
        raise ValueError(f"the {model.config.attention} model attends before its step; this lesson reads sₜ")
    queries, _ = model._fused(model.target_embedding(target_in), memory.final)  # (B, T, D)
    return queries


@torch.inference_mode()
def align(model: nn.Module, task: Task, text: str) -> Alignment | str:
    """Decode ``text`` greedily and recompute each step's scores; the alignment, or a message for the student
    when the text is unusable."""
    message = check_date_text(text)
    if message:
        return message
    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a date first."
    device = next(model.parameters()).device  # a student's model may have trained on a GPU
    source = torch.tensor([[*encoded.ids, EOS_ID]], device=device)  # (1, S)
    lengths = torch.tensor([source.size(1)], device=device)  # (1,)
    memory = model.encode(source, lengths)
    decoded = greedy(model, source, lengths, max_len=2 * task.max_target_len + 1)
    steps = int(decoded.lengths[0])
    tokens = decoded.tokens[0, :steps].tolist()
    target_in = torch.tensor([[BOS_ID, *tokens[: steps - 1]]], device=device)  # (1, T): what each step was fed
    queries = _decoder_queries(model, memory, target_in)  # (1, T, D)
    raw = queries @ memory.states.transpose(1, 2)  # (1, T, D) @ (1, D, S) -> (1, T, S)
    seen = model.scores(queries, memory)  # (1, T, S)
    tokenizer = task.target_tokenizer
    return Alignment(
        output=tokenizer.decode(decoded.sequences()[0]),
        source=[*encoded.pieces, task.source_tokenizer.id_to_piece(EOS_ID)],
        target=[tokenizer.id_to_piece(i) for i in tokens],
        weights=decoded.attention["cross"][0, :steps].float().cpu().numpy(),
        raw=raw[0].float().cpu().numpy(),
        seen=seen[0].float().cpu().numpy(),
        message=encoded.message,
    )


VIEWS = {
    "weights": "attention weights α",
    "raw": "raw scores q·k",
    "seen": "the scores the softmax sees",
}


def alignment_caption(view: str) -> str:
    """The caption under :func:`alignment_figure`; the score views add that both panels share one scale."""
    scale = "" if view == "weights" else " Both models share one red–blue scale, so their sizes compare."
    return (
        "Rows: the characters each model wrote; columns: the characters it read (␣ a space, </s> the end). "
        f"Hover a cell for its exact value.{scale}"
    )


def alignment_figure(alignments: Mapping[str, Alignment], view: str = "weights", height: int = 440) -> go.Figure:
    """The models' maps side by side (output characters down, source characters across) on one colour scale:
    α from 0 to 1 (``view="weights"``), or raw / softmax-seen scores on a red–blue scale centred on 0 and shared
    by both panels, so their magnitudes compare at a glance."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, not {view!r}")
    present = [s for s in SCORES if s in alignments]
    if not present:
        raise ValueError("no alignments to draw")
    titles = [safe_label(f"{LABELS[s]} · “{alignments[s].output}”", max_chars=60) for s in present]
    fig = make_subplots(rows=1, cols=len(present), subplot_titles=titles, horizontal_spacing=0.08)
    values = {s: np.asarray(getattr(alignments[s], view), dtype=float) for s in present}
    bound = max(float(np.abs(v).max()) for v in values.values()) or 1.0
    name = {"weights": "α", "raw": "q·k", "seen": "e"}[view]
    for col, score in enumerate(present, start=1):
        a, z = alignments[score], values[score]
        xs = [safe_label(scoring.display_token(t)) for t in a.source]
        ys = [safe_label(scoring.display_token(t)) for t in a.target]
        if z.shape != (len(ys), len(xs)):
            raise ValueError(f"{score}: a map of shape {z.shape} does not match {len(ys)} × {len(xs)} tokens")
        fig.add_trace(
            go.Heatmap(
                z=z, x=list(range(len(xs))), y=list(range(len(ys))), customdata=hover_pairs(ys, xs),
                coloraxis="coloraxis", hovertemplate="%{customdata}<br>" + name + " = %{z:.4f}<extra>"
                + LABELS[score] + "</extra>", xgap=1, ygap=1,
            ),
            row=1, col=col,
        )  # fmt: skip
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(xs))), ticktext=xs, tickangle=0, row=1, col=col)
        fig.update_yaxes(
            tickmode="array", tickvals=list(range(len(ys))), ticktext=ys, autorange="reversed", row=1, col=col
        )
    if view == "weights":
        coloraxis = attention_coloraxis(name)
    else:
        coloraxis = {"colorscale": "RdBu", "reversescale": True, "cmid": 0.0, "cmin": -bound, "cmax": bound,
                     "colorbar": {"title": name}}  # fmt: skip
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10}, coloraxis=coloraxis)
    fig.update_annotations(font_size=13)
    return fig


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


def read_models(models: Mapping[str, nn.Module], text: str) -> dict[str, Alignment] | str:
    """:func:`align` of ``text`` by each model (score -> model), or the message for the student when it is refused."""
    task = get_task(TASK)
    alignments = {score: align(models[score], task, text) for score in SCORES}
    return next((a for a in alignments.values() if isinstance(a, str)), alignments)


def spreads_of(models: Mapping[str, nn.Module]) -> dict[str, ScoreSpread]:
    """:func:`score_spread` of each model (score -> model)."""
    task = get_task(TASK)
    return {score: score_spread(models[score], task, score) for score in SCORES}


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
        f"In the shipped race (below), the unscaled model {lead} ({pace.a_spread.text('.0f')} steps against "
        f"{pace.b_spread.text('.0f')} scaled); {end.sentence('.1%', 'test exact match')}"
    )


def untrained_note(start: ScoreSpread, results: Comparison | None = None) -> str:
    """Why the unscaled model did (or did not) stall here: the race's verdict (:func:`race_verdict`, when the
    results are loaded) and the untrained model's figures (:func:`fresh_spread`)."""
    race = f"{race_verdict(results)} " if results is not None else ""
    return (
        f"{race}Before training, its GRU's states are small (components with standard deviations of "
        f"{start.q_std:.2f} and {start.k_std:.2f}), so its first raw scores spread by only {start.raw_std:.2f} and its "
        f"softmax starts far from saturated (mean largest α {start.largest:.2f}). The stall needs unit-variance q and "
        "k at a large d_k, as in a Transformer whose queries and keys are projections of normalised embeddings: "
        "sections 2 and 3."
    )


def trained_text(shipped: Mapping[str, tuple[nn.Module, Mapping]]) -> str:
    """Section 4's text: the two shipped models' size and seeds, read from their configs and checkpoints."""
    sizes = {score: model.config.hidden_size for score, (model, _) in shipped.items()}
    seeds = {info.get("seed") for _, info in shipped.values()}
    steps = {info.get("training", {}).get("steps") for _, info in shipped.values()}
    size = f"d_k = {sizes['dot']}, the GRU's state" if len(set(sizes.values())) == 1 else f"sizes {sizes}"
    same = []
    if len(seeds) == 1:
        same.append(f"same seed ({seeds.pop()})")
    if len(steps) == 1:
        same.append(f"same steps ({steps.pop()})")
    return (
        "Two GRU encoder–decoders trained on **dates** (“Sunday, November 22, 2026” → “2026-11-22”, character by "
        f"character), shipped with the course: same size ({size}), {', '.join([*same, 'same data'])}. The only "
        f"difference: one scores q·k, the other q·k / √{sizes['scaled_dot']}. The query is the decoder's state sₜ, "
        "the keys are the encoder's states hᵢ."
    )


def spread_rows(spreads: Mapping[str, ScoreSpread]) -> list[dict]:
    return [
        {
            "model": LABELS[s.score],
            "d_k": s.d_k,
            "std of q components": round(s.q_std, 3),
            "std of k components": round(s.k_std, 3),
            "spread of raw q·k in a row": round(s.raw_std, 2),
            "√d_k·σ_q·σ_k": round(s.predicted_raw_std, 2),
            "raw q·k from … to": f"{s.raw_range[0]:.1f} … {s.raw_range[1]:.1f}",
            "spread the softmax sees": round(s.seen_std, 2),
            "mean largest α": round(s.largest, 3),
            f"rows with α > {SATURATED}": f"{s.saturated:.0%}",
            "entropy (bits)": round(s.entropy, 2),
        }
        for s in spreads.values()
    ]


def spread_observations(spreads: Mapping[str, ScoreSpread]) -> list[str]:
    """What the measured spreads say, in sentences computed from them."""
    dot, scaled = spreads["dot"], spreads["scaled_dot"]
    root = math.sqrt(scaled.d_k)
    return [
        f"The trained states are not unit-variance: their components have a standard deviation of "
        f"{dot.q_std:.2f} and {dot.k_std:.2f} (unscaled model), {scaled.q_std:.2f} and {scaled.k_std:.2f} (scaled "
        "model), and GRU states can never leave [−1, 1].",
        f"Raw q·k spreads by **{dot.raw_std:.1f}** in the unscaled model and **{scaled.raw_std:.1f}** in the scaled "
        f"one. The scaled model's softmax sees that divided by √{scaled.d_k} = {root:g}: **{scaled.seen_std:.2f}**."
        + (
            f" Training made up for {ratio:.1f}× of the {root:g}× the scale takes away, no more: the states it "
            "multiplies are bounded."
            if (ratio := scaled.raw_std / dot.raw_std) > 1
            else ""
        ),
        f"So the {'unscaled' if dot.largest > scaled.largest else 'scaled'} model's attention is the more peaked "
        f"one: mean largest α **{dot.largest:.2f}**, {dot.saturated:.0%} of rows above {SATURATED} for the unscaled "
        f"model, against **{scaled.largest:.2f}** and {scaled.saturated:.0%} for the scaled one.",
    ]


def training_records(manifest: Mapping[str, Mapping]) -> list[dict]:
    """The shipped checkpoints' training records (``assets/checkpoints/manifest.json``), one row per model."""
    rows = []
    for score in SCORES:
        entry = manifest.get(f"{TASK}-{MODEL_NAMES[score]}")
        if entry is None:
            continue
        align_acc = entry.get("test_alignment_accuracy")
        rows.append(
            {
                "model": LABELS[score],
                "checkpoint": f"{TASK}-{MODEL_NAMES[score]}",
                "steps": entry.get("steps"),
                "seconds": entry.get("seconds"),
                "held-out exact match": entry.get("exact_match"),
                "test exact match": entry.get("test_exact_match"),
                "alignment accuracy": align_acc,
                "parameters": entry.get("parameters"),
            }
        )
    return rows


def load_training_records(path: Path | None = None) -> list[dict] | str:
    """:func:`training_records` of the shipped manifest (``CHECKPOINTS/manifest.json`` by default), or a message for
    the student when it cannot be read."""
    path = path if path is not None else CHECKPOINTS / "manifest.json"
    try:
        return training_records(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:
        return f"The checkpoints' training record cannot be read: {error}"


RECORDS_CAPTION = (  # under the table of load_training_records
    "From assets/checkpoints/manifest.json, written when the checkpoints were trained "
    "(python -m minimodels.checkpoints): held-out exact match on the first validation dates, test exact "
    "match and alignment accuracy (how often the attention's argmax falls on a character the output comes "
    "from) on the test split. Seconds are wall time on a shared machine."
)


def load_results(path: Path | str | None = None) -> Comparison:
    """The scoring lesson's shipped race (``assets/results/scoring_functions.json``), its two dot-product models
    only: the same runs, seeds and meta (``ValueError``/``FileNotFoundError`` as ``scoring.load_results``)."""
    race = scoring.load_results(path)
    return Comparison(SCORES, tuple(r for r in race.runs if r.variant in SCORES), race.meta, race.labels)


# ------------------------------------------------------------------------------------------- live race
def race_note(results: Comparison) -> str:
    """The text above the shipped race's curves: where the runs come from (seeds and stopping level read from the
    results) and how they are drawn."""
    seeds = ", ".join(map(str, results.seeds))
    target = (results.meta.get("train_config") or {}).get("target_exact_match")
    stop = f", stop at {target:.0%} held-out exact match" if target else ""
    return (
        f"The same two models raced from seeds {seeds} in the *Scoring functions* lesson's measurement "
        f"(assets/results/scoring_functions.json{stop}): each seed's curve faint, their mean as a line and ± one sd "
        "as a band."
    )


def new_models(task: Task, seed: int = 0) -> dict[str, nn.Module]:
    """Two fresh GRU encoder–decoders from the same ``seed``: identical weights, the scale their only difference."""
    return {score: build_model(MODEL_NAMES[score], task, seed=seed) for score in SCORES}


def new_race(seed: int, budget_seconds: float):
    """Both models for one student and the function that races them (``lessons.scoring_functions.race``): turns of a few
    steps each, same batches, each model's own compute seconds. ``(models, train_fn(on_progress))``."""
    check_budget(budget_seconds, " per model")
    task = get_task(TASK)
    models = new_models(task, seed)
    config = scoring.race_config(seed)

    def train_fn(on_progress):
        return scoring.race(models, task, config, budget_seconds=budget_seconds, on_progress=on_progress)

    return models, train_fn


def new_run(seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_race`'s two models and the function that races them."""
    models, train_fn = new_race(seed, float(budget_seconds))
    return TrainingRun(train_fn, model=models, name="scaling-race")


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


def peaked_prediction(spreads: Mapping[str, ScoreSpread]) -> Exercise:
    """Predict, before section 4 shows the trained models' attention: which is more peaked. Answer from the
    measured spreads (:func:`score_spread`)."""
    peaked = max(SCORES, key=lambda s: spreads[s].largest)
    other = next(s for s in SCORES if s != peaked)
    choices = tuple(LABELS[s] for s in SCORES)
    return Exercise(
        key="scaling.ex4",
        prompt=(
            "**Predict before you look at the maps.** Both models were trained to the same task. Which one's "
            "attention is **more peaked** (a larger mean largest α over held-out dates)?"
        ),
        choices=choices,
        answer=SCORES.index(peaked),
        explanation=(
            f"{LABELS[peaked]}: mean largest α {spreads[peaked].largest:.2f}, against {spreads[other].largest:.2f}. "
            f"Its softmax sees raw scores spread by {spreads[peaked].seen_std:.2f} within a row, the other's by "
            f"{spreads[other].seen_std:.2f}: training could not make up the √d_k the scale takes away, because the "
            "GRU states it multiplies stay in [−1, 1]."
            if peaked == "dot"
            else f"{LABELS[peaked]}: mean largest α {spreads[peaked].largest:.2f}, against "
            f"{spreads[other].largest:.2f}. Training grew its raw scores (spread {spreads[peaked].raw_std:.2f}) more "
            "than the division takes away."
        ),
        hint="Which softmax sees the raw q·k undivided, and can training make up the division?",
    )
