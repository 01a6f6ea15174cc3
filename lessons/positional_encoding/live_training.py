"""Section 6, train one yourself: a fresh model for one student, trained on one core for a few seconds, its
self-attention on the probe string drawn at every report.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.positional_encoding.bag_of_tokens import DEFAULT_TEXT, AttentionMap, attention_maps_figure
from lessons.positional_encoding.models import HELD_OUT, LABELS, TRAIN_MAX, TRAIN_MIN, model_config, read, train_encoder
from minimodels.small import TinyEncoder

TITLE = "6 · Train one yourself"


def train_text() -> str:
    """Above the train-it-yourself panel. It states no result: the student's curves sit next to the shipped ones."""
    return (
        "A fresh model for you alone, on one core: pick an encoding, train it on strings of "
        f"{TRAIN_MIN}–{TRAIN_MAX} letters and compare its curves with the measured runs above. The heatmap is its "
        f"self-attention on “{DEFAULT_TEXT}”; the progress bar's exact match is the share of {HELD_OUT} held-out "
        "strings with every letter right."
    )


LIVE_REPORT_EVERY = 25
LIVE_TARGET = 0.98  # held-out exact match at which a live run stops


@dataclass(frozen=True)
class LiveProgress:
    """One live report, as the training panel reads it (step, seconds, loss, exact_match, attention)."""

    step: int
    seconds: float
    loss: float
    exact_match: float  # held-out strings with every letter right
    accuracy: float
    attention: np.ndarray  # (T, T) the probe's map
    prediction: str


def new_run(positional: str, seed: int, budget_seconds: float) -> TrainingRun:
    """A fresh model for one student, trained on one core for at most ``budget_seconds``."""
    model_config(positional)  # refuses an unknown encoding here, in the page, not in the worker
    check_budget(budget_seconds)
    return TrainingRun(
        functools.partial(new_training, positional, seed, budget_seconds), name=f"positional-{positional}"
    )


def new_training(positional: str, seed: int, budget_seconds: float):
    """In the run's worker: ``(None, train_fn)``; the model is made inside ``train_fn``, which returns it."""

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)

        def report(point: dict, model: TinyEncoder) -> bool:
            _, weights, written = read(model, DEFAULT_TEXT)
            progress = LiveProgress(
                point["step"],
                point["seconds"],
                point["loss"],
                point["exact_match"],
                point["accuracy"],
                weights,
                written,
            )
            return bool(on_progress(progress)) and point["exact_match"] < LIVE_TARGET

        return train_encoder(
            positional,
            seed,
            steps=100_000,
            on_report=report,
            report_every=LIVE_REPORT_EVERY,
            max_seconds=float(budget_seconds),
        )[0]

    return None, train_fn


def snapshot_figure(snapshot: LiveProgress, positional: str) -> go.Figure:
    """A live run's report as its self-attention map on the probe, titled with the encoding and the step."""
    m = AttentionMap(positional, list(DEFAULT_TEXT), snapshot.attention, snapshot.prediction, None)
    return attention_maps_figure([m], titles=[f"{LABELS[positional]} · step {snapshot.step}"])
