"""Plotly figures of tokens and weights shared by the lessons: pure functions from numbers to figures.

Token labels can be anything a student typed, so they are HTML-escaped before they reach Plotly (which
renders a subset of HTML in tick labels and hover text), and axes are numeric positions with the tokens as
tick text, so a repeated word ("the … the") keeps its own row instead of merging into one category.
Per-cell text is drawn only on small maps: above ~24×24 it costs seconds in the browser.
Every figure is built from plain dicts by :func:`figure`, without Plotly's property-by-property validation.
"""

from __future__ import annotations

import html
import json
import textwrap
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from lessons.common.colorscales import ATTENTION_COLORSCALE, DIVERGING_COLORSCALE

CELL_TEXT_MAX_CELLS = 24 * 24


def attention_coloraxis(title: str = "α", **colorbar) -> dict:
    """The shared colour axis of a grid of attention maps: weights 0 (dark blue) to 1 (yellow), one colour bar."""
    return {
        "colorscale": ATTENTION_COLORSCALE,
        "cmin": 0.0,
        "cmax": 1.0,
        "colorbar": {"title": {"text": title}, **colorbar},
    }


def wrapped_title(text: str, width: int = 40) -> tuple[str, int]:
    """A figure title in lines of at most ``width`` characters, HTML-escaped, and its number of lines: Plotly never
    wraps a title, and about 40 characters of 14 px text fit a 390 px phone's line."""

    lines = textwrap.wrap(str(text), width) or [""]
    return "<br>".join(html.escape(line) for line in lines), len(lines)


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


# Tests set this to True (tests/conftest.py): every :func:`figure` is then also built the slow way, by Plotly's
# validation, and the two must give the same JSON.
CHECK_FIGURES = False


def figure(data: Sequence[dict], layout: dict) -> go.Figure:
    """A Plotly figure from plain dicts (``data``: the traces), without Plotly checking each property on the way in.

    Plotly validates every property of a figure as it builds it: for the lessons' figures that cost several times the
    rest of building them, on every move of a slider, for every student on the server. Validation also rewrites short
    forms (a title given as a string, a colorscale by name), so the builders write the long forms themselves:
    :data:`ATTENTION_COLORSCALE`, ``{"text": …}``. Under the test suite (:data:`CHECK_FIGURES`) each figure is built
    both ways and must give the same JSON, so a misspelt property or a short form fails a test.
    """
    fast = go.Figure({"data": list(data), "layout": layout}, _validate=False)
    if CHECK_FIGURES:
        checked = go.Figure({"data": list(data), "layout": layout})
        if json.loads(pio.to_json(fast, validate=False)) != json.loads(pio.to_json(checked, validate=False)):
            raise AssertionError(f"figure() differs from Plotly's validated figure: {pio.to_json(checked)[:2000]}")
    return fast


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
    if show_cell_text is None:
        show_cell_text = z.size <= 10 * 10
    heatmap = {
        "type": "heatmap",
        "z": z,
        "x": list(range(len(xs))),
        "y": list(range(len(ys))),
        "customdata": hover_pairs(ys, xs),
        "colorscale": ATTENTION_COLORSCALE,
        "zmin": 0.0 if zmax is not None else None,
        "zmax": zmax,
        "hovertemplate": f"%{{customdata}}<br>{value_name} = %{{z:.4f}}<extra></extra>",
        "colorbar": {"title": {"text": value_name}, "thickness": 14},
        "xgap": 1,
        "ygap": 1,
    }
    if show_cell_text and z.size <= CELL_TEXT_MAX_CELLS:
        heatmap |= {"text": np.char.mod("%.2f", z), "texttemplate": "%{text}"}
    layout = {
        # the x axis sits on top (like a matrix), so the title gets room above the axis title
        "title": {"text": html.escape(title), "y": 0.99, "yref": "container", "yanchor": "top"} if title else None,
        "margin": {"l": 10, "r": 10, "t": 120 if title else 90, "b": 10},
        "height": height or max(300, 28 * len(ys) + 160),
        "xaxis": _token_axis(x_title, xs, side="top", tickangle=-45 if len(xs) > 6 else 0),
        "yaxis": _token_axis(y_title, ys, autorange="reversed"),
    }
    # one dict: building the trace and then calling update_layout() costs many times more
    return figure([heatmap], layout)


def _token_axis(title: str, labels: Sequence[str], **more) -> dict:
    """A heatmap axis with one tick per token, labelled with the tokens."""
    return {
        "title": {"text": title},
        "tickmode": "array",
        "tickvals": list(range(len(labels))),
        "ticktext": labels,
        **more,
    }


def hover_pairs(row_labels: Sequence[str], column_labels: Sequence[str]) -> np.ndarray:
    """A heatmap's ``customdata``: "row → column" for every cell, from labels already made safe.

    One string per cell in a numpy string array: Plotly validates and encodes it several times faster than an
    object array of (row, column) pairs.
    """
    return np.array([[f"{r} → {c}" for c in column_labels] for r in row_labels], dtype=str).reshape(
        len(row_labels), len(column_labels)
    )


def vector_strip(vectors, row_labels: Sequence[str], *, title: str = "", height: int | None = None) -> go.Figure:
    """Vectors drawn as rows of coloured cells (one row per vector), value on hover, zero-centred colours."""
    z = _as_array(vectors)
    if z.ndim == 1:
        z = z[None]
    ys = [safe_label(t) for t in row_labels]
    bound = float(np.abs(z).max()) or 1.0
    heatmap = {
        "type": "heatmap",
        "z": z,
        "y": list(range(len(ys))),
        "colorscale": DIVERGING_COLORSCALE,
        "zmid": 0.0,
        "zmin": -bound,
        "zmax": bound,
        "hovertemplate": "dimension %{x}<br>value = %{z:.3f}<extra></extra>",
        "colorbar": {"thickness": 10},
    }
    layout = {
        "title": {"text": html.escape(title)} if title else None,
        "margin": {"l": 10, "r": 10, "t": 40 if title else 10, "b": 30},
        "height": height or 60 + 34 * len(ys),
        "xaxis": {"title": {"text": "dimension"}},
        "yaxis": {"tickmode": "array", "tickvals": list(range(len(ys))), "ticktext": ys, "autorange": "reversed"},
    }
    return figure([heatmap], layout)


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
