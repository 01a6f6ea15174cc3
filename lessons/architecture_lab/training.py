"""Section 2, train it: the lab's one recipe for every chain, a student's live run and its reports' maps, and the
row a finished run adds to the comparison table of section 3.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import plotly.graph_objects as go

from lessons.architecture_lab.attention_maps import MapView, attention_figure, heads_figure, map_views
from lessons.architecture_lab.presets import label_for
from lessons.architecture_lab.writing_chains import Checked, build
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from minimodels.tasks import Task, get_task
from minimodels.train import Progress, TrainConfig, TrainResult
from minimodels.train import train as train_model

TITLE = "2 · Train it"

TARGET = 0.9  # "steps/seconds to accuracy": the first report at or above this held-out exact match
STOP_AT = 0.98  # a run stops once it reaches this
REPORT_EVERY = 25
BUDGETS = (10, 20, 30, 60)  # seconds a live run may take

TEXT = (
    "The recipe is the same for every chain: Adam, learning rate 10⁻² after a 50-step warm-up, then decaying "
    f"as 1/√step, batches of 128. Every {REPORT_EVERY} steps, 200 held-out examples are decoded "
    f"greedily; training stops at {STOP_AT:.0%} exact match or when the time is up. Each "
    "finished run joins your comparison table below."
)


def train_config(budget_seconds: float, seed: int = 0, **overrides) -> TrainConfig:
    """The lab's recipe for every chain: Adam, peak lr 1e-2 after a 50-step warm-up, then the Transformer
    paper's inverse-square-root decay (course default for Transformers); reports every ``REPORT_EVERY`` steps,
    stop at ``STOP_AT`` or after ``budget_seconds``. One torch thread per run (a shared class server)."""
    options = {
        "seed": seed,
        "lr": 1e-2,
        "warmup_steps": 50,
        "decay": True,
        "report_every": REPORT_EVERY,
        "target_exact_match": STOP_AT,
        "max_seconds": budget_seconds,
        "max_steps": 5000,
        "threads": THREADS_PER_RUN,
        "device": "cpu",
        **overrides,
    }
    return TrainConfig(**options)


def new_run(checked: Checked, task: Task, seed: int, budget_seconds: float, max_steps: int | None = None):
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``. With
    ``max_steps`` (a shipped row's recipe) it trains that many steps and does not stop early at ``STOP_AT``."""
    if checked.config is None:
        raise ValueError(checked.error or "the chains cannot be built")
    check_budget(budget_seconds)
    model = build(checked.config, seed)
    fixed = {"max_steps": max_steps, "target_exact_match": 1.0} if max_steps else {}
    config = train_config(budget_seconds, seed, **fixed)

    def train_fn(on_progress) -> TrainResult:
        return train_model(model, task, config, on_progress)

    return model, train_fn


def reached(history: Sequence[Progress], target: float = TARGET) -> tuple[int, float] | None:
    """The first report at or above ``target`` exact match: ``(step, seconds)``, or None."""
    for p in history:
        if p.exact_match >= target:
            return p.step, p.seconds
    return None


def live_run(
    checked: Checked,
    task_name: str,
    cell: str,
    encoder: str,
    decoder: str,
    seed: int,
    budget_seconds: float,
    max_steps: int | None = None,
) -> tuple[TrainingRun, Callable[[TrainResult], dict]]:
    """The training panel's run of these chains (:func:`new_run`), and the function that makes its row of the
    comparison table (:func:`run_row`) from its result once it is over."""
    if checked.config is None:  # refused here, in the page, not in the worker
        raise ValueError(checked.error or "the chains cannot be built")
    check_budget(budget_seconds)
    recipe = functools.partial(live_training, checked, task_name, seed, budget_seconds, max_steps)
    row = functools.partial(run_row, label_for(encoder, decoder), encoder, decoder, cell, task_name, checked.parameters)
    return TrainingRun(recipe, name="architecture_lab"), row


def live_training(checked: Checked, task_name: str, seed: int, budget_seconds: float, max_steps: int | None):
    """In the run's worker: :func:`new_run` on the task named ``task_name``."""
    return new_run(checked, get_task(task_name), seed, budget_seconds, max_steps)


def run_row(label: str, encoder: str, decoder: str, cell: str, task: str, parameters: int, result: TrainResult):
    """One finished run as a row of the comparison table."""
    first = reached(result.history)
    return {
        "chains": label,
        "encoder": encoder,
        "decoder": decoder,
        "cell": cell,
        "task": task,
        "parameters": parameters,
        f"steps to {TARGET:.0%}": first[0] if first else None,
        f"seconds to {TARGET:.0%}": round(first[1], 1) if first else None,
        "final exact match": round(result.exact_match, 3),
        "steps": result.steps,
        "seconds": round(result.seconds, 1),
        "stopped": result.stopped,
    }


def snapshot_views(snapshot: Progress) -> list[MapView]:
    """Every map of a training report's probe."""
    return map_views(snapshot.attention_maps, snapshot.source_tokens, snapshot.target_tokens)


def snapshot_caption(snapshot: Progress) -> str:
    """What a live report's maps show: its step, exact match and what the model writes."""
    return f"step {snapshot.step} · exact match {snapshot.exact_match:.0%} · writes “{snapshot.prediction}”"


def snapshot_figure(snapshot: Progress, each_head: bool = False) -> go.Figure:
    """A live report's maps, heads averaged and titled with :func:`snapshot_caption` (:func:`attention_figure`), or
    each head in a map of its own (:func:`heads_figure`, the caption under it)."""
    if each_head:
        return heads_figure(snapshot_views(snapshot))
    return attention_figure(snapshot_views(snapshot), caption=snapshot_caption(snapshot))
