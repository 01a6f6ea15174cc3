"""The one small UI helper module: page set-up, the shared sidebar (the course map), and display helpers.

Only this module and ``pages/`` import streamlit. Streamlit's own page list is turned off
(``client.showSidebarNavigation = false``) and every page calls :func:`page`, which draws the sectioned course
map with ``st.page_link``; ``st.navigation`` is never called while a ``pages/`` folder exists (it breaks
deep links such as ``/queries_keys_values``).
"""

from __future__ import annotations

import inspect
import sys

import streamlit as st

from lessons.catalog import COURSE
from lessons.exercises import Exercise

HOME = "app.py"
# Torch threads for the computations a page does while a student waits (small matrices, decoding one
# sentence). torch.set_num_threads acts on the calling thread, and Streamlit runs each script run in a thread
# of its own, so it is set at the start of every page run. One thread: on 2 cores, torch's default of one
# thread per core made a 16×64 matmul take 15 ms instead of 0.03 ms while another session was training.
PAGE_THREADS = 1


@st.cache_resource(show_spinner=False)
def _device_label() -> str:
    from minimodels.device import device_label

    return device_label()


def page(title: str, icon: str = "🔎") -> None:
    """Set up a page: its browser title, the wide layout, and the course map in the sidebar."""
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon=icon, layout="wide")
    torch = sys.modules.get("torch")  # lesson pages have imported it by now (through lessons/)
    if torch is not None:
        torch.set_num_threads(PAGE_THREADS)
    sidebar()


def sidebar() -> None:
    with st.sidebar:
        st.page_link(HOME, label="Attention Lab · course map", icon=":material/school:")
        for part in COURSE:
            st.markdown(f"**{part.title}**")
            for lesson in part.lessons:
                if lesson.built:
                    st.page_link(lesson.page, label=lesson.title, icon=lesson.icon)
                else:
                    st.caption(f"{lesson.title} · coming")
        st.divider()
        if "torch" in sys.modules:  # a lesson page; the home page never imports torch (it opens in a blink)
            st.caption(f"Models run on: **{_device_label()}**")
        else:
            st.caption("Models run on: **the GPU when the server has one, else the CPU** (shown in each lesson)")


def literal(text: str) -> str:
    """User or model text as an inline code span in markdown: shown verbatim, never formatted or rendered."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def sentence_input(label: str, default: str, key: str, parse, tokens_key: str) -> tuple[str, ...]:
    """A text box for the student's sentence. ``parse(text)`` returns an object with ``tokens`` and ``error``;
    refused text gets a warning and the last sentence that worked stays in ``st.session_state[tokens_key]``."""
    st.session_state.setdefault(tokens_key, parse(default).tokens)
    parsed = parse(st.text_input(label, value=default, key=key, max_chars=2000))
    if parsed.error:
        st.warning(f"{parsed.error} Showing the last sentence that worked.")
    else:
        st.session_state[tokens_key] = parsed.tokens
    return st.session_state[tokens_key]


def show_code(*objects, label: str = "The code that computes this") -> None:
    """The source of the functions a figure comes from, read with ``inspect.getsource`` (never pasted)."""
    with st.expander(label, icon=":material/code:"):
        for obj in objects:
            st.code(inspect.getsource(obj), language="python")


def exercise(ex: Exercise) -> None:
    """One check-yourself question with its answer box and automatic feedback."""
    with st.container(border=True):
        st.markdown(ex.prompt)
        with st.form(key=f"{ex.key}.form", border=False):
            if ex.is_choice:
                response = st.radio("Your answer", ex.choices, index=None, key=f"{ex.key}.answer")
            else:
                response = st.number_input("Your answer", value=None, step=0.01, format="%.3f", key=f"{ex.key}.answer")
            submitted = st.form_submit_button("Check")
        if submitted:
            feedback = ex.check(response)
            (st.success if feedback.correct else st.warning)(feedback.message)


def plotly(fig, key: str) -> None:
    """A Plotly figure with the toolbar's PNG download, no logo and no scroll-zoom."""
    st.plotly_chart(
        fig,
        key=key,
        width="stretch",
        config={"displaylogo": False, "scrollZoom": False, "toImageButtonOptions": {"format": "png"}},
    )


