"""Chart builders shared by the lessons: pure functions from numbers to Plotly figures.

Token labels can be anything a student typed, so they are HTML-escaped before they reach Plotly (which
renders a subset of HTML in tick labels and hover text), and axes are numeric positions with the tokens as
tick text, so a repeated word ("the … the") keeps its own row instead of merging into one category.
Per-cell text is drawn only on small maps: above ~24×24 it costs seconds in the browser.
"""

from __future__ import annotations

import html
import json
import re
import textwrap
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import get_colorscale

from lessons.common.comparison import curves_chart

# The house's colour scales, spelt out (Plotly.js's own "Blues" is another scale than Plotly's: validation expands a
# name). Every heatmap of every page uses one of them (tests/ui/test_charts_a11y.py walks every page's figures):
# - sequential, for weights and other values from 0 up (attention weights, gates): cividis, perceptually uniform and
#   made to read the same with and without a colour-vision deficiency (Nuñez et al. 2018, PLoS ONE): dark blue for
#   0, bright yellow for the largest value;
# - diverging, for signed values centred on zero (vectors, scores, states): ColorBrewer's RdBu, safe for the common
#   colour-vision deficiencies: negative red, zero near white, positive blue.
# High contrast (the sidebar's switch, ui.style) swaps each for its high-contrast twin: black on white for weights,
# and dark red / pure white / dark blue for signed values.
SEQUENTIAL_COLORSCALE = get_colorscale("Cividis")
ATTENTION_COLORSCALE = SEQUENTIAL_COLORSCALE  # the name the lessons use for attention weights
DIVERGING_COLORSCALE = get_colorscale("RdBu")
HIGH_CONTRAST_SEQUENTIAL = get_colorscale("Greys")  # 0 white, 1 black
HIGH_CONTRAST_DIVERGING = [[0.0, "rgb(103,0,31)"], [0.5, "rgb(255,255,255)"], [1.0, "rgb(5,48,97)"]]
HOUSE_COLORSCALES = (SEQUENTIAL_COLORSCALE, DIVERGING_COLORSCALE, HIGH_CONTRAST_SEQUENTIAL, HIGH_CONTRAST_DIVERGING)
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


def training_curves(history: Sequence, *, height: int = 220) -> tuple[dict, dict]:
    """Two Vega-Lite charts (for ``ui.vega``), loss and held-out exact match against steps, of one training run.

    ``history`` holds objects with ``step``, ``loss`` and ``exact_match`` (``minimodels.train``'s ``Progress``).
    Drawn by the course's one chart of curves (``lessons.common.comparison.curves_chart``) as a run of one seed: a
    solid line, no band. Its spec is written once per set of options and each call only puts ``history`` in: a
    training run's page redraws the two charts a few times a second.
    """

    run = {"variant": "run", "label": "this run", "seed": 0}
    loss = curves_chart(
        [{**run, "x": p.step, "y": p.loss} for p in history],
        y_title="training loss",
        x_title="training step",
        title="Loss",
        height=height,
        colors={"run": LOSS_COLOR},
    )
    accuracy = curves_chart(
        [{**run, "x": p.step, "y": p.exact_match} for p in history],
        y_title="held-out exact match",
        x_title="training step",
        title="Exact match",
        height=height,
        percent=True,
        colors={"run": ACCURACY_COLOR},
    )
    return loss, accuracy


LOSS_COLOR, ACCURACY_COLOR = "#d62728", "#1f77b4"  # the live panel's two curves


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


AXIS_PRESENTER = {"labelFontSize": 16, "titleFontSize": 17}
LEGEND_PRESENTER = {"labelFontSize": 16, "titleFontSize": 17}
HEADER_PRESENTER = {"labelFontSize": 17, "titleFontSize": 18}  # a faceted chart's panel names and its title
TITLE_PRESENTER = 21


