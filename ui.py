"""The one small UI helper module: page set-up, the shared sidebar (the course map), and display helpers.

Only this module and ``pages/`` import streamlit. Streamlit's own page list is turned off
(``client.showSidebarNavigation = false``) and every page calls :func:`page`, which draws the sectioned course
map with ``st.page_link``; ``st.navigation`` is never called while a ``pages/`` folder exists (it breaks
deep links such as ``/queries_keys_values``).
"""

from __future__ import annotations

import contextvars
import functools
import gc
import inspect
import logging
import sys
import threading
import time
import weakref

import streamlit as st

from lessons import url_state
from lessons.catalog import COURSE
from lessons.exercises import Exercise

log = logging.getLogger(__name__)

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
        # Plotly and Altair look pandas up in sys.modules without importing it. When several students open
        # lessons at once on a fresh server, one thread could find it half-imported by another and fail
        # ("partially initialized module 'pandas'", measured with bench.classroom). An import statement
        # waits for an import in progress to finish, so every lesson page imports it here, first.
        import pandas  # noqa: F401

        _freeze_imports()
    _note_runs_over()
    sidebar()
    if presenting():
        st.html(PRESENTER_CSS)


_frozen = False


def _freeze_imports() -> None:
    """Once per server process, after the heavy imports: move every object alive now out of the collector's way.

    Torch, Plotly, Altair and pandas leave ~280,000 long-lived objects, and each full collection Python's GC
    starts on its own walks all of them with the GIL held: measured 0.33 s on the busy 2-core machine, a pause
    every student on the server feels; ~0 ms once they are frozen.
    ``gc.freeze()`` puts them in a permanent generation that collections skip; done once, it only keeps alive
    what was alive at the first lesson's start (modules, mostly).
    """
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()
        threading.Thread(target=_warm_up_training, name="warm-up", daemon=True).start()
        threading.Thread(target=_give_memory_back, name="give-memory-back", daemon=True).start()


def _warm_up_training() -> None:
    """Build one optimizer in the background, once per server, then freeze again.

    The first ``torch.optim.Adam`` of a process imports ``torch._dynamo`` (~830 modules: 3-5 s measured here);
    without this, the class's first Train click would wait for it."""
    import torch

    torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    gc.freeze()


MEMORY_CHECK_SECONDS = 30.0


def _give_memory_back() -> None:
    """Every half minute: let go of the sessions of tabs closed long ago, collect them, return the memory to the OS.

    Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds (120) so that a student
    whose Wi-Fi blinked finds their page as they left it; but it removes an expired one only when it next stores
    another session, so after a class (everyone gone at once) every session stayed in memory, with the pages'
    fragments and through them each student's trained models: measured with 12 students, 50 MB above one
    session's footprint, against 16 MB once they were let go, collected and trimmed. Taking the length of
    Streamlit's session store is what lets the expired ones go (its documented behaviour; the store itself is
    internal, so any change there only skips this step).
    """
    from lessons import live

    while True:
        time.sleep(MEMORY_CHECK_SECONDS)
        try:
            from streamlit.runtime import get_instance

            manager = get_instance()._session_mgr
            with manager._storage_lock:
                len(manager._session_storage._cache)
        except Exception:  # an internal of Streamlit moved: the sessions expire on Streamlit's terms
            log.debug("could not let closed sessions go", exc_info=True)
        gc.collect()
        live.trim_freed_memory()


def sidebar() -> None:
    with st.sidebar:
        presenter_toggle()
        links = {PRESENT_PARAM: "1"} if presenting() else None  # a link opened in a new tab presents too
        st.page_link(HOME, label="Attention Lab · course map", icon=":material/school:", query_params=links)
        for part in COURSE:
            st.markdown(f"**{part.title}**")
            for lesson in part.lessons:
                if lesson.built:
                    st.page_link(lesson.page, label=lesson.title, icon=lesson.icon, query_params=links)
                else:
                    st.caption(f"{lesson.title} · coming")
        st.divider()
        if "torch" in sys.modules:  # a lesson page; the home page never imports torch (it opens in a blink)
            st.caption(f"Models run on: **{_device_label()}**")
        else:
            st.caption("Models run on: **the GPU when the server has one, else the CPU** (shown in each lesson)")