# --------------------------------------------------------------------------------------------------------
# Live training: one student's run in a background thread (lessons.live), drawn by a polling fragment.
# --------------------------------------------------------------------------------------------------------
POLL_SECONDS = 0.4  # how often a running training's figures redraw: a few times a second at most


def _stop_runs(runs: dict) -> None:
    for run in runs.values():
        run.stop()


@st.cache_resource(scope="session", on_release=_stop_runs, show_spinner=False)
def _session_runs() -> dict:
    """This student's training runs by lesson key; stopped when the session ends (tab closed)."""
    return {}


def current_run(key: str):
    """The student's latest run for this lesson (running or over), or None."""
    return _session_runs().get(key)


def training_panel(
    key: str,
    make_run,
    draw,
    *,
    budget_seconds: float,
    target: float | None = None,
    train_label: str = "Train",
) -> None:
    """Train and Stop controls, a progress bar, live curves and the page's own figure, redrawn as it learns.

    ``make_run()`` returns a new, not yet started ``lessons.live.TrainingRun`` (its model a fresh copy that
    belongs to this student alone). ``draw(snapshot, key)`` draws the lesson's figure for one training report
    (``minimodels.train.Progress``). Once the run is over, a slider replays every report, so a class can watch
    the alignment emerge again.
    """
    runs = _session_runs()

    def start() -> None:  # callbacks run before the page reruns, so the buttons below see the new state
        previous = runs.get(key)
        if previous is None or not previous.active:
            runs[key] = make_run().start()

    def stop() -> None:
        if key in runs:
            runs[key].stop()
            runs[key].wait(2.0)

    run = runs.get(key)
    active = run is not None and run.active
    cols = st.columns([1, 1, 4])
    cols[0].button(train_label, key=f"{key}.train", type="primary", disabled=active, icon=":material/play_arrow:",
                   on_click=start)  # fmt: skip
    cols[1].button("Stop", key=f"{key}.stop", disabled=not active, icon=":material/stop:", on_click=stop)
    if run is None:
        return

    @st.fragment(run_every=POLL_SECONDS if active else None)
    def progress() -> None:
        latest = run.latest
        if run.status == "queued":
            st.info("Queued: other students are training right now; yours starts as soon as a slot is free.")
        elif run.status == "failed":
            st.error(run.error)
        fraction = 0.0
        if latest is not None:
            fraction = min(1.0, latest.seconds / budget_seconds)
            if target:
                fraction = max(fraction, min(1.0, latest.exact_match / target))
        label = {"queued": "waiting for a free slot", "running": "training…", "finished": "done",
                 "stopped": "stopped", "failed": "failed"}[run.status]  # fmt: skip
        if latest is not None:
            label += (
                f" step {latest.step} · {latest.seconds:.1f} s · loss {latest.loss:.3f}"
                f" · held-out exact match {latest.exact_match:.0%}"
            )
        st.progress(1.0 if run.status == "finished" else fraction, text=label)
        if latest is None:
            return
        from lessons import charts  # here, not at the top: the home page imports ui and must stay light

        loss_chart, accuracy_chart = charts.training_curves(run.snapshots)
        chart_cols = st.columns(2)
        chart_cols[0].altair_chart(loss_chart, width="stretch", height=240)
        chart_cols[1].altair_chart(accuracy_chart, width="stretch", height=240)
        if run.active:
            draw(latest, f"{key}.live.figure")
            return
        if len(run.snapshots) > 1:
            index = st.slider(
                "Replay the run: training report", 1, len(run.snapshots), len(run.snapshots), key=f"{key}.replay",
                help="Scrub back through the reports to watch the attention form.",
            )  # fmt: skip
            draw(run.snapshots[index - 1], f"{key}.replay.figure")
        else:
            draw(latest, f"{key}.replay.figure")
        if active:  # the run ended while this fragment was polling: rerun the page to re-enable Train
            st.rerun()

    progress()