def presenter_vega(spec: dict, scale: float) -> dict:
    """A copy of a Vega-Lite spec for a projector: larger axis, legend, facet header and title text, ``height`` ×
    ``scale`` (every view's, in layers and concatenations too).

    The sizes go on each encoding's axis and legend and on each title, not in ``config``: Streamlit's chart theme
    sets the same properties, and those on an encoding win over both. Hidden axes and legends (null) stay hidden."""
    spec = json.loads(json.dumps(spec))

    def visit(node):
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        for channel, enc in (node.get("encoding") or {}).items():
            if not isinstance(enc, dict):
                continue
            if channel in ("x", "y") and enc.get("axis", {}) is not None:
                enc["axis"] = {**(enc.get("axis") or {}), **AXIS_PRESENTER}
            elif channel in ("color", "strokeDash") and enc.get("legend", {}) is not None:
                enc["legend"] = {**(enc.get("legend") or {}), **LEGEND_PRESENTER}
            elif channel in ("column", "row", "facet") and enc.get("header", {}) is not None:
                enc["header"] = {**(enc.get("header") or {}), **HEADER_PRESENTER}
        if isinstance(node.get("title"), str):
            node["title"] = {"text": node["title"], "fontSize": TITLE_PRESENTER}
        elif isinstance(node.get("title"), dict):
            node["title"]["fontSize"] = TITLE_PRESENTER
        if isinstance(node.get("height"), int | float):
            node["height"] = int(node["height"] * scale)
        for key in ("layer", "hconcat", "vconcat", "concat", "spec"):
            if key in node:
                visit(node[key])

    visit(spec)
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
    ``make_subplots`` with a ``row=, col=`` call per trace and per axis costs many times more, on every move of a
    slider. ``shared_xaxes``: the panels of a column share the bottom panel's x axis (ticks drawn
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
                    {
                        "text": titles[i],
                        "x": sum(x_domain) / 2,
                        "y": y_domain[1],
                        "xref": "paper",
                        "yref": "paper",
                        "xanchor": "center",
                        "yanchor": "bottom",
                        "showarrow": False,
                        "font": {"size": title_size},
                    }
                )
    return layout


# --- A grid of per-head attention maps (the multi-head and Transformer lessons) -------------------------
@dataclass(frozen=True)
class GridRow:
    """One attention sublayer in the grid: its heads' maps side by side."""

    title: str  # "encoder layer 1 · self-attention"
    weights: np.ndarray  # (h, R, C)
    x_labels: Sequence[str]  # C column tokens (attended to)
    y_labels: Sequence[str]  # R row tokens (attending)