# --------------------------------------------------------------------------------------------------------
# Presenter mode: for a projector. Larger text and figures, explanations folded away, every control kept.
# --------------------------------------------------------------------------------------------------------
PRESENT_PARAM = "present"  # ?present=1 opens any page in presenter mode
PRESENT_KEY = "ui.present"  # plain session state (not a widget's), so it outlives page switches
PRESENTER_SCALE = 1.35  # figures' height and font in presenter mode
# A fixed stylesheet: nothing a user typed ever goes into it.
PRESENTER_CSS = """<style>
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li, td, th) { font-size: 1.45rem; line-height: 1.5; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] :is(p, li) { font-size: 1.15rem; }
[data-testid="stMain"] h1 { font-size: 3.4rem; }
[data-testid="stMain"] h2 { font-size: 2.5rem; }
[data-testid="stMain"] h3 { font-size: 2rem; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.25rem; }
[data-testid="stMain"] .katex { font-size: 1.7em; }
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 3rem; }
[data-testid="stMain"] :is(input, textarea) { font-size: 1.25rem; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 2.5rem; padding-right: 2.5rem; }
</style>"""


def presenting() -> bool:
    """Whether this student's pages are in presenter mode (the sidebar toggle, or ``?present=1``)."""
    if PRESENT_KEY not in st.session_state:  # the session's first page: the link decides
        try:
            st.session_state[PRESENT_KEY] = url_state.parse_bool(st.query_params.get(PRESENT_PARAM, "0"))
        except url_state.LinkValueError:
            st.session_state[PRESENT_KEY] = False
    return st.session_state[PRESENT_KEY]


def _presenter_changed() -> None:
    st.session_state[PRESENT_KEY] = st.session_state[f"{PRESENT_KEY}.toggle"]


def presenter_toggle() -> None:
    """The sidebar switch; the mode is written into the link (``present=1``) so a shared link presents."""
    on = presenting()
    st.session_state[f"{PRESENT_KEY}.toggle"] = on
    st.toggle("Presenter mode", key=f"{PRESENT_KEY}.toggle", on_change=_presenter_changed,
              help="For a projector: larger text and figures, explanations folded into expanders.")  # fmt: skip
    if on and st.query_params.get(PRESENT_PARAM) != "1":
        st.query_params[PRESENT_PARAM] = "1"
    elif not on and PRESENT_PARAM in st.query_params:
        del st.query_params[PRESENT_PARAM]


def explain(markdown: str) -> None:
    """A lesson's explanatory text: shown as it is, or folded into an expander in presenter mode (the
    teacher says it; the screen keeps the figure). Developer text only: never pass what a user typed."""
    if presenting():
        with st.expander("Explanation", icon=":material/notes:"):
            st.markdown(markdown)
    else:
        st.markdown(markdown)


