"""Grids of Plotly panels built as one dict: the layout ``make_subplots`` gives a grid of panels
(:func:`subplot_grid`), and one attention map per head and per sublayer (:func:`head_grid`); and the same grids on a
phone, one panel a row (:func:`stack_panels`, :data:`NARROW`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from lessons.common.charts import attention_coloraxis, figure, hover_pairs, safe_label
from lessons.common.margins import colorbar_height, shown_colour_bars

# Whether the figures built now are for a phone's screen: the UI layer sets it from what the student's browser says
# (``ui.style.narrow_screen``); :func:`head_grid` then draws PHONE_HEADS maps a row.
NARROW: ContextVar[bool] = ContextVar("lessons.common.grids.narrow", default=False)
PHONE_HEADS = 2


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
    first_head: int = 1  # the number of its first map's head (a phone's row holds some of a sublayer's heads)


def _phone_rows(rows: Sequence[GridRow]) -> list[GridRow]:
    """Each sublayer's heads PHONE_HEADS to a row, numbered as in the sublayer."""
    out = []
    for row in rows:
        for a in range(0, int(row.weights.shape[0]), PHONE_HEADS):
            out.append(GridRow(row.title, row.weights[a : a + PHONE_HEADS], row.x_labels, row.y_labels, a + 1))
    return out