def head_grid(
    rows: Sequence[GridRow], *, title: str = "", value_name: str = "α", row_height: int | None = None
) -> go.Figure:
    """One map per head (columns) and per sublayer (rows), one 0–1 colour scale, the exact value on hover.

    The heads of one sublayer share one pair of axes, side by side with a few blank columns between them, and
    the x tick labels (while the heads fit) are drawn under the first map of each row only: every head of a row
    reads the same tokens. Plotly.js draws each axis and each label: the trained model's grid of 24 heads, with
    48 axes and labels under every map, took 0.55 s to draw in Chromium (toy-translation) and 0.84 s (dates,
    500 turned labels); now 0.24 and 0.28 s. Still one heatmap trace per head (its own numbers in the downloads).
    The figure is built from one dict: ``make_subplots`` took seconds for 24 maps.
    """
    n_cols = max(int(r.weights.shape[0]) for r in rows)
    x_ticks = n_cols <= 4
    tallest = max(len(r.y_labels) for r in rows)
    row_px = row_height or min(340, max(130, 30 + 16 * tallest))
    gap_px = 95 if x_ticks else 35  # room for the x tick labels and the next row's head titles
    plot_px = len(rows) * row_px + (len(rows) - 1) * gap_px
    top_px, bottom_px = (90 if title else 45), 10
    h_gap = 0.02 if n_cols > 4 else 0.04
    width = (1 - (n_cols - 1) * h_gap) / n_cols  # one map's share of the figure's width
    data, layout, annotations = [], {}, []
    for i, row in enumerate(rows):
        h = int(row.weights.shape[0])
        y_top = 1 - i * (row_px + gap_px) / plot_px
        xs = [safe_label(t, 10) for t in row.x_labels]
        ys = [safe_label(t, 10) for t in row.y_labels]
        blank = max(1, round(len(xs) * h_gap / width))  # columns between two heads' maps
        step = len(xs) + blank  # head j's map starts at x = j · step
        custom = hover_pairs(ys, xs)
        row_title = "<br>".join(safe_label(part, 40) for part in row.title.split(" · "))
        new_heads = i == 0 or int(rows[i - 1].weights.shape[0]) != h  # "head j" over the first row of each count
        n = panel_axis(i, 0, 1)
        for j in range(h):
            data.append(
                {
                    "type": "heatmap",
                    "z": row.weights[j],
                    "x": [j * step + c for c in range(len(xs))],
                    "y": list(range(len(ys))),
                    "customdata": custom,
                    "coloraxis": "coloraxis",
                    "xgap": 1,
                    "ygap": 1,
                    "xaxis": f"x{n}",
                    "yaxis": f"y{n}",
                    "hovertemplate": f"{safe_label(row.title, 60)} · head {j + 1}<br>%{{customdata}}"
                    f"<br>{value_name} = %{{z:.3f}}<extra></extra>",
                }
            )
            if new_heads:
                annotations.append(
                    {
                        "text": f"head {j + 1}",
                        "x": j * step + (len(xs) - 1) / 2,
                        "y": 1,
                        "xref": f"x{n}",
                        "yref": f"y{n} domain",
                        "xanchor": "center",
                        "yanchor": "bottom",
                        "showarrow": False,
                        "font": {"size": 11},
                    }
                )
        layout[f"xaxis{n}"] = {
            "domain": [0, min(1.0, h * width + (h - 1) * h_gap)],
            "anchor": f"y{n}",
            "range": [-0.5, h * step - blank - 0.5],
            "tickmode": "array",
            "tickvals": list(range(len(xs))),
            "ticktext": xs,  # under the first map only
            "showticklabels": x_ticks,
            "tickangle": -60,
            "tickfont": {"size": 9},
            "showgrid": False,
            "zeroline": False,
        }
        layout[f"yaxis{n}"] = {
            "domain": [max(0.0, y_top - row_px / plot_px), y_top],
            "anchor": f"x{n}",
            "tickmode": "array",
            "tickvals": list(range(len(ys))),
            "ticktext": ys,
            "autorange": "reversed",
            "tickfont": {"size": 9},
            "title": {"text": row_title, "font": {"size": 11}},
            "showgrid": False,
            "zeroline": False,
        }
    layout.update(
        annotations=annotations,
        title={"text": safe_label(title, 200)} if title else None,
        coloraxis=attention_coloraxis(value_name, thickness=12),
        height=plot_px + top_px + bottom_px,
        margin={"l": 10, "r": 10, "t": top_px, "b": bottom_px},
    )
    return figure(data, layout)


# --- Colour scales and text alternatives ------------------------------------------------------------------
def scale_key(scale) -> tuple | None:
    """A colour scale as a comparable value (``((0.0, "#00224e"), …)``); a named scale (``"Blues"``) stays a name."""
    if scale is None or isinstance(scale, str):
        return scale
    return tuple((round(float(position), 6), str(colour).replace(" ", "")) for position, colour in scale)


HOUSE_SCALE_KEYS = frozenset(scale_key(s) for s in HOUSE_COLORSCALES)
_HIGH_CONTRAST = {
    scale_key(SEQUENTIAL_COLORSCALE): HIGH_CONTRAST_SEQUENTIAL,
    scale_key(DIVERGING_COLORSCALE): HIGH_CONTRAST_DIVERGING,
}


def heatmap_scales(spec: dict) -> list:
    """Every colour scale a figure's heatmaps are drawn with (a trace's own, or its colour axis'), from the figure's
    JSON (``fig.to_plotly_json()``, or a page's spec under AppTest)."""
    layout = spec.get("layout") or {}
    scales = []
    for trace in spec.get("data") or []:
        if trace.get("type") != "heatmap":
            continue
        axis = trace.get("coloraxis")
        scales.append(((layout.get(axis) or {}).get("colorscale")) if axis else trace.get("colorscale"))
    return scales