def literal(text: str) -> str:
    """User or model text as an inline code span in markdown: shown verbatim, never formatted or rendered."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


# --------------------------------------------------------------------------------------------------------
# Shareable state: a lesson's main settings live in its link (?matrix_d_k=16&sentence=I+like+pizza).
# --------------------------------------------------------------------------------------------------------
_CHOICE_WIDGETS = ("select_slider", "selectbox", "radio")
_NUMBER_WIDGETS = ("number_input", "slider")
_TEXT_WIDGETS = ("text_input", "text_area")
_BOOL_WIDGETS = ("toggle", "checkbox")


def _widget_spec(widget, args: tuple, kwargs: dict):
    """(default value, parse(raw) -> value) of a widget call, read from its own signature."""
    bound = inspect.signature(widget).bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    kind = widget.__name__
    if kind in _CHOICE_WIDGETS:
        options = list(a["options"])
        if kind == "select_slider":
            default = options[0] if a["value"] is None else a["value"]
        else:
            default = None if a["index"] is None else options[a["index"]]
        return default, lambda raw: url_state.parse_choice(raw, options, a.get("format_func"))
    if kind in _NUMBER_WIDGETS:
        lo, hi, value = a["min_value"], a["max_value"], a["value"]
        default = lo if value in (None, "min") else value
        integer = all(isinstance(x, int) for x in (lo, hi, default, a["step"]) if x is not None)
        return default, lambda raw: url_state.parse_number(raw, lo, hi, integer=integer)
    if kind in _TEXT_WIDGETS:
        return a["value"], lambda raw: url_state.parse_text(raw, a["max_chars"])
    if kind in _BOOL_WIDGETS:
        return a["value"], url_state.parse_bool
    if kind == "multiselect":  # repeated parameters: ?heads=1&heads=3
        options, chosen = list(a["options"]), a["default"]
        default = [] if chosen is None else list(chosen) if isinstance(chosen, list | tuple) else [chosen]

        def parse(raws: list[str]) -> list:
            picked = list(dict.fromkeys(url_state.parse_choice(r, options, a.get("format_func")) for r in raws))
            if a.get("max_selections") and len(picked) > a["max_selections"]:
                raise url_state.LinkValueError(f"it picks more than {a['max_selections']}")
            return picked

        return default, parse
    raise TypeError(f"ui.linked does not know the widget {kind}")


def linked(widget, *args, key: str, param: str | None = None, **kwargs):
    """Call ``widget(*args, key=key, **kwargs)`` with its value kept in the page's link.

    A page adopts it by wrapping the call: ``cols[1].select_slider("d_k", [2, 4, 8], value=4, key="x.d_k")``
    becomes ``ui.linked(cols[1].select_slider, "d_k", [2, 4, 8], value=4, key="x.d_k")``. The query
    parameter is the key without its lesson prefix (``d_k``), or ``param``. When the widget first appears, a
    valid value in the link becomes its value; a refused one (not a choice, out of range, not a finite
    number, too long) leaves the default and a note under the widget, never an exception. Afterwards the link
    follows the widget: a value other than the default is written into it, so copying the address shares
    the lesson as it is set. Text boxes only check the length here; the page checks the text as it would
    check typed text.
    """
    param = param or key.split(".", 1)[-1]
    st.session_state.setdefault("ui.linked", set()).add(param)  # the page's link parameters, for tests
    default, parse = _widget_spec(widget, args, {"key": key, **kwargs})
    note = None
    call = inspect.signature(widget).bind(*args, key=key, **kwargs)
    if key not in st.session_state and param in st.query_params:  # the widget's first appearance
        raw = st.query_params.get_all(param) if widget.__name__ == "multiselect" else st.query_params[param]
        try:
            st.session_state[key] = parse(raw)
            for name in ("value", "index", "default"):  # the value comes from session state; a default as well would be
                call.arguments.pop(name, None)  # logged as a conflict (a keyed widget's id does not depend on it)
        except url_state.LinkValueError as reason:
            shown = url_state.shown(raw if isinstance(raw, str) else ",".join(raw))
            note = f"The link's {literal(f'{param}={shown}')} was not used: {reason}. Showing the default."
    value = widget(*call.args, **call.kwargs)
    if note:
        getattr(widget, "__self__", st).caption(f":material/link_off: {note}")
    if isinstance(value, list):  # a multiselect: one repeated parameter per chosen option
        chosen = [] if value == default else [url_state.to_param(v) for v in value]
        if st.query_params.get_all(param) != chosen:
            if chosen:
                st.query_params[param] = chosen
            else:
                del st.query_params[param]
        return value
    written = None if value == default or value is None else url_state.to_param(value)
    if st.query_params.get(param) != written:
        if written is None:
            del st.query_params[param]
        else:
            st.query_params[param] = written
    return value


def sentence_input(label: str, default: str, key: str, parse, tokens_key: str) -> tuple[str, ...]:
    """A text box for the student's sentence. ``parse(text)`` returns an object with ``tokens`` and ``error``;
    refused text gets a warning and the last sentence that worked stays in ``st.session_state[tokens_key]``.
    The sentence is part of the page's link (:func:`linked`)."""
    st.session_state.setdefault(tokens_key, parse(default).tokens)
    parsed = parse(linked(st.text_input, label, value=default, key=key, max_chars=2000))
    if parsed.error:
        st.warning(f"{parsed.error} Showing the last sentence that worked.")
    else:
        st.session_state[tokens_key] = parsed.tokens
    return st.session_state[tokens_key]


def show_code(*objects, label: str = "The code that computes this") -> None:
    """The source of the functions a figure comes from, read with ``inspect.getsource`` (never pasted)."""
    with st.expander(label, icon=":material/code:"):
        for obj in objects:
            st.code(_source(obj), language="python")


@functools.cache
def _source(obj) -> str:
    """``inspect.getsource``, once per function: it re-reads and re-tokenizes the file each time (py-spy: half
    of the architecture lab's run), and a server's code does not change under it (no file watcher)."""
    return inspect.getsource(obj)


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


_LIVE = contextvars.ContextVar("ui.live", default=False)  # True while a training panel redraws a running run


def plotly(fig, key: str) -> None:
    """A Plotly figure with the toolbar's PNG download (drawn in the browser, works offline), no logo and no
    scroll-zoom; under a figure with heatmaps, its numbers as CSV and JSON (tokens on both axes). Larger in
    presenter mode."""
    if presenting():  # explicit sizes: Streamlit's Plotly theme sets the axes' own fonts
        fig.update_layout(height=int((fig.layout.height or 450) * PRESENTER_SCALE), font_size=17, title_font_size=22,
                          hoverlabel_font_size=17)  # fmt: skip
        fig.update_xaxes(tickfont_size=16, title_font_size=17)
        fig.update_yaxes(tickfont_size=16, title_font_size=17)
        fig.update_annotations(font_size=17)
    from lessons import charts, export

    charts.fit_margins(fig)  # margins that fit its labels: Plotly.js then draws it once, not twice
    name = export.file_stem(key)
    st.plotly_chart(
        fig,
        key=key,
        width="stretch",
        config={"displaylogo": False, "scrollZoom": False,
                "toImageButtonOptions": {"format": "png", "filename": name, "scale": 2}},
    )  # fmt: skip
    if not _LIVE.get() and any(trace.type == "heatmap" for trace in fig.data):
        heatmap_downloads(fig, key, name)


