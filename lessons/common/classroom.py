"""The class's numbers and figures, pure: a poll's distribution next to the truth, a class sweep pooled into one
chart (every student's point, and the mean ± sd per setting), a run's curve, the class link's QR code.

The store (``store``) keeps what the class did; the UI layer (``ui.classroom``) fetches it and hands plain values
here, so this module never touches a database and is tested with plain numbers.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

import segno

from lessons.common import charts, verdicts
from lessons.common.runs import Spread

METRIC = "exact_match"  # what a pooled sweep plots by default: every live panel reports it


@dataclass(frozen=True)
class Pooled:
    setting: str  # as students read it: "d_k = 64"
    values: tuple[float, ...]  # one per student's run

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values)

    @property
    def sd(self) -> float:
        """Sample standard deviation (0 with one run)."""
        if len(self.values) < 2:
            return 0.0
        m = self.mean
        return math.sqrt(sum((v - m) ** 2 for v in self.values) / (len(self.values) - 1))


def setting_text(settings: dict, labels: dict | None = None, keys: Sequence[str] | None = None) -> str:
    """``{"scaling.dk": 64}`` as ``d_k = 64`` (``labels`` names each key; ``keys`` picks and orders them)."""
    labels = labels or {}
    keys = list(keys) if keys is not None else list(settings)
    return " · ".join(f"{labels.get(k, k)} = {settings[k]}" for k in keys if k in settings) or "default settings"


def pool(runs: Sequence[dict], grid: Sequence[dict], labels: dict | None = None, metric: str = METRIC) -> list[Pooled]:
    """Runs (``{"settings": {...}, "metrics": {...}}``) grouped by the grid's settings, in the grid's order.
    A run counts for the setting whose every key it matches; runs without the metric are left out."""
    keys = sorted({k for setting in grid for k in setting})
    varying = [k for k in keys if len({repr(setting.get(k)) for setting in grid}) > 1]
    keys = varying or keys  # a label names what differs: "seed = 2", not "causal mask = True · seed = 2"
    out = []
    for setting in grid:
        values = tuple(
            float(r["metrics"][metric])
            for r in runs
            if all(r["settings"].get(k) == v for k, v in setting.items())
            and isinstance(r["metrics"].get(metric), int | float)
            and math.isfinite(r["metrics"][metric])
        )
        out.append(Pooled(setting_text(setting, labels, keys), values))
    return out


def pooled_sentence(pooled: Sequence[Pooled], metric_name: str = "held-out exact match") -> str:
    """What the pooled chart shows, computed from it: how many runs, the best setting, and whether its lead over the
    runner-up is a difference by the course's verdict rule (:func:`lessons.common.verdicts.verdict`)."""
    filled = [p for p in pooled if p.n]
    if not filled:
        return "No run has been posted to this sweep yet."
    total = sum(p.n for p in filled)
    ranked = sorted(filled, key=lambda p: p.mean, reverse=True)
    best = ranked[0]
    text = (
        f"{total} run{'s' if total != 1 else ''} over {len(filled)} of {len(pooled)} settings. "
        f"Highest mean {metric_name}: {best.setting} ({best.mean:.0%}"
        + (f" ± {best.sd:.0%}, n = {best.n})" if best.n > 1 else ", one run)")
    )
    if len(ranked) > 1:
        second = ranked[1]
        gap = best.mean - second.mean
        outcome, why = verdicts.verdict(Spread(best.values), Spread(second.values), metric=metric_name)
        if min(best.n, second.n) < verdicts.MIN_SEEDS:
            text += f"; next is {second.setting} ({second.mean:.0%}), too few runs to call the difference ({why})."
        elif outcome == "better":
            text += f"; it leads {second.setting} by {gap:.0%}: a clear difference ({why})."
        else:
            text += f"; next is {second.setting} ({second.mean:.0%}): not a clear difference ({why})."
    else:
        text += "."
    return text


def pooled_chart(pooled: Sequence[Pooled], metric_name: str = "held-out exact match") -> dict:
    """A Vega-Lite spec: each student's run as a dot, the mean per setting as a bar tick with a ± sd rule."""
    points = [{"setting": p.setting, "value": v, "run": i + 1} for p in pooled for i, v in enumerate(p.values)]
    summary = [
        {"setting": p.setting, "mean": p.mean, "lo": p.mean - p.sd, "hi": p.mean + p.sd, "n": p.n}
        for p in pooled
        if p.n
    ]
    order = [p.setting for p in pooled]
    slanted = any(len(name) > 14 for name in order)
    x = {
        "field": "setting",
        "type": "nominal",
        "sort": order,
        "title": None,
        "axis": {"labelAngle": -25 if slanted else 0, "labelLimit": 220},
    }
    y_scale = {"domain": [0, 1]}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": [f"The class's runs: {metric_name}", "dots: students · bar: mean ± sd per setting"]},
        "layer": [
            {
                "data": {"values": summary},
                "mark": {"type": "rule", "strokeWidth": 2},
                "encoding": {
                    "x": x,
                    "y": {"field": "lo", "type": "quantitative", "scale": y_scale},
                    "y2": {"field": "hi"},
                },
            },
            {
                "data": {"values": summary},
                "mark": {"type": "tick", "thickness": 3, "size": 28},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "mean",
                        "type": "quantitative",
                        "scale": y_scale,
                        "title": metric_name,
                        "axis": {"format": ".0%"},
                    },
                    "tooltip": [{"field": "setting"}, {"field": "mean", "format": ".1%"}, {"field": "n"}],
                },
            },
            {
                "data": {"values": points},
                "mark": {"type": "circle", "size": 60, "opacity": 0.6},
                "encoding": {
                    "x": x,
                    "xOffset": {"field": "run", "type": "nominal"},
                    "y": {"field": "value", "type": "quantitative", "scale": y_scale},
                    "tooltip": [{"field": "setting"}, {"field": "value", "format": ".1%"}],
                },
            },
        ],
    }