def high_contrast(fig: go.Figure) -> go.Figure:
    """``fig`` with each house colour scale swapped for its high-contrast twin (traces, bar markers, colour axes)
    and its text in black. Other scales are left as they are."""

    def swap(owner) -> None:
        twin = _HIGH_CONTRAST.get(scale_key(owner.colorscale))
        if twin is not None:
            owner.colorscale = twin

    for trace in fig.data:
        if "colorscale" in trace:
            swap(trace)
        marker = getattr(trace, "marker", None)
        if marker is not None and "colorscale" in marker:
            swap(marker)
    for name in [key for key in fig.layout if key.startswith("coloraxis")]:
        swap(fig.layout[name])
    fig.layout.font.color = "#000000"
    return fig


def values_frame(tables):
    """A figure's heatmaps as one table: one heatmap as its matrix (row tokens down, column tokens across); several,
    one row per cell (map, row, column, value). A repeated token ("the … the") keeps one column each."""

    def unique(labels: Sequence[str]) -> list[str]:
        seen: dict[str, int] = {}
        out = []
        for label in labels:
            seen[label] = seen.get(label, 0) + 1
            out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
        return out

    if len(tables) == 1:
        table = tables[0]
        names = unique(["row", *table.columns])  # a token "row" becomes "row (2)"
        frame = pd.DataFrame(table.values, columns=names[1:])
        frame.insert(0, names[0], table.rows)
        return frame
    rows = [
        (t.name, r, c, float(t.values[i, j]))
        for t in tables
        for i, r in enumerate(t.rows)
        for j, c in enumerate(t.columns)
    ]
    return pd.DataFrame(rows, columns=["map", "row", "column", "value"])


# --- Margins that fit, so that Plotly draws a figure once ----------------------------------------------------
# Streamlit's theme lets every axis push the figure's margins out to fit its labels ("automargin"). When a
# label does not fit in the margins the figure was given, Plotly.js draws the figure, widens the margins and
# draws it all again: twice the drawing time of a heatmap or a grid of curves. :func:`fit_margins` gives
# a figure margins estimated from its own labels, a little generous; where a guess is short, automargin still
# widens them (drawn twice, as before), so a label is never cut.
# Sizes in pixels, from Streamlit's Plotly theme (tick labels 12 px, axis titles 14 px, title standoff 20 (x) and
# 24 (y), colour bars 16 px thick with 24 px of padding, margin pad 8).
_TICK_FONT, _TITLE_FONT, _PAD = 12, 14, 8
_STANDOFF = {"x": 20, "y": 24}


def text_width(text: str, size: float) -> float:
    """A generous width in pixels of ``text`` (tags stripped, entities read) in the theme's sans-serif font."""

    lines = re.sub(r"<br\s*/?>", "\n", str(text), flags=re.I)
    lines = html.unescape(re.sub(r"<[^>]*>", "", lines)).split("\n")

    def width(line: str) -> float:
        return sum(1.05 if unicodedata.east_asian_width(ch) in "WF" else 0.62 for ch in line)

    return size * max((width(line) for line in lines), default=0.0)


def _number_labels(lo: float, hi: float, log: bool = False) -> list[str]:
    """Stand-ins for the tick labels Plotly writes on a numeric axis from ``lo`` to ``hi``: as wide as the widest."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ["0.00"]
    if log:
        lo, hi = 10 ** min(lo, hi), 10 ** max(lo, hi)
    big = max(abs(lo), abs(hi), 1e-12)
    span = abs(hi - lo) or big
    digits = max(1, int(np.floor(np.log10(big))) + 1) if big >= 1 else 1
    decimals = 0 if span >= 10 else max(1, 1 - int(np.floor(np.log10(span / 5))))
    text = "8" * digits + ("." + "8" * decimals if decimals else "")
    if big >= 1e4:  # Plotly writes 10k, 1.5M
        text = "88.8k"
    return [("−" if min(lo, hi) < 0 else "") + text]


def _values(values) -> np.ndarray | None:
    """A trace's x / y / z as a float array, or None (absent, or text)."""
    if values is None:
        return None
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None
    return array if array.size else None


