"""Page set-up: the browser title, the wide layout, the course map in the sidebar, presenter mode.

Streamlit's own page list is turned off (``client.showSidebarNavigation = false``) and every page calls
:func:`lesson` (or the home page :func:`page`), which draws the sectioned course map with ``st.page_link``;
``st.navigation`` is never called while a ``pages/`` folder exists (it breaks deep links such as
``/queries_keys_values``). Nothing here starts work when imported: the server's one-off threads start on the first
lesson page's run.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time

import streamlit as st

from lessons.common import catalog
from lessons.common.catalog import COURSE, Lesson
from ui import admission, style
from ui.presenter import PRESENT_PARAM, PRESENTER_CSS, presenter_toggle, presenting
from ui.training import _note_runs_over

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


def page(title: str, icon: str = "🔎", heading: str | None = None) -> None:
    """Set up a page: its browser title, the wide layout, its ``heading`` (``st.title``) if given, and the course
    map in the sidebar. The heading goes out first; then the run waits for its turn (``ui.admission``) when the
    server is busy with other pages' runs, so a student sees the page's title at once, whatever the queue."""
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon=icon, layout="wide")
    if "torch" in sys.modules:  # lesson pages have imported it by now (through lessons/)
        import torch  # not sys.modules' entry: another session's thread may be halfway through importing it

        torch.set_num_threads(PAGE_THREADS)
        # Plotly and Altair look pandas up in sys.modules without importing it. When several students open
        # lessons at once on a fresh server, one thread could find it half-imported by another and fail
        # ("partially initialized module 'pandas'", measured with bench.classroom). An import statement
        # waits for an import in progress to finish, so every lesson page imports it here, first.
        import pandas  # noqa: F401

        _freeze_imports()
    style.apply()  # the app's stylesheet and the high-contrast switch
    if heading:
        st.title(heading)
    admission.admit()
    _note_runs_over()
    sidebar()
    if presenting():
        st.html(PRESENTER_CSS)


def lesson(slug: str) -> Lesson:
    """Set up a lesson page from its catalog entry: the browser title and icon, the sidebar, the lesson's title.

    Every page starts with ``lesson = ui.lesson("<slug>")``; the entry (``lessons.common.catalog``) then gives the
    page's tail its sources and its "Next" link (:func:`ui.tail.page_tail`)."""
    entry = catalog.lesson(slug)
    page(entry.title, icon=entry.tab_icon, heading=entry.title)
    from ui import classroom  # here: the home page stays light

    classroom.on_lesson(slug)  # the learner's progress; in a class, the question bar and a sweep's setting
    return entry


def tool(slug: str):
    """Set up a tool page (the class, your own data) from its catalog entry, as :func:`lesson` does for a lesson."""
    entry = catalog.tool(slug)
    page(entry.title, icon=entry.tab_icon, heading=entry.title)
    return entry


_frozen = False
# Python's collector starts a young collection every 700 new objects, and a full one every 100 young ones (once the
# older objects have grown by a quarter). A page run makes tens of thousands (protobuf messages, Plotly's dicts), and
# 30 students' sessions are what the older generation holds: in ``bench.classroom full`` (30 students, 40 s), 1,816
# young collections and 12 full ones of ~94 ms each, 1.9 s of the server's 43 s of CPU, every pause with the GIL held.
# Every 10,000 new objects and rarely a full one (the memory thread's half-minute collection is the full one):
# 0.9–1.0 s in the same bench (bench/CLASSROOM.md, three runs each way). Garbage cycles are still collected young,
# where most of them die.
GC_THRESHOLDS = (10_000, 20, 100)


def _freeze_imports() -> None:
    """Once per server process, after the heavy imports: move every object alive now out of the collector's way.

    Torch, Plotly, Altair and pandas leave ~280,000 long-lived objects, and each full collection Python's GC
    starts on its own walks all of them with the GIL held: measured 0.33 s on the busy 2-core machine, a pause
    every student on the server feels; ~0 ms once they are frozen.
    ``gc.freeze()`` puts them in a permanent generation that collections skip; done once, it only keeps alive
    what was alive at the first lesson's start (modules, mostly). The collector's thresholds are set then too
    (:data:`GC_THRESHOLDS`).
    """
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        threading.Thread(target=_give_memory_back, name="give-memory-back", daemon=True).start()


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

    Once, on the first pass, what the lessons loaded since ``_freeze_imports`` (their models, shipped results,
    shared figures and caches: ~390,000 more objects once every lesson has opened) goes to the collector's
    permanent generation too (``gc.freeze``): no collection, this one or Python's own, walks it again. A full
    collection of them took ~110 ms holding the GIL (AppTest, every lesson opened), every student's run waiting.
    Measured with 30 students in ``bench.classroom full`` (60 s, two runs each way): 749 and 799
    page runs, p90 1330 and 1142 ms, against 702 and 738 runs, p90 1536 and 1458 ms without it. A frozen object
    is never collected as part of a cycle, so a session open at that moment keeps its cyclic garbage when it
    closes: a one-off cost, bounded by the sessions of the server's first half minute.
    """
    from lessons.common import live

    frozen = False
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
        if not frozen:
            gc.freeze()
            frozen = True
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
        built_tools = [entry for entry in catalog.TOOLS if entry.built]
        if built_tools:
            st.markdown("**Tools**")
            for entry in built_tools:
                st.page_link(entry.page, label=entry.title, icon=entry.icon, query_params=links)
        st.divider()
        if "torch" in sys.modules:  # a lesson page; the home page never imports torch (it opens in a blink)
            st.caption(f"Models run on: **{_device_label()}**")
        else:
            st.caption("Models run on: **the GPU when the server has one, else the CPU** (shown in each lesson)")


def symbols(slug: str) -> None:
    """The lesson's rows of the one table of symbols (``lessons.common.notation``), folded under the set-up."""
    from lessons.common import notation
    from ui.tail import folded

    rows = notation.rows(slug)
    if rows:
        folded("Symbols on this page, and the lecture's", lambda: st.table(rows), key=f"{slug}.symbols",
               icon=":material/function:")  # fmt: skip


def section(title: str, text: str | None = None) -> None:
    """A numbered section of a lesson: its header, and the lesson's explanatory text under it (``ui.explain``:
    folded away in presenter mode). Developer text only."""
    from ui.presenter import explain

    st.header(title, divider="gray")
    if text:
        explain(text)
