"""The student's training runs, one per lesson key, kept in their session: what a panel starts and a lesson's views
read back (the model they trained). Stopped when the session ends (a tab closed)."""

from __future__ import annotations

import weakref

import streamlit as st


def _stop_runs(runs: dict) -> None:
    for run in runs.values():
        run.stop()


@st.cache_resource(scope="session", on_release=_stop_runs, show_spinner=False)
def session_runs() -> dict:
    """This student's training runs by lesson key."""
    return {}


def note_runs_over() -> None:
    """At the top of every whole-page run: the runs already over, which the page below is drawn knowing."""
    # weak references: a closed tab's session state outlives its runs (Streamlit keeps it for a reconnect)
    st.session_state["ui.runs_over"] = weakref.WeakSet(run for run in session_runs().values() if not run.active)


def current_run(key: str):
    """The student's latest run for this lesson (running or over), or None."""
    return session_runs().get(key)


def trained_model(key: str):
    """The model of the student's finished run for this lesson (one that reported at least once), or None."""
    run = current_run(key)
    return run.model if run is not None and not run.active and run.snapshots else None
