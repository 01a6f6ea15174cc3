"""Live training: one student's run in a worker process (``lessons.common.live``), drawn by a polling fragment."""

from __future__ import annotations

import streamlit as st

from ui import classroom
from ui.charts import _LIVE, vega
from ui.own_data import own_model
from ui.runs import session_runs

# How often a running training's figures redraw (and a queued run looks for a free worker): once a second. Every
# poll is a fragment run on the server, and a class of trainers polling a few times a second cost a core's share.
POLL_SECONDS = 1.0


def model_choice(
    shipped, own, *, key: str, yours_label: str = "yours, trained on this page", own_data: str | None = None
):
    """The model the lesson's sections use: the shipped one, or, when the student has their own (``own``, e.g.
    :func:`ui.runs.trained_model`), theirs or the shipped one as they choose (a radio keyed ``key``).

    ``own_data``: the architecture (``"gru-additive"``, ``"transformer"``) of a model the student trained or loaded on
    the "Your own data" page that this view can draw; when they have one, it is offered as well. The view then
    reads it with its own task and sentences: ``ui.model_data(model, task, name, text)``."""
    options = {yours_label: own} if own is not None else {}
    options["the shipped pretrained one"] = shipped
    if own_data is not None and (mine := own_model(own_data)) is not None:
        options[mine.label] = mine.model
    if len(options) == 1:
        return shipped
    return options[st.radio("Model", list(options), horizontal=True, key=key)]


def training_panel(
    key: str,
    make_run,
    draw,
    *,
    budget_seconds: float,
    target: float | None = None,
    train_label: str = "Train",
    replay_frame=None,
) -> None:
    """Train and Stop controls, a progress bar, live curves and the page's own figure, redrawn as it learns.

    ``make_run()`` returns a new, not yet started ``lessons.common.live.TrainingRun`` (its model a fresh one that
    belongs to this student alone, trained in a worker process). ``draw(snapshot, key)`` draws the lesson's
    figure for one training report (``minimodels.train.Progress``). Once the run is over, a slider replays every
    report, so a class can watch the alignment emerge again, and the replay downloads as an animated GIF:
    ``replay_frame(snapshot)`` gives one report's map (2-D, values in [0, 1]), by default its ``attention``; no
    GIF when there is none.
    """
    runs = session_runs()

    def start() -> None:  # callbacks run before the page reruns, so the buttons below see the new state
        previous = runs.get(key)
        if previous is None or not previous.active:
            run = make_run()
            run.budget_seconds = budget_seconds
            runs[key] = run.start()

    def stop() -> None:
        if key in runs:
            runs[key].stop()
            runs[key].wait(2.0)

    slug = key.split(".", 1)[0]
    classroom.sweep_controls(slug)
    run = runs.get(key)
    active = run is not None and run.active
    cols = st.columns([1, 1, 4])
    cols[0].button(
        train_label, key=f"{key}.train", type="primary", disabled=active, icon=":material/play_arrow:", on_click=start
    )
    cols[1].button("Stop", key=f"{key}.stop", disabled=not active, icon=":material/stop:", on_click=stop)
    if run is None:
        return

    @st.fragment(run_every=POLL_SECONDS if active else None)
    def progress() -> None:
        latest, status = run.latest, run.status
        ahead = run.ahead if status == "queued" else None  # one look at the queue a poll: the info and the bar agree
        if status == "queued":
            st.info(queued_text(ahead))
        elif status == "failed":
            st.error(run.error)
        fraction = 0.0
        if latest is not None:
            fraction = min(1.0, latest.seconds / budget_seconds)
            if target:
                fraction = max(fraction, min(1.0, latest.exact_match / target))
        label = {
            "queued": "waiting for a free slot" if ahead is not None else "starting…",
            "running": "training…",
            "finished": "done",
            "stopped": "stopped",
            "failed": "failed",
        }[status]
        if ahead is not None:
            label += training_now_text(run.training_now)  # the runs it waits for move: the student sees the line go
        if latest is not None:
            label += (
                f" step {latest.step} · {latest.seconds:.1f} s · loss {latest.loss:.3f}"
                f" · held-out exact match {latest.exact_match:.0%}"
            )
        st.progress(1.0 if status == "finished" else fraction, text=label)
        if latest is None:
            return
        from lessons.common import curves  # here, not at the top: the home page imports ui and must stay light

        loss_chart, accuracy_chart = curves.training_curves(run.snapshots)
        chart_cols = st.columns(2)
        vega(loss_chart, f"{key}.loss", height=240, container=chart_cols[0])  # keyed: updated in place as it learns
        vega(accuracy_chart, f"{key}.accuracy", height=240, container=chart_cols[1])
        if run.active:
            token = _LIVE.set(True)  # no download menus while the figure is redrawn a few times a second
            try:
                draw(latest, f"{key}.live.figure")
            finally:
                _LIVE.reset(token)
            return
        if len(run.snapshots) > 1:
            index = st.slider(
                "Replay the run: training report",
                1,
                len(run.snapshots),
                len(run.snapshots),
                key=f"{key}.replay",
                help="Scrub back through the reports to watch the attention form.",
            )
            replay_gif_button(run.snapshots, replay_frame, key)
            draw(run.snapshots[index - 1], f"{key}.replay.figure")
        else:
            st.caption("One training report so far: train longer to replay how the attention formed.")
            draw(latest, f"{key}.replay.figure")
        classroom.post_finished_run(slug, run, classroom.panel_settings(slug))
        if run not in st.session_state.get("ui.runs_over", ()):
            # the run ended (or was stopped) since the page was last drawn whole: draw it again, so Train is
            # offered again and the sections that use the student's model (and any table of runs) see it
            st.rerun()

    progress()


