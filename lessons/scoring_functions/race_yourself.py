"""Section 5, race them yourself: four fresh models for one student, raced from the seed they choose."""

from __future__ import annotations

import functools

from lessons.common.live import TrainingRun, check_budget
from lessons.scoring_functions.race_training import REPORT_EVERY, TARGET, TASK, new_models, race, race_config
from minimodels.tasks import get_task

TITLE = "5 · Race them yourself"
TEXT = (
    f"One click trains four fresh models for you alone, from the seed you choose. They take turns, "
    f"{REPORT_EVERY} steps each, so their curves grow side by side on a single core; each stops "
    f"at {TARGET:.0%} held-out exact match or when its own time budget is spent. The bar and the "
    "first two curves follow the four together (their mean loss and exact match, their seconds added up); below "
    "them, each model's own curves, its steps to accuracy and its attention on the fixed example."
)


def new_race(seed: int, budget_seconds: float):
    """Four fresh models for one student and the function that races them: ``(models, train_fn(on_progress))``."""
    check_budget(budget_seconds, " per model")
    task = get_task(TASK)
    models = new_models(task, seed)
    config = race_config(seed)

    def train_fn(on_progress):
        return race(models, task, config, budget_seconds=budget_seconds, on_progress=on_progress)

    return models, train_fn


def live_run(seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_race`'s four models and their race, built and run in a worker."""
    check_budget(budget_seconds, " per model")  # refused here, in the page, not in the worker
    return TrainingRun(functools.partial(new_race, seed, budget_seconds), name="scoring-race")
