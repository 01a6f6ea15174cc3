"""Live training for the lessons: one student's run in a worker process that a page polls.

A page must stay interactive while a model trains, and a click elsewhere on the page must not lose the run,
so training does not happen inside the page's script (a widget click stops a running script), nor in the
server's process at all (a training thread held the interpreter lock every page run needs): a
:class:`TrainingRun` is trained by a worker process of :mod:`lessons.common.workers`, which streams its progress
snapshots back; the page keeps the run in the student's session and a polling fragment redraws its latest one.

Several students may press Train at once on one class server: the pool has one worker per core, and a run that
waits for one reports ``"queued"`` and how many runs are ahead of it (:attr:`TrainingRun.ahead`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import pickle
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from lessons.common.workers import POOL, POOL_SIZE, TORCH_THREADS, Pool

Status = Literal["queued", "running", "finished", "stopped", "failed"]
ProgressCallback = Callable[[Any], bool]
TrainFn = Callable[[ProgressCallback], Any]
Recipe = Callable[[], tuple[Any, TrainFn]]  # module-level (picklable): builds (model, train_fn) in a worker

MAX_CONCURRENT_RUNS = POOL_SIZE
# Each run computes on one torch thread (its worker's, and the recipes' TrainConfig.threads). With torch's default of
# one thread per core, a run on a busy 2-core server crawled: 10 steps in 15 s, against ~10 steps a second on one
# thread, because its OpenMP threads fought the other sessions for cores.
THREADS_PER_RUN = TORCH_THREADS
MAX_BUDGET_SECONDS = 120  # the longest training a lesson lets a student ask for


def check_budget(seconds: float, per: str = "") -> None:
    """Refuse a training budget outside (0, MAX_BUDGET_SECONDS] seconds (``per``: e.g. " per model")."""
    if not 0 < seconds <= MAX_BUDGET_SECONDS:
        raise ValueError(f"a budget of {seconds} s{per} is outside 0–{MAX_BUDGET_SECONDS} s")


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

    Every page run allocates its tensors in its own thread, and glibc keeps what a thread freed in that thread's
    arena for reuse instead of returning it: a class server's resident memory stayed near its peak after the
    students had left (``bench.classroom memory``). ``malloc_trim(0)`` releases the free pages of every arena;
    it runs outside the GIL and takes milliseconds.
    """
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


class TrainingRun:
    """A training recipe run in a worker process, its progress snapshots kept in order.

    ``recipe()`` (a module-level function, or a ``functools.partial`` of one, with picklable arguments: it is sent
    to the worker) builds ``(model, train_fn)`` there; ``train_fn(on_progress)`` must call ``on_progress(snapshot)``
    every few steps and stop cleanly when it returns False (``minimodels.train.train`` does). Snapshots are
    appended, never changed, so a page can read ``snapshots`` at any time without a lock. ``model`` is the fresh
    model once the run has started and the trained one once it is over; ``result`` is what ``train_fn`` returned;
    ``pid`` the worker process that trains it. ``label``: what the run trains, for a page to say from the moment
    Train is pressed (before a worker has built the model). ``budget_seconds``: how long it may train, when the
    page that started it knows (for the line a queued student reads).
    """

    def __init__(self, recipe: Recipe, *, name: str = "training", label: str = "", pool: Pool = POOL):
        self.recipe = pickle.dumps(recipe)  # here, so a recipe no worker could rebuild fails at once, in the page
        self.name = name
        self.label = label
        self._pool = pool
        self._over = threading.Event()
        self.id: int | None = None
        self.pid: int | None = None
        self.model: Any = None
        self.status: Status = "queued"
        self.snapshots: list[Any] = []
        self.result: Any = None
        self.error: str | None = None
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.budget_seconds: float | None = None

    # -- control ---------------------------------------------------------------------------------------
    def start(self) -> TrainingRun:
        self._pool.submit(self)
        return self

    def stop(self) -> None:
        """Ask the run to stop after its current step; a queued run never starts."""
        if self.active:
            self._pool.stop(self)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run is over (or ``timeout`` seconds pass); True when it is over."""
        return self._over.wait(timeout)

    # -- state ------------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    @property
    def latest(self) -> Any:
        return self.snapshots[-1] if self.snapshots else None

    @property
    def ahead(self) -> int | None:
        """While queued: how many runs wait ahead of this one; None once a worker has it (or it is over)."""
        return self._pool.place(self) if self.status == "queued" else None

    @property
    def training_now(self) -> list[TrainingRun]:
        """While waiting for a worker: the runs the workers have now (each ``status``, ``latest`` report and
        ``budget_seconds`` say how far it has got), so a queued student sees the line move; empty otherwise."""
        return self._pool.training_now() if self.ahead is not None else []

    def _ended(self, status: Status, error: str | None = None) -> None:
        """The pool's report that the run is over."""
        self.error = error
        self.finished_at = time.monotonic()
        self.status = status
        self._over.set()