def distribution_rows(dist: dict) -> list[dict]:
    """A revealed poll as table rows: each choice with its count and ✓ on the truth; or the numbers given."""
    if "choices" in dist:
        return [{"answer": text, "students": n, "right": "✓" if truth else ""} for text, n, truth in dist["choices"]]
    return [
        {"answer": v, "right": "✓" if abs(v - dist["truth"]) <= dist.get("tolerance", 0.0) else ""}
        for v in dist["values"]
    ]


def distribution_sentence(dist: dict) -> str:
    """The reveal in one sentence, computed from the answers."""
    answered = dist["answered"]
    if not answered:
        return "Nobody answered this question."
    if "choices" in dist:
        right = sum(n for _, n, truth in dist["choices"] if truth)
        truth = next(text for text, _, t in dist["choices"] if t)
        top = max(dist["choices"], key=lambda c: c[1])
        lead = "the most chosen answer" if top[2] else f"the most chosen answer was “{top[0]}”"
        return f"{right} of {answered} ({right / answered:.0%}) chose the right answer, “{truth}”" + (
            f" ({lead})." if top[2] else f"; {lead}."
        )
    low, high = min(dist["values"]), max(dist["values"])
    return (
        f"{dist['right']} of {answered} ({dist['right'] / answered:.0%}) gave the right number, "
        f"{dist['truth']:g}; the answers ranged from {low:g} to {high:g}."
    )


def distribution_chart(dist: dict) -> dict:
    """A Vega-Lite bar chart of a revealed choice poll (the truth's bar marked), or a strip of the numbers given
    with the truth as a rule."""
    if "choices" in dist:
        rows = [
            {"answer": charts.safe_label(text, 40), "students": n, "right": "right answer" if t else "other"}
            for text, n, t in dist["choices"]
        ]
        return {
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "title": "The class's answers",
            "data": {"values": rows},
            "mark": {"type": "bar"},
            "encoding": {
                "y": {"field": "answer", "type": "nominal", "sort": None, "title": None},
                "x": {"field": "students", "type": "quantitative", "title": "students", "axis": {"tickMinStep": 1}},
                "color": {
                    "field": "right",
                    "type": "nominal",
                    "title": None,
                    "scale": {"domain": ["right answer", "other"], "range": ["#1a7f37", "#9aa4ad"]},
                },
            },
        }
    rows = [{"value": v, "kind": "an answer"} for v in dist["values"]] + [
        {"value": dist["truth"], "kind": "the right answer"}
    ]
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": {"text": ["The class's answers", "green: the right one"]},
        "height": 40,  # a strip: without a height of its own a chart with no y axis has no room to draw in
        "data": {"values": rows},
        "mark": {"type": "tick", "thickness": 3, "size": 34, "opacity": 0.8},
        "encoding": {
            "x": {"field": "value", "type": "quantitative", "title": "answer", "scale": {"zero": False, "padding": 12}},
            "color": {
                "field": "kind",
                "type": "nominal",
                "title": None,
                "scale": {"domain": ["an answer", "the right answer"], "range": ["#5b6b7a", "#1a7f37"]},
                "legend": None,
            },
        },
    }


def run_curve(snapshots) -> list[list[float]]:
    """A live run's reports as the store keeps them: ``[[step, seconds, loss, exact_match], ...]`` (finite only)."""
    out = []
    for s in snapshots:
        row = [float(getattr(s, name, float("nan"))) for name in ("step", "seconds", "loss", "exact_match")]
        if all(math.isfinite(v) for v in row):
            out.append(row)
    return out


def attention_snapshot(
    matrix, rows: Sequence[str] | None = None, cols: Sequence[str] | None = None, max_side: int = 40
) -> dict | None:
    """A 2-D attention map as the store keeps it (at most ``max_side`` per side, 3 decimals), or None."""
    try:
        z = [[round(float(v), 3) for v in row[:max_side]] for row in list(matrix)[:max_side]]
    except (TypeError, ValueError):
        return None
    if not z or not z[0] or not all(math.isfinite(v) for row in z for v in row):
        return None
    rows = [str(r) for r in (rows or range(1, len(z) + 1))][: len(z)]
    cols = [str(c) for c in (cols or range(1, len(z[0]) + 1))][: len(z[0])]
    return {"rows": rows, "cols": cols, "z": z}


QR_TITLE = "QR code of the class's student link"
QR_BORDER = 2  # the light margin around the code, in modules: a camera finds its edge


def qr_svg(url: str, scale: int = 6) -> str:
    """The class link as a QR code (an ``<svg>`` document without XML declaration), drawn here, offline (segno)."""

    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer,
        kind="svg",
        xmldecl=False,
        scale=scale,
        border=QR_BORDER,
        dark="#000",
        light="#fff",
        title=QR_TITLE,
    )
    return buffer.getvalue().decode("utf-8")


def qr_image(url: str, scale: int = 6) -> str:
    """The class link's QR code as an ``<img>`` element for the page's HTML (``st.html``), its alt text the code's
    title. An image, not the ``<svg>`` itself: Streamlit's sanitizer keeps only HTML elements, and an inline SVG
    came out as an empty box; an image's ``data:`` address passes, and needs no network."""
    svg = qr_svg(url, scale=scale)
    size = segno.make(url, error="m").symbol_size(scale=scale, border=QR_BORDER)[0]
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(QR_TITLE)}" width="{size}" height="{size}" />'
    )
