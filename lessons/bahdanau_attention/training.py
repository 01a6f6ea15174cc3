"""Section 7, train it yourself: a fresh GRU + additive attention model for one student, its budget and recipe, and
the alignment of a fixed example as it trains."""

from __future__ import annotations

import functools

from lessons.bahdanau_attention.alignment import alignment_heatmap
from lessons.bahdanau_attention.decoding import MODEL
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from minimodels.tasks import get_task
from minimodels.train import TrainConfig, build_model, default_train_config, model_config, train

TITLE = "7 · Train it yourself"


def budget_seconds(task_name: str) -> float:
    """A student's training budget: the dates task learns in seconds, the translations need longer."""
    return 15.0 if task_name == "dates" else 90.0


def live_config(budget_seconds: float) -> TrainConfig:
    """The measured recipe for ``gru-additive`` (batch 128, Adam 1.25e-2 with the weights averaged, clipping at
    1: ``minimodels.train.default_train_config``), reporting often enough to watch."""
    return default_train_config(
        MODEL, max_seconds=budget_seconds, report_every=10, target_exact_match=0.98, threads=THREADS_PER_RUN
    )


def bidirectional_label(shipped_bidirectional: bool) -> str:
    """The toggle's label, saying what this task's shipped model has (read from its checkpoint)."""
    return f"Bidirectional encoder (this task's shipped model: {'bi' if shipped_bidirectional else 'uni'}directional)"


def train_text(budget: float, shipped_bidirectional: bool) -> str:
    """What the train-it-yourself panel does, with this task's budget and its shipped model's encoder."""
    return (
        f"Train a fresh GRU + additive attention model on this task, for you alone (at most {budget:g} s, or until "
        "98% of held-out sentences come out exactly right), with a unidirectional encoder or a bidirectional one "
        f"(this task's shipped model is {'bi' if shipped_bidirectional else 'uni'}directional). Watch the alignment "
        "of a fixed example sharpen from a uniform blur into a path; afterwards, replay the run and use your model "
        "in the sections above."
    )


def new_training(task_name: str, seed: int, budget_seconds: float, bidirectional: bool = False):
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``.

    ``bidirectional``: the encoder also reads right to left (hᵢ = [h⃗ᵢ; h⃖ᵢ], D = 2H), as the shipped translation
    models' do."""
    task = get_task(task_name)
    model = build_model(MODEL, task, seed=seed, bidirectional=bidirectional)
    config = live_config(budget_seconds)
    return model, lambda on_progress: train(model, task, config, on_progress)


def new_run(task_name: str, seed: int, budget_seconds: float, bidirectional: bool = False) -> TrainingRun:
    """One student's run, not yet started: a worker process will build a fresh model of their own and train it."""
    recipe = functools.partial(new_training, task_name, seed, budget_seconds, bidirectional)
    label = model_config(MODEL, get_task(task_name), bidirectional=bidirectional).describe()  # the model it will build
    return TrainingRun(recipe, name=f"bahdanau-{task_name}", label=label)


def snapshot_figure(snapshot):
    """The alignment of the training run's fixed example at one report (``minimodels.train.Progress``)."""
    title = f"α on a fixed example after {snapshot.step} steps"
    return alignment_heatmap(snapshot.attention, snapshot.source_tokens, snapshot.target_tokens, title)
