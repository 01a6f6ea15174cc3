"""Chart builders shared by the lessons: pure functions from numbers to Plotly figures.

Token labels can be anything a student typed, so they are HTML-escaped before they reach Plotly (which
renders a subset of HTML in tick labels and hover text), and axes are numeric positions with the tokens as
tick text, so a repeated word ("the … the") keeps its own row instead of merging into one category.
Per-cell text is drawn only on small maps: above ~24×24 it costs seconds in the browser.
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

# Colorscales spelt out: Plotly.js's own "Blues" is another scale than Plotly's (validation expands the name).
ATTENTION_COLORSCALE = get_colorscale("Blues")
DIVERGING_COLORSCALE = get_colorscale("RdBu")  # negative red, positive blue, for values centred on zero
CELL_TEXT_MAX_CELLS = 24 * 24


def attention_coloraxis(title: str = "α", **colorbar) -> dict:
    """The shared colour axis of a grid of attention maps: weights 0 (white) to 1 (dark blue), one colour bar."""
    return {
        "colorscale": ATTENTION_COLORSCALE,
        "cmin": 0.0,
        "cmax": 1.0,
        "colorbar": {"title": {"text": title}, **colorbar},
    }


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

    Plotly validates every property of a figure as it builds it: for the lessons' figures that cost 6–10 times
    the rest of building them (measured on the multi-head page's three figures), on every move of a slider, for
    every student on the server. Validation also rewrites short forms (a title given as a string, a colorscale
    by name), so the builders write the long forms themselves: :data:`ATTENTION_COLORSCALE`, ``{"text": …}``.
    Under the test suite (:data:`CHECK_FIGURES`) each figure is built both ways and must give the same JSON, so
    a misspelt property or a short form fails a test.
    """
    fast = go.Figure({"data": list(data), "layout": layout}, _validate=False)
    if CHECK_FIGURES:
        import plotly.io as pio

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
        "xaxis": {
            "title": {"text": x_title},
            "tickmode": "array",
            "tickvals": list(range(len(xs))),
            "ticktext": xs,
            "side": "top",
            "tickangle": -45 if len(xs) > 6 else 0,
        },
        "yaxis": {
            "title": {"text": y_title},
            "tickmode": "array",
            "tickvals": list(range(len(ys))),
            "ticktext": ys,
            "autorange": "reversed",
        },
    }
    # one dict: building the trace and then update_layout() took ~16 ms of CPU per figure
    return figure([heatmap], layout)


def hover_pairs(row_labels: Sequence[str], column_labels: Sequence[str]) -> np.ndarray:
    """A heatmap's ``customdata``: "row → column" for every cell, from labels already made safe.

    One string per cell in a numpy string array: Plotly validates and encodes it several times faster than an
    object array of (row, column) pairs (measured 3.4 vs 7.2 ms of CPU for an 11 × 30 map).
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


def training_curves(history: Sequence, *, height: int = 220) -> tuple[dict, dict]:
    """Two Vega-Lite charts (for ``st.vega_lite_chart``), loss and held-out exact match against steps.

    ``history`` holds objects with ``step``, ``seconds``, ``loss`` and ``exact_match`` (``minimodels.train``'s
    ``Progress``). The charts are drawn by Altair once (:func:`_training_curve_specs`); each call only puts
    ``history`` in as their data. A training run's page redraws them a few times a second, and building and
    validating the two Altair charts every time cost ~40 ms of a class server's single interpreter.
    """
    values = [{"step": p.step, "seconds": p.seconds, "loss": p.loss, "exact match": p.exact_match} for p in history]
    loss, accuracy = _training_curve_specs(height)
    return with_values(loss, values), with_values(accuracy, values)


@functools.lru_cache(maxsize=4)
def _training_curve_specs(height: int) -> tuple[str, str]:
    """The Altair charts of :func:`training_curves`, as Vega-Lite JSON without their data."""
    import altair as alt

    base = alt.Chart(alt.Data(name="history")).encode(x=alt.X("step:Q", title="training step"))
    tooltip = [alt.Tooltip("step:Q"), alt.Tooltip("seconds:Q", format=".1f"), alt.Tooltip("loss:Q", format=".4f"),
               alt.Tooltip("exact match:Q", format=".1%")]  # fmt: skip
    loss = base.mark_line(point=True, color="#d62728").encode(
        y=alt.Y("loss:Q", title="training loss", scale=alt.Scale(zero=True)), tooltip=tooltip
    )
    accuracy = base.mark_line(point=True, color="#1f77b4").encode(
        y=alt.Y("exact match:Q", title="held-out exact match", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%")),
        tooltip=tooltip,
    )  # fmt: skip
    return (
        json.dumps(vega_lite_spec(loss.properties(height=height, title="Loss"))),
        json.dumps(vega_lite_spec(accuracy.properties(height=height, title="Exact match"))),
    )


def vega_lite_spec(chart) -> dict:
    """An Altair chart as the Vega-Lite spec ``st.altair_chart`` would send, for ``st.vega_lite_chart``.

    Streamlit converts Altair charts with Altair's default theme switched off (it sizes every view 300 × 300);
    a spec made here leaves it out the same way, so the chart looks as ``st.altair_chart`` drew it.
    """
    spec = chart.to_dict()
    config = spec.get("config", {})
    config.pop("view", None)
    if not config:
        spec.pop("config", None)
    return spec


def with_values(spec_json: str, values: list[dict], **fields) -> dict:
    """A fresh copy of a data-less Vega-Lite spec (JSON text, made once) with ``values`` as its data.

    How a chart redrawn often stays cheap: Altair builds and validates it once, each redraw only fills it in.
    ``fields`` are set at the top level as well (a title that changes with the data, say)."""
    spec = json.loads(spec_json)
    spec["data"] = {"values": values}
    spec.update(fields)
    return spec


def panel_axis(row: int, col: int, cols: int) -> str:
    """Plotly's name suffix of panel (row, col) (0-based) in a grid of ``cols`` columns: "", "2", "3", …"""
    n = row * cols + col + 1
    return "" if n == 1 else str(n)


