"""AppTest helpers for a lesson's training panel (``ui.training_panel``).

AppTest does not tick the panel's polling fragment, so a test reruns the page itself until the run has
reported, or is over, reading the panel's progress bar as a student would.
"""

import time

RUN_OVER = ("done", "stopped", "failed")  # how the progress bar's text starts once a run has ended


def progress_text(at) -> str:
    bars = at.get("progress")
    return bars[0].proto.text if bars else ""


def rerun_until(at, done, timeout: float = 240.0, what: str = "the run did not end") -> str:
    """Rerun the page every half second until ``done(at)``; returns the progress bar's text then."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert time.monotonic() < deadline, f"{what}: {progress_text(at)!r}"
        time.sleep(0.5)
        at.run()
        assert not at.exception, at.exception
    return progress_text(at)


def wait_for_run(at, timeout: float = 240.0) -> str:
    """Rerun until the run is over; returns the progress bar's text ("done …", "stopped …" or "failed …")."""
    return rerun_until(at, lambda at: progress_text(at).startswith(RUN_OVER), timeout)


def wait_for_report(at, timeout: float = 240.0) -> str:
    """Rerun until the run has made its first training report (the bar shows its step)."""
    return rerun_until(at, lambda at: "step" in progress_text(at), timeout, "no training report")


def train_and_stop_at_once(at, panel: str, timeout: float = 60.0) -> None:
    """Press the panel's Train, then Stop at once: the run ends "stopped" and the panel offers Train again.

    ``panel`` is the key given to ``ui.training_panel`` (its buttons are ``{panel}.train`` and ``{panel}.stop``).
    """
    at.button(key=f"{panel}.train").click().run()
    at.button(key=f"{panel}.stop").click().run()
    assert not at.exception
    assert wait_for_run(at, timeout=timeout).startswith("stopped")
    at.run()  # the panel drew its buttons before the stop took effect: the next rerun offers Train again
    assert at.button(key=f"{panel}.train").disabled is False
    assert at.button(key=f"{panel}.stop").disabled
