"""Section 3's live panel: train one windowed decoder yourself, on the capital-letter task.

A fresh :class:`minimodels.kv_cache.WindowedDecoder` for one student, with the window and seed the student (or the
teacher's class sweep) picks, trained on one core; every ``REPORT_EVERY`` steps it answers ``HELD_OUT`` held-out
sequences and the probe sequence's attention map is kept for the replay. A class that spreads the windows over its
students draws the measured chart of the section again, one dot per student.

Letters: L letters per sequence, w the window, T = L + 1 positions.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_heatmap
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.kv_cache.window_task import (
    LETTERS,
    TEST_SEED,
    VOCAB,
    accuracy,
    ceiling,
    new_model,
    sequences,
    train_window,
)
from minimodels.kv_cache import WindowedDecoder
from minimodels.small import Report

TITLE = "Train a window yourself"
REPORT_EVERY = 25
HELD_OUT = 500
PROBE_SEED = 7  # the probe is the example sequence section 3 shows


def train_text() -> str:
    return (
        f"Pick a window and train a decoder for you alone. Every {REPORT_EVERY} steps it answers {HELD_OUT} held-out "
        "sequences (its accuracy is the panel's “exact match”: the one answer right) and the map below shows where "
        "“?” looks in the example sequence. **Predict first:** where will its accuracy level off, and where in the "
        "map will the weight of the “?” row go?"
    )


@dataclass(frozen=True)
class WindowProgress:
    """One live report, as the training panel reads it (step, seconds, loss, exact_match, attention)."""

    step: int
    seconds: float
    loss: float
    exact_match: float  # held-out accuracy at "?"
    attention: np.ndarray  # (T, T) the probe's map
    window: int


def _held_out() -> tuple[torch.Tensor, torch.Tensor]:
    return sequences(HELD_OUT, torch.Generator().manual_seed(TEST_SEED + 1))


def probe() -> torch.Tensor:
    tokens, _ = sequences(1, torch.Generator().manual_seed(PROBE_SEED))
    return tokens  # (1, T)


def live_recipe(window: int, seed: int, budget_seconds: float):
    """Built in the training worker: a fresh decoder for one student and the function that trains it in place on
    one core for ``budget_seconds`` (``(model, train_fn)``, as :class:`~lessons.common.live.TrainingRun` asks)."""
    model = new_model(window, seed)
    held, tokens = _held_out(), probe()

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)

        @torch.inference_mode()
        def report(trained: WindowedDecoder, r: Report) -> bool:
            attention = trained(tokens).attention["self"][0].double().numpy()  # (T, T)
            snapshot = WindowProgress(r.step, r.seconds, r.loss, accuracy(trained, *held), attention, window)
            return bool(on_progress(snapshot))

        trained, _ = train_window(
            window, seed, steps=100_000, on_report=report, report_every=REPORT_EVERY, max_seconds=float(budget_seconds)
        )
        model.load_state_dict(trained.state_dict())  # the run's model is the one the page was sent at the start
        return model

    return model, train_fn


def new_run(window: int, seed: int, budget_seconds: float) -> TrainingRun:
    """A fresh decoder for one student, trained by a worker process on one core for ``budget_seconds``."""
    check_budget(budget_seconds)
    return TrainingRun(functools.partial(live_recipe, window, seed, float(budget_seconds)), name="kv_cache-window")


def snapshot_figure(snapshot: WindowProgress) -> go.Figure:
    """The probe's map at one report: the “?” row is the answer's."""
    labels = [VOCAB[int(t)] for t in probe()[0]]
    return attention_heatmap(
        snapshot.attention,
        labels,
        labels,
        title=f"window {snapshot.window}, step {snapshot.step}: where each position looks",
        height=420,
    )


def snapshot_caption(snapshot: WindowProgress) -> str:
    best = ceiling(snapshot.window)
    where = int(np.argmax(snapshot.attention[-1]))
    labels = [VOCAB[int(t)] for t in probe()[0]]
    return (
        f"Held-out accuracy {snapshot.exact_match:.1%}; the best a window of {snapshot.window} can do on "
        f"{LETTERS} letters is {best:.1%}. The “?” row puts most weight on position {where + 1} "
        f"(“{labels[where]}”)."
    )
