"""Vega-Lite specs as the app sends them: an Altair chart as ``st.altair_chart`` would send it
(:func:`vega_lite_spec`), a spec written once and filled in with each redraw's numbers (:func:`with_values`), and a
spec enlarged for a projector (:func:`presenter_vega`). Plain dicts and JSON: no Altair import here.
"""

from __future__ import annotations

import json


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
