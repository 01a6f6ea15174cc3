"""The class in one link, and the learner's progress: the UI side of the class store (``store``).

The store is opened once per server through ``st.connection`` (SQLAlchemy): the embedded SQLite file by default,
PostgreSQL when ``ATTENTION_LAB_DB_URL`` or ``[connections.class_store]`` in ``.streamlit/secrets.toml`` gives a
URL. When it cannot be reached every lesson works alone, with one line saying so, and it is tried again later.

A session holds at most: the learner's key (kept in a cookie or in their link, their choice), the class member it
joined as (its token in a cookie, so a reopened tab rejoins), and a teacher handle (only after the teacher key was
checked; the key leaves the address bar at once, so a projector never shows it).

Cookies: a page script writes them (``document.cookie``): under ``streamlit run`` nothing else can, so they cannot be
HttpOnly. A class's cookies (the student's token, the teacher's key) last until the class ends and no longer; the
learner's key a year. "Leave this computer" forgets all three in this browser; a student whose class ended is told
so and the cookie goes. A store error costs the one action it hit; only a database that cannot be reached
(:func:`store.unreachable`) pauses the class features of this server, for :data:`RETRY_SECONDS`.
"""

from __future__ import annotations

import atexit
import contextlib
import csv
import functools
import io
import itertools
import json
import logging
import os
import re
import secrets
import threading
import time
import weakref
import zipfile

import streamlit as st

import store
from lessons.common import catalog, spreadsheet
from store.classes import Member, Teacher
from store.learners import valid_key
from store.names import generated_name
from ui.charts import plotly, table, vega
from ui.own_data import model_file, own_model, try_model_file
from ui.presenter import literal

log = logging.getLogger(__name__)

LEARNER_COOKIE = "attention_lab_learner"
CLASS_COOKIE = "attention_lab_class"
COOKIE_DAYS = 365  # the learner's key; a class's cookies last until the class ends
RETRY_SECONDS = 30.0  # a database that cannot be reached is tried again after this long
PURGE_SECONDS = 3600.0  # how often a server removes the classes and learners past their time
STUDENT_POLL_SECONDS = 3.0  # how often a student's page looks for the teacher's question
TEACHER_POLL_SECONDS = 2.0  # the dashboard's refresh
TOUCH_SECONDS = 30.0  # presence is written at most this often per student
_COOKIE_VALUE = re.compile(r"^[A-Za-z0-9_\-.]{1,120}$")
_failed_at = [0.0]
_purged_at = [0.0]
FAILED = object()  # what _guard returns when the action was refused or the database failed


# ------------------------------------------------------------------------------------------------------ the store
def _configured_url() -> str | None:
    """``ATTENTION_LAB_DB_URL``, else ``[connections.class_store] url`` in the secrets, else None (SQLite)."""

    url = os.environ.get(store.db.ENV_URL, "").strip()
    if url:
        return url
    try:
        return st.secrets["connections"]["class_store"]["url"]
    except Exception:  # no secrets file, or no such entry: the embedded default
        return None


@st.cache_resource(show_spinner=False)
def _open() -> tuple[store.ClassStore, store.Learners]:
    url = store.database_url(_configured_url())
    connection = st.connection("class_store", type="sql", url=url, **store.db.engine_options(url))
    engine = store.db.prepare(connection.engine)
    store.schema.upgrade(engine)
    return store.ClassStore(engine), store.Learners(engine)


# Let the connection go while the interpreter is whole: Streamlit's connection object tidies up in __del__, which
# at interpreter exit would find its modules already torn down (an "Exception ignored" line on every exit).
# (st.connection keeps its own cached copy: every cached resource is let go, which at exit costs nothing.)
atexit.register(st.cache_resource.clear)


def stores() -> tuple[store.ClassStore, store.Learners] | None:
    """The class store and the learners' store, or None while the database cannot be reached."""
    if time.time() - _failed_at[0] < RETRY_SECONDS:
        return None
    try:
        opened = _open()
    except Exception:  # noqa: BLE001 - any failure to reach the database: lessons go on alone
        log.warning("the class store cannot be reached", exc_info=True)
        _failed_at[0] = time.time()
        return None
    _purge(opened)
    return opened


def _purge(opened: tuple[store.ClassStore, store.Learners]) -> None:
    """At most once every :data:`PURGE_SECONDS` per server: remove the classes that ended a month ago and the
    learners idle for over a year (``ClassStore.purge_ended``, ``Learners.purge_idle``). A failure is logged and
    tried again next time; no page waits on it twice."""
    if time.time() - _purged_at[0] < PURGE_SECONDS:
        return
    _purged_at[0] = time.time()
    try:
        classes, learners = opened[0].purge_ended(), opened[1].purge_idle()
    except Exception:  # noqa: BLE001 - housekeeping: never a page's problem
        log.warning("purging ended classes failed", exc_info=True)
    else:
        if classes or learners:
            log.info("purged %d ended classes and %d idle learners", classes, learners)


def _unavailable(what: str = "Progress and class features", verb: str = "are") -> None:
    """The one-line notice that ``what`` (``verb``: "are" or "is") waits for the database."""
    st.caption(
        f":material/cloud_off: {what} {verb} paused: the course's database cannot be reached right now. "
        "This lesson works on its own; nothing already saved is lost."
    )


def _reading(refresh):
    """A polling fragment's store reads share one connection (``ClassStore.reading``): on PostgreSQL one checkout
    and one round trip per query for the whole refresh, not a checkout, BEGIN and ROLLBACK around each read."""

    @functools.wraps(refresh)
    def wrapped(*args, **kwargs):
        opened = stores()
        if opened is None:
            return refresh(*args, **kwargs)
        with contextlib.ExitStack() as stack:
            try:  # a pool with no free connection (a replica that took over a whole class) must not break the page
                stack.enter_context(opened[0].reading())
            except Exception:  # noqa: BLE001 - each read below then takes its own connection, guarded as ever
                log.warning("no shared connection for a refresh", exc_info=True)
            return refresh(*args, **kwargs)

    return wrapped


def _guard(action, *, what: str = "That", quiet: bool = False):
    """Run a store action and return its value, or :data:`FAILED` with a sentence on the page (none when ``quiet``):
    a refusal's own message; for a database that cannot be reached, a notice, and class features paused on this
    server for :data:`RETRY_SECONDS`; for any other error (a race lost even after its retries, a busy database), a
    notice that this one action did not go through, nothing paused. ``what`` names the action ("Saving your
    answer"); the sentences read with it."""
    try:
        return action()
    except store.StoreError as refusal:
        if not quiet:
            st.warning(str(refusal), icon=":material/block:")
    except Exception as error:  # noqa: BLE001 - whatever the database says: a sentence, never a traceback
        log.warning("class store action failed", exc_info=True)
        if store.unreachable(error):
            _failed_at[0] = time.time()
            if not quiet:
                st.caption(
                    f":material/cloud_off: {what} did not go through: the course's database cannot be reached "
                    "right now. This lesson works on its own; nothing already saved is lost."
                )
        elif not quiet:
            st.caption(f":material/sync_problem: {what} did not go through: the course's database was busy. Try again.")
    return FAILED


