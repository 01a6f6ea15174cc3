"""The background training run a page polls: progress, stop, queueing, failure."""

import os
import sys
import threading
import time

import pytest

from lessons.common.live import TRAINING_NICENESS, TrainingRun


def counting(steps: int, delay: float = 0.0):
    def train_fn(on_progress):
        for step in range(1, steps + 1):
            time.sleep(delay)
            if not on_progress({"step": step}):
                return step
        return steps

    return train_fn


def test_run_reports_every_snapshot_and_finishes():
    run = TrainingRun(counting(5)).start()
    assert run.wait(5)
    assert run.status == "finished" and run.result == 5
    assert [s["step"] for s in run.snapshots] == [1, 2, 3, 4, 5]
    assert run.latest == {"step": 5} and not run.active


def test_stop_ends_the_run_at_its_next_report_and_keeps_what_it_did():
    run = TrainingRun(counting(10_000, delay=0.01)).start()
    while len(run.snapshots) < 3:
        time.sleep(0.01)
    run.stop()
    assert run.wait(1.0), "a stopped run ends within a second"
    assert run.status == "stopped"
    assert 3 <= run.result < 10_000 and len(run.snapshots) == run.result


def test_runs_queue_for_a_free_slot():
    slots = threading.BoundedSemaphore(1)
    first = TrainingRun(counting(10_000, delay=0.01), slots=slots).start()
    while first.status != "running":
        time.sleep(0.01)
    second = TrainingRun(counting(2), slots=slots).start()
    time.sleep(0.2)
    assert second.status == "queued" and second.snapshots == []
    first.stop()
    assert first.wait(2) and second.wait(2)
    assert second.status == "finished"


def test_a_queued_run_that_is_stopped_never_starts():
    slots = threading.BoundedSemaphore(1)
    slots.acquire()
    run = TrainingRun(counting(3), slots=slots).start()
    run.stop()
    assert run.wait(2) and run.status == "stopped" and run.snapshots == []
    slots.release()


def test_a_failure_becomes_a_message_and_frees_the_slot():
    slots = threading.BoundedSemaphore(1)

    def broken(on_progress):
        on_progress({"step": 1})
        raise RuntimeError("out of cheese")

    run = TrainingRun(broken, slots=slots).start()
    assert run.wait(2)
    assert run.status == "failed" and "out of cheese" in run.error
    assert slots.acquire(timeout=0.1), "the slot was released"


@pytest.mark.skipif(sys.platform != "linux", reason="Linux sets a nice value per thread")
def test_training_thread_yields_the_cores_to_clicks():
    def train_fn(on_progress):
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    run = TrainingRun(train_fn).start()
    assert run.wait(5)
    assert run.result == min(19, os.getpriority(os.PRIO_PROCESS, 0) + TRAINING_NICENESS)  # 19: the lowest
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == os.getpriority(os.PRIO_PROCESS, 0)


def test_stop_does_not_wait_for_the_next_report():
    from minimodels.tasks import get_task
    from minimodels.train import TrainConfig, build_model, train

    task = get_task("copy")
    model = build_model("gru-additive", task, seed=0, embedding_size=16, hidden_size=32, attention_size=16)
    config = TrainConfig(max_steps=50_000, report_every=10_000, max_seconds=None, target_exact_match=None, eval_size=20)
    run = TrainingRun(lambda on_progress: train(model, task, config, on_progress)).start()
    while run.status != "running":
        time.sleep(0.01)
    time.sleep(0.2)
    run.stop()
    assert run.wait(60.0)  # generous for a busy machine (the run's thread yields the cores: lessons.common.live)
    assert run.status == "stopped" and 0 < run.result.steps < 10_000
    assert run.result.stopped == "callback" and len(run.snapshots) == 1  # one look at the model it keeps
