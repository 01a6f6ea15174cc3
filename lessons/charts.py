"""Chart builders shared by the lessons: pure functions from numbers to Plotly figures.

Token labels can be anything a student typed, so they are HTML-escaped before they reach Plotly (which
renders a subset of HTML in tick labels and hover text), and axes are numeric positions with the tokens as
tick text, so a repeated word ("the … the") keeps its own row instead of merging into one category.
Per-cell text is drawn only on small maps: above ~24×24 it costs seconds in the browser.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

ATTENTION_COLORSCALE = "Blues"
CELL_TEXT_MAX_CELLS = 24 * 24


def safe_label(text: str, max_chars: int = 24) -> str:
    """A token as a chart label: control characters shown as �, long text cut, HTML escaped."""
    cleaned = "".join(ch if ch.isprintable() else "\ufffd" for ch in str(text))
    if len(cleaned) > max_chars:
        cleaned = cleaned[: max_chars - 1] + "…"
    return html.escape(cleaned)


def _as_array(values) -> np.ndarray:
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=float)


def attention_heatmap(
    weights,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str = "",
    x_title: str = "key (attended to)",
    y_title: str = "query (attending)",
    zmax: float | None = 1.0,
    value_name: str = "weight",
    height: int | None = None,
    show_cell_text: bool | None = None,
) -> go.Figure:
    """A (rows × columns) map of weights with tokens on both axes and the exact value on hover.

    ``weights[i, j]`` is how much row token ``y_labels[i]`` attends to column token ``x_labels[j]``.
    """
    z = _as_array(weights)
    if z.ndim != 2 or z.shape != (len(y_labels), len(x_labels)):
        raise ValueError(f"weights of shape {z.shape} do not match {len(y_labels)} × {len(x_labels)} labels")
    xs = [safe_label(t) for t in x_labels]
    ys = [safe_label(t) for t in y_labels]
    customdata = np.empty(z.shape + (2,), dtype=object)
    for i, y in enumerate(ys):
        for j, x in enumerate(xs):
            customdata[i, j] = (y, x)
    if show_cell_text is None:
        show_cell_text = z.size <= 10 * 10
    heatmap = go.Heatmap(
        z=z,
        x=list(range(len(xs))),
        y=list(range(len(ys))),
        customdata=customdata,
        colorscale=ATTENTION_COLORSCALE,
        zmin=0.0 if zmax is not None else None,
        zmax=zmax,
        hovertemplate=f"%{{customdata[0]}} → %{{customdata[1]}}<br>{value_name} = %{{z:.4f}}<extra></extra>",
        colorbar={"title": {"text": value_name}, "thickness": 14},
        xgap=1,
        ygap=1,
    )
    if show_cell_text and z.size <= CELL_TEXT_MAX_CELLS:
        heatmap.update(text=np.vectorize(lambda v: f"{v:.2f}")(z), texttemplate="%{text}")
    fig = go.Figure(heatmap)
    fig.update_layout(
        # the x axis sits on top (like a matrix), so the title gets room above the axis title
        title={"text": html.escape(title), "y": 0.99, "yref": "container", "yanchor": "top"} if title else None,
        margin={"l": 10, "r": 10, "t": 120 if title else 90, "b": 10},
        height=height or max(300, 28 * len(ys) + 160),
        xaxis={
            "title": x_title,
            "tickmode": "array",
            "tickvals": list(range(len(xs))),
            "ticktext": xs,
            "side": "top",
            "tickangle": -45 if len(xs) > 6 else 0,
        },
        yaxis={
            "title": y_title,
            "tickmode": "array",
            "tickvals": list(range(len(ys))),
            "ticktext": ys,
            "autorange": "reversed",
        },
    )
    return fig


def vector_strip(vectors, row_labels: Sequence[str], *, title: str = "", height: int | None = None) -> go.Figure:
    """Vectors drawn as rows of coloured cells (one row per vector), value on hover, zero-centred colours."""
    z = _as_array(vectors)
    if z.ndim == 1:
        z = z[None]
    ys = [safe_label(t) for t in row_labels]
    bound = float(np.abs(z).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            y=list(range(len(ys))),
            colorscale="RdBu",
            zmid=0.0,
            zmin=-bound,
            zmax=bound,
            hovertemplate="dimension %{x}<br>value = %{z:.3f}<extra></extra>",
            colorbar={"thickness": 10},
        )
    )
    fig.update_layout(
        title={"text": html.escape(title)} if title else None,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 30},
        height=height or 60 + 34 * len(ys),
        xaxis={"title": "dimension"},
        yaxis={
            "tickmode": "array",
            "tickvals": list(range(len(ys))),
            "ticktext": ys,
            "autorange": "reversed",
        },
    )
    return fig


def weight_bars(labels: Sequence[str], weights, *, title: str = "", value_name: str = "weight") -> go.Figure:
    """Horizontal bars, one per row (e.g. each key → value pair of the database table)."""
    w = _as_array(weights)
    ys = [safe_label(t, max_chars=40) for t in labels]
    fig = go.Figure(
        go.Bar(
            x=w,
            y=ys,
            orientation="h",
            marker={
                "color": w,
                "colorscale": ATTENTION_COLORSCALE,
                "cmin": 0,
                "cmax": max(float(w.max()), 1e-9),
            },
            hovertemplate=f"%{{y}}<br>{value_name} = %{{x:.4f}}<extra></extra>",
            text=[f"{v:.2f}" for v in w],
            textposition="outside",
        )
    )
    fig.update_layout(
        title={"text": html.escape(title)} if title else None,
        margin={"l": 10, "r": 30, "t": 40 if title else 10, "b": 30},
        height=60 + 26 * len(ys),
        xaxis={"title": value_name, "range": [0, max(1.0, float(w.max()) * 1.15)]},
        yaxis={"autorange": "reversed"},
    )
    return fig


def training_curves(history: Sequence, *, height: int = 220):
    """Two Altair charts, (loss, held-out exact match) against steps, from training reports.

    ``history`` holds objects with ``step``, ``seconds``, ``loss`` and ``exact_match`` (``minimodels.train``'s
    ``Progress``).
    """
    import altair as alt
    import pandas as pd

    frame = pd.DataFrame(
        [{"step": p.step, "seconds": p.seconds, "loss": p.loss, "exact match": p.exact_match} for p in history]
    )
    if frame.empty:
        frame = pd.DataFrame({"step": [], "seconds": [], "loss": [], "exact match": []})
    base = alt.Chart(frame).encode(x=alt.X("step:Q", title="training step"))
    tooltip = ["step", alt.Tooltip("seconds:Q", format=".1f"), alt.Tooltip("loss:Q", format=".4f"),
               alt.Tooltip("exact match:Q", format=".1%")]  # fmt: skip
    loss = base.mark_line(point=True, color="#d62728").encode(
        y=alt.Y("loss:Q", title="training loss", scale=alt.Scale(zero=True)), tooltip=tooltip
    )
    accuracy = base.mark_line(point=True, color="#1f77b4").encode(
        y=alt.Y("exact match:Q", title="held-out exact match", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%")),
        tooltip=tooltip,
    )  # fmt: skip
    return loss.properties(height=height, title="Loss"), accuracy.properties(height=height, title="Exact match")
