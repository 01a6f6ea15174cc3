"""The training run a page polls, trained in a worker process: progress, stop, queueing, failure, the workers'
lifetime. The recipes these runs train are in ``tests/lessons/common/live_recipes.py``."""

import functools
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from lessons.common.live import TrainingRun
from lessons.common.workers import LOST_WORKER, TRAINING_NICENESS, Pool
from tests.helpers import gone
from tests.lessons.common.live_recipes import broken, counting, crashing, long_copy_task, priority, timed
from ui.training import training_now_text


@pytest.fixture
def pool():
    """A pool of one worker of the test's own: the queue is the test's, not another test's."""
    own = Pool(size=1)
    yield own
    own.shutdown()


def until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_run_trains_in_another_process_and_reports_every_snapshot():
    run = TrainingRun(functools.partial(counting, 5)).start()
    assert run.wait(60)
    assert run.status == "finished" and run.result == 5, run.error
    assert [s["step"] for s in run.snapshots] == [1, 2, 3, 4, 5]
    assert run.latest["step"] == 5 and not run.active
    assert run.pid == run.latest["pid"] and run.pid != os.getpid(), "it trained in a worker process"


def test_the_model_comes_back_and_the_worker_trains_at_a_lower_priority():
    run = TrainingRun(priority).start()
    assert run.wait(60) and run.status == "finished", run.error
    assert run.model == {"a": "model"}
    assert run.result == min(19, os.getpriority(os.PRIO_PROCESS, 0) + TRAINING_NICENESS)  # 19: the lowest


def test_stop_ends_the_run_at_its_next_report_and_keeps_what_it_did():
    run = TrainingRun(functools.partial(counting, 100_000, 0.01)).start()
    until(lambda: len(run.snapshots) >= 3)
    run.stop()
    assert run.wait(5.0), "a stopped run ends within seconds"
    assert run.status == "stopped"
    assert 3 <= run.result < 100_000 and len(run.snapshots) == run.result


@pytest.mark.slow  # a pool of its own: a worker process started for it
def test_runs_queue_for_a_free_worker_and_say_how_many_are_ahead(pool):
    first = TrainingRun(functools.partial(counting, 100_000, 0.01), pool=pool).start()
    until(lambda: first.status == "running")
    second = TrainingRun(functools.partial(counting, 2), pool=pool).start()
    third = TrainingRun(functools.partial(counting, 2), pool=pool).start()
    time.sleep(0.2)
    assert second.status == "queued" and second.snapshots == [] and second.ahead == 0
    assert third.ahead == 1
    first.stop()
    assert first.wait(10) and second.wait(30) and third.wait(30)
    assert second.status == third.status == "finished" and second.pid == first.pid, "one worker, reused"


@pytest.mark.slow  # a pool of its own: a worker process started for it
def test_a_queued_run_sees_how_far_the_run_it_waits_for_has_got(pool):
    first = TrainingRun(functools.partial(timed, 100_000, 0.01), pool=pool)
    first.budget_seconds = 30.0
    first.start()
    until(lambda: first.latest is not None and first.latest.seconds >= 0.2)
    second = TrainingRun(functools.partial(counting, 2), pool=pool).start()
    assert second.training_now == [first]
    bar = r" · training now: (\d+\.\d) s of 30 s"  # its seconds of training out of its budget
    before = re.fullmatch(bar, training_now_text(second.training_now))
    assert before, training_now_text(second.training_now)
    until(lambda: first.latest.seconds >= float(before[1]) + 0.5)
    after = re.fullmatch(bar, training_now_text(second.training_now))
    assert after and float(after[1]) > float(before[1]), "the bar moves as the run it waits for trains"
    assert first.training_now == [], "a training run waits for nobody"
    first.stop()
    assert second.wait(30) and second.status == "finished"
    assert second.training_now == []


@pytest.mark.slow  # a pool of its own: a worker process started for it
def test_prestarted_workers_wait_idle_and_take_the_first_run_at_once(pool):
    pool.prestart()
    [pid] = pool.pids()
    pool.prestart()
    assert pool.pids() == [pid], "started once, up to the pool's size"
    run = TrainingRun(functools.partial(counting, 2), pool=pool).start()
    assert run.wait(60) and run.status == "finished" and run.pid == pid


@pytest.mark.slow  # a pool of its own: a worker process started for it
def test_a_queued_run_that_is_stopped_never_starts(pool):
    first = TrainingRun(functools.partial(counting, 100_000, 0.01), pool=pool).start()
    run = TrainingRun(functools.partial(counting, 3), pool=pool).start()
    run.stop()
    assert run.wait(2) and run.status == "stopped" and run.snapshots == []
    first.stop()
    assert first.wait(30)


@pytest.mark.slow  # a pool of its own: a worker process started for it
def test_a_failure_becomes_a_message_and_frees_the_worker(pool):
    run = TrainingRun(broken, pool=pool).start()
    assert run.wait(60)
    assert run.status == "failed" and "out of cheese" in run.error
    after = TrainingRun(functools.partial(counting, 1), pool=pool).start()
    assert after.wait(30) and after.status == "finished"


@pytest.mark.slow  # a pool of its own: a worker process started for it
def test_a_worker_that_dies_fails_its_run_with_a_sentence_and_a_fresh_one_takes_the_next(pool):
    run = TrainingRun(crashing, pool=pool).start()
    assert run.wait(60)
    assert run.status == "failed" and run.error == LOST_WORKER and run.snapshots[0]["step"] == 1
    after = TrainingRun(functools.partial(counting, 1), pool=pool).start()
    assert after.wait(60) and after.status == "finished" and after.pid != run.pid


def test_a_recipe_no_worker_could_rebuild_is_refused_at_once():
    with pytest.raises(Exception, match="pickle|local object"):
        TrainingRun(lambda: (None, lambda on_progress: 1))


def test_stop_does_not_wait_for_the_next_report():
    run = TrainingRun(functools.partial(long_copy_task)).start()
    until(lambda: run.status == "running")
    time.sleep(0.5)
    run.stop()
    assert run.wait(60.0)  # generous for a busy machine (the worker yields the cores)
    assert run.status == "stopped" and 0 < run.result.steps < 10_000
    assert run.result.stopped == "callback" and len(run.snapshots) == 1  # one look at the model it keeps
    assert run.model is not None and sum(p.numel() for p in run.model.parameters()) > 0


SERVER = textwrap.dedent(
    """
    import functools, sys, time
    from lessons.common.live import TrainingRun
    from tests.lessons.common.live_recipes import counting
    run = TrainingRun(functools.partial(counting, 1_000_000, 0.01)).start()
    while run.status != "running":
        time.sleep(0.05)
    print(run.pid, flush=True)
    if sys.argv[1] == "killed":
        time.sleep(600)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["exits", "killed"])
def test_workers_do_not_outlive_the_server(how):
    """Whether the server exits (atexit) or is killed outright (the worker's pipe closes), its workers end."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, how], cwd=root, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        worker = int(server.stdout.readline())
        if how == "killed":
            server.send_signal(signal.SIGKILL)
        server.wait(60)
        assert gone(worker), f"worker {worker} outlived its server ({how})"
    finally:
        if server.poll() is None:
            server.kill()
