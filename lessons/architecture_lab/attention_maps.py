"""Attention maps as the lab draws them, in sections 1, 2 and 3: every attention layer of a chain model on the
task's probe sentence, heads averaged in one grid of heatmaps on one colour scale (:func:`attention_figure`), or each
head of each layer in a map of its own (:func:`heads_figure`): an average can hide heads that each look at one place.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from lessons.common.charts import attention_coloraxis, figure, hover_pairs, safe_label, wrapped_title
from lessons.common.grids import GridRow, head_grid, panel_axis, subplot_grid
from minimodels.tasks import Task
from minimodels.tokenizers import EOS_ID

MAX_MAPS = 12  # attention maps drawn at most (a chain may hold up to 64 attention layers)


@dataclass(frozen=True)
class MapView:
    """One attention layer's map on one sentence, heads averaged: rows attend to columns."""

    name: str  # "encoder.0.self", "decoder.1.cross", …
    weights: np.ndarray  # (rows, columns), heads averaged
    heads: int
    row_tokens: tuple[str, ...]
    column_tokens: tuple[str, ...]
    per_head: np.ndarray | None = None  # (heads, rows, columns): each head's own map

    @property
    def layer(self) -> str:
        """Which layer it is: "encoder self-att 1", "decoder source att 2"."""
        side, index, kind = self.name.split(".")
        what = "self-att" if kind == "self" else "source att"
        return f"{side} {what} {int(index) + 1}"

    @property
    def title(self) -> str:
        heads = f"{self.heads} heads averaged" if self.heads > 1 else "1 head"
        return f"{self.layer} · {heads}"


def map_views(maps: Mapping[str, np.ndarray], source_tokens: Sequence[str], target_tokens: Sequence[str]):
    """Every map of one sentence (batch axis removed, ``(h, rows, columns)``), labelled by what it reads."""
    views = []
    for name, m in maps.items():
        m = np.asarray(m, dtype=float)
        per_head = m if m.ndim == 3 else m[None]
        rows = source_tokens if name.startswith("encoder") else target_tokens
        columns = target_tokens if name.endswith(".self") and name.startswith("decoder") else source_tokens
        views.append(MapView(name, per_head.mean(axis=0), per_head.shape[0], tuple(rows), tuple(columns), per_head))
    return views  # in the order the model computed them: the encoder's layers, then the decoder's


def _shown_token(token: str) -> str:
    return "␣" if token == " " else token


def attention_figure(views: Sequence[MapView], *, caption: str = "", columns: int = 3) -> go.Figure:
    """Every attention layer's map in a grid, one colour scale 0–1, the exact weight on hover."""
    if not views:
        raise ValueError("no attention maps to draw")
    views = list(views)[:MAX_MAPS]
    cols = min(columns, len(views))
    rows = math.ceil(len(views) / cols)
    layout = subplot_grid(
        rows,
        cols,
        titles=[html.escape(v.title) for v in views],
        horizontal_spacing=0.06,
        vertical_spacing=0.5 / rows if rows > 1 else 0.1,
        title_size=12,
    )
    traces = []
    for i, view in enumerate(views):
        xs = [safe_label(_shown_token(t)) for t in view.column_tokens]
        ys = [safe_label(_shown_token(t)) for t in view.row_tokens]
        if view.weights.shape != (len(ys), len(xs)):
            raise ValueError(f"{view.name}: map of shape {view.weights.shape} does not match {len(ys)} × {len(xs)}")
        n = panel_axis(i // cols, i % cols, cols)
        traces.append(
            {
                "type": "heatmap",
                "z": view.weights,
                "x": list(range(len(xs))),
                "y": list(range(len(ys))),
                "customdata": hover_pairs(ys, xs),
                "coloraxis": "coloraxis",
                "xgap": 1,
                "ygap": 1,
                "hovertemplate": "%{customdata}<br>α = %{z:.4f}<extra>" + view.name + "</extra>",
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
            }
        )
        layout[f"xaxis{n}"] |= {"tickmode": "array", "tickvals": list(range(len(xs))), "ticktext": xs, "tickangle": 0}
        layout[f"yaxis{n}"] |= {
            "tickmode": "array",
            "tickvals": list(range(len(ys))),
            "ticktext": ys,
            "autorange": "reversed",
        }
    title, lines = wrapped_title(caption)  # in lines that fit a phone
    layout |= {
        "height": 60 + 300 * rows + 18 * (lines - 1),
        "margin": {"l": 10, "r": 10, "t": 42 + 18 * lines if caption else 40, "b": 10},
        "title": {"text": title, "font": {"size": 14}} if caption else None,
        "coloraxis": attention_coloraxis(),
    }
    return figure(traces, layout)


HEAD_CHOICES = ("heads averaged", "each head")


def most_heads(views: Sequence[MapView]) -> int:
    """The most heads any of the maps has (1: a choice between averaged and each head would change nothing)."""
    return max((v.heads for v in views), default=1)


def heads_figure(views: Sequence[MapView]) -> go.Figure:
    """Each head of every attention layer (the first :data:`MAX_MAPS` layers) in a map of its own, a layer a row
    (:func:`lessons.common.grids.head_grid`: on a phone, two heads a row), one colour scale 0–1. No title: the
    page says under it what the maps are (a title on one line would run past a phone's edge)."""
    if not views:
        raise ValueError("no attention maps to draw")
    rows = []
    for view in list(views)[:MAX_MAPS]:
        per_head = view.per_head if view.per_head is not None else view.weights[None]
        xs = [_shown_token(t) for t in view.column_tokens]
        ys = [_shown_token(t) for t in view.row_tokens]
        if per_head.shape[1:] != (len(ys), len(xs)):
            raise ValueError(f"{view.name}: maps of shape {per_head.shape[1:]} do not match {len(ys)} × {len(xs)}")
        rows.append(GridRow(view.layer, per_head, xs, ys))
    return head_grid(rows)


def probe_tokens(task: Task) -> tuple[list[str], list[str]]:
    """The task's fixed probe sentence as token labels: source and target, each with its EOS."""
    example = task.probe or task.valid[0]
    src, tgt = task.source_tokenizer, task.target_tokenizer
    source = [*src.pieces(example.source), src.id_to_piece(EOS_ID)]
    return source, [*tgt.pieces(example.target), tgt.id_to_piece(EOS_ID)]
