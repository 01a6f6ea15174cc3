"""Section 2 of the attention-explains lesson: a model of your own to question, trained live.

The model and its training are the induction-heads lesson's recipe (:mod:`lessons.induction_heads.training`), for one
student, in a worker process on one core, for the seconds the student gives it. Besides the recipe the student may
train a *mystery model*: the same recipe with one bug planted (:data:`~lessons.attention_explains.measure.BUGS`),
which section 5 asks them to find from its behaviour. Which bug a mystery model carries is decided here and shown
nowhere before the student answers.

Letters: R the random part's length, V the vocabulary.
"""

from __future__ import annotations

import functools

import torch

from lessons.attention_explains.measure import new_model
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.induction_heads import training
from lessons.induction_heads.sequences import VOCAB

TITLE = "2 · A model to question"
RECIPE = "the course's recipe"
MYSTERY = "mystery model A"
MODELS = (RECIPE, MYSTERY)
_PLANTED = {RECIPE: "none", MYSTERY: "wrong-side mask"}  # read by the answer of section 5 only
BUDGETS = (10, 20, 30, 60)
DEFAULT_BUDGET = 30
SEEDS = (0, 1, 2, 3, 4)
TEXT = (
    "Train a model for you alone: the induction-heads lesson's two-layer decoder, two heads a layer, attention only, "
    f"on {training.BATCH} sequences a step of R random tokens (V = {VOCAB}) and their copy, for the seconds you give "
    "it. Every report reads it on held-out sequences: the loss on each half. Sections 3 and 4 then question *your* "
    "model. **Mystery model A** is the same recipe with one bug planted in its attention; section 5 asks you to "
    "find which from what it does."
)


def planted(choice: str) -> str:
    """The bug a model choice carries (a key of :data:`~lessons.attention_explains.measure.BUGS`)."""
    return _PLANTED[choice]


def live_recipe(seed: int, budget_seconds: float, choice: str):
    """Built in the training worker: a fresh model of ``choice`` and the function that trains it in place on one
    core for at most ``budget_seconds`` (``(model, train_fn)``, as :class:`~lessons.common.live.TrainingRun` asks)."""
    model = new_model(seed, planted(choice))

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)
        training.train(
            seed, on_report=lambda progress, _: on_progress(progress), max_seconds=float(budget_seconds), model=model
        )
        return model

    return model, train_fn


def new_run(seed: int, budget_seconds: float, choice: str) -> TrainingRun:
    """One student's run: a worker process builds a fresh model and trains it on one core."""
    if choice not in MODELS:
        raise ValueError(f"no model called {choice!r}")
    check_budget(budget_seconds)
    return TrainingRun(functools.partial(live_recipe, seed, float(budget_seconds), choice), name="attention-explains")


def caption(snapshot: training.Progress, choice: str) -> str:
    r = snapshot.reading
    return (
        f"Step {snapshot.step} of {choice}, {snapshot.seconds:.0f} s: in-context accuracy {r.accuracy_copy:.0%}, "
        f"random-half accuracy {r.accuracy_random:.0%} (held-out sequences of R = 16)."
    )
