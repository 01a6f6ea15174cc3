"""Section 3, train one yourself: a fresh model with the student's number of heads, trained on the page for that
student alone, its cross-attention heads on a fixed example redrawn at every report. The trained model can then read
the student's sentence in section 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import plotly.graph_objects as go
from torch import nn

from lessons.common.grids import GridRow, head_grid
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.multi_head_attention.head_counts_runs import REPORT_EVERY, RESULT_HEADS, RESULT_TASK, new_model
from lessons.multi_head_attention.transformer_maps import MODEL, sublayer_label
from minimodels.tasks import get_task
from minimodels.train import Progress, TrainConfig, default_train_config
from minimodels.train import train as train_model

LIVE_TASK = RESULT_TASK
LIVE_HEADS = RESULT_HEADS  # a student trains one of the shipped comparison's head counts
LIVE_TARGET = 0.98
LIVE_BUDGET = 60.0  # seconds at most of one student's training


def live_text() -> str:
    """Above the train-it-yourself panel: what the student trains and what to predict before pressing Train."""
    return (
        "Train a fresh model with the number of heads you choose, for you alone (at most "
        f"{LIVE_BUDGET:g} s, or until {LIVE_TARGET:.0%} of held-out sentences come out right). Before you press "
        "Train, predict: will every head's cross-attention on the fixed example end up on the word being "
        "translated, or only some of them? Then watch it; afterwards, your model can read your sentence in section 2."
    )


def live_config(seed: int, budget_seconds: float) -> TrainConfig:
    return default_train_config(
        MODEL,
        seed=seed,
        max_seconds=budget_seconds,
        max_steps=None,
        report_every=REPORT_EVERY,
        target_exact_match=LIVE_TARGET,
        threads=THREADS_PER_RUN,
    )


def new_training(heads: int, seed: int, budget_seconds: float) -> tuple[nn.Module, Callable]:
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``."""
    task = get_task(LIVE_TASK)
    model = new_model(task, heads, seed)
    config = live_config(seed, budget_seconds)
    return model, lambda on_progress: train_model(model, task, config, on_progress)


def new_run(heads: int, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s model and trainer, named for its head count."""
    return TrainingRun(functools.partial(new_training, heads, seed, budget_seconds), name=f"multihead-h{heads}")


def snapshot_rows(snapshot: Progress) -> list[GridRow]:
    """A training report's probe maps: every cross-attention layer, head by head."""
    return [
        GridRow(sublayer_label(name), m, snapshot.source_tokens, snapshot.target_tokens)
        for name, m in sorted(snapshot.attention_maps.items())
        if name.endswith("cross")
    ]


def snapshot_grid(snapshot: Progress) -> go.Figure:
    """:func:`snapshot_rows` drawn as a grid, titled with the training step it was reported at."""
    title = f"cross-attention heads on a fixed example after {snapshot.step} steps"
    return head_grid(snapshot_rows(snapshot), title=title)
