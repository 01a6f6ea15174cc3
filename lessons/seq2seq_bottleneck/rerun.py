"""Section 5, re-run it yourself: one click trains a pair of fresh models for the student alone
(:mod:`.live_training`), and the page draws, at every report, their accuracy by length over the shipped curves, their
held-out exact match, and where the model with attention looks while it copies the probe by itself.

Letters: T' the tokens a model wrote, S source positions (characters + EOS), D context size.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import plotly.graph_objects as go

from lessons.common.charts import attention_heatmap, figure
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.seq2seq_bottleneck import live_training
from lessons.seq2seq_bottleneck.experiment import COLORS, METRICS, MODELS, STEPS, shown
from lessons.seq2seq_bottleneck.live_training import PROBE_TEXT, LiveReport, PairReport
from lessons.seq2seq_bottleneck.scoring import LengthAccuracy
from lessons.seq2seq_bottleneck.shipped import accuracy_of, hidden_sizes

TITLE = "5 · Re-run it yourself"
ENCODERS = {False: "unidirectional", True: "bidirectional"}  # a live run's choice of encoder


def text() -> str:
    return (
        "One click trains a pair for you alone: two fresh models with the same seed, data, D and encoder, one after "
        f"the other. First the model **with attention**, for {live_training.LIVE_STEPS} steps (the shipped ones had "
        f"{STEPS}, at a lower rate; a live run uses Adam at {live_training.LIVE_LR:g} to learn in fewer steps), then "
        "the one **without**, for exactly as many steps; both together take at most "
        f"{live_training.LIVE_BUDGET_SECONDS:g} s, so on a busy server both get fewer steps (the charts say how "
        "many). Pick a **bidirectional** encoder to train the lecture's hᵢ = [→hᵢ; ←hᵢ] (H = D / 2 per direction, "
        f"so D stays the same). At every report the models are scored on {live_training.LIVE_PER_LENGTH} test "
        "strings of each length: your curves dashed, the shipped (unidirectional) means solid. The heatmap is the "
        f"model with attention copying *{PROBE_TEXT}* **by itself** (greedy: each row is a character it wrote, not "
        "the right one fed in): watch it turn from a blur into a diagonal."
    )


def run_label(model: str, hidden_size: int) -> str:
    return f"{MODELS.get(model, model)}, D = {hidden_size}"


def length_chart(
    results: Comparison | None,
    hidden_size: int,
    metric: str = "exact_match",
    own: Sequence[tuple[str, LengthAccuracy]] = (),
    *,
    others: bool = True,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """Score against source length: both shipped models at D (solid), the other D's without attention (faint),
    and the student's own runs (``own``: ``(label, accuracy)`` pairs, dashed). ``results`` None: only ``own``."""
    traces = []  # built as plain dicts (lessons.common.charts.figure): Plotly's checks cost ten times the rest
    sizes = hidden_sizes(results) if results is not None else ()
    if others:
        for d in sizes:
            if d == hidden_size:
                continue
            acc = accuracy_of(results, "gru-none", d)
            traces.append(
                {
                    "type": "scatter",
                    "x": list(acc.lengths),
                    "y": list(acc.metric(metric)),
                    "mode": "lines",
                    "name": f"without attention, D = {d}",
                    "line": {"color": COLORS["gru-none"], "width": 1},
                    "opacity": 0.25 + 0.1 * sizes.index(d),
                    "hovertemplate": f"D = {d}<br>length %{{x}}<br>%{{y:.0%}}<extra></extra>",
                }
            )
    for model in MODELS if results is not None else ():
        acc, label = accuracy_of(results, model, hidden_size), run_label(model, hidden_size)
        traces.append(
            {
                "type": "scatter",
                "x": list(acc.lengths),
                "y": list(acc.metric(metric)),
                "mode": "lines+markers",
                "name": f"shipped: {label}",
                "line": {"color": COLORS[model], "width": 3},
                "hovertemplate": f"{html.escape(label)}<br>length %{{x}}<br>%{{y:.1%}}<extra></extra>",
            }
        )
    for i, (label, acc) in enumerate(own):
        model = "gru-additive" if "with attention" in label and "without" not in label else "gru-none"
        traces.append(
            {
                "type": "scatter",
                "x": list(acc.lengths),
                "y": list(acc.metric(metric)),
                "mode": "lines+markers",
                "name": html.escape(label),
                "line": {"color": COLORS[model], "width": 2, "dash": "dash"},
                "marker": {"symbol": "diamond-open", "size": 9},
                "legendrank": 2000 + i,
                "hovertemplate": f"{html.escape(label)}<br>length %{{x}}<br>%{{y:.1%}}<extra></extra>",
            }
        )
    layout = {
        "title": {"text": html.escape(title or f"{METRICS[metric]} by source length, D = {hidden_size}")},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "xaxis": {"title": {"text": "source length (characters)"}, "dtick": 2},
        "yaxis": {"title": {"text": METRICS[metric]}, "range": [-0.02, 1.02], "tickformat": ".0%"},
        "legend": {"orientation": "v"},
    }
    return figure(traces, layout)


