"""Downloads and text alternatives of what a lesson draws: a heatmap's numbers as CSV and JSON, as a sentence
(its strongest cells) and as a table; a training replay as an animated GIF.

The numbers are read back from the Plotly figure the page shows, so a download is exactly what is on screen,
labelled with the figure's own tick labels (the tokens, as :func:`lessons.common.charts.safe_label` shows them:
control characters as �, cut at 24 characters, here un-escaped back to plain text). CSV cells that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@`` first) are quoted with a leading ``'``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from PIL import Image, ImageDraw
from plotly.colors import sample_colorscale, unlabel_rgb

from lessons.common.colorscales import SEQUENTIAL_COLORSCALE
from lessons.common.spreadsheet import as_text

GIF_MAX_SIDE = 480  # pixels: the longer side of a replay frame's map
GIF_BAND = 28  # pixels: the caption band above each frame


@dataclass(frozen=True)
class Table:
    """One heatmap's numbers: ``values[i][j]`` is the cell of row ``rows[i]`` and column ``columns[j]``."""

    name: str
    rows: list[str]
    columns: list[str]
    values: np.ndarray


def _axis_labels(axis, positions, count: int, fallback: str, own=None) -> list[str]:
    """Labels of a heatmap's rows or columns: ``own`` when the trace names its cells itself (one label each: a map
    of :func:`lessons.common.grids.head_grid`), else the axis' tick text where it names a position, else its value:
    a name as it is ("D = 64"), a number under the axis' title ("length 2")."""
    if own is not None and len(own) == count:
        return [html.unescape(str(t)) for t in own]
    positions = list(range(count)) if positions is None else list(positions)
    ticks = {}
    if axis is not None and axis.tickvals is not None and axis.ticktext is not None:
        ticks = {v: html.unescape(str(t)) for v, t in zip(axis.tickvals, axis.ticktext, strict=False)}
    title = (axis.title.text if axis is not None and axis.title is not None else None) or fallback
    return [ticks.get(p, html.unescape(p) if isinstance(p, str) else f"{title} {p}") for p in positions]


def unique(labels: Sequence[str]) -> list[str]:
    """``labels`` with each repeat numbered by its count so far ("the", "the (2)")."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def heatmap_tables(fig) -> list[Table]:
    """Every heatmap trace of a Plotly figure, with its row and column labels."""
    tables = []
    title = html.unescape(fig.layout.title.text or "") if fig.layout.title is not None else ""
    heatmaps = [t for t in fig.data if t.type == "heatmap" and t.z is not None]
    panels = _panel_titles(fig)
    for n, trace in enumerate(heatmaps):
        z = np.asarray(trace.z, dtype=float)
        if z.ndim == 1:
            z = z[None]
        xaxis = fig.layout["xaxis" + (trace.xaxis or "x")[1:]]
        yaxis = fig.layout["yaxis" + (trace.yaxis or "y")[1:]]
        name = trace.name or panels.get((trace.xaxis or "x", trace.yaxis or "y"))
        if not name:
            name = title or "heatmap"
            if len(heatmaps) > 1:
                name = f"{name} ({n + 1})"
        own = trace.meta if isinstance(trace.meta, dict) else {}
        tables.append(
            Table(
                name=html.unescape(name),
                rows=_axis_labels(yaxis, trace.y, z.shape[0], "row", own.get("rows")),
                columns=_axis_labels(xaxis, trace.x, z.shape[1], "column", own.get("columns")),
                values=z,
            )
        )
    names = unique([t.name for t in tables])  # two panels of one title are told apart
    return [replace(t, name=name) for t, name in zip(tables, names, strict=True)]


def _panel_titles(fig) -> dict[tuple[str, str], str]:
    """Each panel's own title by its axes (``("x2", "y2")``): the text centred over the panel at the top of its
    plotting area, where ``make_subplots`` writes a subplot's title. A heatmap of several panels is named by them
    ("English", "French-like"), not by its place in the figure ("(3)"), which a reader cannot see to count."""
    found = {}
    for key in fig.layout:
        if not key.startswith("xaxis"):
            continue
        x = key[5:]
        xaxis, yaxis = fig.layout[key], fig.layout["yaxis" + x] if f"yaxis{x}" in fig.layout else None
        if yaxis is None or xaxis.domain is None or yaxis.domain is None:
            continue
        middle, top = sum(xaxis.domain) / 2, yaxis.domain[1]
        for note in fig.layout.annotations or ():
            placed = note.xref == "paper" and note.yref == "paper" and note.x is not None and note.y is not None
            if placed and abs(note.x - middle) < 1e-6 and abs(note.y - top) < 1e-6 and note.text:
                found[("x" + x, "y" + x)] = html.unescape(LINE_BREAK.sub(" ", note.text))
    return found


LINE_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)  # Plotly's line break in a title


def describe(tables: Sequence[Table], strongest: int = 3) -> str:
    """A heatmap's text alternative: its strongest cells as one sentence per table ("row → column (value)"); in a
    map with negative values, the strongest are the largest in size, whatever their sign.

    For a student who cannot see the colours (a screen reader, a colour-blind reader, a washed-out projector);
    the values themselves are in :func:`tables_to_csv`. Labels are the figure's own (escaped by the caller's
    renderer: the sentence is plain text)."""
    sentences = []
    for table in tables:
        finite = np.isfinite(table.values)
        values = np.where(finite, table.values, -np.inf)
        if values.size == 0 or not finite.any():
            continue
        signed = bool((table.values[finite] < 0).any())  # a signed map: its strongest cells are the largest |value|
        order = np.argsort(np.where(finite, np.abs(table.values), -np.inf) if signed else values, axis=None)
        order = order[::-1][:strongest]
        cells = [np.unravel_index(i, values.shape) for i in order if np.isfinite(values.flat[i])]
        links = ", ".join(f"{table.rows[r]} → {table.columns[c]} ({values[r, c]:.2f})" for r, c in cells)
        name = LINE_BREAK.sub(" · ", table.name)  # a two-line Plotly title reads as one line of words
        sentences.append(f"{name}: {values.shape[0]} rows × {values.shape[1]} columns; strongest {links}.")
    return " ".join(sentences)


def values_frame(tables):
    """A figure's heatmaps as one table: one heatmap as its matrix (row tokens down, column tokens across); several,
    one row per cell (map, row, column, value). A repeated token ("the … the") keeps one column each."""

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


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def to_csv(table: Table) -> str:
    """The column labels across the first row, each row's label first; NaN cells empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([""] + [as_text(c) for c in table.columns])
    for label, row in zip(table.rows, table.values, strict=True):
        writer.writerow([as_text(label)] + ["" if not math.isfinite(v) else repr(float(v)) for v in row])
    return out.getvalue()


