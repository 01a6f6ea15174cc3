"""Section 7: train a fresh Transformer of any variant for one student, and watch its attention sharpen.

The variant (as shipped, post-LN, or without residuals, layer norm or feed-forward networks: section 4's ablation) is
trained with the shipped recipe until the student's budget runs out or it reaches :data:`LIVE_TARGET` held-out exact
match, reporting the last decoder layer's encoder–decoder attention on a fixed example as it goes. The trained model
can then be used in every section above.
"""

from __future__ import annotations

import functools

import numpy as np

from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.transformer.ablation_runs import VARIANTS
from lessons.transformer.reading import MODEL, TASKS, display_token
from minimodels.tasks import get_task
from minimodels.train import TrainConfig, build_model, default_train_config, train

TITLE = "7 · Train it yourself"
LIVE_TARGET = 0.98  # held-out exact match at which a student's run stops


def text(task_name: str) -> str:
    """Above the train-it-yourself panel: what the student trains and what it shows while it learns."""
    return (
        f"Train a fresh Transformer on **{TASKS[task_name].split(' (')[0]}** for you alone, with or without "
        "residuals, layer norm or feed-forward networks, and watch the last decoder layer's encoder–decoder "
        "attention, head by head, on a fixed example. Predict first: will its heads sharpen from a uniform haze into "
        f"an alignment within your budget, for the variant you picked? It stops at {LIVE_TARGET:.0%} "
        "held-out exact match or at the end of its budget; afterwards, replay the run and use your model in the "
        "sections above."
    )


def live_config(budget_seconds: float, seed: int) -> TrainConfig:
    """The shipped recipe, stopped by the student's budget or at :data:`LIVE_TARGET` held-out exact match, reported
    often."""
    return default_train_config(
        MODEL,
        max_seconds=budget_seconds,
        report_every=10,
        target_exact_match=LIVE_TARGET,
        threads=THREADS_PER_RUN,
        seed=seed,
    )


def new_training(task_name: str, variant: str, seed: int, budget_seconds: float):
    """A fresh model of ``variant`` for one student and the function that trains it: ``(model, train_fn)``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    task = get_task(task_name)
    model = build_model(MODEL, task, seed=seed, **VARIANTS[variant])
    config = live_config(budget_seconds, seed)
    return model, lambda on_progress: train(model, task, config, on_progress)


def new_run(task_name: str, variant: str, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s model and trainer, named for the task."""
    if variant not in VARIANTS:  # refused here, in the page, not in the worker
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    recipe = functools.partial(new_training, task_name, variant, seed, float(budget_seconds))
    return TrainingRun(recipe, name=f"transformer-{task_name}")


def probe_panels(snapshot) -> list[tuple[str, np.ndarray, list[str], list[str]]]:
    """The last decoder layer's cross-attention, head by head, on a training run's fixed example (a
    ``Progress``): one row of heatmaps, light enough to redraw a few times a second on a busy class server."""
    source = [display_token(t) for t in snapshot.source_tokens]
    target = [display_token(t) for t in snapshot.target_tokens]
    names = [n for n in snapshot.attention_maps if n.startswith("decoder.") and n.endswith(".cross")]
    last = max(names, key=lambda n: int(n.split(".")[1]))
    return [(f"encoder–decoder, layer {int(last.split('.')[1]) + 1}", snapshot.attention_maps[last], target, source)]


def probe_caption(step: int, output: str) -> str:
    """Under the live maps: what they show after ``step`` steps, and the model's own output (``output``, already
    set as literal text by the page) for the fixed example."""
    return (
        f"Encoder–decoder attention on the fixed example after {step} steps (teacher forced: rows are "
        f"the correct output). The model's own output for it now: {output}"
    )
