"""The course's one chart of curves, a Vega-Lite spec (for ``ui.vega``): per variant, the mean over seeds, a band
of mean ± one sd and each seed faintly, or for timings the median of the repeats and their range
(:func:`curves_chart`); a training run's loss and exact match drawn with it (:func:`training_curves`).

Pure Python and numpy: no Altair. The spec's JSON is written once per set of options, so a live panel redrawn a few
times a second only fills in the numbers.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

# Vega's "tableau10": one colour per variant, by its place in the comparison, so every chart of it agrees
PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")

X_TITLES = {"step": "training step", "seconds": "seconds of its own training"}


def x_title(x: str) -> str:
    """The axis title of a curve's x (``"step"`` or ``"seconds"``, as ``Comparison.curve_points`` reads its
    reports); any other x is refused."""
    if x not in X_TITLES:
        raise ValueError(f"x must be 'step' or 'seconds', not {x!r}")
    return X_TITLES[x]


def curves_chart(
    points: Sequence[Mapping[str, Any]],
    *,
    y_title: str,
    x_title: str,
    title: str | None = None,
    height: int = 240,
    log_x: bool = False,
    log_y: bool = False,
    percent: bool = False,
    colors: Mapping[str, str] | None = None,
    center: str = "mean",
) -> dict:
    """The course's one chart of curves, a Vega-Lite spec (for ``ui.vega``): per variant, the mean over seeds as a
    solid line, a band of mean ± sd and each seed as a thin faint line; one seed alone is drawn as one solid line,
    without band. ``center="median"`` (timings, whose sentences give the median of repeats): the median as the
    line and the band from the smallest to the largest repeat, a "seed" being one repeat.

    ``points``: :meth:`~lessons.common.comparison.Comparison.curve_points` (per report) or
    :meth:`~lessons.common.comparison.Comparison.sweep_points` (per setting), or
    rows of the same form: ``{"variant", "seed", "x", "y"}`` with optional ``"label"`` (legend text) and
    ``"order"`` (the variant's place in its comparison: picks its colour from :data:`PALETTE`, so every chart of a
    comparison agrees). ``colors``: variant -> colour, over the palette. Where seeds report at different x
    (seconds), each seed is interpolated onto the union of their x within its own range; ``n`` at each x is the
    number of seeds there (tooltip). ``percent``: y from 0 to 1, as percentages.
    """
    variants: dict[str, dict] = {}
    for i, p in enumerate(points):
        entry = variants.setdefault(
            p["variant"], {"label": str(p.get("label", p["variant"])), "order": p.get("order", i), "seeds": {}}
        )
        entry["seeds"].setdefault(p["seed"], []).append((float(p["x"]), float(p["y"])))
    if center not in ("mean", "median"):
        raise ValueError(f"center must be 'mean' or 'median', not {center!r}")
    values: list[dict] = []
    for entry in variants.values():
        values += _aggregate(entry, percent=percent, log_y=log_y, median=center == "median")
    spread = any(v["kind"] == "mean" and v["n"] > 1 for v in values)
    spec = json.loads(_curves_template(y_title, x_title, title, height, log_x, log_y, percent, spread, center))
    spec["data"] = {"values": values}
    ordered = sorted(variants.items(), key=lambda item: item[1]["order"])
    colors = colors or {}
    color = spec["encoding"]["color"]
    color["scale"] = {
        "domain": [e["label"] for _, e in ordered],
        "range": [colors.get(v, PALETTE[int(e["order"]) % len(PALETTE)]) for v, e in ordered],
    }
    if len(ordered) <= 1:
        color["legend"] = None
    else:  # two labels a row where they fit half a narrow column; otherwise one a row, never clipped
        longest = max(len(e["label"]) for _, e in ordered)
        columns = 2 if longest <= LEGEND_TWO_COLUMNS else 1
        color["legend"]["columns"] = columns
        spec["height"] = max(MIN_PLOT_HEIGHT, spec["height"] - LEGEND_ROW * -(-len(ordered) // columns))
    return spec


def _aggregate(entry: dict, *, percent: bool, log_y: bool, median: bool = False) -> list[dict]:
    """One variant's rows for the chart: its seeds' points (when there are several) and the mean, sd, n at each x
    (``median``: the median in ``mean``'s place, the band from the smallest to the largest)."""
    label, seeds = entry["label"], entry["seeds"]
    lines = {seed: sorted(pts) for seed, pts in seeds.items()}
    rows = []
    if len(lines) == 1:
        (line,) = lines.values()
        return [
            {"kind": "mean", "label": label, "x": x, "mean": y, "sd": 0.0, "lo": y, "hi": y, "n": 1} for x, y in line
        ]
    for seed, line in lines.items():
        rows += [{"kind": "seed", "label": label, "seed": seed, "x": x, "y": y} for x, y in line]
    grid = np.unique([x for line in lines.values() for x, _ in line])
    stack = np.full((len(lines), len(grid)), np.nan)
    for i, line in enumerate(lines.values()):
        xs, ys = np.array([x for x, _ in line]), np.array([y for _, y in line])
        inside = (grid >= xs[0]) & (grid <= xs[-1])
        stack[i, inside] = np.interp(grid[inside], xs, ys)
    n = np.sum(~np.isnan(stack), axis=0)  # every x has at least one seed: the grid is made of their x
    mean = np.nanmean(stack, axis=0)
    sd = np.sqrt(np.nansum((stack - mean) ** 2, axis=0) / np.maximum(n - 1, 1))  # sample sd; 0 where n = 1
    lo, hi = mean - sd, mean + sd
    if median:
        mean, lo, hi = np.nanmedian(stack, axis=0), np.nanmin(stack, axis=0), np.nanmax(stack, axis=0)
    if percent:
        lo, hi = np.maximum(lo, 0.0), np.minimum(hi, 1.0)
    if log_y:  # a log axis has no room below zero: there the band stops at the lowest seed
        lo = np.where(lo > 0, lo, np.nanmin(stack, axis=0))
    rows += [
        {"kind": "mean", "label": label, "x": x, "mean": m, "sd": d, "lo": a, "hi": b, "n": k}
        for x, m, d, a, b, k in zip(
            grid.tolist(), mean.tolist(), sd.tolist(), lo.tolist(), hi.tolist(), n.tolist(), strict=True
        )
    ]
    return rows


X_AXIS_HEIGHT, TITLE_HEIGHT, LEGEND_ROW = 45, 25, 20  # pixels a curves chart spends besides its plot
MIN_PLOT_HEIGHT = 120  # the plot never gets smaller than this (the y title has to fit beside it)
LEGEND_TWO_COLUMNS = 16  # labels up to this many characters go two a row in the legend


@functools.lru_cache(maxsize=64)
def _curves_template(
    y_title: str,
    x_title: str,
    title: str | None,
    height: int,
    log_x: bool,
    log_y: bool,
    percent: bool,
    spread: bool,
    center: str = "mean",
) -> str:
    """:func:`curves_chart`'s spec without its numbers and colours, as JSON: written once per set of options."""
    y_scale = {"domain": [0, 1]} if percent else ({"type": "log"} if log_y else {"zero": True})
    number = ".1%" if percent else ".4~g"

    def y(name: str) -> dict:
        encoding = {"field": name, "type": "quantitative", "title": y_title, "scale": y_scale}
        return encoding | {"axis": {"format": "%"}} if percent else encoding

    label = {"field": "label", "type": "nominal", "title": "variant"}
    x_tip = {"field": "x", "type": "quantitative", "title": x_title}
    mean = {
        "transform": [{"filter": "datum.kind === 'mean'"}],
        "mark": {"type": "line", "strokeWidth": 2.5, "point": {"size": 18, "filled": True}},
        "encoding": {
            "y": y("mean"),
            "tooltip": [label, x_tip, {"field": "mean", "type": "quantitative", "title": y_title, "format": number}],
        },
    }
    layers = [mean]
    if spread:
        mean["encoding"]["tooltip"][-1]["title"] = center
        if center == "median":
            mean["encoding"]["tooltip"] += [
                {"field": "lo", "type": "quantitative", "title": "smallest", "format": number},
                {"field": "hi", "type": "quantitative", "title": "largest", "format": number},
                {"field": "n", "type": "quantitative", "title": "n (repeats)"},
            ]
        else:
            mean["encoding"]["tooltip"] += [
                {"field": "sd", "type": "quantitative", "format": number},
                {"field": "n", "type": "quantitative", "title": "n (seeds)"},
            ]
        band = {
            "transform": [{"filter": "datum.kind === 'mean' && datum.n > 1"}],
            "mark": {"type": "area", "opacity": 0.18},
            "encoding": {"y": y("lo") | {"stack": None}, "y2": {"field": "hi"}, "tooltip": mean["encoding"]["tooltip"]},
        }
        seeds = {
            "transform": [{"filter": "datum.kind === 'seed'"}],
            "mark": {"type": "line", "strokeWidth": 1, "opacity": 0.35},
            "encoding": {
                "y": y("y"),
                "detail": {"field": "seed", "type": "nominal"},
                "tooltip": [
                    label,
                    {"field": "seed", "type": "nominal", "title": "repeat" if center == "median" else "seed"},
                    x_tip,
                    {"field": "y", "type": "quantitative", "title": y_title, "format": number},
                ],
            },
        }
        layers = [band, seeds, mean]
    legend = {"orient": "bottom", "title": None, "labelLimit": 0, "symbolOpacity": 1}  # whole labels, full colour
    x = {"field": "x", "type": "quantitative", "title": x_title, "scale": {"type": "log"} if log_x else {"zero": False}}
    # ``height`` is the whole chart's; Vega-Lite's is the plot's alone. The width fits the column (fit-x) but the
    # height does not shrink to fit: under Streamlit's "fit" a y title longer than a squeezed plot pushed the
    # chart's own title out of view. The legend's rows come off in curves_chart.
    plot = max(MIN_PLOT_HEIGHT, height - X_AXIS_HEIGHT - (TITLE_HEIGHT if title else 0))
    spec = {
        "height": plot,
        "autosize": {"type": "fit-x", "contains": "padding"},
        "encoding": {"x": x, "color": {"field": "label", "type": "nominal", "legend": legend}},
        "layer": layers,
    }
    if title:
        spec["title"] = title
    return json.dumps(spec)


def training_curves(history: Sequence, *, height: int = 220) -> tuple[dict, dict]:
    """Two Vega-Lite charts (for ``ui.vega``), loss and held-out exact match against steps, of one training run.

    ``history`` holds objects with ``step``, ``loss`` and ``exact_match`` (``minimodels.train``'s ``Progress``).
    Drawn by the course's one chart of curves (:func:`curves_chart`) as a run of one seed: a solid line, no band.
    Its spec is written once per set of options and each call only puts ``history`` in: a training run's page
    redraws the two charts a few times a second.
    """

    run = {"variant": "run", "label": "this run", "seed": 0}
    loss = curves_chart(
        [{**run, "x": p.step, "y": p.loss} for p in history],
        y_title="training loss",
        x_title="training step",
        title="Loss",
        height=height,
        colors={"run": LOSS_COLOR},
    )
    accuracy = curves_chart(
        [{**run, "x": p.step, "y": p.exact_match} for p in history],
        y_title="held-out exact match",
        x_title="training step",
        title="Exact match",
        height=height,
        percent=True,
        colors={"run": ACCURACY_COLOR},
    )
    return loss, accuracy


LOSS_COLOR, ACCURACY_COLOR = "#d62728", "#1f77b4"  # the live panel's two curves
