"""Words beside a scatter's points that never cover one another: each label takes the first place around its point
(above, below, right, left, then the corners) where its box is clear of every label placed before it and of every
point, inside the plot; a label with no such place is left off the point (its word stays in the point's hover).

Plotly draws a trace's text at one position for every point ("top center"), so labels of points close together
lie on top of each other: on a phone the word map of the queries-keys-values lesson, the Transformer's beam and the
turned RoPE pairs were unreadable that way (tests/browser/test_phone.py measures every chart's text boxes). The
boxes are estimated in pixels from the figure's height and margins and the width it is drawn at, and the axes get
the ranges the estimate assumed (Plotly's own autorange pads by amounts it does not publish).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lessons.common.margins import text_width

# Where a label may go, in the order tried: the figure's own choice first, then these.
PLACES = (
    "top center",
    "bottom center",
    "middle right",
    "middle left",
    "top right",
    "top left",
    "bottom right",
    "bottom left",
)
DESKTOP_CHART_PX = 600  # the narrowest a chart is drawn on a screen wider than a phone's (the app's wide layout)
DEFAULT_FONT_PX = 12  # Streamlit's Plotly theme
DEFAULT_MARKER_PX = 6  # Plotly's marker size
PAD_FRACTION = 0.06  # of the data's span, each side, when an axis has no range of its own
AIR_PX = 1.0  # kept clear around every box


def _box(x: float, y: float, place: str, width: float, font: float, radius: float) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom; pixels, y down) of a one-line label of ``width`` at the point (x, y),
    where Plotly.js puts it: beyond the marker (``radius`` / 0.8 + 1 from its centre), the baseline 0.75 of the
    font under the anchor, the glyphs 0.95 of the font above the baseline and 0.25 under it."""
    v, h = place.split()
    offset = radius / 0.8 + 1 if radius else 0.0
    sign_v = {"top": -1, "middle": 0, "bottom": 1}[v]
    baseline = y + font * 0.75 + sign_v * offset + (sign_v - 1) * font / 2
    left = {"left": x - offset - width, "center": x - width / 2, "right": x + offset}[h]
    return left, baseline - 0.95 * font, left + width, baseline + 0.25 * font


def _clear(box, others) -> bool:
    left, top, right, bottom = box
    return all(
        right + AIR_PX <= o[0] or o[2] + AIR_PX <= left or bottom + AIR_PX <= o[1] or o[3] + AIR_PX <= top
        for o in others
    )


def _range(axis, values: np.ndarray) -> tuple[float, float]:
    """The axis's range, left (or bottom) end first: its own, else the data's padded (with zero where its range mode
    asks, reversed where its autorange is), which it then gets."""
    if axis.range is not None and len(axis.range) == 2 and None not in axis.range:
        return float(axis.range[0]), float(axis.range[1])
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    if axis.rangemode in ("tozero", "nonnegative"):
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = (hi - lo) * PAD_FRACTION or 1.0
    ends = [lo - pad, hi + pad][:: -1 if axis.autorange == "reversed" else 1]
    axis.range = ends  # the range the boxes are estimated in
    return ends[0], ends[1]