def _set_cookie(name: str, value: str | None, until: float | None = None) -> None:
    """Keep ``value`` in the student's browser (None: forget it) for a year, or until ``until`` (a class's end, a
    time.time()) when sooner. Only our own codes and keys, checked first; ``Secure`` when the page came over HTTPS.
    A page script writes it: nothing a Streamlit script runs can set an HttpOnly cookie."""
    if value is not None and not _COOKIE_VALUE.match(value):
        return
    if value is not None:
        st.session_state.get("classroom.forget", set()).discard(name)
        st.session_state.pop("classroom.left_computer_said", None)
    life = 0 if value is None else COOKIE_DAYS * 86400
    if value is not None and until is not None:
        life = max(0, min(life, int(until - time.time())))
    secure = "; Secure" if base_url().startswith("https://") else ""
    st.html(
        f"<script>document.cookie = '{name}={value or ''}; Max-Age={life}; Path=/; SameSite=Lax{secure}';</script>",
        unsafe_allow_javascript=True,
    )


# ---------------------------------------------------------------------------------------------------- the learner
def learner_key(create: bool = False) -> str | None:
    """The learner's key: this session's, the link's ``?learner=``, or the browser's cookie; a new one (kept in the
    browser) when ``create``."""
    key = st.session_state.get("learner.key")
    if key:
        return key
    linked = st.query_params.get("learner")
    if valid_key(linked):
        st.session_state["learner.key"], st.session_state["learner.mode"] = linked, "link"
        return linked
    cookie = None if st.session_state.get("learner.forgotten") else st.context.cookies.get(LEARNER_COOKIE)
    if valid_key(cookie):
        st.session_state["learner.key"], st.session_state["learner.mode"] = cookie, "browser"
        return cookie
    if not create or stores() is None:
        return None
    key = store.Learners.fresh_key()  # stored by the write it is made for (the visit, the answer)
    st.session_state["learner.key"], st.session_state["learner.mode"] = key, "browser"
    st.session_state["learner.answers"] = {}  # a new learner has answered nothing: no need to ask the store
    _set_cookie(LEARNER_COOKIE, key)
    return key


def on_lesson(slug: str) -> None:
    """At the top of every lesson: note the visit (once a session), the class's presence, a class sweep's setting,
    and the class's question bar."""
    forget_cookies()
    opened = stores()
    if opened is None:
        _unavailable()
        return
    classes, learners = opened
    visited = st.session_state.setdefault("learner.visited", set())
    if slug not in visited:
        key = learner_key(create=True)
        if key and _guard(lambda: learners.visit(key, slug), what="Saving your progress") is not FAILED:
            visited.add(slug)
    member = _member(classes)
    if member is not None:
        _touch(classes, member, slug)
        _apply_sweep(classes, member, slug)
        _student_bar(member, slug)
    elif _teacher() is not None:
        _teacher_bar(slug)
    class_over_notice()


def record_answer(lesson: str, exercise_key: str, response, correct: bool) -> None:
    """An exercise answered on a lesson page: kept in the learner's progress, and in a class, shown on the
    teacher's dashboard."""
    opened = stores()
    key = learner_key(create=True)
    if opened is not None and key:
        _guard(lambda: opened[1].solve(key, lesson, exercise_key, response, correct), what="Saving your answer")
    member = st.session_state.get("classroom.member")
    if opened is not None and member is not None:
        _guard(lambda: opened[0].check_exercise(member, lesson, exercise_key, response, correct), quiet=True)


def record_exercises(lesson: str, count: int) -> None:
    """How many exercises the lesson shows (a lesson is done when all of them are answered right)."""
    opened = stores()
    key = learner_key()
    seen = st.session_state.setdefault("learner.exercises", {})
    if (
        opened is not None
        and key
        and seen.get(lesson) != count
        and _guard(lambda: opened[1].set_exercises(key, lesson, count), what="Saving your progress") is not FAILED
    ):
        seen[lesson] = count


def previous_answer(exercise_key: str) -> tuple[str, bool] | None:
    """What the learner answered to this exercise before (another day, another tab), or None."""
    opened = stores()
    key = learner_key()
    if opened is None or not key:
        return None
    cache = st.session_state.get("learner.answers")
    if cache is None:
        cache = _guard(lambda: opened[1].answers(key), quiet=True)
        cache = {} if cache is FAILED else cache
        st.session_state["learner.answers"] = cache
    return cache.get(exercise_key)


RESUME_PARAM = "at"  # the Resume link's exercise: the page scrolls to it once


def resume_here(exercise_key: str) -> None:
    """Where the Resume link points (``?at=<exercise key>``): scroll the exercise into view, once."""
    if st.query_params.get(RESUME_PARAM) != exercise_key or not re.match(r"^[\w.\-]{1,100}$", exercise_key):
        return
    anchor = "resume-" + exercise_key.replace(".", "-")
    st.html(
        f'<div id="{anchor}"></div><script>setTimeout(() => document.getElementById("{anchor}")'
        '?.scrollIntoView({block: "center"}), 600);</script>',
        unsafe_allow_javascript=True,
    )
    del st.query_params[RESUME_PARAM]


def remember_answer(exercise_key: str, response, correct: bool) -> None:
    cache = st.session_state.setdefault("learner.answers", {})
    _old, was_right = cache.get(exercise_key, ("", False))
    cache[exercise_key] = (str(response), bool(correct or was_right))


