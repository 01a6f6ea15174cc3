"""Section 2 of the scaling lesson: one query, six sizes of d_k.

A random query against a few random keys, components with unit variance: the softmax of the raw scores saturates as
d_k grows (one weight near 1, entropy near 0, a Jacobian near 0), the softmax of the scores divided by √d_k does not.
One query's two heatmaps, then the same measures averaged over many random queries at every d_k.

Letters: d_k the size of q and k, N keys, n random queries, α the softmax's weights, e the scores.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_coloraxis, figure
from lessons.common.grids import panel_axis, subplot_grid
from lessons.common.vega import vega_lite_spec, with_values
from lessons.scaling.scores import COLORS, D_SWEEP, LABELS, SATURATED, SCORES, entropy_bits, softmax_jacobian

TITLE = "2 · One query, six sizes of d_k"
HEATMAP_DS: tuple[int, ...] = (1, 4, 16, 64, 256, 1024)  # the rows of the one-query heatmaps
MAX_KEYS = 16
FLAT = 0.25  # the scaled curves count as flat when their largest α moves at most this share of the unscaled range
SWEEP_SAMPLES = 500  # random queries per d_k in the softmax sweep


def one_query_text() -> str:
    """Section 2's text, its sizes read from the sweep the figure draws."""
    return (
        f"A random query against a few random keys, all with unit-variance components, at d_k from {HEATMAP_DS[0]} "
        f"to {HEATMAP_DS[-1]}. Both maps use the **same** scores; the left one takes their softmax as they are, the "
        "right one divides them by √d_k first. Hover a cell for its score."
    )


def random_scores(d_k: int, n_keys: int, samples: int, generator: torch.Generator) -> torch.Tensor:
    """Raw scores q·k_i of ``samples`` random queries against ``n_keys`` random keys each, components N(0, 1):
    ``(samples, N)``."""
    q = torch.randn(samples, 1, d_k, generator=generator, dtype=torch.float64)  # (n, 1, d_k)
    k = torch.randn(samples, n_keys, d_k, generator=generator, dtype=torch.float64)  # (n, N, d_k)
    return (q @ k.transpose(1, 2)).squeeze(1)  # (n, 1, d_k) @ (n, d_k, N) -> (n, N)


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
            {
                "type": "heatmap",
                "z": z,
                "x": xs,
                "y": ys,
                "customdata": np.stack([example.scores, roots], -1),
                "coloraxis": "coloraxis",
                "xgap": 1,
                "ygap": 1,
                "text": np.char.mod("%.2f", z),
                "texttemplate": "%{text}",
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
                "hovertemplate": "%{y}, %{x}<br>" + shown + "<br>α = %{z:.4f}<extra>" + LABELS[name] + "</extra>",
            }
        )
        layout[f"yaxis{n}"] |= {"autorange": "reversed", "showticklabels": col == 0}
    layout |= {
        "height": 120 + 44 * len(ys),
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "coloraxis": attention_coloraxis(),
    }
    return figure(data, layout)


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
    the drawn charts in place, where the same curves as one three-panel Plotly figure would cost the browser
    (Chromium) about 0.4 s per move, being drawn anew each time."""
    uniform = uniform_statistics(n_keys)
    ds = sorted({r["d_k"] for r in rows})
    charts = []
    for panel in SOFTMAX_PANELS:
        values = [{"d_k": r["d_k"], "series": r["score"], "value": r[panel]} for r in rows]
        values += [{"d_k": d, "series": UNIFORM, "value": uniform[panel]} for d in ds]  # largest α: its floor, 1/N
        charts.append(with_values(_softmax_chart_spec(panel), values))
    return charts


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


def saturation_summary(rows: Sequence[dict]) -> str:
    """What the softmax sweep says at its largest d_k, computed from its rows: the share of saturated rows and the
    gradient unscaled, against the gradient scaled."""
    worst = max((r for r in rows if r["score"] == LABELS["dot"]), key=lambda r: r["d_k"])
    scaled = next(r for r in rows if r["score"] == LABELS["scaled_dot"] and r["d_k"] == worst["d_k"])
    ds = sorted({r["d_k"] for r in rows})
    ranges = {
        name: {
            panel: (
                min(r[panel] for r in rows if r["score"] == LABELS[name]),
                max(r[panel] for r in rows if r["score"] == LABELS[name]),
            )
            for panel in ("largest α", "entropy (bits)")
        }
        for name in SCORES
    }
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