def live_length_chart(results: Comparison | None, report: PairReport, height: int = 380) -> go.Figure:
    """A student's run: each started model's exact match by length now (dashed), over the shipped ones at its D."""
    kind = ENCODERS[report.bidirectional]
    own = [
        (f"yours: {MODELS[name]}, {kind}, D = {report.hidden_size}, {live.step} steps", live.accuracy)
        for name in MODELS
        if (live := report.latest(name)) is not None
    ]
    title = f"Exact match by source length: yours (dashed) and shipped (solid), D = {report.hidden_size}"
    return length_chart(results, report.hidden_size, "exact_match", own, others=False, title=title, height=height)


def progress_chart(report: PairReport, *, height: int = 300) -> go.Figure:
    """Held-out exact match against each model's own training step, one line per model that has started."""
    fig = go.Figure()
    for name in MODELS:  # the same order and colours as every other chart of the lesson
        reports = report.reports.get(name, ())
        if not reports:
            continue
        fig.add_scatter(
            x=[r.step for r in reports],
            y=[r.exact_match for r in reports],
            mode="lines+markers",
            name=MODELS[name],
            line={"color": COLORS[name], "width": 2},
            hovertemplate=f"{MODELS[name]}<br>step %{{x}}<br>held-out exact match %{{y:.0%}}<extra></extra>",
        )
    fig.update_layout(
        title={"text": "Held-out exact match as each model trains"},
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": "training step (each model its own)", "rangemode": "tozero"},
        yaxis={"title": "held-out exact match", "range": [-0.02, 1.02], "tickformat": ".0%"},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def probe_tokens(text: str = PROBE_TEXT) -> list[str]:
    """The probe's labels as a heatmap shows them (its source characters and the end mark)."""
    return [*(shown(ch) for ch in text), "</s>"]


def probe_heatmap(report: LiveReport) -> go.Figure:
    """The with-attention model's α while it copies the probe: output characters down, source characters across."""
    if report.attention is None:
        raise ValueError(f"{report.model} has no attention to draw")
    written = list(report.written) or [f"t{t + 1}" for t in range(report.attention.shape[0])]
    return attention_heatmap(
        report.attention,
        probe_tokens(),
        written,
        title=f"With attention, step {report.step}: its own copy (greedy), where each character it writes looks",
        x_title="source character",
        y_title="what it wrote",
        value_name="α",
        height=160 + 20 * len(written),
    )


def exercises() -> list[Exercise]:
    """A prediction the student can test with a live run: which characters a bidirectional c keeps freshest."""
    return [
        Exercise(
            key="seq2seq_bottleneck.ex6",
            prompt=(
                "Predict before you train it in section 5: a **bidirectional** encoder **without attention** gets "
                "c = [→h_S; ←h_1] and copies a long string. Where in its copy do you expect its characters to be "
                "remembered **least** well?"
            ),
            choices=(
                "Near the start of the string",
                "In the middle of the string",
                "Near the end of the string",
                "Nowhere: c has seen every character equally",
            ),
            answer=1,
            explanation=(
                "→h_S read the string left to right and ends at the end mark, so the last characters are freshest "
                "there; ←h_1 read it right to left and ends at the first character, so the first ones are freshest "
                "in that half. The middle is many steps old in both halves. This is reasoning, not a measurement "
                "here: train in section 5 and look at which characters its copy gets wrong."
            ),
            hint="Each direction remembers best what it read last.",
        ),
    ]