def progress_panel(exercise_counts: dict[str, int] | None = None) -> dict[str, str]:
    """The course map's "Your progress" box: resume, where the key is kept, wipe. Returns ``{lesson: state}``."""

    forget_cookies()
    opened = stores()
    if opened is None:
        _unavailable("Saved progress", "is")
        return {}
    learners = opened[1]
    key = learner_key()
    states = _guard(lambda: learners.progress(key), what="Reading your progress") if key else {}
    states = {} if states is FAILED else states
    with st.container(border=True):
        st.markdown("**Your progress**")
        if not key:
            st.caption(
                "Open any lesson and your progress is kept here: lessons visited, exercises answered, "
                "and where you stopped. No account: a key stays in this browser (or in your link)."
            )
            leave_this_computer_button("learner.leave_computer")
            return {}
        place = _guard(lambda: learners.resume(key), what="Finding where you stopped")
        if place and place is not FAILED:
            lesson, where = place
            try:
                entry = catalog.lesson(lesson)
                done = sum(state == "done" for state in states.values())
                label = f"Resume: {entry.title}" + (" (your last answer)" if where else "")
                st.page_link(
                    entry.page,
                    label=label,
                    icon=":material/play_circle:",
                    query_params={RESUME_PARAM: where} if where else None,
                )
                st.caption(
                    f"{done} of {len(catalog.all_lessons())} lessons done, "
                    f"{sum(state == 'in progress' for state in states.values())} in progress."
                )
            except KeyError:
                pass
        with st.expander("Where your progress is kept", icon=":material/key:"):
            mode = st.session_state.get("learner.mode", "browser")
            choice = st.radio(
                "Keep my progress key",
                ["in this browser", "in my link only"],
                index=0 if mode == "browser" else 1,
                key="learner.where",
                horizontal=True,
            )
            if choice == "in my link only":
                if mode != "link":
                    st.session_state["learner.mode"] = "link"
                    _set_cookie(LEARNER_COOKIE, None)
                st.query_params["learner"] = key
                st.caption("Bookmark this page's address now: it holds your key, and this browser forgets it.")
            elif mode != "browser":
                st.session_state["learner.mode"] = "browser"
                _set_cookie(LEARNER_COOKIE, key)
                st.query_params.pop("learner", None)
            if st.button("Wipe my progress", icon=":material/delete:", key="learner.wipe"):
                _guard(lambda: learners.wipe(key), what="Wiping your progress")
                _set_cookie(LEARNER_COOKIE, None)
                st.query_params.pop("learner", None)
                for name in ("learner.key", "learner.mode", "learner.visited", "learner.answers", "learner.exercises"):
                    st.session_state.pop(name, None)
                st.session_state["learner.forgotten"] = True  # the cookie this session opened with is gone
                st.success("Your progress is wiped: nothing about you is kept.")
                return {}
        leave_this_computer_button("learner.leave_computer")
    return states


# ----------------------------------------------------------------------------------------------------- the class
def _member(classes: store.ClassStore) -> Member | None:
    """The class member this session is, rejoined from the browser's cookie when a tab was reopened; None once the
    class has ended (the student is told so, once, and the cookie goes)."""
    member = st.session_state.get("classroom.member")
    if member is not None:
        code = member.class_code
        info = _guard(lambda: _shared_read(("class", code), lambda: classes.find(code)), quiet=True)
        if info is FAILED or (info is not None and info.live()):
            return member
        _class_over(code, info)
        return None
    if st.session_state.get("classroom.cookie_checked"):
        return None
    st.session_state["classroom.cookie_checked"] = True
    cookie = st.context.cookies.get(CLASS_COOKIE) or ""
    if "." in cookie:
        code, token = cookie.split(".", 1)
        try:
            member = classes.rejoin(code, token)
        except store.StoreError:
            _class_over(code, _guard(lambda: classes.find(code), quiet=True))
            member = None
        except Exception:  # noqa: BLE001
            log.warning("rejoin failed", exc_info=True)
            member = None
        if member is not None:
            st.session_state["classroom.member"] = member
    return member


def _class_over(code: str, info) -> None:
    """The student's class has ended, expired or been deleted: say so (:func:`class_over_notice`), forget the
    membership and the browser's cookie."""
    code = store.names.normal_code(code)
    if info is None:
        said = f"Your class {code} is over, and what it stored has been deleted."
    else:
        said = f"Your class {code} has ended: thank you for taking part."
    st.session_state["classroom.over"] = f"{said} To join another class, enter its code on the Class page."
    st.session_state.pop("classroom.member", None)
    st.session_state.pop("classroom.cookie", None)
    st.session_state["classroom.cookie_checked"] = True
    st.session_state["classroom.left"] = True  # the class page forgets the cookie on every draw until a join
    _set_cookie(CLASS_COOKIE, None)


def class_over_notice() -> None:
    """Once: that the student's class has ended (found by :func:`_member`)."""
    said = st.session_state.pop("classroom.over", None)
    if said:
        st.info(said, icon=":material/event_busy:")


TEACHER_COOKIE = "attention_lab_teacher"


def _teacher() -> Teacher | None:
    """This session's teacher handle; restored once from the teacher's browser cookie (a reopened tab, or the
    page reconnecting after a server restart), never from anything a student's browser holds."""
    teacher = st.session_state.get("classroom.teacher")
    if teacher is not None or st.session_state.get("classroom.teacher_checked"):
        return teacher
    cookie = st.context.cookies.get(TEACHER_COOKIE) or ""
    if "." not in cookie:
        st.session_state["classroom.teacher_checked"] = True
        return None
    opened = stores()
    if opened is None:  # class features paused on this server: the cookie is checked once they are back
        return None
    st.session_state["classroom.teacher_checked"] = True
    code, key = cookie.split(".", 1)

    def check() -> Teacher | None:  # None: a deleted class, or a key that is not its
        try:
            return opened[0].teacher(code, key)
        except (store.ClassError, store.RateLimited):
            return None

    teacher = _guard(check, what="Opening your dashboard")
    if teacher is FAILED:  # a busy or lost database, said on the page: keep the cookie, try again next draw
        st.session_state.pop("classroom.teacher_checked", None)
        return None
    if teacher is None:  # forget the cookie, say nothing
        _set_cookie(TEACHER_COOKIE, None)
        return None
    st.session_state["classroom.teacher"] = teacher
    return teacher


def _remember_teacher(teacher: Teacher, key: str) -> None:
    st.session_state["classroom.teacher"] = teacher
    _set_cookie(TEACHER_COOKIE, f"{teacher.code}.{key}", until=_class_end(teacher.code))


def _class_end(code: str) -> float:
    """When class ``code`` ends (its set end; now, when it ended early or cannot be read): a class's cookie lasts
    until then and no longer."""
    opened = stores()
    found = _guard(lambda: opened[0].find(code), quiet=True) if opened is not None else None
    if found is None or found is FAILED or not found.live():
        return time.time()
    return found.expires_at


def _touch(classes: store.ClassStore, member: Member, lesson: str | None) -> None:
    last = st.session_state.get("classroom.touched", (None, 0.0))
    due = last[0] != lesson or time.time() - last[1] > TOUCH_SECONDS
    if due and _guard(lambda: classes.touch(member, lesson), quiet=True) is not FAILED:
        st.session_state["classroom.touched"] = (lesson, time.time())