def place_point_labels(fig: go.Figure, width_px: float) -> int:
    """Give every labelled point of ``fig``'s scatter traces a place where its label covers no other label (nor,
    where it can, a point), for a figure ``width_px`` wide (its height and margins are the figure's own); a label
    with no such place is left off and its word kept in the point's hover (a trace with hover text of its own keeps
    it in the figure's place). Returns how many were left off.

    A figure of one plot (``x`` and ``y`` axes, linear) only; any other is left as it is."""
    layout = fig.layout
    traces = [  # one word a point (a trace's one text for all its points is left as it is)
        t for t in fig.data if t.type == "scatter" and "text" in (t.mode or "") and isinstance(t.text, (list, tuple))
    ]
    if not traces or any(t.type != "scatter" or (t.xaxis or "x") != "x" or (t.yaxis or "y") != "y" for t in fig.data):
        return 0
    if layout.xaxis.type in ("log", "category", "date") or layout.yaxis.type in ("log", "category", "date"):
        return 0
    margin = layout.margin
    plot_w = width_px - (margin.l or 0) - (margin.r or 0)
    plot_h = (layout.height or 450) - (margin.t or 0) - (margin.b or 0)
    if plot_w <= 40 or plot_h <= 40:
        return 0
    try:
        xs = np.concatenate([np.asarray(t.x, dtype=float) for t in fig.data if t.x is not None])
        ys = np.concatenate([np.asarray(t.y, dtype=float) for t in fig.data if t.y is not None])
    except (TypeError, ValueError):  # words on an axis (categories Plotly guesses from the values): not placed
        return 0
    (x0, x1), (y0, y1) = _range(layout.xaxis, xs), _range(layout.yaxis, ys)
    sx, sy = plot_w / (x1 - x0), plot_h / (y1 - y0)
    if layout.yaxis.scaleanchor == "x" or layout.xaxis.scaleanchor == "y":  # one scale; the roomier axis grows
        sx = sy = min(sx, sy)
        x0, y0 = (x0 + x1) / 2 - plot_w / sx / 2, (y0 + y1) / 2 - plot_h / sy / 2

    def pixels(x, y):
        return (x - x0) * sx, plot_h - (y - y0) * sy

    points = []  # every point's marker, an obstacle for every label
    for t in fig.data:
        if "markers" not in (t.mode or "") or t.x is None:
            continue
        radius = _radius(t)
        for x, y in zip(t.x, t.y, strict=True):
            if x is not None and y is not None and np.isfinite(x) and np.isfinite(y):
                px, py = pixels(x, y)
                points.append((px - radius, py - radius, px + radius, py + radius))
    placed, left_off = [], 0
    for t in traces:
        font = float(t.textfont.size or layout.font.size or DEFAULT_FONT_PX)
        radius = _radius(t) if "markers" in t.mode else 0.0
        own = t.textposition if isinstance(t.textposition, str) else PLACES[0]
        order = (own, *(p for p in PLACES if p != own))
        texts, places, shown = [str(s) for s in t.text], [], []
        can_leave_off = t.hovertext is None  # the hover keeps a left-off word: it must not hide the trace's own
        for x, y, text in zip(t.x, t.y, texts, strict=True):
            place = _place(pixels, x, y, text, font, radius, order, placed, points, plot_w, plot_h)
            places.append(place or own)
            shown.append(text if place or not text or not can_leave_off else "")
            left_off += bool(text) and place is None and can_leave_off
        if shown != texts:
            _keep_words_in_hover(t, texts)
            t.text = shown
        t.textposition = places
    return left_off


def _radius(trace) -> float:
    """A trace's markers' radius in pixels (a size for each point: Plotly's default size for all)."""
    size = trace.marker.size
    return float(size if isinstance(size, (int, float)) else DEFAULT_MARKER_PX) / 2


def _place(pixels, x, y, text, font, radius, order, placed, points, plot_w, plot_h) -> str | None:
    """The first place in ``order`` where ``text``'s box at (x, y) is inside the plot and clear of ``placed`` (the
    labels so far, to which it is added) and of the other ``points`` (if it can be; else of the labels alone)."""
    if not text or x is None or y is None or not (np.isfinite(x) and np.isfinite(y)):
        return None
    px, py = pixels(x, y)
    mine = (px - radius, py - radius, px + radius, py + radius)
    others = [p for p in points if p != mine]
    width = text_width(text, font) + 2
    for obstacles in (placed + others, placed):
        for place in order:
            box = _box(px, py, place, width, font, radius)
            if box[0] >= 0 and box[2] <= plot_w and box[1] >= 0 and box[3] <= plot_h and _clear(box, obstacles):
                placed.append(box)
                return place
    return None


def _keep_words_in_hover(trace, texts: list[str]) -> None:
    """A point whose label is left off still names its word when hovered or tapped: the hover reads the words
    from ``hovertext``."""
    trace.hovertext = texts
    if trace.hovertemplate and "%{text}" in trace.hovertemplate:
        trace.hovertemplate = trace.hovertemplate.replace("%{text}", "%{hovertext}")


def left_off_text(fig: go.Figure, left_off: int) -> str | None:
    """Under a figure some of whose labels were left off (:func:`place_point_labels`): how many, and where to read
    them; None when every label is shown."""
    if not left_off:
        return None
    words = [t.hovertext if t.hovertext is not None else t.text for t in fig.data if t.type == "scatter"]
    return left_off_sentence(left_off, sum(bool(w) for some in words if isinstance(some, (list, tuple)) for w in some))


def left_off_sentence(left_off: int, labelled: int) -> str:
    """The words under a figure that left ``left_off`` of its ``labelled`` points' labels off."""
    return (
        f"{left_off} of these {labelled} points' labels have no room beside them at this width: hover over a point "
        "or tap it to read its label."
    )
