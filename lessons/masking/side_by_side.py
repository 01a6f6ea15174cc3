"""Maps of the same tokens side by side in one figure: the padding mask off and on (section 1), a decoder with the
causal mask and one without (section 2).

Letters: a map has one row per query (attending) and one column per key (attended to).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_coloraxis, figure, hover_pairs, safe_label
from lessons.common.grids import NARROW

TITLE_ROWS = 2  # on a phone, the rows' worth of room above each map for its title


def pair_figure(
    maps: Sequence[tuple[str, np.ndarray | torch.Tensor]],
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    value_name: str = "weight",
) -> go.Figure:
    """Maps of the same tokens side by side (the mask off and on, a decoder with and without it), each titled
    (a title's first ": " starts its second line), on one pair of axes with one 0–1 colour scale and the exact
    value on hover.

    One figure with one pair of axes, not one figure per map: the browser draws every changed Plotly figure
    from scratch, so two figures cost two full draws on every move of a control (80–90 ms more each).
    Each map is its own heatmap trace, named by its title (the downloads and the tests read it). On a phone
    (:data:`lessons.common.grids.NARROW`) the maps stand one under the other, on the same pair of axes, each its
    title above it.
    """
    xs = [safe_label(t) for t in x_labels]
    ys = [safe_label(t) for t in y_labels]
    down = NARROW.get()
    blank = 0 if down else max(1, round(0.18 * len(xs)))  # columns between two maps
    step = len(xs) + blank  # map k starts at x = k · step
    rows = len(ys) + TITLE_ROWS if down else 0  # on a phone, map k starts at y = k · rows
    across = range(1 if down else len(maps))  # the maps whose columns the x axis labels
    custom = hover_pairs(ys, xs)
    cell_text = len(xs) * len(ys) <= 10 * 10  # as charts.attention_heatmap: numbers in the cells of small maps
    data, annotations = [], []
    for k, (title, weights) in enumerate(maps):
        z = np.asarray(weights, dtype=float)
        if z.shape != (len(ys), len(xs)):
            raise ValueError(f"map {title!r} of shape {z.shape} does not match {len(ys)} × {len(xs)} labels")
        trace = {
            "type": "heatmap",
            "z": z,
            "x": [(0 if down else k * step) + c for c in range(len(xs))],
            "y": [k * rows + r for r in range(len(ys))],
            "name": safe_label(title, 80),
            "showlegend": False,
            "customdata": custom,
            "coloraxis": "coloraxis",
            "xgap": 1,
            "ygap": 1,
            "hovertemplate": f"{safe_label(title, 80)}<br>%{{customdata}}<br>{value_name} = %{{z:.4f}}<extra></extra>",
        }
        if cell_text:
            trace |= {"text": np.char.mod("%.2f", z), "texttemplate": "%{text}"}
        data.append(trace)
        annotations.append(
            {
                "text": safe_label(title, 80).replace(": ", ":<br>", 1),
                "x": (0 if down else k * step) + (len(xs) - 1) / 2,
                "y": k * rows - 0.5 if down else 1,
                "xref": "x",
                "yref": "y" if down else "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
    layout = {
        "annotations": annotations,
        "coloraxis": attention_coloraxis(value_name, thickness=14),
        "height": max(300, 28 * (len(ys) + (len(maps) - 1) * rows) + 130),
        "margin": {"l": 10, "r": 10, "t": 60 if any(": " in title for title, _ in maps) else 40, "b": 10},
        "xaxis": {
            "title": {"text": "key (attended to)"},
            "tickmode": "array",
            "tickvals": [k * step + c for k in across for c in range(len(xs))],
            "ticktext": xs * len(across),
            "tickangle": -45 if len(xs) > 6 else 0,
            "range": [-0.5, len(across) * step - blank - 0.5],
            "showgrid": False,
            "zeroline": False,
        },
        "yaxis": {
            "title": {"text": "query (attending)"},
            "tickmode": "array",
            "tickvals": [k * rows + r for k in range(len(maps) if down else 1) for r in range(len(ys))],
            "ticktext": ys * (len(maps) if down else 1),
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        },
    }
    return figure(data, layout)
