"""Training recipes the tests run live (``lessons.common.live.TrainingRun``), module-level as the lessons' are: a
worker process rebuilds a recipe from its pickle by importing this module. Its imports at the top are the standard
library's: a worker that imported ``tests.helpers`` would load AppTest, whose temporary folder a worker (ended by a
signal) never removes."""

import functools
import os
import time
from types import SimpleNamespace


def _count(steps: int, delay: float, on_progress):
    for step in range(1, steps + 1):
        time.sleep(delay)
        if not on_progress({"step": step, "pid": os.getpid()}):
            return step
    return steps


def counting(steps: int, delay: float = 0.0):
    """A training recipe (``lessons.common.live.TrainingRun``) with no model: it reports ``steps`` times, ``delay``
    seconds apart, and returns how many reports it made; module-level, so a worker process can rebuild it."""
    return None, functools.partial(_count, steps, delay)


def _broken(on_progress):
    on_progress({"step": 1})
    raise RuntimeError("out of cheese")


def broken():
    return None, _broken


def _crash(on_progress):
    on_progress({"step": 1})
    os._exit(3)  # the worker dies as if the OS had killed it


def crashing():
    return None, _crash


def _priority(on_progress):
    return os.getpriority(os.PRIO_PROCESS, 0)


def _timed(steps, delay, on_progress):
    for step in range(1, steps + 1):
        time.sleep(delay)
        if not on_progress(SimpleNamespace(step=step, seconds=step * delay)):
            break
    return steps


def timed(steps: int, delay: float):
    """Reports that carry their seconds of training, as ``minimodels.train.Progress`` does."""
    return None, functools.partial(_timed, steps, delay)


def priority():
    return {"a": "model"}, _priority


def long_copy_task():
    from minimodels.tasks import get_task  # here: only this test's worker builds a model
    from minimodels.train import TrainConfig, build_model, train

    task = get_task("copy")
    model = build_model("gru-additive", task, seed=0, embedding_size=16, hidden_size=32, attention_size=16)
    config = TrainConfig(max_steps=50_000, report_every=10_000, max_seconds=None, target_exact_match=None, eval_size=20)
    return model, functools.partial(train, model, task, config)