def to_json(table: Table) -> str:
    """``{"name", "rows", "columns", "values"}``; NaN cells as null."""
    values = [[_number(v) for v in row] for row in table.values]
    doc = {"name": table.name, "rows": table.rows, "columns": table.columns, "values": values}
    return json.dumps(doc, ensure_ascii=False)


def tables_to_csv(tables: Sequence[Table]) -> str:
    """One table: :func:`to_csv`. Several: each under a line with its name, a blank line between them."""
    if len(tables) == 1:
        return to_csv(tables[0])
    parts = []
    for table in tables:
        title = io.StringIO()
        csv.writer(title, lineterminator="\n").writerow([as_text(table.name)])
        parts.append(title.getvalue() + to_csv(table))
    return "\n".join(parts)


def tables_to_json(tables: Sequence[Table]) -> str:
    """One table: :func:`to_json`'s object. Several: a list of them."""
    docs = [json.loads(to_json(t)) for t in tables]
    return json.dumps(docs[0] if len(docs) == 1 else docs, ensure_ascii=False)


def file_stem(text: str) -> str:
    """A safe file name from a figure key or title: letters, digits, dots and dashes only."""
    stem = re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-.")
    return stem[:60] or "figure"


# --- Training replay as an animated GIF ---------------------------------------------------------------------


def _palette(colorscale) -> list[int]:
    """256 RGB colours sampled from a Plotly colour scale (``[[position, colour], …]``), flattened for
    ``Image.putpalette``."""

    colours = sample_colorscale(colorscale, [i / 255 for i in range(256)], colortype="rgb")
    return [int(round(c)) for colour in colours for c in unlabel_rgb(colour)]


def replay_gif(
    frames: Sequence[np.ndarray],
    captions: Sequence[str],
    *,
    zmax: float = 1.0,
    ms_per_frame: int = 250,
    colorscale=None,
) -> bytes:
    """An animated GIF of attention maps (values in [0, zmax]), one frame per training report.

    Each map is coloured with the lessons' heatmap scale (``colorscale``, by default
    :data:`lessons.common.colorscales.SEQUENTIAL_COLORSCALE`) and scaled up with square cells (nearest
    neighbour, so a cell stays a cell); ``captions[k]`` is written above frame k. The last frame is held
    three times as long so the final alignment can be read.
    """

    if not frames or len(frames) != len(captions):
        raise ValueError("replay_gif needs one caption per frame and at least one frame")
    rows = max(np.asarray(f).shape[0] for f in frames)
    cols = max(np.asarray(f).shape[1] for f in frames)
    cell = max(4, GIF_MAX_SIDE // max(rows, cols))

    palette = _palette(SEQUENTIAL_COLORSCALE if colorscale is None else colorscale)
    images = []
    for matrix, caption in zip(frames, captions, strict=True):
        z = np.nan_to_num(np.asarray(matrix, dtype=float), nan=0.0)
        padded = np.zeros((rows, cols))
        padded[: z.shape[0], : z.shape[1]] = z
        indices = np.clip(np.round(padded / (zmax or 1.0) * 255), 0, 255).astype(np.uint8)
        cells = Image.fromarray(indices, mode="P")
        cells.putpalette(palette)
        cells = cells.resize((cols * cell, rows * cell), Image.Resampling.NEAREST).convert("RGB")
        frame = Image.new("RGB", (cells.width, cells.height + GIF_BAND), "white")
        frame.paste(cells, (0, GIF_BAND))
        ImageDraw.Draw(frame).text((6, 8), caption, fill="black")
        images.append(frame.convert("P", palette=Image.Palette.ADAPTIVE))
    durations = [ms_per_frame] * (len(images) - 1) + [ms_per_frame * 3]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    return out.getvalue()