def _session_id() -> str:
    """This browser session, for the store's per-session rate limits (random, never shown)."""

    return st.session_state.setdefault("classroom.session", secrets.token_hex(8))


def join(code: str, name: str | None) -> Member | None:
    """Join a class from the class page's form; the member's token goes into a browser cookie."""
    opened = stores()
    if opened is None:
        _unavailable("Classes")
        return None
    joined = _guard(lambda: opened[0].join(code, name, session=_session_id()), what="Joining")
    if joined is FAILED:
        return None
    member, token = joined
    cookie = (f"{member.class_code}.{token}", _class_end(member.class_code))
    st.session_state["classroom.member"] = member
    st.session_state["classroom.cookie"] = cookie  # written again by student_home
    st.session_state.pop("classroom.left", None)
    _set_cookie(CLASS_COOKIE, *cookie)
    return member


def leave() -> None:
    """Leave the class: this session forgets the membership, and the page drawn after the rerun that follows
    forgets the browser's cookie (a cookie script queued before ``st.rerun()`` is dropped)."""
    st.session_state.pop("classroom.member", None)
    st.session_state.pop("classroom.cookie", None)
    st.session_state["classroom.cookie_checked"] = True  # never rejoined from the old cookie in this session
    st.session_state["classroom.left"] = st.session_state["classroom.left_said"] = True


def start(name: str, hours: float) -> tuple[store.ClassInfo, str] | None:
    opened = stores()
    if opened is None:
        _unavailable("Classes")
        return None
    made = _guard(lambda: opened[0].create_class(name, hours, session=_session_id()), what="Starting the class")
    if made is FAILED:
        return None
    if made is not None:
        _remember_teacher(opened[0].teacher(made[0].code, made[1]), made[1])
    return made


def become_teacher(code: str, key: str) -> Teacher | None:
    """Check a teacher link's key (rate-limited); on success the session is the teacher's."""
    opened = stores()
    if opened is None:
        _unavailable("Classes")
        return None
    teacher = _guard(lambda: opened[0].teacher(code, key), what="Opening the dashboard")
    if teacher is FAILED:
        return None
    _remember_teacher(teacher, key)
    return teacher


def base_url() -> str:
    """The server's address as the browser reached it (``http://host:port``), for the class's links."""
    url = st.context.url or ""
    match = re.match(r"^(https?://[^/?#]+)", url)
    return match.group(1) if match else ""


SHARED_READ_SECONDS = 1.0  # a class's current question and sweep, read once a second per server for all its students
_shared: dict[tuple, tuple[float, object]] = {}
_shared_lock = threading.Lock()


def _shared_read(key: tuple, read):
    """``read()``'s value, shared by every session of this server for :data:`SHARED_READ_SECONDS`: sixty students'
    question bars polling every few seconds cost the database one read a second, not twenty (the bars were 13% of
    the server's time in bench.class_session). A refusal or a failure is never kept."""
    now = time.monotonic()
    with _shared_lock:
        kept = _shared.get(key)
    if kept is not None and now - kept[0] < SHARED_READ_SECONDS:
        return kept[1]
    value = read()
    with _shared_lock:
        if len(_shared) > 2000:  # classes come and go: forget them all now and then
            _shared.clear()
        _shared[key] = (now, value)
    return value


def _question_form(member: Member, question, classes: store.ClassStore) -> None:
    key = f"classroom.q{question.id}"
    known = st.session_state.setdefault("classroom.answered", {})
    if question.id not in known:  # read once a session; afterwards this session knows what it sent
        known[question.id] = classes.my_answer(member, question.id)
    mine = known[question.id]
    with st.form(key=f"{key}.form", border=False):
        if question.is_choice:
            response = st.radio("Your answer", question.choices, index=None if mine is None else int(mine), key=key)
        else:
            response = st.number_input(
                "Your answer", value=None if mine is None else float(mine), step=0.01, format="%.3f", key=key
            )
        sent = st.form_submit_button("Send my answer")
    if sent:
        if response is None:
            st.warning("Pick or type an answer first.")
        elif _guard(lambda: classes.answer(member, question.id, response), what="Sending your answer") is not FAILED:
            mine = known[question.id] = str(response if not question.is_choice else question.choices.index(response))
    if mine is not None:
        st.caption("Your answer is in. You can change it until your teacher closes the question.")


def _student_bar(member: Member, slug: str | None) -> None:
    """The class's current question on the student's page: answer it while open, see the class's answers once
    the teacher reveals them. Polled every few seconds (a fragment), so nobody reloads."""

    @st.fragment(run_every=STUDENT_POLL_SECONDS)
    @_reading
    def bar() -> None:
        opened = stores()
        if opened is None:
            return
        classes = opened[0]
        code = member.class_code
        if slug is not None:
            sweep = _guard(
                lambda: _shared_read(("sweep", code, slug), lambda: classes.current_sweep(code, slug)), quiet=True
            )
            known = st.session_state.get("classroom.sweeps", {}).get(slug, (None, None))[0]
            if sweep is not FAILED and (sweep and sweep.id) != (known and known.id):
                st.rerun(scope="app")  # a sweep was handed out or closed: the whole page takes the setting
        question = _guard(lambda: _shared_read(("question", code), lambda: classes.current_question(code)), quiet=True)
        if question is None or question is FAILED or question.state == "closed":
            return
        with st.container(border=True):
            st.markdown(
                f":material/groups: **Question from your teacher** · class {member.class_code} · "
                f"you are {_plain(member.name)}"
            )
            st.markdown(question.prompt)
            if question.state == "open":
                _question_form(member, question, classes)
            else:
                qid = question.id
                shown = _guard(
                    lambda: _shared_read(("revealed", qid), lambda: classes.revealed_distribution(qid)), quiet=True
                )
                if shown and shown is not FAILED:
                    _show_distribution(shown, question, f"classroom.reveal.{question.id}")

    bar()


def _plain(text: str) -> str:
    """A student's name inside markdown: shown literally (never formatted, never HTML)."""

    return literal(text)


def _show_distribution(dist: dict, question, key: str) -> None:
    from lessons.common import classroom  # here: Plotly; the home page loads ui, never Plotly

    st.markdown(classroom.distribution_sentence(dist))
    if dist["answered"]:
        vega(classroom.distribution_chart(dist), key=key, height=180 if question.is_choice else 120)
    st.markdown(f"**Worked answer.** {question.explanation}")


