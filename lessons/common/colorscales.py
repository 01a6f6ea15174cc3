"""The house's colour scales, the high-contrast twin of each, and the swap from one to the other
(:func:`high_contrast`, for the sidebar's high-contrast switch)."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.colors import get_colorscale

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
