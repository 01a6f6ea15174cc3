"""Section 4, train one yourself: a fresh model for one student, trained on one core for a few seconds; at every
report, its accuracy at 1×, 2× and 4× the training length and its heads' mean attention on a probe string twice as
long as any training string.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import cache

import numpy as np
import torch

from lessons.common.charts import attention_heatmap
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.positions_that_travel.training import (
    LABELS,
    LETTERS,
    TIMES,
    TRAIN_MAX,
    TRAIN_MIN,
    attention_on,
    model_config,
    new_model,
    scores,
    test_strings,
    train_model,
)
from minimodels.positioned import PositionedDecoder

TITLE = "4 · Train one yourself"

LIVE_REPORT_EVERY = 25
LIVE_TARGET = 0.98  # held-out exact match at which a live run stops
LIVE_TEST = 100  # strings per length scored at each report
PROBE = (LETTERS + LETTERS)[3 : 3 + 2 * TRAIN_MAX]  # a 2× string: "defg…" wrapping round the alphabet


def train_text() -> str:
    """Above the panel. It states no result: the student's numbers sit next to the measured ones."""
    return (
        f"A fresh model for you alone, on one core: pick a scheme and a seed, train it on strings of "
        f"{TRAIN_MIN}–{TRAIN_MAX} letters, and watch its accuracy at 1×, 2× and 4× that length at every report "
        f"({LIVE_TEST} fresh strings each). The heatmap is the heads' mean attention on a {len(PROBE)}-letter string: "
        f"its rows past position {TRAIN_MAX} are queries at positions no training string reached."
    )


@dataclass(frozen=True)
class LiveProgress:
    """One live report, as the training panel reads it (step, seconds, loss, exact_match, attention)."""

    step: int
    seconds: float
    loss: float
    exact_match: float  # held-out strings (training lengths) with every letter right
    accuracy: float
    by_length: tuple[float, ...]  # accuracy at TIMES × TRAIN_MAX letters
    attention: np.ndarray  # (T, T) the heads' mean on PROBE
    prediction: str


@cache
def live_tests() -> tuple:
    """The strings each report scores, one set per length (made once per process)."""
    return tuple(test_strings(TRAIN_MAX * t, LIVE_TEST) for t in TIMES)


def live_recipe(positional: str, seed: int, budget_seconds: float):
    """Built in the training worker: a fresh model for one student and the function that trains it in place on one
    core for at most ``budget_seconds`` (``(model, train_fn)``, as :class:`~lessons.common.live.TrainingRun` asks)."""
    model = new_model(positional, seed)

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)

        def report(point: dict, trained: PositionedDecoder) -> bool:
            weights, written = attention_on(trained, PROBE)
            by_length = tuple(scores(trained, *s)["accuracy"] for s in live_tests())
            progress = LiveProgress(
                point["step"],
                point["seconds"],
                point["loss"],
                point["exact_match"],
                point["accuracy"],
                by_length,
                weights,
                written,
            )
            return bool(on_progress(progress)) and point["exact_match"] < LIVE_TARGET

        trained = train_model(
            positional,
            seed,
            steps=100_000,
            on_report=report,
            report_every=LIVE_REPORT_EVERY,
            max_seconds=float(budget_seconds),
        )[0]
        model.load_state_dict(trained.state_dict())  # the run's model is the one the page was sent at the start
        return model

    return model, train_fn


def new_run(positional: str, seed: int, budget_seconds: float) -> TrainingRun:
    """A fresh model for one student, trained by a worker process on one core for at most ``budget_seconds``."""
    model_config(positional)  # refuses an unknown scheme here, before anything is sent to a worker
    check_budget(budget_seconds)
    return TrainingRun(
        functools.partial(live_recipe, positional, seed, float(budget_seconds)), name=f"positions-{positional}"
    )


def by_length_text(snapshot: LiveProgress) -> str:
    """The report's accuracy at each test length, in one line."""
    parts = [f"{t}× ({TRAIN_MAX * t} letters): {a:.0%}" for t, a in zip(TIMES, snapshot.by_length, strict=True)]
    return f"After {snapshot.step} steps, letters right at " + " · ".join(parts) + "."


def snapshot_figure(snapshot: LiveProgress, positional: str):
    """A report's attention on the probe, titled with the scheme and the step."""
    letters = list(PROBE)
    return attention_heatmap(
        snapshot.attention,
        letters,
        letters,
        title=f"{LABELS[positional]} · step {snapshot.step} · heads' mean attention",
        show_cell_text=False,
        height=460,
    )