def vega(spec: dict, key: str, height: int | None = None, container=None, width: str = "stretch") -> None:
    """A Vega-Lite chart (curves: see ``lessons.charts.with_values``), its text and height larger in presenter mode.

    Keyed, so that Streamlit updates the drawn chart in place when only its numbers change. ``container``: a column
    to draw it in (default: here). ``width="content"`` for a chart whose panels have a fixed width (a facet)."""
    if presenting():
        from lessons import charts

        spec = charts.presenter_vega(spec, PRESENTER_SCALE)
        height = int(height * PRESENTER_SCALE) if height else None
    (container or st).vega_lite_chart(spec=spec, key=key, width=width, **({"height": height} if height else {}))


def heatmap_downloads(fig, key: str, name: str) -> None:
    """A small "numbers" menu under a figure: its heatmaps' cells as one CSV and one JSON, made when clicked.

    Two buttons per figure, however many heatmaps it has, and the tables are read from the figure only on a
    click: a grid of heads had two buttons per heatmap, rebuilt on every move of a control (py-spy under the
    class load bench: a twelfth of the server's time)."""
    from lessons import export

    count = sum(trace.type == "heatmap" for trace in fig.data)
    with st.popover("Numbers", icon=":material/download:", help="Download this figure's numbers"):
        st.caption(f"The values of {'this heatmap' if count == 1 else f'these {count} heatmaps'}, tokens on both axes.")
        cols = st.columns(2)
        cols[0].download_button(
            "CSV", lambda: export.tables_to_csv(export.heatmap_tables(fig)),
            file_name=f"{name}.csv", mime="text/csv", key=f"{key}.csv", on_click="ignore",
        )  # fmt: skip
        cols[1].download_button(
            "JSON", lambda: export.tables_to_json(export.heatmap_tables(fig)), file_name=f"{name}.json",
            mime="application/json", key=f"{key}.json", on_click="ignore",
        )  # fmt: skip


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


def _note_runs_over() -> None:
    """At the top of every whole-page run: the runs already over, which the page below is drawn knowing."""
    # weak references: a closed tab's session state outlives its runs (Streamlit keeps it for a reconnect)
    st.session_state["ui.runs_over"] = weakref.WeakSet(run for run in _session_runs().values() if not run.active)


def current_run(key: str):
    """The student's latest run for this lesson (running or over), or None."""
    return _session_runs().get(key)


def trained_model(key: str):
    """The model of the student's finished run for this lesson (one that reported at least once), or None."""
    run = current_run(key)
    return run.model if run is not None and not run.active and run.snapshots else None


def model_choice(shipped, own, *, key: str, yours_label: str = "yours, trained on this page"):
    """The model the lesson's sections use: the shipped one, or, when the student has their own (``own``, e.g.
    :func:`trained_model`), theirs or the shipped one as they choose (a radio keyed ``key``)."""
    if own is None:
        return shipped
    choice = st.radio("Model", [yours_label, "the shipped pretrained one"], horizontal=True, key=key)
    return own if choice == yours_label else shipped


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

    ``make_run()`` returns a new, not yet started ``lessons.live.TrainingRun`` (its model a fresh copy that
    belongs to this student alone). ``draw(snapshot, key)`` draws the lesson's figure for one training report
    (``minimodels.train.Progress``). Once the run is over, a slider replays every report, so a class can watch
    the alignment emerge again, and the replay downloads as an animated GIF: ``replay_frame(snapshot)`` gives
    one report's map (2-D, values in [0, 1]), by default its ``attention``; no GIF when there is none.
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
                "Replay the run: training report", 1, len(run.snapshots), len(run.snapshots), key=f"{key}.replay",
                help="Scrub back through the reports to watch the attention form.",
            )  # fmt: skip
            replay_gif_button(run.snapshots, replay_frame, key)
            draw(run.snapshots[index - 1], f"{key}.replay.figure")
        else:
            st.caption("One training report so far: train longer to replay how the attention formed.")
            draw(latest, f"{key}.replay.figure")
        if run not in st.session_state.get("ui.runs_over", ()):
            # the run ended (or was stopped) since the page was last drawn whole: draw it again, so Train is
            # offered again and the sections that use the student's model (and any table of runs) see it
            st.rerun()

    progress()


def replay_gif_button(snapshots, frame, key: str) -> None:
    """Download the replay as an animated GIF (made when clicked), if the reports carry a 2-D map."""
    from lessons import export

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

    st.download_button("Replay as GIF", gif, file_name=f"{export.file_stem(key)}-replay.gif", mime="image/gif",
                       key=f"{key}.gif", on_click="ignore", icon=":material/animated_images:")  # fmt: skip
