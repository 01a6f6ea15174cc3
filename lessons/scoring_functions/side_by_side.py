"""Section 3, trained side by side: the race's table (mean ± sd over seeds), every seed's row, the curves, each
model's attention on a fixed example, and what the measured table says, in sentences computed from it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lessons.common.charts import attention_coloraxis, hover_pairs, safe_label
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart, x_title
from lessons.scoring_functions.four_scores import COLORS, LABELS, SCORES
from lessons.scoring_functions.race_training import (
    CHECKED,
    LEVELS,
    QUERY,
    REPORT_EVERY,
    RUN_METRICS,
    TASK,
    TIMED,
    level_metric,
    model_name,
)
from minimodels.tasks import get_task
from minimodels.train import model_config

TITLE = "3 · Trained side by side"
SPACE = "␣"  # how a space character is labelled on a chart axis (a blank tick label would be invisible)
RACE_INTRO = (
    "The same model, a {model}, trained on **dates** (“Sunday, November 22, 2026” → “2026-11-22”, "
    "character by character) four times from each seed: same data, same batches, only the score differs. One "
    "caveat from the model itself (`minimodels.seq2seq`): the **additive** model attends from the previous "
    "decoder state sₜ₋₁ and feeds the context into the RNN (Bahdanau et al., as published), while dot, "
    "scaled dot and bilinear attend from the current state sₜ after the RNN step (Luong et al.). So the race "
    "compares two published designs, not the score alone. Bahdanau's decoder must also run step by step in "
    "training, so each of its steps does more work; whether that shows in the seconds, on a machine shared with "
    "other jobs, is what the measured table below says."
)


def race_intro() -> str:
    """:data:`RACE_INTRO` with what the race's models are, read from their config (unidirectional or not, d)."""
    return RACE_INTRO.format(model=model_config(model_name("dot"), get_task(TASK)).describe().split(", ")[0])


def table_rows(c: Comparison) -> list[dict]:
    """One row per score: where it attends from, its score function's parameters (when the comparison records
    them), n, and mean ± sd over its seeds of the steps and seconds to each level, its speed and the final checks
    ("not measured" for a model stopped before them)."""
    timed = c.table(TIMED, variant_header="score")
    checked = c.table(CHECKED, variant_header="score", missing="not measured")
    models = c.meta.get("models", {})
    rows = []
    for score, speed, checks in zip([v for v in c.variants if c.runs_of(v)], timed, checked, strict=True):
        row = {"score": speed.pop("score"), "attends from": QUERY.get(score, "?")}
        if score in models:
            row["parameters"] = models[score]["parameters"]["score"]
        rows.append(row | speed | {k: v for k, v in checks.items() if k not in ("score", "n")})
    return rows


def seed_rows(c: Comparison) -> list[dict]:
    """Every run, one row: the table's figures before taking means, and why it stopped."""
    rows = c.run_rows(RUN_METRICS)
    return [
        {"score": row.pop("variant"), **row, "stopped by": run.extra.get("stopped")}
        for row, run in zip(rows, c.runs, strict=True)
    ]


def table_caption(seeds: str) -> str:
    """What the race's tables show: the seeds (``seeds``, as listed), the levels' checks and each column."""
    return (
        f"Mean ± sd over seeds {seeds} (n: how many seeds). “Steps/seconds to 90%”: the first check (every "
        f"{REPORT_EVERY} steps, 200 held-out sentences) at or above 90% exact match; seconds are "
        "each model's own training, the checks included. Parameters: the score function's own. Test exact match: "
        "the whole test split at the end. Alignment accuracy: how often the attention's argmax falls on a source "
        "character the output character comes from (test split)."
    )