def _axis_labels(axis: dict, traces: list[dict], letter: str, name: str) -> list[str]:
    """The tick labels of axis ``name`` (``xaxis2``…), read or estimated from the layout and its traces."""
    if not axis.get("showticklabels", True):
        return []
    if axis.get("ticktext") is not None:
        return [str(t) for t in axis["ticktext"]]
    ref = letter + name[5:]  # "xaxis2" -> "x2"
    mine = [t for t in traces if t.get(f"{letter}axis", letter) == ref]
    texts, lows, highs = [], [], []
    for trace in mine:
        raw = trace.get(letter)
        numbers = _values(raw)
        z = _values(trace.get("z")) if trace.get("type") == "heatmap" else None
        if raw is not None and numbers is None:
            texts += [str(v) for v in np.ravel(np.asarray(raw, dtype=object))]
        elif numbers is not None:
            lows.append(np.nanmin(numbers))
            highs.append(np.nanmax(numbers))
        elif z is not None:  # a heatmap without x (or y): cells 0 … n − 1
            lows.append(0.0)
            highs.append(float(z.shape[1 if letter == "x" else 0] if z.ndim == 2 else 100))
    if texts and (axis.get("type") in (None, "-", "category")):
        return texts
    if isinstance(axis.get("range"), (list, tuple)) and len(axis["range"]) == 2:
        try:
            lows.append(float(axis["range"][0]))
            highs.append(float(axis["range"][1]))
        except (TypeError, ValueError):
            pass
    if not lows:
        return ["0.0"]
    lo, hi = min(lows), max(highs)
    if axis.get("type") == "log" and "range" not in axis:
        lo, hi = np.log10(max(lo, 1e-12)), np.log10(max(hi, 1e-12))
    return _number_labels(lo, hi, log=axis.get("type") == "log")


def _font(spec: dict | None, default: float) -> float:
    return float(((spec or {}).get("font") or {}).get("size") or default) if isinstance(spec, dict) else default


def _colorbar_width(colorbar: dict, lo: float, hi: float) -> float:
    tick = float((colorbar.get("tickfont") or {}).get("size") or _TICK_FONT)
    labels = colorbar.get("ticktext") or _number_labels(lo, hi)
    title = (colorbar.get("title") or {}).get("text") or ""
    side = (colorbar.get("title") or {}).get("side", "top")
    width = float(colorbar.get("thickness", 16)) + float(colorbar.get("xpad", 24)) + 36  # bar, padding, outline
    labels_w = max(text_width(t, tick) for t in labels) + 6
    title_w = text_width(title, _font(colorbar.get("title"), _TITLE_FONT)) if title else 0.0
    if side == "right":
        return width + labels_w + 1.3 * _font(colorbar.get("title"), _TITLE_FONT) + 6
    return width + max(labels_w, title_w - 6)


