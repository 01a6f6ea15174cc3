"""Section 3 of the induction-heads lesson: train the model and watch the induction head form, live; then the same
recipe over the shipped seeds.

The live run is the recipe of :mod:`~lessons.induction_heads.training` for one student, on one core, for a few tens
of seconds. Every report draws the loss on each half, each head's two scores so far, and every head's weights on
one probe sequence.

Letters: R the random part's length, T = 2R positions, L layers, h heads per layer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import plotly.graph_objects as go
import torch

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.grids import GridRow, head_grid
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.induction_heads import training
from lessons.induction_heads.results import INTACT, Formation
from lessons.induction_heads.sequences import NAMES, VOCAB
from lessons.induction_heads.training import CONFIG, HEADS, INDUCTION_LEVEL, REPORT_EVERY, STEPS, Progress, head_name

TITLE = "3 · Train it and watch the heads form"
BUDGETS = (10, 20, 30, 60)  # seconds a student may give a run
DEFAULT_BUDGET = 30


def train_text() -> str:
    """Above the live panel: what the run does and what it draws. It states no result."""
    return (
        f"Train a fresh model for you alone: up to {STEPS} steps of {training.BATCH} sequences, Adam at "
        f"{training.LR:g}. Every {REPORT_EVERY} steps it is read on the same {training.PROBE_N} held-out sequences "
        "(16 random tokens and their copy): the loss on each half, the **in-context accuracy** (next token right in "
        "the copy) beside the random half's, each head's two scores, and every head's weights on the first sequence. "
        "Keep your prediction from section 2 in mind, and watch which head's prefix-matching score moves, and when."
    )


def live_recipe(seed: int, budget_seconds: float):
    """Built in the training worker: a fresh model for one student and the function that trains it in place on one
    core for at most ``budget_seconds`` (``(model, train_fn)``, as :class:`~lessons.common.live.TrainingRun` asks)."""
    model = training.new_model(seed)

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)
        training.train(
            seed, on_report=lambda progress, _: on_progress(progress), max_seconds=float(budget_seconds), model=model
        )
        return model

    return model, train_fn


def new_run(seed: int, budget_seconds: float) -> TrainingRun:
    """One student's run: a worker process builds a fresh model and trains it on one core."""
    check_budget(budget_seconds)
    return TrainingRun(functools.partial(live_recipe, seed, float(budget_seconds)), name="induction-heads")


def probe_labels() -> list[str]:
    inputs, _ = training.probe()
    return [NAMES[int(t)] for t in inputs[0]]


def heads_figure(snapshot: Progress) -> go.Figure:
    """Every head's weights on the first probe sequence at one report: a row per layer, a map per head."""
    labels = probe_labels()
    rows = [
        GridRow(f"layer {layer + 1}", snapshot.reading.attention[layer], labels, labels)
        for layer in range(CONFIG.n_layers)
    ]
    return head_grid(rows, title=f"Every head on a sequence and its copy, step {snapshot.step}", row_height=300)


def scores_charts(history: Sequence[Progress], *, height: int = 220) -> tuple[dict, dict]:
    """Each head's prefix-matching and previous-token scores against the step: one line per head."""
    charts = []
    for score, title in (("prefix", "Prefix-matching score"), ("previous", "Previous-token score")):
        points = [
            {
                "variant": head_name(layer, head),
                "label": head_name(layer, head),
                "order": order,
                "seed": 0,
                "x": p.step,
                "y": float(
                    getattr(p.reading, "prefix_matching" if score == "prefix" else "previous_token")[layer, head]
                ),
            }
            for p in history
            for order, (layer, head) in enumerate(HEADS)
        ]
        charts.append(
            curves_chart(points, y_title="score", x_title="training step", title=title, height=height, percent=True)
        )
    return charts[0], charts[1]


def halves_chart(history: Sequence[Progress], *, height: int = 220) -> dict:
    """Loss on the random half and on the copy against the step (the random half's floor is ln V)."""
    points = [
        {"variant": name, "label": name, "order": order, "seed": 0, "x": p.step, "y": value}
        for p in history
        for order, (name, value) in enumerate((("random half", p.reading.loss_random), ("copy", p.reading.loss_copy)))
    ]
    return curves_chart(
        points, y_title="held-out loss", x_title="training step", title="Loss on each half", height=height
    )


def snapshot_caption(snapshot: Progress) -> str:
    """What one report shows, in words computed from it."""
    r = snapshot.reading
    layer, head = r.strongest
    name = head_name(layer, head)
    state = f"{name} puts {r.prefix_matching[layer, head]:.0%} of its weight on the token to copy" + (
        ", an induction head" if r.prefix_matching[layer, head] >= INDUCTION_LEVEL and layer > 0 else ""
    )
    p_layer, p_head = r.previous_head
    return (
        f"Step {snapshot.step}: in-context accuracy {r.accuracy_copy:.0%} (random half {r.accuracy_random:.0%}, "
        f"chance {1 / VOCAB:.0%}). Strongest prefix matching: {state}. Strongest previous-token head: "
        f"{head_name(p_layer, p_head)} ({r.previous_token[p_layer, p_head]:.0%} on the previous position). In the "
        "maps, an induction head is a diagonal stripe in the copy's rows, R − 1 columns left of the main diagonal; "
        "a previous-token head is a stripe in every row, one column left of the main diagonal."
    )


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Over the shipped seeds: the copy's held-out loss, and the strongest layer-2 head's prefix-matching score."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    loss = curves_chart(
        results.curve_points("loss_copy", x=x),
        y_title="held-out loss on the copy",
        x_title=title,
        title="Loss on the copy",
        height=280,
    )
    score = curves_chart(
        results.curve_points("induction score", x=x),
        y_title="prefix-matching score",
        x_title=title,
        title="The strongest layer-2 head",
        height=280,
        percent=True,
    )
    return loss, score


def results_rows(results: Comparison) -> list[dict]:
    """Every seed's intact run: when it formed, its final scores."""
    rows = []
    for run in results.runs_of(INTACT):
        formed = run.final.get("formed at step")
        rows.append(
            {
                "seed": run.seed,
                "induction head formed at step": "never" if formed is None else f"{formed:.0f}",
                "in-context accuracy": f"{run.final['in-context accuracy']:.1%}",
                "random-half accuracy": f"{run.final['random-half accuracy']:.1%}",
                "induction head": run.extra.get("heads", {}).get("induction head", ""),
                "previous-token head": run.extra.get("heads", {}).get("previous-token head", ""),
            }
        )
    return rows


def expectation(formation: Formation) -> str:
    """Above the panel: when the shipped seeds formed their induction head, so a student knows how long to train."""
    return (
        f"**What to expect:** with this recipe, {formation.sentence()[0].lower()}{formation.sentence()[1:]} "
        "A run that stops before that step has not had its chance."
    )


def results_sentences(results: Comparison) -> list[str]:
    accuracy = results.spread("in-context accuracy", INTACT)
    random_half = results.spread("random-half accuracy", INTACT)
    return [
        f"At the end ({results.meta.get('steps')} steps): in-context accuracy {accuracy.text('.1%')}, the random half "
        f"{random_half.text('.1%')} (chance {1 / VOCAB:.1%}).",
    ]