def race_charts(c: Comparison, x: str = "step", height: int = 240) -> tuple[dict, dict]:
    """Two Vega-Lite charts (``lessons.common.curves.curves_chart``), loss and held-out exact match against
    ``x`` ("step" or "seconds"): per score its mean over seeds with a ± sd band and each seed faint (one seed: one
    line), in the scores' own colours."""
    axis = x_title(x)
    loss = curves_chart(
        c.curve_points("loss", x=x),
        y_title="training loss",
        x_title=axis,
        title="Loss",
        height=height,
        colors=COLORS,
    )
    accuracy = curves_chart(
        c.curve_points("exact_match", x=x),
        y_title="held-out exact match",
        x_title=axis,
        title="Exact match",
        height=height,
        percent=True,
        colors=COLORS,
    )
    return loss, accuracy


def display_token(token: str) -> str:
    return SPACE if token == " " else token


def attention_grid(maps: Mapping[str, Mapping], *, height: int = 560) -> go.Figure:
    """The probe's attention for each score in a 2 × 2 grid: rows target tokens, columns source tokens.

    ``maps[score]`` holds ``attention`` (T × S), ``source_tokens``, ``target_tokens`` and optionally ``title``.
    """
    present = [s for s in SCORES if s in maps]
    if not present:
        raise ValueError("no attention maps to draw")
    # the score's name on one line, the run's details on the next: two long titles side by side overlap on a phone
    titles = [
        "<br>".join(safe_label(part, max_chars=40) for part in maps[s].get("title", LABELS[s]).split(" · ", 1))
        for s in present
    ]
    cols = 2 if len(present) > 1 else 1
    rows = math.ceil(len(present) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.08, vertical_spacing=0.16)
    for i, score in enumerate(present):
        m = maps[score]
        z = np.asarray(m["attention"], dtype=float)
        xs = [safe_label(display_token(t)) for t in m["source_tokens"]]
        ys = [safe_label(display_token(t)) for t in m["target_tokens"]]
        if z.shape != (len(ys), len(xs)):
            raise ValueError(f"{score}: attention of shape {z.shape} does not match {len(ys)} × {len(xs)} tokens")
        row, col = i // cols + 1, i % cols + 1
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=list(range(len(xs))),
                y=list(range(len(ys))),
                customdata=hover_pairs(ys, xs),
                coloraxis="coloraxis",
                hovertemplate="%{customdata}<br>α = %{z:.4f}<extra>" + LABELS[score] + "</extra>",
                xgap=1,
                ygap=1,
            ),
            row=row,
            col=col,
        )
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(xs))), ticktext=xs, tickangle=0, row=row, col=col)
        fig.update_yaxes(
            tickmode="array", tickvals=list(range(len(ys))), ticktext=ys, autorange="reversed", row=row, col=col
        )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},  # room for two-line titles
        coloraxis=attention_coloraxis(),
    )
    fig.update_annotations(font_size=13)
    return fig


def ranked(c: Comparison, metric: str, *, lower_is_better: bool) -> list[str]:
    """The scores every run of which has ``metric`` (every seed reached the level), best mean first."""
    spreads = {v: s for v, s in c.spreads(metric).items() if s.n and not s.missing}
    return sorted(spreads, key=lambda v: spreads[v].mean, reverse=not lower_is_better)


def leaders(c: Comparison, metric: str, order: Sequence[str]) -> list[str]:
    """The scores of ``order`` (:func:`ranked`) whose mean equals the best one's: a tie lists them all."""
    spreads = c.spreads(metric)
    return [v for v in order if math.isclose(spreads[v].mean, spreads[order[0]].mean, rel_tol=1e-9)]


