"""Margins that fit a Plotly figure's labels, so that Plotly.js draws the figure once.

Streamlit's theme lets every axis push the figure's margins out to fit its labels ("automargin"). When a label does
not fit in the margins the figure was given, Plotly.js draws the figure, widens the margins and draws it all again:
twice the drawing time of a heatmap or a grid of curves. :func:`fit_margins` gives a figure margins estimated from
its own labels, a little generous; where a guess is short, automargin still widens them (drawn twice, as before), so
a label is never cut.
"""

from __future__ import annotations

import html
import re
import unicodedata

import numpy as np
import plotly.graph_objects as go

# Sizes in pixels, from Streamlit's Plotly theme (tick labels 12 px, axis titles 14 px, title standoff 20 (x) and
# 24 (y), margin pad 8). A colour bar keeps Plotly.js's own defaults where its builder sets none (30 px thick, 10 px
# of padding each side), as Chromium was measured to draw it beside the course's charts.
_TICK_FONT, _TITLE_FONT, _PAD = 12, 14, 8
_STANDOFF = {"x": 20, "y": 24}
_COLORBAR_GAP = 18  # 2% of a plot 900 px wide, the widest the app draws


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
    """Room right of the plot for a vertical colour bar as Plotly.js lays it out: its gap from the plot (x = 1.02,
    2% of the plot's width: :data:`_COLORBAR_GAP` at most on the app's widths), its padding on both sides (xpad),
    the bar with its tick labels, or above it the title where that is wider (its side "top", Plotly's default)."""
    tick = float((colorbar.get("tickfont") or {}).get("size") or _TICK_FONT)
    labels = colorbar.get("ticktext") or _number_labels(lo, hi)
    title = (colorbar.get("title") or {}).get("text") or ""
    side = (colorbar.get("title") or {}).get("side", "top")
    body = float(colorbar.get("thickness", 30)) + 4 + max(text_width(t, tick) for t in labels)  # bar, gap, labels
    title_font = _font(colorbar.get("title"), _TITLE_FONT)
    if side == "right":
        body += 1.3 * title_font + 6
    elif title:
        body = max(body, text_width(title, title_font))
    return _COLORBAR_GAP + 2 * float(colorbar.get("xpad", 10)) + body + 2  # the outline's two pixels


def colorbar_height(colorbar: dict) -> float:
    """Room under the chart for a colour bar laid across it (``orientation="h"``, at the chart's bottom edge): its
    padding above and below (ypad), its title above the bar, the bar and its tick labels under it."""
    tick = float((colorbar.get("tickfont") or {}).get("size") or _TICK_FONT)
    title = 1.4 * _font(colorbar.get("title"), _TITLE_FONT) if (colorbar.get("title") or {}).get("text") else 0.0
    bar = float(colorbar.get("thickness", 30)) + 4 + 1.3 * tick + 2  # the bar, a gap, its labels, the outline
    return 2 * float(colorbar.get("ypad", 10)) + title + bar + _PAD


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


def shown_colour_bars(traces: list[dict], layout: dict) -> list[int | str]:
    """Where each colour bar a figure shows is kept (``traces`` and ``layout`` as ``to_plotly_json`` gives them): a
    trace's index for a bar of its own, a colour axis's name for one its traces share."""
    own = [
        i
        for i, t in enumerate(traces)
        if t.get("type") in ("heatmap", "contour", "histogram2d")
        and t.get("showscale") is not False
        and not t.get("coloraxis")
    ]
    shared = [
        name
        for name in layout
        if name.startswith("coloraxis")
        and (layout[name] or {}).get("showscale") is not False
        and any(t.get("coloraxis") == name for t in traces)
    ]
    return own + shared


def fit_margins(fig: go.Figure) -> go.Figure:
    """Raise ``fig``'s margins to fit its tick labels, axis titles, colour bars and legend (never lower them)."""
    layout = fig.layout.to_plotly_json()
    traces = [trace.to_plotly_json() for trace in fig.data]
    margin = dict(layout.get("margin") or {})
    need = {side: float(margin.get(side, 0) or 0) for side in "lrtb"}
    axes = [name for name in layout if name.startswith(("xaxis", "yaxis"))]
    axes += [f"{letter}axis" for letter in "xy" if f"{letter}axis" not in layout and traces]
    under = 0.0  # what the x axes' labels and titles need under the plot
    for name in axes:
        axis = layout.get(name) or {}
        if axis.get("visible") is False:
            continue
        side, room = _axis_room(name, axis, layout, _axis_labels(axis, traces, name[0], name))
        if side:
            need[side] = max(need[side], room)
        if side == "b":
            under = max(under, room)
    bars = []  # (colour bar, lowest value, highest value)
    for where in shown_colour_bars(traces, layout):
        if isinstance(where, int):  # a trace's own bar, over its values
            trace = traces[where]
            z = _values(trace.get("z"))
            lo = trace.get("zmin") if trace.get("zmin") is not None else (np.nanmin(z) if z is not None else 0.0)
            hi = trace.get("zmax") if trace.get("zmax") is not None else (np.nanmax(z) if z is not None else 1.0)
            bars.append((trace.get("colorbar") or {}, float(lo), float(hi)))
        else:  # a colour axis's, over its range
            spec = layout[where] or {}
            bars.append((spec.get("colorbar") or {}, float(spec.get("cmin", 0) or 0), float(spec.get("cmax", 1) or 1)))
    beside = [_colorbar_width(*bar) for bar in bars if bar[0].get("orientation") != "h"]
    if beside:
        need["r"] = max(need["r"], max(beside) + _PAD)
    across = [colorbar_height(bar[0]) for bar in bars if bar[0].get("orientation") == "h"]
    if across:  # at the chart's bottom edge, under the x axes' labels: the same room however often this is called
        need["b"] = max(need["b"], under + max(across))
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
