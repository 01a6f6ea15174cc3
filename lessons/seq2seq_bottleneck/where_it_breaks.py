"""Section 3, where it breaks: accuracy against source length, with and without attention, at every context size D.

The shipped models (:mod:`.shipped`) copy test strings of every length; the charts draw the mean over the seeds with
a band of ± one sd and each seed faintly, and every sentence under them (:func:`summary`, :func:`overview`) is
computed from those numbers with the course's verdict rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lessons.common.charts import figure
from lessons.common.colorscales import ATTENTION_COLORSCALE
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.runs import Run, Spread
from lessons.seq2seq_bottleneck.experiment import (
    COLORS,
    EXAMPLES,
    LABELS,
    MAX_LEN,
    METRICS,
    MIN_LEN,
    MODELS,
    PER_LENGTH,
    STEPS,
    build,
    describe,
)
from lessons.seq2seq_bottleneck.shipped import (
    accuracy_of,
    compare_lengths,
    hidden_sizes,
    length_mean,
    length_metric,
    length_spread,
    lengths_text,
    reach,
    reach_metric,
    reach_spread,
    shipped_run,
    versus,
)

TITLE = "3 · Where it breaks: accuracy against length"
SHORT = (2, 4)  # the source lengths a summary calls short (inclusive)
LONG = (13, 18)  # ... and long: the longest third of the lengths
HOLDS = 0.9  # "copies the longest strings" means exact match at least this on lengths 16-18 on every seed
LONGEST = (16, 18)


def text() -> str:
    return (
        f"The experiment: the copy task, strings of {MIN_LEN} to {MAX_LEN} characters, trained **without attention** "
        f"and **with Bahdanau's additive attention** (lesson 3), each for the same {STEPS} steps from the "
        f"same seeds on the same data, for each context size D. Then about {PER_LENGTH} test strings of every "
        "length, never seen in training, are decoded greedily and scored. The chart draws the mean over the seeds, "
        "a band of ± one sd and each seed faintly; every sentence under it is computed from those numbers."
    )


def shipped_chart(
    results: Comparison,
    hidden_size: int,
    metric: str = "exact_match",
    variants: Sequence[str] = tuple(MODELS),
    *,
    title: str | None = None,
) -> dict:
    """The shipped ``variants`` at D = ``hidden_size``: score against source length, the mean over the seeds with a
    band of ± one sd and each seed as a faint line (``lessons.common.curves.curves_chart``, for ``ui.vega``)."""
    points = [
        p
        for p in results.curve_points(metric, x="length", where={"hidden_size": hidden_size})
        if p["variant"] in variants
    ]
    n = len(results.runs_of(variants[0], {"hidden_size": hidden_size}))
    return curves_chart(
        points,
        y_title=METRICS[metric],
        x_title="source length (characters)",
        percent=True,
        height=300,
        title=title or f"{METRICS[metric]}, D = {hidden_size}, {n} seeds",  # short: a phone cuts a long title
        colors=COLORS,
    )


def shipped_models(results: Comparison, hidden_size: int, variants: Sequence[str] = tuple(MODELS)) -> str:
    """What each shipped model at D = ``hidden_size`` is (its recorded ``describe``, or one rebuilt from the
    settings when the file predates it), one markdown line each."""
    lines = []
    for v in variants:
        runs = results.runs_of(v, {"hidden_size": hidden_size})
        if runs:
            label = runs[0].extra.get("model") or describe(build(v, hidden_size))
            lines.append(f"**{LABELS.get(v, v)}**: {label}")
    return "Shipped, trained for this page: " + "; ".join(lines) + "."


def summary(results: Comparison, hidden_size: int, metric: str = "exact_match") -> str:
    """What the curves at this D show, each sentence computed from the seeds (mean ± sd, n; the verdict rule)."""
    name = METRICS[metric]
    n = len(results.runs_of("gru-none", {"hidden_size": hidden_size}))
    lines = [
        f"At D = {hidden_size}, over {n} seeds: "
        + compare_lengths(results, "gru-additive", "gru-none", hidden_size, LONG, metric).sentence(
            metric_name=f"{name} on {lengths_text(LONG)}"
        ),
        "On short ones: "
        + compare_lengths(results, "gru-additive", "gru-none", hidden_size, SHORT, metric).sentence(
            metric_name=f"{name} on {lengths_text(SHORT)}"
        ),
        f"The longest length still copied at least half the time ({name}): "
        + " and ".join(f"{reach_spread(results, m, hidden_size, metric).text('.1f')} {MODELS[m]}" for m in MODELS)
        + ".",
    ]
    return "  \n".join(lines)


def example_rows(results: Comparison, hidden_size: int) -> list[dict]:
    """The lecture's growing sentence and what each shipped model wrote for it at D = ``hidden_size``."""
    none, attn = (shipped_run(results, m, hidden_size).extra.get("outputs", {}) for m in MODELS)
    return [
        {
            "string": text,
            "length": len(text),
            "without attention wrote": none.get(text, "?"),
            "with attention wrote": attn.get(text, "?"),
        }
        for text in EXAMPLES
    ]