def observations(c: Comparison) -> list[str]:
    """What the measured table says, in sentences computed from it (a re-measured file rewrites them): which score
    is best on average, and whether it is clearly ahead (``Comparison.compare``: the course's verdict rule) or too
    close to call."""
    lines = []
    for what, fmt in (("steps", ".0f"), ("seconds", ".1f")):
        metric = level_metric(what, LEVELS[-1])
        order = ranked(c, metric, lower_is_better=True)
        if len(order) >= 2:
            tied = leaders(c, metric, order)
            best = " and ".join(f"**{c.label(v)}**" for v in tied) + (", tied" if len(tied) > 1 else "")
            verdict = c.compare(order[0], order[1], metric, higher_is_better=False)
            claim = verdict.sentence(fmt, f"{metric} (fewer is better)")
            lines.append(f"Fewest {metric}, on average: {best}. {claim}")
    speed = "seconds per 100 steps"
    order = ranked(c, speed, lower_is_better=True)
    if len(order) >= 2:
        fast, slow = order[0], order[-1]
        spreads = c.spreads(speed)
        pace = c.compare(fast, slow, speed, higher_is_better=False)
        head = f"Slowest step: **{c.label(slow)}**" if pace.clear else f"Slowest step on average: {c.label(slow)}"
        lines.append(
            f"{head}, {spreads[slow].mean / spreads[fast].mean:.1f}× the time of {c.label(fast)}'s (the shipping "
            "machine's seconds, each seed timed once under its load at the time). "
            + pace.sentence(".1f", f"{speed} (fewer is better)")
            + load_note(c, speed)
        )
    align = "alignment accuracy"
    order = ranked(c, align, lower_is_better=False)
    if len(order) >= 2:
        hi, lo = order[0], order[-1]
        spreads = c.spreads(align)
        lines.append(
            f"Sharpest alignment with the gold one, on average: **{c.label(hi)}** ({spreads[hi].mean:.0%} of output "
            f"characters look most at a source character they come from), against {spreads[lo].mean:.0%} for "
            f"{c.label(lo)}. " + c.compare(hi, lo, align).sentence(".0%")
        )
    for metric in ("test exact match", "alignment accuracy"):
        line = clear_pairs(c, metric, ".1%")
        if line:
            lines.append(line)
    return lines


def clear_pairs(c: Comparison, metric: str, fmt: str) -> str:
    """Every pair of scores compared on ``metric`` (higher is better) by the shared rule: the pairs it calls clear,
    the leader first, with their numbers, and how many it calls too close. Empty with fewer than two scores."""
    scores = [v for v in c.variants if c.spreads(metric).get(v) is not None]
    pairs = [(a, b) for i, a in enumerate(scores) for b in scores[i + 1 :]]
    if not pairs:
        return ""
    clear = []
    for a, b in pairs:
        v = c.compare(a, b, metric)
        if v.clear:
            ahead, behind = (v.a_spread, v.b_spread) if v.winner == a else (v.b_spread, v.a_spread)
            clear.append(
                f"**{c.label(v.winner)}** ahead of {c.label(b if v.winner == a else a)} "
                f"({ahead.text(fmt)} against {behind.text(fmt)})"
            )
    close = len(pairs) - len(clear)
    if not clear:
        return f"On {metric}, the rule calls none of the {len(pairs)} pairs of scores clear: all too close to call."
    rest = f"; the other {close} of {len(pairs)} pairs are too close to call" if close else ""
    return f"Clear on {metric}, pair by pair: " + "; ".join(clear) + rest + "."


def load_note(c: Comparison, metric: str) -> str:
    """A sentence when the seeds order ``metric`` (a time) the same way for every score, e.g. seed 0 fastest and
    seed 2 slowest each time: then the seconds measure how busy the shared machine was during each seed's turn as
    much as the scores. Empty otherwise, or with fewer than two seeds or scores."""
    orders = []
    for v in c.variants:
        timed = [(r.final.get(metric), r.seed) for r in c.runs_of(v) if r.final.get(metric) is not None]
        if timed:
            orders.append([seed for _, seed in sorted(timed)])
    if len(orders) < 2 or len(orders[0]) < 2 or any(o != orders[0] for o in orders):
        return ""
    return (
        f" Every score ran fastest with seed {orders[0][0]} and slowest with seed {orders[0][-1]}: the seeds ran "
        "one after another on a shared machine, so these seconds measure how busy it was as much as the score."
    )
