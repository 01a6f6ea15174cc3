"""Section 3, continued: the shipped presets' learning curves, one of the poster's tables at a time.

A table gives each row one number, its exact match after the grid's fixed steps; the curves show how each preset got
there: held-out exact match and training loss at every report, mean over the seeds with a band of ± one sd and each
seed faintly (``lessons.common.curves.curves_chart``), so a row that was still climbing when the steps ran out can be
told from one that had levelled off.
"""

from __future__ import annotations

from lessons.architecture_lab.compare import POSTER_GROUPS
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart, x_title

TITLE = "How each preset learned"


def group_points(results: Comparison, group: str, metric: str, x: str = "step") -> list[dict]:
    """The reports of the presets of one poster table (``group``, a key of :data:`POSTER_GROUPS`) that the grid
    ran, each preset coloured by its place in that table (so one chart's colours never repeat)."""
    keys = [k for k in POSTER_GROUPS[group] if k in results.variants and results.runs_of(k)]
    points = [p for p in results.curve_points(metric, x=x) if p["variant"] in keys]
    return [{**p, "order": keys.index(p["variant"])} for p in points]


def curve_charts(results: Comparison, group: str, x: str = "step", height: int = 300) -> tuple[dict, dict]:
    """Two Vega-Lite charts of one poster table's presets: held-out exact match and training loss against the
    training step (or ``x`` = "seconds"), per preset its mean over seeds, ± sd band and each seed faint."""
    axis = x_title(x)
    accuracy = curves_chart(
        group_points(results, group, "exact_match", x),
        y_title="held-out exact match",
        x_title=axis,
        title="Exact match",
        height=height,
        percent=True,
    )
    loss = curves_chart(
        group_points(results, group, "loss", x),
        y_title="training loss",
        x_title=axis,
        title="Loss",
        height=height,
        log_y=True,
    )
    return accuracy, loss


def _mean_at(runs, step: int) -> float | None:
    """The mean held-out exact match of ``runs`` at the report of ``step`` (None when a run has no such report)."""
    values = [next((p["exact_match"] for p in r.curve if p["step"] == step), None) for r in runs]
    return None if not values or None in values else sum(values) / len(values)


def curves_caption(results: Comparison, group: str) -> str:
    """What the curves are, and each preset's mean exact match halfway through the steps and at the end, n runs."""
    keys = [k for k in POSTER_GROUPS[group] if k in results.variants and results.runs_of(k)]
    parts = []
    for key in keys:
        runs = results.runs_of(key)
        steps = [p["step"] for p in runs[0].curve]
        if not steps:
            continue
        end = steps[-1]
        half = min(steps, key=lambda s: abs(s - end / 2))
        middle, last = _mean_at(runs, half), _mean_at(runs, end)
        if middle is None or last is None:
            continue
        parts.append(f"{results.label(key)}: {middle:.0%} at step {half}, {last:.0%} at step {end} (n = {len(runs)})")
    return (
        "Held-out exact match (200 held-out sentences decoded greedily at each report) and training loss, per "
        "preset the mean over its seeds with a band of ± one sd and each seed as a faint line. Mean exact match "
        "halfway and at the end: " + "; ".join(parts) + "."
    )