def grid_heatmap(results: Comparison, metric: str = "exact_match", height: int = 330) -> go.Figure:
    """Two heatmaps side by side, without and with attention: rows D, columns source length, colour = score."""
    sizes = hidden_sizes(results)
    data, layout, annotations = [], {}, []
    for col, model in enumerate(MODELS):
        accs = [accuracy_of(results, model, d) for d in sizes]
        z = np.array([acc.metric(metric) for acc in accs])  # (len(sizes), len(lengths))
        n = "" if col == 0 else "2"
        data.append(
            {
                "type": "heatmap",
                "z": z,
                "x": list(accs[0].lengths),
                "y": [f"D = {d}" for d in sizes],
                "zmin": 0.0,
                "zmax": 1.0,
                "colorscale": ATTENTION_COLORSCALE,
                "showscale": col == 1,
                "xgap": 1,
                "ygap": 1,
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
                "colorbar": {"title": {"text": METRICS[metric]}, "tickformat": ".0%", "thickness": 12},
                "hovertemplate": f"{MODELS[model]}, %{{y}}<br>length %{{x}}<br>{METRICS[metric]} = %{{z:.1%}}"
                "<extra></extra>",
            }
        )
        domain = [0.0, 0.47] if col == 0 else [0.53, 1.0]  # side by side, as make_subplots' spacing 0.06
        layout[f"xaxis{n}"] = {"domain": domain, "anchor": f"y{n}", "title": {"text": "length"}, "dtick": 2}
        layout[f"yaxis{n}"] = {"domain": [0.0, 1.0], "anchor": f"x{n}", "showticklabels": col == 0}
        annotations.append(
            {
                "text": MODELS[model].replace(" ", "<br>", 1),
                "x": sum(domain) / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 12},
            }
        )
    layout |= {"annotations": annotations, "height": height, "margin": {"l": 10, "r": 10, "t": 56, "b": 10}}
    return figure(data, layout)


def holds_longest(results: Comparison, model: str, hidden_size: int, metric: str = "exact_match") -> Spread:
    """Each seed's mean ``metric`` on the longest strings (:data:`LONGEST`)."""
    return length_spread(results, model, hidden_size, LONGEST, metric)


def overview(results: Comparison, metric: str = "exact_match") -> str:
    """What the whole sweep shows, computed: where attention beats the fixed vector on long strings, at which D it
    still copies the longest strings on every seed, and whether a larger D helps the fixed vector."""
    sizes = hidden_sizes(results)
    name = METRICS[metric]
    beats = [
        d for d in sizes if compare_lengths(results, "gru-additive", "gru-none", d, LONG, metric).outcome == "better"
    ]
    others = [d for d in sizes if d not in beats]
    first = (
        f"With attention beats without attention on {lengths_text(LONG)} ({name}, over the seeds) at "
        f"{_ds(beats)}" + (f", and not clearly at {_ds(others)}." if others else ".")
        if beats
        else f"With attention does not clearly beat without attention on {lengths_text(LONG)} at any D."
    )
    held = {d: holds_longest(results, "gru-additive", d, metric) for d in sizes}
    good = [d for d in sizes if (held[d].min or 0.0) >= HOLDS]
    weak = [d for d in sizes if d not in good]
    second = (
        f"With attention, {lengths_text(LONGEST)} are copied at {HOLDS:.0%} or more on every seed at "
        + (_ds(good) if good else "no D")
        + (
            "; not at "
            + ", ".join(f"D = {d} ({held[d].text()})" for d in weak)
            + f": there at least one seed falls below {HOLDS:.0%} on the longest strings."
            if weak
            else ": the curve with attention stays high."
        )
    )
    small, large = sizes[0], sizes[-1]
    bigger = versus(
        (f"Without attention, D = {large}", reach_spread(results, "gru-none", large, metric)),
        (f"D = {small}", reach_spread(results, "gru-none", small, metric)),
        reach_metric(metric),
    )
    top = max(length_spread(results, "gru-none", d, LONG, metric).max or 0.0 for d in sizes)
    third = (
        bigger.sentence(".1f")
        + f" On {lengths_text(LONG)}, the best seed without attention, at any D, scores {top:.0%} ({name})."
    )
    return " ".join([first, second, third])


def drift_figures(run: Run) -> dict[str, float]:
    """The figures of one run that the lesson's verdicts compare besides its final values, under the names the
    verdicts give them (``bench/drift.py`` holds them apart between kernel settings): for each metric, the mean over
    the short, the long and every length (the pooling section's), and the longest length copied at least half the
    time."""
    figures = {}
    for metric in METRICS:
        for lengths in (SHORT, LONG, (MIN_LEN, MAX_LEN)):
            figures[length_metric(metric, lengths)] = length_mean(run, lengths, metric)
        figures[reach_metric(metric)] = reach(run, metric)
    return figures


def _ds(sizes: Sequence[int]) -> str:
    return "D = " + ", ".join(str(d) for d in sizes)


def provenance_note(results: Comparison, hidden_size: int) -> str:
    """What the provenance caption adds at D = ``hidden_size``: steps, training seconds and parameters."""
    none, attn = (shipped_run(results, m, hidden_size) for m in MODELS)
    return (
        f"{none.final['steps']:.0f} steps each; seed {none.seed}'s training took {none.final['seconds']:.0f} s without "
        f"attention and {attn.final['seconds']:.0f} s with it at D = {hidden_size} ({none.extra['parameters']:,} and "
        f"{attn.extra['parameters']:,} parameters). The scores depend only on the seeds."
    )
