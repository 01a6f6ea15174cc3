"""At most a few whole-page runs at a time on one server; the others wait their turn, first come first served.

Streamlit runs every session's script in a thread of its own, and Python runs one thread at a time (the GIL).
When a class opens pages together (60 students joining, then opening the lesson), 20–60 page runs were in flight
at once and shared the core in 5 ms slices: each of them took as long as all of them, and so did everything else
the server had to do meanwhile: the teacher's dashboard refresh (a fragment needing ~20 ms) waited 0.5–2.6 s
(``bench/class_session.py``). Here a page run takes one of :data:`LIMIT` places before its heavy part (after its
title is on screen) and gives it back at its end; the rest queue in arrival order. The same work gets done, but
the runs finish one after another instead of all at the end, and fragment reruns (the dashboard, a question bar,
a training panel's progress, every control inside a lesson's section) never queue: they keep their few ms.

A place is given back by :func:`leave` (the page's tail calls it) or, whatever stopped the run (``st.stop``, an
error, a tab closed, a rerun request), when the run's thread has ended: Streamlit gives each run of a script a
thread that ends with it. A run that reruns itself (``st.rerun``) keeps its place. Nobody waits longer than
:data:`MAX_WAIT_S`: past that a run goes ahead, as it would without this gate.

``ATTENTION_LAB_PAGE_RUNS`` sets :data:`LIMIT` (2 by default: on two cores one run computes while another waits
for the database or the network).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque

LIMIT = max(1, int(os.environ.get("ATTENTION_LAB_PAGE_RUNS", "2") or 2))
MAX_WAIT_S = 30.0
POLL_S = 0.05  # how soon a waiting run sees a place freed by a run's thread ending without :func:`leave`

_turns = threading.Condition()
_running: set[threading.Thread] = set()
_waiting: deque[threading.Thread] = deque()


def _let_ended_runs_go() -> None:
    for thread in [t for t in _running if not t.is_alive()]:
        _running.discard(thread)


def admit() -> float:
    """Wait for a place for this thread's page run; returns the seconds waited (0 when a place was free)."""
    me = threading.current_thread()
    with _turns:
        _let_ended_runs_go()
        if me in _running:
            return 0.0
        if not _waiting and len(_running) < LIMIT:
            _running.add(me)
            return 0.0
        start = time.monotonic()
        _waiting.append(me)
        try:
            while not (_waiting[0] is me and len(_running) < LIMIT) and time.monotonic() - start < MAX_WAIT_S:
                _turns.wait(POLL_S)
                _let_ended_runs_go()
            _running.add(me)
        finally:
            _waiting.remove(me)
            _turns.notify_all()
        return time.monotonic() - start


def leave() -> None:
    """Give this thread's place back (nothing happens if it holds none)."""
    me = threading.current_thread()
    with _turns:
        if me in _running:
            _running.discard(me)
            _turns.notify_all()


def state() -> tuple[int, int]:
    """(runs holding a place, runs waiting), for tests and benches."""
    with _turns:
        _let_ended_runs_go()
        return len(_running), len(_waiting)