def _teacher_bar(slug: str) -> None:
    teacher = _teacher()

    @st.fragment(run_every=TEACHER_POLL_SECONDS)
    def bar() -> None:
        question = _guard(lambda: teacher.current_question(), quiet=True)
        question = None if question is FAILED else question
        presence = _guard(teacher.presence, quiet=True)
        presence = {"here": 0, "per_lesson": {}} if presence is FAILED else presence
        line = (
            f":material/co_present: **Class {teacher.code}** · {presence['here']} here, "
            f"{presence['per_lesson'].get(slug, 0)} on this lesson"
        )
        with st.container(border=True):
            st.markdown(line)
            if question is not None and question.state == "open":
                count = _guard(lambda: teacher.answer_count(question.id), quiet=True)
                count = 0 if count is FAILED else count
                st.markdown(f"Question open: **{count}** answer{'s' if count != 1 else ''} so far.")
                if st.button("Reveal the answers", key=f"classroom.reveal_btn.{question.id}", type="primary"):
                    _guard(lambda: teacher.reveal(question.id), what="Revealing the answers")
            elif question is not None and question.state == "revealed" and question.lesson == slug:
                shown = _guard(lambda: teacher.distribution(question.id), quiet=True)
                if shown is not FAILED:
                    _show_distribution(shown, question, f"classroom.teacher_reveal.{question.id}")
            st.page_link("pages/classroom.py", label="Class dashboard", icon=":material/dashboard:")

    bar()


def ask_button(exercise) -> None:
    """Under an exercise, for the teacher: put it to the class (the truth is the lesson's own computed answer)."""
    teacher = _teacher()
    if teacher is None:
        return
    slug = exercise.key.split(".", 1)[0]
    if st.button("Ask the class", key=f"{exercise.key}.ask", icon=":material/campaign:"):
        ex = exercise
        asked = _guard(
            lambda: teacher.open_question(slug, ex.key, ex.prompt, ex.choices, ex.answer, ex.explanation, ex.tolerance),
            what="Asking the class",
        )
        if asked is not FAILED:
            st.toast("Asked: the students see it now. Reveal it from the class bar at the top or the dashboard.")


# --------------------------------------------------------------------------------------------------- class sweeps
def _apply_sweep(classes: store.ClassStore, member: Member, slug: str) -> None:
    """A student in a class sweep on this lesson gets their setting, written into the widgets' session state
    before the page draws them (once per hand-out: the student may still change it)."""

    sweep = _guard(lambda: classes.current_sweep(member.class_code, slug), quiet=True)
    if sweep is None or sweep is FAILED:
        st.session_state.setdefault("classroom.sweeps", {}).pop(slug, None)
        return
    index = _guard(lambda: classes.assignment(member, sweep), what="Giving you your setting")
    if index is FAILED:
        return
    setting = sweep.settings[index]
    applied = st.session_state.setdefault("classroom.applied", {})
    if applied.get(slug) != (sweep.id, index):
        axes = {axis.key for axis in catalog.lesson(slug).sweep}
        for widget_key, value in setting.items():
            if widget_key in axes:
                st.session_state[widget_key] = value
        applied[slug] = (sweep.id, index)
    st.session_state.setdefault("classroom.sweeps", {})[slug] = (sweep, index)
    st.info(
        f"**Class sweep.** Your setting: {sweep.describe(index)} (set below for you). Press Train: your run "
        "goes to the class's chart when it ends.",
        icon=":material/science:",
    )


def sweep_controls(slug: str) -> None:
    """Next to a lesson's training panel, for the teacher: hand each student a setting of a grid."""

    teacher = _teacher()
    axes = _sweep_axes(slug)
    if teacher is None or not axes:
        return
    with st.expander("Class sweep: give each student a different setting", icon=":material/science:"):
        chosen = {}
        for axis in axes:
            picked = st.multiselect(
                axis.label, list(axis.values), default=list(axis.values), key=f"classroom.sweep.{axis.key}"
            )
            if picked:
                chosen[axis.key] = picked
        grid = [dict(zip(chosen, values, strict=True)) for values in itertools.product(*chosen.values())]
        st.caption(f"{len(grid)} settings; students are spread evenly over them, so each setting gets several runs.")
        labels = {a.key: a.label for a in axes}
        clicked = st.button(
            "Hand out to the class", key=f"classroom.sweep.{slug}.start", disabled=not grid, type="primary"
        )
        if clicked and _guard(lambda: teacher.start_sweep(slug, grid, labels), what="Handing out") is not FAILED:
            st.toast("Handed out: each student's page now shows their setting.")


def panel_settings(slug: str) -> dict:
    """The values of the lesson's sweepable settings as the student's panel has them now."""
    return {axis.key: st.session_state[axis.key] for axis in _sweep_axes(slug) if axis.key in st.session_state}


def _title(slug: str | None) -> str:
    """What a lesson or tool is called on the course map; "class page" for none."""

    for entry in (*catalog.all_lessons(), *catalog.TOOLS):
        if entry.slug == slug:
            return entry.title
    return "class page" if not slug else str(slug)


def _sweep_axes(slug: str) -> tuple:
    """A lesson's sweepable settings; none for a tool's panel (``own_data.train.*``: no lesson of that name)."""

    return next((lesson.sweep for lesson in catalog.all_lessons() if lesson.slug == slug), ())


def post_finished_run(slug: str, run, settings: dict) -> None:
    """A student's finished run goes to the class once (settings, curve, final metrics, attention snapshot)."""
    from lessons.common import classroom  # here: Plotly; the home page loads ui, never Plotly

    member = st.session_state.get("classroom.member")
    if member is None or run is None or run.active or not run.snapshots:
        return
    posted = st.session_state.setdefault("classroom.posted", weakref.WeakSet())
    if run in posted:
        return
    opened = stores()
    if opened is None:
        return
    sweep, _index = st.session_state.get("classroom.sweeps", {}).get(slug, (None, None))
    latest = run.snapshots[-1]
    metrics = {
        name: float(getattr(latest, name))
        for name in ("exact_match", "loss", "seconds", "step")
        if isinstance(getattr(latest, name, None), int | float)
    }
    attention = getattr(latest, "attention", None)
    snapshot = classroom.attention_snapshot(attention) if getattr(attention, "ndim", 0) == 2 else None
    done = _guard(
        lambda: opened[0].post_run(
            member,
            slug,
            settings,
            classroom.run_curve(run.snapshots),
            metrics,
            snapshot,
            sweep_id=sweep.id if sweep else None,
        ),
        what="Posting your run",
    )
    if done is not FAILED:
        posted.add(run)
        st.toast("Your run was posted to the class.")


