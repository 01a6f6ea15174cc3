"""Training worker processes: the students' live training runs, off the server's interpreter lock.

Streamlit draws every session's page in a thread of one Python process, and Python runs one thread at a time. A
training run in a thread of that process held the interpreter lock most of the time it computed, so while a class
trained, every click waited for it. Here runs train in other processes: a :class:`Pool` of at most
:data:`POOL_SIZE` workers (one per core), started by the server's warm-up or when a run needs one and kept for the
next, each a fresh Python process (started anew, not forked: no copy of the server's threads or locks) on one torch
thread, at a lower scheduling priority than the server, so a click still gets a core at once.

A run travels to a worker as its *recipe*: a module-level function (with its arguments, e.g. a
``functools.partial``) that the worker unpickles and calls to build ``(model, train_fn)``; ``train_fn(on_progress)``
trains as in a thread. The worker sends back through its socket the fresh model when it starts, every progress
report, and at the end the result and the trained model, each pickled with :mod:`pickle` (a copy of the tensors,
not torch's shared-memory handles). One thread of the server reads every worker's socket and fills in the runs
(:class:`lessons.common.live.TrainingRun`), which a page reads as before.

Workers end with the server: :meth:`Pool.shutdown` ends them at its exit, and a worker whose server has gone
without that (killed: its end of the socket closed) exits by itself. A worker that dies mid-run fails that run
with a plain sentence, and a fresh one takes the next run.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import pickle
import queue
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from multiprocessing import connection
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

POOL_SIZE = max(1, os.cpu_count() or 1)  # one run computes per core; the others queue
# Added to the server's nice value in a worker (19 at most): with every core training, a student moving a slider
# still gets a core at once, and the runs use whatever the class leaves idle.
TRAINING_NICENESS = 10
TORCH_THREADS = 1  # per worker: torch's default of one thread per core made runs fight the server for cores
READ_TIMEOUT_S = 0.2  # how soon the reader sees a worker that was started after it began waiting
LOST_WORKER = (
    "The training process stopped unexpectedly (the server may be short of memory), so this run ended here. "
    "Press Train to try again."
)


def _pack(message: tuple) -> bytes:
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


# ------------------------------------------------------------------------------------------------ in a worker
def _serve(conn) -> None:
    """A worker's life: train the runs the server sends, one at a time, until the server is gone."""
    os.environ["OMP_NUM_THREADS"] = str(TORCH_THREADS)
    with contextlib.suppress(AttributeError, OSError):  # no setpriority on Windows: the worker runs at normal priority
        os.setpriority(os.PRIO_PROCESS, 0, min(19, os.getpriority(os.PRIO_PROCESS, 0) + TRAINING_NICENESS))
    import torch  # here: in a fresh worker, after OMP_NUM_THREADS is set (torch reads it as it loads)

    from minimodels.train import stop_when  # here: it imports torch, after OMP_NUM_THREADS is set

    torch.set_num_threads(TORCH_THREADS)
    jobs: queue.Queue = queue.Queue()
    stop = threading.Event()
    state = {"current": None, "stopped": set()}
    lock = threading.Lock()
    send_lock = threading.Lock()

    def send(message: tuple) -> None:
        data = _pack(message)
        with send_lock:
            conn.send_bytes(data)

    def listen() -> None:
        while True:
            try:
                message = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):  # the server is gone: nobody will read what this worker trains
                os._exit(0)
            if message[0] == "run":
                jobs.put(message)
            elif message[0] == "stop":
                with lock:
                    if state["current"] == message[1]:
                        stop.set()
                    else:
                        state["stopped"].add(message[1])

    threading.Thread(target=listen, name="listen", daemon=True).start()
    while True:
        _, run_id, recipe = jobs.get()
        with lock:
            state["current"] = run_id
            stop.clear()
            if run_id in state["stopped"]:
                stop.set()
        _train_one(run_id, recipe, send, stop, stop_when)
        with lock:
            state["current"] = None
            state["stopped"].discard(run_id)


def _train_one(run_id: int, recipe: bytes, send, stop: threading.Event, stop_when) -> None:
    status, result, model, error = "failed", None, None, None
    try:
        model, train_fn = pickle.loads(recipe)()
        send(("running", run_id, os.getpid(), model))

        def on_progress(snapshot: Any) -> bool:
            send(("report", run_id, snapshot))
            return not stop.is_set()

        with stop_when(stop):  # Stop ends the run after its current step, not at its next report
            result = train_fn(on_progress)
        status = "stopped" if stop.is_set() else "finished"
    except Exception as exc:  # the page shows a plain message; the traceback goes to the server's log
        traceback.print_exc(file=sys.stderr)
        error = f"Training failed: {type(exc).__name__}: {exc}"
    try:
        send(("over", run_id, status, result, model, error))
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        send(("over", run_id, "failed", None, None, f"Training ended but its result could not be sent back: {exc}"))


# ------------------------------------------------------------------------------------------------ in the server
ROOT = Path(__file__).resolve().parents[2]  # the checkout: where a worker imports the lessons from


