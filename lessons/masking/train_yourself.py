"""Section 4 of the masking lesson: train both decoders yourself.

A fresh decoder for one student, with or without the causal mask, trained on one core for a few seconds; every
``LIVE_REPORT_EVERY`` steps the same held-out words are scored teacher forced and free-running, and the probe
word's self-attention map is kept for the replay.

Letters: T = 2·W the decoder's input positions (W = ``WORD`` letters per word).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_heatmap
from lessons.common.curves import curves_chart
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.masking.decoders import look
from lessons.masking.training import HELD_OUT, train_decoder
from lessons.masking.word_cipher import PROBE, input_labels
from minimodels.small import TinyDecoder

TITLE = "4 · Train both yourself"
LIVE_REPORT_EVERY = 25
LIVE_TARGET = 0.95  # a causal decoder stops at this held-out exact match; the cheater uses its whole budget
RUN_NAMES = {True: "causal", False: "cheat"}  # causal -> the run's name (and its training panel's key)


def train_text() -> str:
    """Above the train-both panel: what the runs are scored on and what to predict. It states no result."""
    return (
        "Train a fresh decoder for you alone, with or without the causal mask, then the other. Every "
        f"{LIVE_REPORT_EVERY} steps the same {HELD_OUT} held-out words are scored both ways: teacher-forced "
        "accuracy and free-running exact match (the chart beside the figure). A run with the mask stops at "
        f"{LIVE_TARGET:.0%} exact match; one without uses its whole budget. **Predict before you train:** for each "
        "decoder, will the two curves climb together, or will one run away from the other?"
    )


@dataclass(frozen=True)
class MaskingProgress:
    """One live report, as the training panel reads it (step, seconds, loss, exact_match, attention)."""

    step: int
    seconds: float
    loss: float
    exact_match: float  # held-out free-running exact match
    teacher_forced_accuracy: float
    attention: np.ndarray  # (T, T) the probe's map, teacher forced
    prediction: str  # the probe's cipher, generated


def new_run(causal: bool, seed: int, budget_seconds: float) -> TrainingRun:
    """A fresh decoder for one student, trained on one core of a worker for ``budget_seconds`` (a causal one stops
    at ``LIVE_TARGET``)."""
    check_budget(budget_seconds)
    return TrainingRun(
        functools.partial(new_training, causal, seed, budget_seconds), name=f"masking-{RUN_NAMES[causal]}"
    )


def new_training(causal: bool, seed: int, budget_seconds: float):
    """In the run's worker: ``(None, train_fn)``; the decoder is made inside ``train_fn``, which returns it."""
    holder: dict = {}

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)

        def report(point: dict, model: TinyDecoder) -> bool:
            view = look(model, PROBE)
            progress = MaskingProgress(
                point["step"],
                point["seconds"],
                point["loss"],
                point["exact_match"],
                point["teacher_forced_accuracy"],
                view.attention,
                view.free_running,
            )
            go_on = on_progress(progress)
            return bool(go_on) and not (causal and point["exact_match"] >= LIVE_TARGET)

        holder["model"], _ = train_decoder(
            causal,
            seed,
            steps=100_000,
            on_report=report,
            report_every=LIVE_REPORT_EVERY,
            max_seconds=float(budget_seconds),
        )
        return holder["model"]

    return None, train_fn


def snapshot_figure(snapshot: MaskingProgress) -> go.Figure:
    """A live report as the probe's self-attention map, titled with its step."""
    labels = input_labels(PROBE)
    return attention_heatmap(
        snapshot.attention, labels, labels, title=f"self-attention on “{PROBE}” at step {snapshot.step}"
    )


MEASURES = ("teacher-forced accuracy", "free-running exact match")


def two_measures_chart(history: list[MaskingProgress], *, height: int = 150) -> dict:
    """Teacher-forced accuracy and free-running exact match against the step, one line each (one run, no band)."""
    points = [
        {"variant": name, "label": name, "order": order, "seed": 0, "x": p.step, "y": value}
        for p in history
        for order, (name, value) in enumerate(zip(MEASURES, (p.teacher_forced_accuracy, p.exact_match), strict=True))
    ]
    return curves_chart(
        points, y_title="held-out", x_title="training step", title="The two measures", height=height, percent=True
    )
