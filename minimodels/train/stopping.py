"""Stopping a run from outside it: a ``threading.Event`` per thread, checked after every step.

Its own module because more than :func:`~minimodels.train.train` obeys it: :mod:`minimodels.bridge` and the
lessons' trainers that start threads of their own read the same event, so one Stop button stops them all.
"""

from __future__ import annotations

import contextlib
import threading

_stopping = threading.local()  # the stop event of the training run in this thread, if any (see stop_when)


@contextlib.contextmanager
def stop_when(event: threading.Event | None):
    """Within this block, training in this thread also stops after the step during which ``event`` is set.

    ``on_progress`` can only stop a run at a report, and reports are ``report_every`` steps apart (seconds on a
    busy class server); a page's Stop button sets ``event`` instead and the run ends after its current step,
    the model trained so far. Per thread: several students' runs in one process do not see each other's.
    """
    previous = getattr(_stopping, "event", None)
    _stopping.event = event
    try:
        yield
    finally:
        _stopping.event = previous


def stop_event() -> threading.Event | None:
    """The event :func:`stop_when` set for this thread (a trainer that starts threads of its own passes it on)."""
    return getattr(_stopping, "event", None)


def stop_requested() -> bool:
    event = stop_event()
    return event is not None and event.is_set()
