"""Section 5, train the three cells: the lecture's agreement example ("The cat, which already ate …, was full.") as a
task a cell is trained on, and what the gates learn.

A sequence starts with *cat* or *cats*, T distractor words follow, and the model must answer *was* or *were* from its
last state (the task, the model and the training loop: :mod:`.training`). The shipped comparison draws each cell's
held-out accuracy against T over seeds, and every sentence under it is computed from those numbers
(:func:`results_summary`); a live run trains the three cells side by side and draws their accuracy and their keep
gates on one fixed example.

Letters: T distance (distractors between the subject and the verb), H hidden size.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lessons.common.charts import safe_label
from lessons.common.colorscales import SEQUENTIAL_COLORSCALE
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.rnn_cells.seeded_cells import sigmoid
from lessons.rnn_cells.training import (
    ACCURACY,
    EMBED,
    EVAL_SIZE,
    HIDDEN,
    KEEP_BIAS,
    KEEP_GATE,
    KINDS,
    LABELS,
    LR,
    STANDARD,
    STANDARD_BIAS,
    STEPS,
    TARGET,
    VARIANTS,
    Point,
    Report,
    chance,
    chance_ceiling,
)

TITLE = "5 · Train the three cells"
TEXT = (
    "The lecture's sentence as a task a cell can be trained on: a sequence starts with *cat* or *cats*, then "
    "**T** distractor words follow (*which, already, ate, the, mice, …*), and the model must answer *was* or "
    f"*were* from its last state. An embedding of {EMBED} numbers, one cell of H = {HIDDEN} units, a "
    "linear layer on the last state: an RNN, a GRU and an LSTM, from the same seed, trained on the same "
    f"batches with the same recipe (Adam, learning rate {LR:g}). Half the sequences are *cat*, so guessing "
    f"scores about 50%. The gated cells start with their keep gates mostly open (bias {KEEP_BIAS:g}, "
    f"σ ≈ {sigmoid(KEEP_BIAS):.2f}: section 3's slider); the measured chart adds an LSTM started from the "
    f"usual forget-gate bias of {STANDARD_BIAS:g} (σ ≈ {sigmoid(STANDARD_BIAS):.2f}). The plain RNN has no "
    "gate to set."
)
COLORS = {"RNN": "#d62728", "GRU": "#2ca02c", "LSTM": "#1f77b4", STANDARD: "#9467bd"}
SOLVED = 0.95  # a distance counts as solved by a cell when every seed reaches this
DISTANCE_TITLE = "distance T (words between subject and verb)"  # short enough for a 390 px phone


# ------------------------------------------------------------------------------------------------ shipped results
def label_of(results: Comparison, variant: str) -> str:
    """What a student reads for a variant: the comparison's own label, else :data:`LABELS`, else the key."""
    return results.labels.get(variant) or LABELS.get(variant, variant)


def results_chart(results: Comparison, *, height: int = 380) -> dict:
    """Final held-out accuracy against the distance T: per variant the mean over seeds, a band of ± one sd and each
    seed faintly (:func:`~lessons.common.curves.curves_chart`), over a dotted line at chance (computed)."""
    points = [p | {"label": label_of(results, p["variant"])} for p in results.sweep_points(ACCURACY, "distance")]
    spec = curves_chart(
        points,
        y_title="held-out accuracy",
        x_title=DISTANCE_TITLE,
        height=height,
        percent=True,
        colors=COLORS,
        title=f"Held-out accuracy after training ({len(results.seeds)} seeds)",
    )
    return with_chance(spec, chance(max(results.param_values("distance"))))


def with_chance(spec: dict, level: float = 0.5) -> dict:
    """A curves chart over a dotted line at chance (``level``), labelled."""
    curves = {"encoding": spec.pop("encoding"), "layer": spec.pop("layer")}  # the rule must not inherit x and colour
    data = {"values": [{}]}
    rule = {
        "data": data,
        "mark": {
            "type": "rule",
            "strokeDash": [4, 4],
            "color": "gray",
            "tooltip": f"chance: {level:.1%}",
            "description": f"chance: {level:.1%}",
        },
        "encoding": {"y": {"datum": level, "type": "quantitative"}},
    }
    text = {
        "data": data,
        "mark": {
            "type": "text",
            "text": "chance",
            "align": "left",
            "baseline": "bottom",
            "dx": 4,
            "dy": -2,
            "color": "gray",
        },
        "encoding": {"x": {"value": 0}, "y": {"datum": level, "type": "quantitative"}},
    }
    return spec | {"layer": [curves, rule, text]}


def solved_at(results: Comparison, kind: str) -> list[int]:
    """The distances at which every seed of ``kind`` reached :data:`SOLVED`."""
    return [
        d
        for d in results.param_values("distance")
        if (s := results.spread(ACCURACY, kind, {"distance": d})).n and s.min >= SOLVED and not s.missing
    ]


def at_chance(results: Comparison, kind: str) -> list[int]:
    """The distances at which no seed of ``kind`` beat :func:`chance_ceiling`: it learned nothing we can tell."""
    return [
        d
        for d in results.param_values("distance")
        if (s := results.spread(ACCURACY, kind, {"distance": d})).n and s.max < chance_ceiling(d)
    ]


def _distances(ds: Sequence[int]) -> str:
    return ", ".join(map(str, ds)) if ds else "none"