class _Worker:
    """A worker process, started as ``python -m lessons.common.workers FD`` with one end of a socket pair.

    Not ``multiprocessing.Process``: its spawn method runs the parent's ``__main__`` again in the child, and in a
    Streamlit server ``__main__`` is whichever page script is running at that moment."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lessons.common.workers", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            cwd=ROOT,
            env=env,
        )
        theirs.close()
        self.conn = connection.Connection(mine.detach())
        self.run = None  # the run it trains now
        self._send_lock = threading.Lock()

    def send(self, message: tuple) -> bool:
        try:
            data = _pack(message)
            with self._send_lock:
                self.conn.send_bytes(data)
            return True
        except (OSError, ValueError):  # the worker is gone; the reader finds out and fails its run
            return False


class Pool:
    """Worker processes and the runs waiting for one, first come first served."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._waiting: deque = deque()
        self._ids = itertools.count(1)
        self._reader: threading.Thread | None = None
        self._closed = False

    # -- what a run asks -----------------------------------------------------------------------------------
    def submit(self, run) -> None:
        """Queue ``run`` (a :class:`lessons.common.live.TrainingRun`); it starts as soon as a worker is free."""
        with self._lock:
            run.id = next(self._ids)
            self._waiting.append(run)
            self._dispatch()
            self._start_reader()

    def prestart(self) -> None:
        """Start the workers now, idle (a worker imports torch as it starts: seconds), so that the first runs a
        class asks for start training at once instead of waiting for their processes."""
        with self._lock:
            while len(self._workers) < self.size and not self._closed:
                self._workers.append(_Worker())
            self._start_reader()

    def training_now(self) -> list:
        """The runs the workers are training now, in the order the workers started."""
        with self._lock:
            return [w.run for w in self._workers if w.run is not None]

    def place(self, run) -> int | None:
        """How many runs wait ahead of ``run``, or None when it is not waiting (a worker has it, or it is over)."""
        with self._lock:
            return self._waiting.index(run) if run in self._waiting else None

    def stop(self, run) -> None:
        """A waiting run never starts; a training one stops after its current step."""
        with self._lock:
            if run in self._waiting:
                self._waiting.remove(run)
                run._ended("stopped")
                return
            worker = next((w for w in self._workers if w.run is run), None)
        if worker is not None:
            worker.send(("stop", run.id))

    def pids(self) -> list[int]:
        """The worker processes alive now, for tests and benches."""
        with self._lock:
            return [w.process.pid for w in self._workers]

    def shutdown(self) -> None:
        """End every worker (at the server's exit); runs still training end as stopped."""
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, []
            waiting, self._waiting = list(self._waiting), deque()
        for run in waiting:
            run._ended("stopped")
        for worker in workers:
            worker.process.terminate()
        for worker in workers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(2.0)
            if worker.run is not None:
                worker.run._ended("stopped")
            worker.conn.close()

    # -- the pool's own work -------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        """With the lock held: hand waiting runs to idle workers, starting workers up to :attr:`size`."""
        while self._waiting and not self._closed:
            worker = next((w for w in self._workers if w.run is None), None)
            if worker is None:
                if len(self._workers) >= self.size:
                    return
                worker = _Worker()
                self._workers.append(worker)
            run = self._waiting.popleft()
            worker.run = run
            worker.send(("run", run.id, run.recipe))

    def _start_reader(self) -> None:
        """With the lock held: the reader thread, once."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read, name="training-workers", daemon=True)
            self._reader.start()

    def _read(self) -> None:
        """The reader thread: every message of every worker, and every worker that dies."""
        while not self._closed:
            with self._lock:
                workers = list(self._workers)
            if not workers:
                time.sleep(READ_TIMEOUT_S)
                continue
            try:
                ready = set(connection.wait([w.conn for w in workers], READ_TIMEOUT_S))
            except (OSError, ValueError):  # a socket closed by shutdown() while waiting
                continue
            for worker in workers:
                if worker.conn in ready:
                    try:
                        message = pickle.loads(worker.conn.recv_bytes())
                    except (EOFError, OSError):
                        self._lost(worker)
                        continue
                    except Exception as exc:  # noqa: BLE001 - a report the server cannot unpickle
                        log.exception("a training report could not be read")
                        message = ("over", worker.run.id if worker.run else None, "failed", None, None, str(exc))
                    self._receive(worker, message)

    def _receive(self, worker: _Worker, message: tuple) -> None:
        kind, run_id = message[0], message[1]
        run = worker.run
        if run is None or run.id != run_id:
            return
        if kind == "running":
            run.pid, run.model = message[2], message[3]
            run.started_at = time.monotonic()
            run.status = "running"
        elif kind == "report":
            run.snapshots.append(message[2])
        elif kind == "over":
            _, _, status, result, model, error = message
            if model is not None:
                run.model = model
            run.result = result
            if error:
                log.error("training run %s failed: %s", run.name, error)
            with self._lock:
                worker.run = None
                self._dispatch()
            run._ended(status, error)

    def _lost(self, worker: _Worker) -> None:
        with self._lock:
            if worker not in self._workers:
                return
            self._workers.remove(worker)
            run, worker.run = worker.run, None
            self._dispatch()
        worker.conn.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.process.wait(1.0)
        if run is not None:
            log.error("the training worker %s died (exit code %s)", worker.process.pid, worker.process.returncode)
            run._ended("failed", LOST_WORKER)


POOL = Pool()
atexit.register(POOL.shutdown)

if __name__ == "__main__":  # a worker: ``python -m lessons.common.workers FD`` (:class:`_Worker`)
    _serve(connection.Connection(int(sys.argv[1])))