def _axis_room(name: str, axis: dict, layout: dict, labels: list[str]) -> tuple[str | None, float]:
    """The margin (``"l"``, ``"r"``, ``"t"``, ``"b"``) an axis's labels and title push, and how far; ``None`` for an
    inner subplot's axis, whose labels sit between the plots."""
    letter = name[0]
    anchor = axis.get("anchor")
    across = (layout.get(anchor[0] + "axis" + anchor[1:]) or {}) if anchor and anchor != "free" else {}
    position = across.get("domain", [0, 1])  # where the axis sits across the figure, as a fraction
    title = axis.get("title") if isinstance(axis.get("title"), dict) else {"text": axis.get("title")}
    title_room = 1.25 * _font(title, _TITLE_FONT) + title.get("standoff", _STANDOFF[letter]) if title.get("text") else 0
    tick = float((axis.get("tickfont") or {}).get("size") or _TICK_FONT)
    widest = max((text_width(t, tick) for t in labels), default=0.0)
    if letter == "y":
        side = "l" if axis.get("side", "left") == "left" else "r"
        if (position[0] > 0.02) if side == "l" else (position[1] < 0.98):
            return None, 0.0
        return side, widest + 22 + title_room + _PAD
    side = "b" if axis.get("side", "bottom") == "bottom" else "t"
    if (position[0] > 0.02) if side == "b" else (position[1] < 0.98):
        return None, 0.0
    angle = axis.get("tickangle")
    length = (axis.get("domain") or [0, 1])[1] - (axis.get("domain") or [0, 1])[0]
    if angle in (None, "auto") and len(labels) * (widest + 12) > 520 * length:
        angle = 90  # Plotly turns crowded labels, at most upright
    radians = np.radians(float(angle or 0))
    height = abs(np.sin(radians)) * widest + abs(np.cos(radians)) * 1.25 * tick if labels else 0.0
    return side, height + 24 + title_room + _PAD


def fit_margins(fig: go.Figure) -> go.Figure:
    """Raise ``fig``'s margins to fit its tick labels, axis titles, colour bars and legend (never lower them)."""
    layout = fig.layout.to_plotly_json()
    traces = [trace.to_plotly_json() for trace in fig.data]
    margin = dict(layout.get("margin") or {})
    need = {side: float(margin.get(side, 0) or 0) for side in "lrtb"}
    axes = [name for name in layout if name.startswith(("xaxis", "yaxis"))]
    axes += [f"{letter}axis" for letter in "xy" if f"{letter}axis" not in layout and traces]
    for name in axes:
        axis = layout.get(name) or {}
        if axis.get("visible") is False:
            continue
        side, room = _axis_room(name, axis, layout, _axis_labels(axis, traces, name[0], name))
        if side:
            need[side] = max(need[side], room)
    colorbars = []
    for trace in traces:
        if trace.get("showscale") is False or trace.get("type") not in ("heatmap", "contour", "histogram2d"):
            continue
        if trace.get("coloraxis"):
            continue
        z = _values(trace.get("z"))
        lo = trace.get("zmin") if trace.get("zmin") is not None else (np.nanmin(z) if z is not None else 0.0)
        hi = trace.get("zmax") if trace.get("zmax") is not None else (np.nanmax(z) if z is not None else 1.0)
        colorbars.append(_colorbar_width(trace.get("colorbar") or {}, float(lo), float(hi)))
    for name in [k for k in layout if k.startswith("coloraxis")]:
        spec = layout[name] or {}
        if spec.get("showscale") is False:
            continue
        if any(t.get("coloraxis") == name for t in traces):
            colorbars.append(
                _colorbar_width(
                    spec.get("colorbar") or {}, float(spec.get("cmin", 0) or 0), float(spec.get("cmax", 1) or 1)
                )
            )
    if colorbars:
        need["r"] = max(need["r"], max(colorbars) + _PAD)
    named = [t for t in traces if t.get("name") and t.get("showlegend", True) is not False]
    if layout.get("showlegend", len(named) > 1) and named:
        legend = layout.get("legend") or {}
        font = _font(legend, (layout.get("font") or {}).get("size") or _TICK_FONT)  # presenter mode: 17
        widths = [text_width(t["name"], font) + 52 for t in named]
        if legend.get("orientation") == "h":
            rows = max(1, int(np.ceil(sum(widths) / 900)))
            box = rows * 1.6 * font + 14 + _PAD
            y = float(legend.get("y", 1))
            if y < 0:  # below the plot, |y| of the plot's height down: b = |y| (H - t - b) + box, solved for b
                plot = float(layout.get("height") or 450) - need["t"]
                need["b"] = max(need["b"], (-y * plot + box) / (1 - y))
            elif y > 1:
                need["t"] = max(need["t"], box)
        else:
            need["r"] = max(need["r"], max(widths) + 10 + _PAD)
    fig.layout.margin = {**margin, **{side: int(np.ceil(value)) for side, value in need.items()}}
    return fig
