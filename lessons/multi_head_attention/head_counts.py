"""Section 3: 1, 2, 4 or 8 heads for the same budget.

The shipped comparison (``assets/results/multi_head_attention.json``, measured by
:mod:`lessons.multi_head_attention.head_counts_runs`): the section's text, the table, the curves, the sentences
computed from the numbers, each head count's cross-attention heads on a fixed example, and the prediction the
student makes before opening them. Training one model live is :mod:`lessons.multi_head_attention.train_yourself`.

Letters: h heads, d_k = d_model / h.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.grids import GridRow, head_grid
from lessons.common.runs import load_note
from lessons.common.timing import median
from lessons.multi_head_attention.head_counts_runs import (
    AVERAGED,
    LEVELS,
    REPORT_EVERY,
    RESULT_D_MODEL,
    RESULT_HEADS,
    RESULT_SCRIPT,
    RESULTS,
    STEPS_TO,
    WORST,
    variant,
)
from lessons.multi_head_attention.transformer_maps import sublayer_label


def either(values: Sequence) -> str:
    """``(1, 2, 4, 8)`` -> "1, 2, 4 or 8"."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


TITLE = f"3 · {either(RESULT_HEADS)} heads for the same budget"


def comparison_text(c: Comparison | None) -> str:
    """Section 3's text: the head counts and their d_k from the lesson's settings, the budget and the parameter
    counts from the loaded results (none stated when they are missing)."""
    heads = (
        RESULT_HEADS if c is None else tuple(sorted(r.params["heads"] for r in (c.runs_of(v)[0] for v in c.variants)))
    )
    d_k = ", ".join(str(RESULT_D_MODEL // h) for h in heads)
    text = (
        f"The same Transformer (d_model = {RESULT_D_MODEL}) with {either(heads)} heads, so d_k = {d_k}: same seeds, "
        "same batches, same number of steps, trained on English → French-like sentences."
    )
    if c is not None:
        counts = {int(r.value("parameters")) for r in c.runs}
        text += (
            f" Every one has {counts.pop():,} parameters: as section 1 counted, the heads cost nothing."
            if len(counts) == 1
            else " Their parameter counts differ: the table lists them."
        )
    return text + " Predict first, then open the measured results."


def load_results(path: Path | str | None = None) -> Comparison:
    """Read the shipped comparison; ``ValueError``/``FileNotFoundError`` name the script that makes it."""
    return Comparison.load(path or RESULTS, script=RESULT_SCRIPT)


ALIGNMENT_CHOICES = (
    "more often than the one head of h = 1",
    "about as often (too close to call)",
    "less often than the one head of h = 1",
)


def alignment_prediction(results: Comparison) -> Exercise:
    """Predict, before opening section 3's results: does the worst single head of the most-headed model follow the
    gold alignment more or less often than the one head of h = 1? The answer is the shipped comparison's verdict."""
    few, many = results.variants[0], results.variants[-1]
    verdict = results.compare(many, few, WORST)
    answer = {"better": 0, "too close": 1, "worse": 2}[verdict.outcome]
    heads = results.runs_of(many)[0].params["heads"]
    gap = verdict.why(".0%")
    why = {
        "worse": f"The average of its heads still scores {results.spread(AVERAGED, many).text('.0%')}: with several "
        "heads the loss only needs *some* of them to find the source word, and the others are free to read "
        "something else.",
        "too close": "Here the heads did not visibly divide the work.",
        "better": "Here even its worst head aligns better than a lone head: the heads did not divide the work.",
    }[verdict.outcome]
    return Exercise(
        key="multi_head_attention.ex4",
        prompt=f"**Predict before you open the results.** Trained on the same budget, the model with {heads} heads: "
        "the *worst* single head of its last cross-attention layer puts its largest weight on the source word being "
        "translated…",
        choices=ALIGNMENT_CHOICES,
        answer=answer,
        explanation=f"Measured over the seeds, worst head: {results.label(many)} "
        f"{results.spread(WORST, many).text('.0%')}, against {results.label(few)} "
        f"{results.spread(WORST, few).text('.0%')}; {gap}. " + why,
        hint="With one head, that head must do all the aligning; with many, must every one of them?",
    )


TABLE = {  # final metric -> its format in the table (every cell: mean ± sd over the seeds, and n)
    **{name: ".0f" for name in STEPS_TO.values()}, "CPU s": ".1f", "wall s": ".1f", "held-out exact": ".1%",
    "test exact": ".1%", AVERAGED: ".1%", "alignment, best head": ".1%", WORST: ".1%",
}  # fmt: skip


def results_rows(c: Comparison) -> list[dict]:
    """One row per head count: d_k, parameters and steps, then every measure as mean ± sd over the seeds."""
    rows = []
    for row, name in zip(c.table(TABLE, variant_header="heads h"), c.variants, strict=True):
        first = c.runs_of(name)[0]
        size = {
            "d_k": first.params["d_k"],
            "parameters": int(first.final["parameters"]),
            "steps": int(first.final["steps"]),
        }
        rows.append({"heads h": row.pop("heads h"), **size, **row})
    return rows


HEAD_COLORS = {1: "#1f77b4", 2: "#2ca02c", 4: "#ff7f0e", 8: "#d62728", 16: "#9467bd"}


def load_caption(meta: Mapping) -> str:
    """After the comparison's provenance: how busy the machine was, and which of its figures that moves."""
    return (
        f"{load_note(meta)}. Wall seconds include any waiting for the cores; CPU seconds count this process's own "
        "compute, and steps do not depend on the machine."
    )


RESULTS_CAPTION = (  # under results_rows' table
    f"Mean ± sd over the seeds (n: how many). “Steps to 90%”: the first check (every "
    f"{REPORT_EVERY} steps, 200 held-out sentences) at or above it. Test exact: the 500 test "
    "sentences at the end. Alignment: how often the last decoder layer's cross-attention puts its largest weight "
    "on a source token the output token comes from (test split), for the heads' average map and for the best "
    "and worst single head."
)


def curves(c: Comparison, height: int = 260) -> tuple[dict, dict]:
    """Training loss and held-out exact match against steps: mean over seeds, ± sd band, each seed faint."""
    colors = {variant(h): color for h, color in HEAD_COLORS.items()}
    loss = curves_chart(
        c.curve_points("loss"),
        y_title="training loss",
        x_title="training step",
        title="Loss",
        height=height,
        log_y=True,
        colors=colors,
    )
    accuracy = curves_chart(
        c.curve_points("exact_match"),
        y_title="held-out exact match",
        x_title="training step",
        title="Exact match",
        height=height,
        percent=True,
        colors=colors,
    )
    return loss, accuracy


def _means(c: Comparison, metric: str) -> dict[str, float]:
    """Variant -> mean of ``metric``, for the variants where every seed has a value."""
    return {v: s.mean for v, s in c.spreads(metric).items() if not s.missing}


def _gap(verdict, fmt: str) -> str:
    return f"clearly: {verdict.why(fmt)}" if verdict.clear else f"too close to call, {verdict.why(fmt)}"


def observations(c: Comparison) -> list[str]:
    """What the shipped table says, in sentences computed from it (each comparison by ``Comparison.compare``)."""
    lines = []
    metric = STEPS_TO[LEVELS[0]]
    done = _means(c, metric)
    if done:
        fast, slow = min(done, key=done.get), max(done, key=done.get)
        text = (
            f"Fewest steps to {LEVELS[0]:.0%}: **{c.label(fast)}**, {c.spread(metric, fast).text('.0f')}; most: "
            f"{c.label(slow)}, {c.spread(metric, slow).text('.0f')}"
        )
        lines.append(
            text + (f": {_gap(c.compare(fast, slow, metric, higher_is_better=False), '.0f')}." if fast != slow else ".")
        )
    test = _means(c, "test exact")
    best, worst = max(test, key=test.get), min(test, key=test.get)
    verdict = c.compare(best, worst, "test exact")
    text = (
        f"At the end of the budget, test exact match runs from {c.spread('test exact', worst).text('.1%')} with "
        f"{c.label(worst)} to {c.spread('test exact', best).text('.1%')} with {c.label(best)}"
    )
    if verdict.clear:
        lines.append(f"{text}: {c.label(best)} is clearly ahead by the course's rule.")
    else:
        lines.append(
            f"{text}: {_gap(verdict, '.1%')}. These seeds cannot tell the head counts apart on test exact match; "
            "that is not evidence that the number of heads makes no difference, only that this budget of seeds "
            "does not show one."
        )
    lowest, averaged = _means(c, WORST), _means(c, AVERAGED)
    text = (
        "Following the gold alignment, the worst single head of the last cross-attention layer: "
        + ", ".join(f"{c.label(v)}: {c.spread(WORST, v).text('.0%')}" for v in lowest)
        + "; the heads' average map: "
        + ", ".join(f"{c.spread(AVERAGED, v).text('.0%')}" for v in averaged)
        + "."
    )
    few, many = c.variants[0], c.variants[-1]
    drift = c.compare(few, many, WORST)
    if drift.outcome == "better":
        best_head = c.spread("alignment, best head", many).mean
        text += (
            " With more heads, some heads drift away from the alignment"
            + (
                " while their average still follows it"
                if averaged.get(many, 0.0) >= best_head
                else " and so does their average"
            )
            + ": those heads are free to do something else (what, this table cannot say)."
        )
    else:
        text += f" With more heads, the worst single head does not clearly drift further from it: {_gap(drift, '.0%')}."
    lines.append(text)
    per_step = {v: [1000 * r.value("CPU s") / max(r.value("steps"), 1) for r in c.runs_of(v)] for v in c.variants}
    lines.append(
        "CPU time per step, checks included, on the machine that made the results (the median of its runs, their "
        "range in brackets; another machine times otherwise): "
        + ", ".join(
            f"{c.label(v)}: {median(ms):.0f} ms ({min(ms):.0f}–{max(ms):.0f}, n = {len(ms)})"
            for v, ms in per_step.items()
        )
        + ". The arithmetic is the same for every h; more heads mean more, smaller matrix products."
    )
    params = {v: int(c.runs_of(v)[0].value("parameters")) for v in c.variants}
    if len(set(params.values())) == 1:
        lines.append(
            f"Every model has exactly {params[c.variants[0]]:,} parameters: splitting d_model into heads is free."
        )
    else:
        counts = ", ".join(f"{c.label(v)}: {n:,}" for v, n in params.items())
        lines.append(f"The models' parameter counts differ: {counts}.")
    return lines


def probe(c: Comparison, name: str) -> Mapping:
    """The probe kept with ``name``'s first run that has one: ``{"seed", "step", "source", "target", "maps"}``."""
    found = next((r.extra["probe"] for r in c.runs_of(name) if "probe" in r.extra), None)
    if found is None:
        raise KeyError(f"no run of {name} kept its probe maps")
    return found


def probe_variants(c: Comparison) -> list[str]:
    """The head counts whose probe maps were kept."""
    return [v for v in c.variants if any("probe" in r.extra for r in c.runs_of(v))]


def probe_rows(c: Comparison, name: str) -> list[GridRow]:
    """The shipped model's cross-attention heads on the task's probe sentence, one grid row per layer."""
    kept = probe(c, name)
    return [
        GridRow(sublayer_label(layer), np.asarray(m, dtype=float), kept["source"], kept["target"])
        for layer, m in sorted(kept["maps"].items())
    ]


def probe_grid(c: Comparison, name: str) -> go.Figure:
    """:func:`probe_rows` drawn as a grid, titled with the head count and the seed of the run that kept them."""
    return head_grid(probe_rows(c, name), title=f"{name}, seed {probe(c, name)['seed']}")
