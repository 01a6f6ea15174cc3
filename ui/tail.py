"""The end of every lesson page: the code that ran, the check-yourself questions, the sources, the next lesson."""

from __future__ import annotations

import functools
import inspect
import zlib

import streamlit as st

from lessons.common import catalog
from lessons.common.exercises import Exercise
from ui import classroom, server
from ui.presenter import literal


@st.fragment
def folded(label: str, draw, *, key: str, icon: str | None = None) -> None:
    """An expander whose content ``draw()`` builds only while it is open, in a fragment of its own: opening or
    closing it reruns this fragment alone (its own nested fragment inside a section's).

    A closed ``st.expander`` still sends its whole content, and the browser draws it all, on every run: a lesson's
    closed code blocks and reveals are a large part of its page. ``key``: the expander's, unique on the page."""
    box = st.expander(label, icon=icon, key=key, on_change="rerun")
    if box.open:
        with box:
            draw()


def show_code(*objects, label: str = "The code that computes this") -> None:
    """The source of the functions a figure comes from, read with ``inspect.getsource`` (never pasted), folded."""
    names = "|".join(f"{getattr(o, '__module__', '')}.{getattr(o, '__qualname__', o)}" for o in objects)
    key = f"code.{zlib.crc32(f'{label}|{names}'.encode()):08x}"

    def draw() -> None:
        for obj in objects:
            st.code(_source(obj), language="python")

    folded(label, draw, key=key, icon=":material/code:")


@functools.cache
def _source(obj) -> str:
    """``inspect.getsource``, once per function: it re-reads and re-tokenizes the file each time (a large
    part of a page run that lists code), and a server's code does not change under it (no file watcher)."""
    return inspect.getsource(obj)


@st.fragment
def exercise(ex: Exercise) -> None:
    """One check-yourself question with its answer box and automatic feedback. The answer is kept in the learner's
    progress (``ui.classroom``); a teacher in a class can put the question to the class from here.

    A fragment of its own: Check reruns this question alone, not the whole lesson (a whole-page run resent every
    part of the page to answer one box). Nothing else on a lesson page shows the answer; the progress the course
    map shows and the teacher's dashboard read it from the store."""
    with st.container(border=True):
        classroom.resume_here(ex.key)
        st.markdown(ex.prompt)
        before = classroom.previous_answer(ex.key)
        with st.form(key=f"{ex.key}.form", border=False):
            if ex.is_choice:
                response = st.radio("Your answer", ex.choices, index=None, key=f"{ex.key}.answer")
            else:
                response = st.number_input("Your answer", value=None, step=0.01, format="%.3f", key=f"{ex.key}.answer")
            submitted = st.form_submit_button("Check")
        if submitted:
            feedback = ex.check(response)
            (st.success if feedback.correct else st.warning)(feedback.message)
            if response is not None:
                shown = ex.choices.index(response) if ex.is_choice and response in ex.choices else response
                classroom.record_answer(ex.key.split(".", 1)[0], ex.key, shown, feedback.correct)
                classroom.remember_answer(ex.key, shown, feedback.correct)
        elif before is not None:
            answer, right = before
            if ex.is_choice and answer.isdigit() and int(answer) < len(ex.choices):
                answer = ex.choices[int(answer)]
            state = "solved" if right else "not solved yet"
            st.caption(f":material/history: You answered this before: {literal(answer)} ({state}).")
        classroom.ask_button(ex)


def check_yourself(items, header: str = "Check yourself") -> None:
    """The lesson's check-yourself section: its header and each question in turn."""
    st.header(header, divider="gray")
    items = list(items)
    if items:
        classroom.record_exercises(items[0].key.split(".", 1)[0], len(items))
    for ex in items:
        exercise(ex)


def page_tail(lesson, *, code=(), exercises=None) -> None:
    """The end of every lesson page, in one order: the code that ran, the questions, the sources, the next lesson.

    ``code``: ``(label, objects)`` pairs for :func:`show_code`; ``exercises``: the lesson's exercises (None: no
    check-yourself section). The sources and the next lesson come from the catalog entry."""
    for label, objects in code:
        show_code(*objects, label=label)
    if exercises is not None:
        check_yourself(exercises)
    if lesson.sources:
        st.caption(lesson.sources)
    following = catalog.next_lesson(lesson.slug)
    if following is not None:
        st.page_link(following.page, label=f"Next: {following.title}", icon=":material/arrow_forward:")
    else:
        st.page_link("app.py", label="Back to the course map", icon=":material/school:")
    server.start_warm_up()  # the other lessons, after this one's run (a lesson opened first on a fresh server)
    server.page_drawn()


def answered(*keys: str) -> bool:
    """Whether the student has answered each of these exercises (``Exercise.key``): in this session, or before
    with a kept key."""
    cache = st.session_state.get("learner.answers", {})
    return all(k in cache or classroom.previous_answer(k) is not None for k in keys)


def after_answering(keys, what: str, draw) -> None:
    """``draw()`` only once the exercises ``keys`` (the predictions asked just above) have an answer, right or
    wrong; until then a line says what opens when they do. A prediction whose answer is already on the page
    tests nothing."""
    keys = [keys] if isinstance(keys, str) else list(keys)
    if answered(*keys):
        draw()
    else:
        asked = "the question" if len(keys) == 1 else f"the {len(keys)} questions"
        st.info(f"Answer {asked} above first (press Check) to see {what} here.", icon=":material/lock:")


def reveal(what: str, draw, *, key: str, predictions: int = 1, after=()) -> None:
    """The answer to the prediction(s) asked just above, folded until the student opens it; ``draw()`` builds it
    then (``folded``). ``key``: the expander's, unique on the page. ``after``: the keys of those predictions'
    exercises: the fold is offered only once each has an answer (:func:`after_answering`)."""
    asked = "the prediction" if predictions == 1 else "the predictions"

    def fold() -> None:
        folded(f"Reveal {what} (answer {asked} first)", draw, key=key, icon=":material/visibility:")

    if after:
        after_answering(after, what, fold)
    else:
        fold()
