"""Section 5, train a bridge yourself: a fresh model for one student, trained live from scratch.

The hub directions, with or without monolingual pairs and the penalty, for as many seconds as the student
chooses; each report draws the held-out probe meaning's heads in all four languages
(:func:`lessons.attention_bridge.one_meaning.heads_side_by_side`) with a caption of its numbers.
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.attention_bridge.experiments import MODEL_OPTIONS, PENALTY_ON, SEED, hub_pairs, zero_shot_pairs
from lessons.attention_bridge.one_meaning import heads_side_by_side
from lessons.common.live import TrainingRun
from minimodels.bridge import BridgeProgress, BridgeTrainConfig, new_bridge, train_bridge
from minimodels.tasks.multilingual import get_multilingual

TITLE = "5 · Train a bridge yourself"
TEXT = (
    "A fresh model for you alone, trained from scratch on the hub directions; choose whether it also sees "
    "monolingual pairs and whether the penalty is on. Watch the heads of the held-out probe meaning sharpen in "
    "all four languages. The bar's exact match is on the trained directions; the zero-shot one is printed below "
    "the heads. A minute on one core is far less than the shipped models' training, so expect low accuracies."
)
LIVE_SIZES = {"n_train": 1500, "n_valid": 100, "n_test": 500}  # the live run's (same test split: drawn first)


def new_run(monolingual: bool, penalty: bool, seconds: float, steps: int = 3000, seed: int = SEED):
    """A fresh model and its training function for one student's run (from scratch, on the live corpus), stopped
    after ``seconds`` or ``steps``, whichever comes first."""
    corpus = get_multilingual(SEED, **LIVE_SIZES)
    torch.manual_seed(seed)
    model = new_bridge(corpus, **MODEL_OPTIONS, penalty_weight=PENALTY_ON if penalty else 0.0)
    config = BridgeTrainConfig(
        pairs=hub_pairs(monolingual),
        held_out=zero_shot_pairs(),
        max_steps=steps,
        max_seconds=seconds,
        seed=seed,
        batch_size=128,
        learning_rate=1e-2,
        report_every=20,
        eval_sentences=32,
    )

    def train_fn(on_progress) -> list[BridgeProgress]:
        return train_bridge(model, corpus, config, on_progress)

    return model, corpus, train_fn


def live_run(monolingual: bool, penalty: bool, seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_run`'s fresh model and its trainer."""
    return TrainingRun(functools.partial(live_training, monolingual, penalty, seconds), name="attention_bridge")


def live_training(monolingual: bool, penalty: bool, seconds: float):
    """In the run's worker: :func:`new_run`'s fresh model and its trainer."""
    model, _, train_fn = new_run(monolingual, penalty, seconds=seconds)
    return model, train_fn


def live_figure(report: BridgeProgress) -> go.Figure:
    """The probe's heads in every language at one live report (:func:`heads_side_by_side`), titled with its step."""
    return heads_side_by_side(live_maps(report), title=f"A after {report.step} steps")


def live_caption(report: BridgeProgress) -> str:
    zero = np.mean(list(report.zero_shot.values())) if report.zero_shot else float("nan")
    return (
        f"Step {report.step}: loss {report.loss:.3f}, penalty ‖AAᵀ − I‖²_F {report.penalty:.3f} per sentence, "
        f"held-out exact match {report.exact_match:.0%} on the trained directions and {zero:.0%} zero-shot "
        f"({len(report.zero_shot)} directions, 32 validation sentences each)."
    )


def live_maps(report: BridgeProgress) -> dict[str, tuple[np.ndarray, list[str]]]:
    return {lang: (report.probe_maps[lang], report.probe_tokens[lang]) for lang in report.probe_maps}
