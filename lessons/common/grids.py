"""Grids of Plotly panels built as one dict: the layout ``make_subplots`` gives a grid of panels
(:func:`subplot_grid`), and one attention map per head and per sublayer (:func:`head_grid`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from lessons.common.charts import attention_coloraxis, figure, hover_pairs, safe_label


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