def head_grid(
    rows: Sequence[GridRow], *, title: str = "", value_name: str = "α", row_height: int | None = None
) -> go.Figure:
    """One map per head (columns) and per sublayer (rows), one 0–1 colour scale, the exact value on hover.

    The heads of one sublayer share one pair of axes, side by side with a few blank columns between them, and
    the x tick labels (while the heads fit) are drawn under the first map of each row only: every head of a row
    reads the same tokens. Plotly.js draws each axis and each label: the trained model's grid of 24 heads, with
    48 axes and labels under every map, took 0.55 s to draw in Chromium (toy-translation) and 0.84 s (dates,
    500 turned labels); now 0.24 and 0.28 s. Still one heatmap trace per head (its own numbers in the downloads).
    The figure is built from one dict: ``make_subplots`` took seconds for 24 maps. For a phone (:data:`NARROW`),
    PHONE_HEADS maps a row, each row's heads numbered as in its sublayer.
    """
    if NARROW.get():
        rows = _phone_rows(rows)
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
        before = rows[i - 1] if i else None  # "head j" over the first row of each count and numbering
        new_heads = before is None or (int(before.weights.shape[0]), before.first_head) != (h, row.first_head)
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
                    "hovertemplate": f"{safe_label(row.title, 60)} · head {row.first_head + j}<br>%{{customdata}}"
                    f"<br>{value_name} = %{{z:.3f}}<extra></extra>",
                    # what a download and the chart in words call this map and its cells: the axes name the first
                    # map's columns only (the others sit further along x), so every map carries its own
                    "name": f"{safe_label(row.title, 60)} · head {row.first_head + j}",
                    "showlegend": False,  # a named map would take a legend's room beside the grid
                    "meta": {"rows": ys, "columns": xs},
                }
            )
            if new_heads:
                annotations.append(
                    {
                        "text": f"head {row.first_head + j}",
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


# --- Any grid of panels on a phone: one panel a row ---------------------------------------------------------------
PANEL_GAP_PX = 24  # between two stacked panels, beside the labels' room: a margin, and a line per title line
TITLE_LINE_PX = 17
TICK_PX = 7  # the width of one character of a tick label (12 px font), for the room turned labels need
TICK_LINE_PX = 20  # a tick label's height (12 px font) and a little air: turned labels closer get a smaller font
SMALL_TICK_FONT = 10
SMALL_TICK_LINE_PX = 14  # the same at SMALL_TICK_FONT: turned labels closer than this, every k-th one only
PHONE_CHART_PX = 358  # a chart's width on a 390 px phone (the page's padding), before its margins


def stack_panels(fig: go.Figure) -> bool:
    """Redraw a figure whose panels sit side by side (``make_subplots``, :func:`subplot_grid`, axes with their own
    domains) one panel a row, in reading order, each the figure's full width and as tall as it was, so a phone
    shows every panel at a readable size. Each panel's title (an annotation above it, in paper coordinates) and a
    colour bar of its own move with it. Returns whether anything moved (False for a single panel, or panels
    already one a row)."""
    layout = fig.layout
    panels = []
    for name in [n for n in layout.to_plotly_json() if re.fullmatch(r"xaxis\d*", n)]:
        x = layout[name]
        if x.domain is None or x.overlaying or not (x.anchor or "").startswith("y"):
            continue
        y = layout["yaxis" + x.anchor[1:]]
        if y.domain is None:
            continue
        panels.append((name, "yaxis" + x.anchor[1:], tuple(x.domain), tuple(y.domain)))
    tops = [round(p[3][1], 3) for p in panels]
    if not panels or max(tops.count(t) for t in tops) < 2:
        return False
    panels.sort(key=lambda p: (-p[3][1], p[2][0]))
    margin_t = layout.margin.t if layout.margin.t is not None else 100
    margin_b = layout.margin.b if layout.margin.b is not None else 80
    plot_px = (layout.height or 450) - margin_t - margin_b
    heights = [max(120.0, (p[3][1] - p[3][0]) * plot_px) for p in panels]
    for _, y_name, _, _ in panels:  # panels that shared the row's y labels each show them now
        if layout[y_name].showticklabels is False and not layout[y_name].title.text:
            layout[y_name].showticklabels = None
    lines = [_title_lines(layout, x_dom, y_dom) for _, _, x_dom, y_dom in panels]
    gaps = [PANEL_GAP_PX + TITLE_LINE_PX * lines[i + 1] + _tick_room(fig, p[0]) for i, p in enumerate(panels[:-1])]
    first = panels[0]
    if layout.title.text and any(_titles(n, first[2], first[3]) for n in layout.annotations):
        margin_t += TITLE_LINE_PX * lines[0]  # the first panel's title, under the figure's own
        layout.margin.t = margin_t
    total = sum(heights) + sum(gaps)
    top = 1.0
    annotations = list(layout.annotations)
    for i, (x_name, y_name, x_dom, y_dom) in enumerate(panels):
        new = (max(0.0, top - heights[i] / total), top)
        for note in annotations:  # the panel's title: centred over it, at its top
            if _titles(note, x_dom, y_dom):
                note.x, note.y = 0.5, new[1]
        for trace in fig.data:  # a colour bar of the panel's own, beside it
            if _on(trace, x_name) and getattr(trace, "colorbar", None) is not None and trace.colorbar.x is not None:
                trace.colorbar.update(x=1.02, xanchor="left", y=sum(new) / 2, yanchor="middle", len=new[1] - new[0])
        layout[x_name].domain = (0.0, 1.0)
        layout[y_name].domain = new
        top = new[0] - (gaps[i] / total if i < len(gaps) else 0)
    layout.annotations = annotations
    layout.width = None
    layout.height = int(total + margin_t + margin_b)
    return True


def _title_lines(layout, x_dom, y_dom) -> int:
    """How many lines the panel's title takes (1 without a title: the room between panels)."""
    return 1 + max(((n.text or "").count("<br>") for n in layout.annotations if _titles(n, x_dom, y_dom)), default=0)


def _titles(note, x_dom, y_dom) -> bool:
    """Whether an annotation is a panel's title: in paper coordinates, over the panel's width, at its top."""
    if (note.xref, note.yref) != ("paper", "paper") or note.x is None or note.y is None:
        return False
    return x_dom[0] - 1e-6 <= note.x <= x_dom[1] + 1e-6 and abs(note.y - y_dom[1]) < 0.02


def _on(trace, x_name: str) -> bool:
    """Whether ``trace`` is drawn on the x axis named ``x_name`` ("xaxis", "xaxis2", …)."""
    return (getattr(trace, "xaxis", None) or "x") == "x" + x_name[5:]


def _distinct(values) -> list:
    """The values an axis shows: each once, in order, without the gaps (None) between a line trace's segments."""
    return list(dict.fromkeys(v for v in values if v is not None))


def _tick_room(fig: go.Figure, x_name: str) -> float:
    """Pixels under a panel for its x tick labels (turned ones need their length's share) and its axis title."""
    axis = fig.layout[x_name]
    if axis.showticklabels is False:
        return 0.0
    labels = list(axis.ticktext or [])
    for trace in fig.data:
        if not labels and _on(trace, x_name) and getattr(trace, "x", None) is not None:
            labels = _distinct(trace.x)
    if axis.ticktext is None and all(isinstance(v, (int, float, np.number)) for v in labels):
        longest = 3  # numbers: Plotly spaces them
    else:
        longest = max((len(str(v)) for v in labels), default=3)
    room = 22 + TICK_PX * longest  # on a phone, words may stand upright (phone_ticks)
    return min(160.0, room) + (20 if axis.title and axis.title.text else 0)


def phone_ticks(fig: go.Figure) -> None:
    """x tick labels that fit a phone's width (the figure's margins fitted first): turned upright where side by side
    they would overlap, in a smaller font where they stand close, and where even so they would overlap, every k-th
    label only (the others stay on hover). A numeric axis with a fixed step too fine for the width gets Plotly's own
    spacing instead."""
    layout = fig.layout
    names = {"xaxis", *(n for n in layout.to_plotly_json() if re.fullmatch(r"xaxis\d*", n))}
    for name in sorted(names):
        axis = layout[name]
        if axis.showticklabels is False:
            continue
        on = [t for t in fig.data if _on(t, name) and getattr(t, "x", None) is not None]
        values = _distinct(axis.tickvals if axis.tickvals is not None else [v for t in on[:1] for v in t.x])
        labels = [str(v) for v in (axis.ticktext if axis.ticktext is not None else values)]
        if len(labels) < 2:
            continue
        domain = axis.domain or (0.0, 1.0)
        y = layout["yaxis" + (axis.anchor or "y")[1:]]
        per = (domain[1] - domain[0]) * _plot_px(fig) / len(labels)  # pixels between two labels
        numbers = sorted(v for v in values if isinstance(v, (int, float, np.number)))
        if axis.range is not None and len(numbers) == len(values):  # labels placed in a set range (maps side by side)
            step = min((b - a for a, b in zip(numbers, numbers[1:], strict=False) if b > a), default=0)
            if step and axis.range[1] != axis.range[0]:
                per = (domain[1] - domain[0]) * _plot_px(fig) * step / abs(axis.range[1] - axis.range[0])
        if y.scaleanchor or axis.scaleanchor:  # square cells: as wide as the rows are tall
            margin = (layout.margin.t or 100) + (layout.margin.b or 80)
            rows = max((len(t.y) for t in on if getattr(t, "y", None) is not None), default=len(labels))
            per = min(
                per, ((layout.height or 450) - margin) * ((y.domain or (0.0, 1.0))[1] - (y.domain or (0, 1))[0]) / rows
            )
        if axis.ticktext is None and all(isinstance(v, (int, float, np.number)) for v in values):
            if axis.dtick is not None and per * len(labels) / (len(labels) + 1) < TICK_PX * 3:
                axis.dtick = None  # a numeric axis with a fixed step too fine for the width: Plotly spaces it
            continue  # a numeric axis: Plotly spaces its numbers
        if TICK_PX * max(len(x) for x in labels) <= per:
            continue  # level labels fit
        axis.tickangle = -90  # upright: the closest turned labels can stand
        if per < TICK_LINE_PX:
            axis.tickfont.size = SMALL_TICK_FONT
        every = math.ceil(SMALL_TICK_LINE_PX / per)
        if every > 1:
            axis.update(tickmode="array", tickvals=values[::every], ticktext=labels[::every])


def phone_colorbar(fig: go.Figure) -> bool:
    """A chart's one colour bar laid across under it on a phone, not beside it: beside it, the bar, its numbers and
    its title took a third of a phone's width from the map (``lessons.common.margins.fit_margins`` gives it room
    under the chart). A figure of several bars, or one its builder placed, keeps them. Returns whether it moved."""
    layout = fig.layout
    shown = shown_colour_bars([t.to_plotly_json() for t in fig.data], layout.to_plotly_json())
    if len(shown) != 1:
        return False
    bar = fig.data[shown[0]].colorbar if isinstance(shown[0], int) else layout[shown[0]].colorbar
    if bar.x is not None or bar.orientation == "h":
        return False
    bar.update(orientation="h", x=0.5, xanchor="center", y=0, yref="container", yanchor="bottom")
    layout.height = int((layout.height or 450) + colorbar_height(bar.to_plotly_json()))  # the map keeps its height
    return True


CELL_TEXT_PX = 28  # a heatmap cell narrower than this on a phone: its number ("0.42") would be drawn under 9 px


def phone_cell_text(fig: go.Figure) -> None:
    """No numbers in a heatmap's cells where a phone draws them too narrow to read (Plotly shrinks the text to its
    cell): the colours, the hover and the values table under the chart still give every number."""
    layout = fig.layout
    for trace in fig.data:
        if trace.type != "heatmap" or trace.z is None or (trace.texttemplate is None and trace.text is None):
            continue
        x_axis = layout["xaxis" + (trace.xaxis or "x")[1:]]
        share = (x_axis.domain[1] - x_axis.domain[0]) if x_axis is not None and x_axis.domain else 1.0
        columns = max(1, np.atleast_2d(np.asarray(trace.z, dtype=float)).shape[1])
        if share * _plot_px(fig) / columns < CELL_TEXT_PX:
            trace.update(text=None, texttemplate=None)


def _plot_px(fig: go.Figure) -> float:
    """The plotting width a chart keeps on a phone: the chart's width less its margins (fitted to its labels, its
    colour bar and its legend by :func:`lessons.common.margins.fit_margins` before this is read)."""
    margin = fig.layout.margin
    return max(40.0, PHONE_CHART_PX - (margin.l or 0) - (margin.r or 0))