def results_summary(results: Comparison) -> str:
    """What the shipped comparison says, computed from it: where each variant solved the task and where it stayed
    at chance; then, at the first distance the plain RNN did not solve (else the longest) and at the longest, each
    gated cell against the plain RNN (:meth:`~lessons.common.comparison.Comparison.compare`: "beats", "does not
    beat" or "too close to call"); then the LSTM's forget-gate bias, 3 against 1, at the longest distance. One
    Markdown bullet a sentence."""
    results = dataclasses.replace(results, labels=LABELS | dict(results.labels))  # the verdicts' wording
    distances = results.param_values("distance")
    present = [v for v in VARIANTS if v in results.variants and results.runs_of(v)]
    label = functools.partial(label_of, results)
    solved = "; ".join(f"{label(v)} at T = {_distances(solved_at(results, v))}" for v in present)
    sentences = [f"Solved (every seed ≥ {SOLVED:.0%}): {solved}."]
    stuck = {v: ds for v in present if (ds := at_chance(results, v))}
    ceiling = max(chance_ceiling(d) for d in distances)
    if stuck:
        where = "; ".join(f"{label(v)} at T = {_distances(ds)}" for v, ds in stuck.items())
        lr = results.meta.get("recipe", {}).get("lr", LR)
        sentences.append(
            f"Still at chance ({chance(distances[-1]):.0%}; no seed above {ceiling:.0%}) at learning rate {lr:g}, "
            f"the rate chosen so that the LSTM learns (below: the plain RNN at other rates): {where}."
        )
    else:
        sentences.append(f"No cell is at chance ({chance(distances[-1]):.0%}) at any distance.")
    unsolved = [d for d in distances if d not in solved_at(results, "RNN")] if "RNN" in present else []
    for d in dict.fromkeys(([unsolved[0]] if unsolved else []) + [distances[-1]]):
        for kind in [k for k in ("GRU", "LSTM") if k in present]:
            verdict = results.compare(kind, "RNN", ACCURACY, where={"distance": d})
            sentences.append(verdict.sentence(".0%", f"held-out accuracy at T = {d}"))
    if STANDARD in present and "LSTM" in present:
        sentences.append(
            results.compare("LSTM", STANDARD, ACCURACY, where={"distance": distances[-1]}).sentence(
                ".0%", f"held-out accuracy at T = {distances[-1]}"
            )
        )
    return "\n".join(f"- {sentence}" for sentence in sentences)


def provenance_note(results: Comparison) -> str:
    """What the provenance caption adds for this comparison: the recipe's limits."""
    recipe = results.meta.get("recipe", {})
    return (
        f"At most {recipe.get('max_steps', STEPS)} steps per cell at learning rate {recipe.get('lr', LR):g}, a cell "
        f"stopping at {TARGET:.0%} on {EVAL_SIZE} held-out sequences; each seed a faint line, the band ± one sd. The "
        "same seed on another processor can land a little differently (its arithmetic rounds differently)."
    )


# ------------------------------------------------------------------------------------------------ a live run
def live_curves(histories: Mapping[str, Sequence[Point]], *, height: int = 320) -> dict:
    """Each cell's held-out accuracy against training steps, as it trains: one seed per cell, drawn by the one
    curve builder (:func:`~lessons.common.curves.curves_chart`) over the chance line."""
    points = [
        {"variant": kind, "label": kind, "order": KINDS.index(kind), "seed": 0, "x": p.step, "y": p.accuracy}
        for kind, history in histories.items()
        for p in history
    ]
    spec = curves_chart(
        points,
        y_title="held-out accuracy",
        x_title="training step",
        percent=True,
        height=height,
        title="Held-out accuracy while it trains",
        colors=COLORS,
    )
    return with_chance(spec)


def report_gates(report: Report):
    """:func:`gates_figure` of one live report, titled with its step and distance."""
    title = f"Keep gates on one fixed example at step {report.step} (T = {report.distance}): dark = keep the memory"
    return gates_figure(report.gates, report.tokens, title=title)


def gates_figure(gates: Mapping[str, np.ndarray], tokens: Sequence[str], *, title: str = "", height: int = 360):
    """The gated cells' keep gates on the probe, hidden units × tokens, side by side."""
    kinds = [k for k in KEEP_GATE if k in gates]
    labels = [safe_label(t) for t in tokens]
    fig = make_subplots(
        rows=1,
        cols=max(1, len(kinds)),
        subplot_titles=[f"{k}: {KEEP_GATE[k][1]}" for k in kinds],
        horizontal_spacing=0.06,
    )
    for col, kind in enumerate(kinds, start=1):
        z = gates[kind]
        fig.add_trace(
            go.Heatmap(
                z=z,
                y=[f"unit {i + 1}" for i in range(z.shape[0])],
                coloraxis="coloraxis",
                text=[labels] * z.shape[0],  # positions on the axis, words on hover and ticks
                hovertemplate="%{y}, step %{x}: “%{text}”, kept %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    coloraxis = {"colorscale": SEQUENTIAL_COLORSCALE, "cmin": 0.0, "cmax": 1.0, "colorbar": {"title": "kept"}}
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 60, "b": 10}, title=title, coloraxis=coloraxis)
    fig.update_xaxes(tickvals=list(range(len(labels))), ticktext=labels, tickangle=-90, tickfont_size=10)
    for col in range(2, len(kinds) + 1):
        fig.update_yaxes(showticklabels=False, row=1, col=col)
    return fig


def answers_text(report: Report) -> str:
    """What each cell answers on the fixed example, as Markdown: "RNN says *were*, GRU says *was*, …"."""
    return ", ".join(f"{kind} says *{verb}*" for kind, verb in report.answers.items())


READING = (
    "What to look for: in the keep-gate heatmaps, a dark row is a unit that copies its memory forward, and "
    "a unit that stays dark from *cat* to the end carries the subject across the clause. The plain RNN has no "
    "such gate: *cat* must survive T multiplications by W_aa, and its gradient (section 3) fades with T. Try "
    "T = 5, then T = 40, and compare with the measured chart above."
)