# ----------------------------------------------------------------------------------------------- the dashboard
def spreadsheet_cell(value):
    """``value`` for a CSV cell a spreadsheet opens: a table or list as its JSON, text that a spreadsheet would
    read as a formula behind an apostrophe (shown as the text it is), anything else as it is."""
    if isinstance(value, dict | list):
        return json.dumps(value)
    return spreadsheet.as_text(value) if isinstance(value, str) else value


def export_files(teacher: Teacher) -> tuple[bytes, bytes]:
    """The class's data as JSON (every value as stored), and as a zip of one CSV per table, every cell safe to open
    in a spreadsheet (:func:`spreadsheet_cell`)."""
    data = teacher.export()
    as_json = json.dumps(data, indent=1, ensure_ascii=False, default=str).encode("utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for table, rows in data.items():
            text = io.StringIO()
            if rows:
                writer = csv.DictWriter(text, fieldnames=list(rows[0]))
                writer.writeheader()
                for row in rows:
                    writer.writerow({k: spreadsheet_cell(v) for k, v in row.items()})
            archive.writestr(f"{table}.csv", text.getvalue())
    return as_json, buffer.getvalue()


def links(code: str, key: str | None = None) -> tuple[str, str | None]:
    """The class's student link, and its teacher link when the key is known (only right after starting)."""
    base = base_url()
    student = f"{base}/classroom?join={code}"
    return student, (f"{base}/classroom?class={code}&teacher={key}" if key else None)


def start_panel() -> None:
    """Start a class: name and length. Right after, instead of the form: the teacher link (shown this once) and the
    students' link; the dashboard below has the code and the QR code for the projector."""
    key = st.session_state.get("classroom.new_key")
    teacher = _teacher()
    if teacher is not None and key:
        again = f"{teacher.code}.{key}"  # again: the st.rerun() below drops what it queued
        _set_cookie(TEACHER_COOKIE, again, until=_class_end(teacher.code))
        student, teacher_link = links(teacher.code, key)
        st.success(f"Class **{teacher.code}** started.")
        st.markdown(
            "**Your teacher link** (shown once: keep it to come back to this dashboard; anyone with it is the teacher):"
        )
        st.code(teacher_link, language=None)
        if st.button("I have saved my teacher link", key="classroom.saved", icon=":material/check:"):
            st.session_state.pop("classroom.new_key", None)
            st.rerun()
        return
    with st.form("classroom.start.form", border=False):
        name = st.text_input("Class name", max_chars=80, placeholder="Attention, week 3", key="classroom.start.name")
        hours = st.select_slider(
            "The class ends by itself after",
            [1, 2, 4, 8, 12, 24, 48],
            value=12,
            format_func=lambda h: f"{h} h",
            key="classroom.start.hours",
        )
        started = st.form_submit_button("Start a class", type="primary", icon=":material/co_present:")
    if started:
        made = start(name, float(hours))
        if made is not None:
            st.session_state["classroom.new_key"] = made[1]
            st.rerun()  # the page is the teacher's now: the teacher link above the dashboard


def join_panel(code: str = "") -> None:
    """Join a class: its code (from the link or the projector) and a display name, or a generated one."""

    suggestion = st.session_state.setdefault("classroom.suggested", generated_name())
    with st.form("classroom.join.form", border=False):
        typed = st.text_input("Class code", value=code, max_chars=12, key="classroom.join.code")
        tip = "Shown to your teacher. Up to 24 characters; leave it as it is for a made-up one."
        name = st.text_input(
            "Your name in the class", value=suggestion, max_chars=200, key="classroom.join.name", help=tip
        )
        joined = st.form_submit_button("Join", type="primary", icon=":material/login:")
    if joined and join(typed, name) is not None:
        st.rerun()


def student_home(member: Member) -> None:
    """The class page for a student who joined: who they are, the question bar, a way to leave."""
    st.success(
        f"You are in class **{member.class_code}** as {_plain(member.name)}. Open any lesson: your "
        "teacher's questions and settings reach you there and here."
    )
    if st.session_state.get("classroom.cookie"):  # the join's st.rerun() drops the cookie written before it
        _set_cookie(CLASS_COOKIE, *st.session_state["classroom.cookie"])
    _student_bar(member, None)
    if st.button("Leave the class", key="classroom.leave", icon=":material/logout:"):
        leave()
        st.rerun()
    leave_this_computer_button("classroom.leave_computer")


def _names_shown(spot) -> bool:
    """Whether the dashboard's runs table names the students: only when the teacher asks, and never while a run is
    spotlighted without its student's name (the projector would name them right above it)."""
    if spot is not None and spot[1] is None:
        st.caption("Students' names are hidden while a run is spotlighted without its student's name.")
        return False
    return st.toggle("Show the students' names in this table", value=False, key="classroom.dash.names")


def _run_rows(found, names: bool = False) -> list[dict]:
    """The dashboard's table of runs; the student's name only when ``names`` (the dashboard is on the projector)."""
    from lessons.common import classroom  # here: Plotly; the home page loads ui, never Plotly

    rows = []
    for run in found:
        axes, title = {a.key: a.label for a in _sweep_axes(run.lesson)}, _title(run.lesson)
        rows.append(
            {
                "run": run.id,
                **({"student": run.member_name} if names else {}),
                "lesson": title,
                "setting": classroom.setting_text(run.settings, axes),
                "exact match": run.metrics.get("exact_match"),
                "steps": run.metrics.get("step"),
                "seconds": run.metrics.get("seconds"),
            }
        )
    return rows


def exercise_rows(checked: list[dict]) -> list[dict]:
    """The dashboard's table of exercises students checked on their own pages, their answers as they come in."""

    titles = {lesson.slug: lesson.title for lesson in catalog.all_lessons()}
    return [
        {
            "lesson": titles.get(e["lesson"], e["lesson"]),
            "exercise": e["exercise"].split(".", 1)[-1],
            "answered": e["answered"],
            "right": e["right"] / e["answered"],
            "answers given (count)": ", ".join(f"{a} ({n})" for a, n in list(e["answers"].items())[:5]),
        }
        for e in checked
    ]


def show_run(run, name: str | None, key: str) -> None:
    """One run on the projector: its curve and its attention map, with the student's name only if shown."""
    from lessons.common import charts, classroom  # here: Plotly; the home page loads ui, never Plotly

    title, axes = _title(run.lesson), {a.key: a.label for a in _sweep_axes(run.lesson)}
    who = _plain(name) if name else "a student"
    st.markdown(f"**Spotlight:** {who}'s run on *{title}* · {classroom.setting_text(run.settings, axes)}")
    curve = [{"step": s, "held-out exact match": e} for s, _sec, _loss, e in run.curve]
    if curve:
        vega(
            {
                "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
                "title": "Held-out exact match",
                "data": {"values": curve},
                "mark": {"type": "line", "point": True},
                "encoding": {
                    "x": {"field": "step", "type": "quantitative"},
                    "y": {
                        "field": "held-out exact match",
                        "type": "quantitative",
                        "axis": {"format": ".0%"},
                        "scale": {"domain": [0, 1]},
                    },
                },
            },
            key=f"{key}.curve",
            height=220,
        )
    if run.snapshot:
        shot = run.snapshot
        plotly(
            charts.attention_heatmap(shot["z"], shot["rows"], shot["cols"], title="Its attention at the end"),
            key=f"{key}.map",
        )


def dashboard(teacher: Teacher) -> None:
    """The teacher's live view: who is here, the question's answers arriving, the class's runs and sweeps,
    spotlight, and after class export and delete. Redrawn every two seconds without reloading."""
    from lessons.common import classroom  # here: Plotly; the home page loads ui, never Plotly

    info = _guard(teacher.info, what="Opening the dashboard")
    if info is FAILED:
        return
    student, _teacher_link = links(info.code)
    cols = st.columns([2, 1])
    cols[0].markdown(f"### Class code: `{info.code}`\n{_plain(info.name)} · students join at")
    cols[0].code(student, language=None)
    with cols[1]:
        st.html(classroom.qr_image(student, scale=5))
    if not info.live():
        st.warning("This class has ended: students can no longer join or answer. Its data stays until you delete it.")

    @st.fragment(run_every=TEACHER_POLL_SECONDS if info.live() else None)
    @_reading
    def live() -> None:
        presence = _guard(teacher.presence, quiet=True)
        if presence is FAILED:
            return
        c = st.columns(3)
        c[0].metric("Here now", presence["here"])
        c[1].metric("Joined", presence["joined"])
        question = _guard(lambda: teacher.current_question(), quiet=True)
        question = None if question is FAILED else question
        count = _guard(lambda: teacher.answer_count(question.id), quiet=True) if question is not None else 0
        count = 0 if count is FAILED else count
        c[2].metric("Answers to the question", count if question is not None else "—")
        per_lesson = [
            {"lesson": _title(slug), "students": n}
            for slug, n in sorted(presence["per_lesson"].items(), key=lambda kv: -kv[1])
        ]
        if per_lesson:
            table(per_lesson)
        st.subheader("Question")
        if question is None:
            st.caption("No question yet: open a lesson and press “Ask the class” under one of its exercises.")
        else:
            st.markdown(question.prompt)
            if question.state == "open":
                st.markdown(f"**{count}** answer{'s' if count != 1 else ''} so far (their content stays hidden).")
                b = st.columns(2)
                if b[0].button("Reveal the answers", key="classroom.dash.reveal", type="primary"):
                    shown = _guard(lambda: teacher.reveal(question.id), what="Revealing the answers")
                    if shown is not FAILED:
                        _show_distribution(shown, question, f"classroom.dash.dist.{question.id}")
                if b[1].button("Close without revealing", key="classroom.dash.close"):
                    _guard(lambda: teacher.close_question(question.id), what="Closing the question")
            elif question.state == "revealed":
                shown = _guard(lambda: teacher.distribution(question.id), quiet=True)
                if shown is not FAILED:
                    _show_distribution(shown, question, f"classroom.dash.dist.{question.id}")
            else:
                st.caption("Closed without revealing.")
        checked = _guard(teacher.exercises, quiet=True)
        if checked and checked is not FAILED:
            st.subheader("Exercises checked on the students' pages")
            table(exercise_rows(checked), formats={"right": "percent"})
        st.subheader("The class's runs")
        found = _guard(lambda: teacher.runs(full=False), quiet=True)  # the table and sweeps need no curves or maps
        found = [] if found is FAILED else found
        spot = _guard(lambda: teacher.spotlit(), quiet=True)
        spot = None if spot is FAILED else spot
        if not found:
            st.caption("Runs appear here as students finish training on any lesson.")
        else:
            table(_run_rows(found, names=_names_shown(spot)), formats={"exact match": "percent"})
        sweeps = _guard(teacher.sweeps, quiet=True)
        for sweep in reversed([] if sweeps is FAILED else sweeps):
            runs = [{"settings": r.settings, "metrics": r.metrics} for r in found if r.sweep_id == sweep.id]
            pooled = classroom.pool(runs, sweep.settings, sweep.labels)
            state = "open" if sweep.open else "closed"
            st.markdown(f"**Class sweep on {_title(sweep.lesson)}** ({state}): " + classroom.pooled_sentence(pooled))
            if any(p.n for p in pooled):
                vega(classroom.pooled_chart(pooled), key=f"classroom.dash.sweep.{sweep.id}", height=300)
        if spot:
            show_run(spot[0], spot[1], "classroom.dash.spot")

    live()
    with st.expander("Spotlight a run on the projector", icon=":material/highlight:"):
        found = _guard(teacher.runs, quiet=True)
        found = [] if found is FAILED else found
        if found:
            labels = {r.id: f"run {r.id} · {_title(r.lesson)}" for r in found}
            chosen = st.selectbox("Run", list(labels), format_func=labels.get, key="classroom.spot.run")
            named = st.toggle("Show the student's name", value=False, key="classroom.spot.named")
            b = st.columns(2)
            if b[0].button("Spotlight it", key="classroom.spot.go"):
                _guard(lambda: teacher.spotlight(chosen, named), what="Spotlighting the run")
            if b[1].button("Take it down", key="classroom.spot.off"):
                _guard(lambda: teacher.spotlight(None), what="Taking the run down")
        else:
            st.caption("No run posted yet.")
    with st.expander("After class: download, end, delete", icon=":material/download:"):
        files = _guard(lambda: export_files(teacher), what="Preparing the downloads")
        d = st.columns(2)
        if files is not FAILED:
            as_json, as_zip = files
            d[0].download_button(
                "Everything as JSON",
                as_json,
                file_name=f"class-{info.code}.json",
                mime="application/json",
                key="classroom.export.json",
                on_click="ignore",
            )
            d[1].download_button(
                "Everything as CSV (zip)",
                as_zip,
                file_name=f"class-{info.code}-csv.zip",
                mime="application/zip",
                key="classroom.export.csv",
                on_click="ignore",
            )
        if info.live() and st.button("End the class now", key="classroom.end"):
            _guard(teacher.end, what="Ending the class")
            st.rerun()
        sure = st.checkbox("I have downloaded what I need: delete everything this class stored", key="classroom.sure")
        delete = st.button("Delete the class's data", key="classroom.delete", disabled=not sure, type="primary")
        if delete and _guard(teacher.delete, what="Deleting the class's data") is not FAILED:
            st.session_state.pop("classroom.teacher", None)
            st.session_state.setdefault("classroom.forget", set()).add(TEACHER_COOKIE)  # in the page after the rerun
            st.success("Deleted: nothing of this class is kept.")
            st.rerun()
    leave_this_computer_button("classroom.dash.leave_computer")


def class_page() -> None:
    """The Class page: a teacher link (checked, then taken out of the address bar), a join link, or the two
    forms; then the dashboard, or the student's view."""
    params = st.query_params
    if "teacher" in params:
        key, code = params.get("teacher", ""), params.get("class", "")
        del st.query_params["teacher"]
        if become_teacher(code, key) is not None:
            st.query_params["class"] = code
    forget_cookies()
    opened = stores()
    if opened is None:
        _unavailable("Classes")
        return
    teacher = _teacher()
    if teacher is not None:
        st.session_state.pop("classroom.member", None)
        if st.session_state.get("classroom.new_key"):
            start_panel()
        dashboard(teacher)
        return
    member = _member(opened[0])
    if member is not None:
        student_home(member)
        return
    if st.session_state.get("classroom.left"):  # every draw until the next join: one of them reaches the browser
        _set_cookie(CLASS_COOKIE, None)
    if st.session_state.pop("classroom.left_said", False):
        st.success("You left the class.")
    class_over_notice()
    linked = str(params.get("join", "") or params.get("class", ""))[:12]
    _linked_class_over(opened[0], linked)
    cols = st.columns(2, gap="large")
    with cols[0]:
        st.subheader("Join a class")
        join_panel(linked)
    with cols[1]:
        st.subheader("Start a class")
        st.caption("For the teacher: a code, a link and a QR code for the students; your own link to the dashboard.")
        start_panel()
    leave_this_computer_button("classroom.leave_computer")


def _linked_class_over(classes: store.ClassStore, code: str) -> None:
    """A join link to a class that has ended says so above the form (a student opening last week's link)."""
    info = _guard(lambda: classes.find(code), quiet=True) if code else None
    if info is not None and info is not FAILED and not info.live():
        st.info(
            f"The class {info.code} has ended: it takes no more students. To join another class, enter its code.",
            icon=":material/event_busy:",
        )


FORGOTTEN = (  # what a session holds of the keys this browser kept
    "learner.key", "learner.mode", "learner.visited", "learner.answers", "learner.exercises", "classroom.member",
    "classroom.cookie", "classroom.teacher", "classroom.new_key", "classroom.touched", "classroom.answered",
    "classroom.sweeps", "classroom.applied", "classroom.posted",
)  # fmt: skip


def leave_this_computer() -> None:
    """Forget, in this browser, every key the course kept in it: the learner's, the class's and the teacher's (their
    cookies, this session's copies, a learner key in the address bar). What the store holds stays: the learner's link
    still finds their progress, the teacher's link the dashboard. The cookies go with every page drawn until a new
    one is written (:func:`forget_cookies`): a cookie script queued before ``st.rerun()`` never reaches the browser."""
    for name in FORGOTTEN:
        st.session_state.pop(name, None)
    # this session read the cookies when it opened: it must not read them again
    st.session_state["classroom.cookie_checked"] = st.session_state["classroom.teacher_checked"] = True
    st.session_state["learner.forgotten"] = True
    st.session_state["classroom.forget"] = {LEARNER_COOKIE, CLASS_COOKIE, TEACHER_COOKIE}
    st.session_state["classroom.left_computer_said"] = True
    st.query_params.pop("learner", None)


def forget_cookies() -> None:
    """The cookies :func:`leave_this_computer` forgot, forgotten again in this page (until one is written anew)."""
    for name in sorted(st.session_state.get("classroom.forget", ())):
        _set_cookie(name, None)
    if st.session_state.get("classroom.left_computer_said"):  # said on every page until a key is kept again
        st.success("This browser no longer holds your keys: the next person here starts afresh.")


def leave_this_computer_button(key: str) -> None:
    """The "Leave this computer" button, for a shared computer: see :func:`leave_this_computer`."""
    with st.expander("On a shared computer", icon=":material/logout:"):
        st.caption(
            "Leaving forgets, in this browser, your progress key, your class and your teacher key: the next person "
            "here starts afresh. Your progress stays saved under your key; to find it again on another computer, "
            "keep your link first (Your progress, on the course map: in my link only)."
        )
        if st.button("Leave this computer", key=key, icon=":material/logout:"):
            leave_this_computer()
            st.rerun()


def class_models() -> None:
    """On the Your own data page, in a class: the teacher shares their model with the class in one click; a student
    loads a model the teacher shared, which becomes their own model in every lesson view (the file is checked as
    an upload is: loading runs no code, a refused file changes nothing)."""
    from lessons import own_data  # here: torch; the home page loads ui, never torch

    opened = stores()
    if opened is None:
        return
    classes = opened[0]
    teacher = _teacher()
    member = None if teacher is not None else _member(classes)
    if teacher is None and member is None:
        return
    st.subheader("Share with the class" if teacher is not None else "Models your teacher shared")
    if teacher is not None:
        ready = [a for a in own_data.ARCHITECTURES if own_model(a) is not None]
        if not ready:
            st.caption("Train or load a model above; then share it with the class from here.")
        for architecture in ready:
            label = f"Share your {own_data.ARCHITECTURES[architecture]} with class {teacher.code}"
            if st.button(label, key=f"classroom.share.{architecture}", icon=":material/share:"):
                name, data = model_file(architecture)
                if _guard(lambda name=name, data=data: teacher.share_model(name, data), what="Sharing") is not FAILED:
                    st.toast("Shared: your students can load it on this page.")
        return
    shared = _guard(lambda: classes.shared_models(member.class_code), quiet=True)
    if not shared or shared is FAILED:
        st.caption("Your teacher has not shared a model yet.")
        return
    for entry in shared:
        label = f"Load {own_data.quoted(entry['name'])} ({entry['bytes'] / 1e6:.1f} MB)"
        if st.button(label, key=f"classroom.load_shared.{entry['id']}", icon=":material/download:"):
            found = _guard(lambda entry=entry: classes.shared_model(member.class_code, entry["id"]), what="Loading it")
            if found is FAILED:
                continue
            loaded, refused = try_model_file(found[1], found[0])
            if refused:
                st.error(f"{refused} Nothing was changed.", icon=":material/block:")
            else:
                st.success(loaded.caption, icon=":material/check_circle:")
