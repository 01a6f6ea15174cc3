"""Live training for the lessons: one student's run in a background thread that a page polls.

A page must stay interactive while a model trains, and a click elsewhere on the page must not lose the run,
so training does not happen inside the page's script (a widget click stops a running script). It happens
in a :class:`TrainingRun` thread that never touches Streamlit; the page keeps the run in the student's
session and a polling fragment redraws its latest snapshot a few times a second.

Several students may press Train at once on one class server: :data:`SLOTS` caps how many runs compute at
the same time (one per core), and a run that waits for a slot reports ``"queued"``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from minimodels.train import stop_when

log = logging.getLogger(__name__)

Status = Literal["queued", "running", "finished", "stopped", "failed"]
ProgressCallback = Callable[[Any], bool]
TrainFn = Callable[[ProgressCallback], Any]

MAX_CONCURRENT_RUNS = max(1, os.cpu_count() or 1)
# Each run computes on one torch thread, set in its own thread (set_num_threads acts per thread). With torch's
# default of one thread per core, a training thread on a busy 2-core server crawled: 10 steps in 15 s,
# against ~10 steps a second on one thread, because its OpenMP threads fought the other sessions for cores.
THREADS_PER_RUN = 1
MAX_BUDGET_SECONDS = 120  # the longest training a lesson lets a student ask for


def check_budget(seconds: float, per: str = "") -> None:
    """Refuse a training budget outside (0, MAX_BUDGET_SECONDS] seconds (``per``: e.g. " per model")."""
    if not 0 < seconds <= MAX_BUDGET_SECONDS:
        raise ValueError(f"a budget of {seconds} s{per} is outside 0–{MAX_BUDGET_SECONDS} s")


SLOTS = threading.BoundedSemaphore(MAX_CONCURRENT_RUNS)
# A training thread runs at a lower scheduling priority (a higher nice value) than the threads that answer
# clicks: with every core training, a student moving a slider still gets a core at once, and the runs use
# whatever the class leaves idle. Linux applies a nice value to one thread; elsewhere it is skipped.
TRAINING_NICENESS = 10  # added to the server's own nice value (19 at most)


def _lower_this_threads_priority() -> None:
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + TRAINING_NICENESS))
    except (AttributeError, OSError):  # no setpriority (Windows), or the OS does not nice single threads
        log.debug("training thread runs at normal priority")


# -- memory ------------------------------------------------------------------------------------------------
def _libc_malloc_trim():
    """glibc's ``malloc_trim``, or None where there is none (macOS, Windows, musl)."""

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _libc_malloc_trim()


def trim_freed_memory() -> bool:
    """Hand the memory this process has freed back to the OS; False where that cannot be done (no glibc).

    A training run allocates its tensors in its own thread, and glibc keeps what a thread freed in that thread's
    arena for reuse instead of returning it: a class server's resident memory stayed near its peak after the
    students had left (``bench.classroom memory``). ``malloc_trim(0)`` releases the free pages of every arena;
    it runs outside the GIL and takes milliseconds.
    """
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


class TrainingRun:
    """A training function run in its own thread, its progress snapshots kept in order.

    ``train_fn(on_progress)`` must call ``on_progress(snapshot)`` every few steps and stop cleanly when it
    returns False (``minimodels.train.train`` does). Snapshots are appended, never changed, so a page can read
    ``snapshots`` at any time without a lock; ``result`` is what ``train_fn`` returned.
    """

    def __init__(
        self, train_fn: TrainFn, *, model: Any = None, slots: threading.Semaphore = SLOTS, name: str = "training"
    ):
        self._train_fn = train_fn
        self.model = model  # what the run trains, for the page to use once the run is over
        self._slots = slots
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.status: Status = "queued"
        self.snapshots: list[Any] = []
        self.result: Any = None
        self.error: str | None = None
        self.started_at: float | None = None
        self.finished_at: float | None = None

    # -- control ---------------------------------------------------------------------------------------
    def start(self) -> TrainingRun:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the run to stop at its next progress report; a queued run never starts."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run is over (or ``timeout`` seconds pass); True when it is over."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # -- state ------------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    @property
    def latest(self) -> Any:
        return self.snapshots[-1] if self.snapshots else None

    # -- the thread -------------------------------------------------------------------------------------
    def _on_progress(self, snapshot: Any) -> bool:
        self.snapshots.append(snapshot)
        return not self._stop.is_set()

    def _run(self) -> None:
        _lower_this_threads_priority()
        while not self._slots.acquire(timeout=0.1):  # wait for a free slot, but give up if stopped
            if self._stop.is_set():
                self.status = "stopped"
                return
        try:
            if self._stop.is_set():
                self.status = "stopped"
                return
            self.status = "running"
            self.started_at = time.monotonic()
            with stop_when(self._stop):  # Stop ends the run after its current step, not at its next report
                self.result = self._train_fn(self._on_progress)
            self.status = "stopped" if self._stop.is_set() else "finished"
        except Exception as exc:  # the page shows a plain message; the traceback goes to the server log
            log.exception("training run failed")
            self.error = f"Training failed: {type(exc).__name__}: {exc}"
            self.status = "failed"
        finally:
            self.finished_at = time.monotonic()
            self._slots.release()