def queued_text(ahead: int | None) -> str:
    """What a queued run says: how many runs wait ahead of it (``ahead``), or that its worker is starting (None)."""
    if ahead is None:
        return "Queued: your run is starting in a training process of its own."
    if ahead == 0:
        return "Queued: other students are training right now; yours is next, as soon as one of their runs ends."
    runs = "1 run" if ahead == 1 else f"{ahead} runs"
    return f"Queued: other students are training right now; {runs} ahead of yours, then yours starts."


def training_now_text(runs) -> str:
    """What a queued run's bar adds: how far each run the workers have now has got (``TrainingRun.training_now``):
    its seconds of training out of its budget, from its latest report."""
    if not runs:
        return ""
    parts = []
    for run in runs:
        seconds = getattr(run.latest, "seconds", None)
        if run.status != "running":
            parts.append("starting")
        elif seconds is None:
            parts.append("under way")
        else:
            parts.append(
                f"{seconds:.1f} s of {run.budget_seconds:g} s" if run.budget_seconds else f"{seconds:.1f} s in"
            )
    return " · training now: " + ", ".join(parts)


def replay_gif_button(snapshots, frame, key: str) -> None:
    """Download the replay as an animated GIF (made when clicked), if the reports carry a 2-D map."""
    from lessons.common import export  # here: Plotly; the home page loads ui, never Plotly

    frame = frame or (lambda snapshot: getattr(snapshot, "attention", None))
    frames = [(frame(s), s) for s in snapshots]
    frames = [(m, s) for m, s in frames if m is not None and getattr(m, "ndim", 0) == 2]
    if len(frames) < 2:
        return

    def gif() -> bytes:
        captions = [
            f"step {getattr(s, 'step', '?')} · exact match {getattr(s, 'exact_match', 0):.0%}" for _, s in frames
        ]
        return export.replay_gif([m for m, _ in frames], captions)

    st.download_button(
        "Replay as GIF",
        gif,
        file_name=f"{export.file_stem(key)}-replay.gif",
        mime="image/gif",
        key=f"{key}.gif",
        on_click="ignore",
        icon=":material/animated_images:",
    )
