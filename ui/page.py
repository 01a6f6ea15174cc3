"""Page set-up: the browser title, the wide layout, the course map in the sidebar, presenter mode.

Streamlit's own page list is turned off (``client.showSidebarNavigation = false``) and every page calls
:func:`lesson` (or the home page :func:`page`), which draws the sectioned course map with ``st.page_link``;
``st.navigation`` is never called while a ``pages/`` folder exists (it breaks deep links such as
``/queries_keys_values``). The server's own work (threads, the collector, the queue) is ``ui.server``'s.
"""

from __future__ import annotations

import streamlit as st

from lessons.common import catalog, notation
from lessons.common.catalog import COURSE, Lesson
from ui import classroom, server, style
from ui.charts import text_table
from ui.presenter import PRESENT_PARAM, PRESENTER_CSS, explain, presenter_toggle, presenting
from ui.runs import note_runs_over
from ui.tail import folded

HOME = "app.py"


@st.cache_resource(show_spinner=False)
def _device_label() -> str:
    from minimodels.device import device_label  # here: it imports torch, which the home page never loads

    return device_label()


def page(title: str, icon: str = "🔎", heading: str | None = None, *, before_queue=None, device: bool = False) -> None:
    """Set up a page: its browser title, the wide layout, its ``heading`` (``st.title``) if given, and the course
    map in the sidebar. The heading goes out first, then what ``before_queue()`` draws (a lesson's question bar and
    introduction); then the run waits for its turn (``ui.server.admit``) when the server is busy with other pages'
    runs, so a student reads the page's title and first paragraph at once, whatever the queue."""
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon=icon, layout="wide")
    server.prepare_run()
    style.apply()  # the app's stylesheet and the high-contrast switch
    if heading:
        st.title(heading)
    if before_queue is not None:
        before_queue()
    server.admit()
    note_runs_over()
    sidebar(device)
    if presenting():
        st.html(PRESENTER_CSS)


def lesson(slug: str, intro: str | None = None, *, intro_folds: bool = True) -> Lesson:
    """Set up a lesson page from its catalog entry: the browser title and icon, the sidebar, the lesson's title, the
    learner's progress and the class's question bar (``ui.classroom.on_lesson``), then ``intro``, the lesson's first
    paragraph (developer text: ``ui.explain``, folded in presenter mode, or plain markdown with
    ``intro_folds=False``). All of that is drawn before the run waits for its turn, so a class arriving together
    reads the lesson's first lines while the runs ahead of theirs finish.

    Every page starts with ``lesson = ui.lesson("<slug>", <its introduction>)``; the entry
    (``lessons.common.catalog``) then gives the page's tail its sources and its "Next" link
    (:func:`ui.tail.page_tail`)."""
    from lessons.common import grids  # here: Plotly, which a lesson loads and the home page never does

    entry = catalog.lesson(slug)
    grids.NARROW.set(style.narrow_screen())  # the lesson's figures are drawn for the student's screen

    def top() -> None:
        classroom.on_lesson(slug)  # the learner's progress; in a class, the question bar and a sweep's setting
        if intro:
            (explain if intro_folds else st.markdown)(intro)

    page(entry.title, icon=entry.tab_icon, heading=entry.title, before_queue=top, device=True)
    return entry


def tool(slug: str, *, device: bool = False):
    """Set up a tool page (the class, your own data) from its catalog entry, as :func:`lesson` does for a lesson;
    ``device``: the page runs models, and its sidebar says where."""
    entry = catalog.tool(slug)
    page(entry.title, icon=entry.tab_icon, heading=entry.title, device=device)
    return entry


def sidebar(device: bool = False) -> None:
    """The course map, and where the models run (``device``: on a lesson page, which has imported torch; the home
    page never does)."""
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
        if device:
            st.caption(f"Models run on: **{_device_label()}**")
        else:
            st.caption("Models run on: **the GPU when the server has one, else the CPU** (shown in each lesson)")


def symbols(slug: str) -> None:
    """The lesson's rows of its part's table of symbols (``lessons.common.notation``), folded under the set-up."""
    rows = notation.rows(slug)
    if rows:
        folded(
            "Symbols on this page, and the lecture's",
            lambda: text_table(rows),
            key=f"{slug}.symbols",
            icon=":material/function:",
        )


def section(title: str, text: str | None = None) -> None:
    """A numbered section of a lesson: its header, and the lesson's explanatory text under it (``ui.explain``:
    folded away in presenter mode). Developer text only."""
    st.header(title, divider="gray")
    if text:
        explain(text)