def subplot_grid(
    rows: int,
    cols: int,
    *,
    titles: Sequence[str] = (),
    horizontal_spacing: float | None = None,
    vertical_spacing: float | None = None,
    shared_xaxes: bool = False,
    title_size: int = 13,
    column_widths: Sequence[float] | None = None,
) -> dict:
    """The layout ``plotly.subplots.make_subplots`` gives a grid of panels, as a plain dict: each panel's axes
    (their domains and anchors) and a title above each panel (``titles`` row by row; text as given, so escape
    typed tokens with :func:`safe_label`). A trace goes to panel (r, c) with
    ``xaxis="x" + panel_axis(r, c, cols)`` (and ``yaxis`` likewise).

    Why a dict: a figure built in one go (:func:`figure`) is built once, while
    ``make_subplots`` with a ``row=, col=`` call per trace and per axis cost 20–200 ms per figure, on every
    move of a slider. ``shared_xaxes``: the panels of a column share the bottom panel's x axis (ticks drawn
    only there). ``column_widths``: relative widths of the columns (equal by default).
    """
    h = 0.2 / cols if horizontal_spacing is None else horizontal_spacing  # make_subplots' defaults
    v = 0.3 / rows if vertical_spacing is None else vertical_spacing
    shares = list(column_widths) if column_widths is not None else [1.0] * cols
    widths = [(1 - h * (cols - 1)) * share / sum(shares) for share in shares]
    lefts = [sum(widths[:c]) + c * h for c in range(cols)]
    height = (1 - v * (rows - 1)) / rows
    layout: dict = {"annotations": []}
    for r in range(rows):
        top = 1 - r * (height + v)
        y_domain = [max(0.0, top - height), min(1.0, top)]
        for c in range(cols):
            n = panel_axis(r, c, cols)
            x_domain = [lefts[c], min(1.0, lefts[c] + widths[c])]
            layout[f"xaxis{n}"] = {"domain": x_domain, "anchor": f"y{n}"}
            layout[f"yaxis{n}"] = {"domain": y_domain, "anchor": f"x{n}"}
            if shared_xaxes and r < rows - 1:
                layout[f"xaxis{n}"] |= {"matches": f"x{panel_axis(rows - 1, c, cols)}", "showticklabels": False}
            i = r * cols + c
            if i < len(titles):
                layout["annotations"].append(
                    {"text": titles[i], "x": sum(x_domain) / 2, "y": y_domain[1], "xref": "paper", "yref": "paper",
                     "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": title_size}}
                )  # fmt: skip
    return layout
