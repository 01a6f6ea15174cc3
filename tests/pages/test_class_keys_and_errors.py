"""The class under AppTest, as a careful tester would attack it: a store error costs one action and its notice reads
as a sentence, a lost database pauses class features with a grammatical notice, the CSV export carries no formula,
the projected dashboard names nobody beside an anonymous spotlight, a class's cookies last until it ends, a teacher's
cookie outlives a busy database but not its class, "Leave this computer" forgets every key, and a student whose class
ended is told so."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import time
import zipfile

import pytest
import sqlalchemy as sa
from streamlit.runtime.context import ContextProxy, StreamlitCookies
from streamlit.testing.v1 import AppTest

import store
from lessons.common import spreadsheet
from tests.helpers import open_page
from ui import classroom

CLASS_PAGE = "pages/classroom.py"
LESSON = "pages/scaling.py"


def texts(at: AppTest) -> str:
    parts = [m.value for m in (*at.markdown, *at.success, *at.warning, *at.info, *at.caption, *at.error)]
    return " ".join(str(p) for p in parts)


def cookie_scripts(at: AppTest, name: str) -> list[str]:
    return [h.proto.body for h in at.get("html") if f"{name}=" in h.proto.body]


def max_age(script: str) -> int:
    return int(re.search(r"Max-Age=(\d+)", script).group(1))


def start(hours: int = 12) -> tuple[AppTest, str, str]:
    at = open_page(CLASS_PAGE)
    at.text_input(key="classroom.start.name").input("Week 3")
    at.select_slider(key="classroom.start.hours").set_value(hours)
    at.button(key="FormSubmitter:classroom.start.form-Start a class").click().run()
    assert not at.exception, at.exception
    return at, at.session_state["classroom.teacher"].code, at.session_state["classroom.new_key"]


def join(code: str, name: str) -> AppTest:
    at = open_page(CLASS_PAGE, params={"join": code})
    at.text_input(key="classroom.join.name").set_value(name)
    at.button(key="FormSubmitter:classroom.join.form-Join").click().run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def fresh_server_state():
    """No pause left over from another test, and none left behind."""
    classroom._failed_at[0] = 0.0
    yield
    classroom._failed_at[0] = 0.0


def lost_connection() -> sa.exc.OperationalError:
    """A real refused connection, as the store would raise it."""
    try:
        sa.create_engine("postgresql+psycopg://nobody@127.0.0.1:1/nothing").connect()
    except sa.exc.OperationalError as error:
        return error
    raise AssertionError("port 1 answered")


def test_a_store_error_costs_the_one_action_not_the_server(monkeypatch, fresh_server_state):
    _at, code, _key = start()

    def lost_race(*_args, **_kwargs):
        raise sa.exc.IntegrityError("INSERT INTO members", {}, Exception("UNIQUE constraint failed"))

    monkeypatch.setattr(store.ClassStore, "join", lost_race)
    at = join(code, "Ana")
    assert "Joining did not go through: the course's database was busy. Try again." in texts(at)
    assert classroom._failed_at[0] == 0.0  # nothing paused
    monkeypatch.undo()
    other = open_page(LESSON)
    assert "paused" not in texts(other) and "did not go through" not in texts(other)
    assert "You are in class" in texts(join(code, "Ana"))  # the same action again: it goes through


def test_a_lost_database_pauses_class_features_with_grammatical_notices(monkeypatch, fresh_server_state):
    _at, code, _key = start()
    error = lost_connection()

    def gone(*_args, **_kwargs):
        raise error

    monkeypatch.setattr(store.ClassStore, "join", gone)
    at = join(code, "Ana")
    assert "Joining did not go through: the course's database cannot be reached right now." in texts(at)
    assert classroom._failed_at[0] > 0.0  # this server pauses, and says so on every page
    home, lesson, page = open_page(), open_page(LESSON), open_page(CLASS_PAGE)
    assert "Saved progress is paused: the course's database cannot be reached" in texts(home)
    assert "Progress and class features are paused" in texts(lesson)
    assert "Classes are paused" in texts(page)
    for shown in (texts(at), texts(home), texts(lesson), texts(page)):
        assert not re.search(r"\b(That|progress) are\b", shown), shown


def test_the_csv_export_carries_no_formula_and_the_json_keeps_every_value(fresh_server_state):
    classes, _ = store.open_store()
    info, key = classes.create_class("=1+1 class")
    hostile = ["=1+cmd|' /C calc'!A0", "@SUM(A1)", "+1 555", "-2+3", "−1", "＝1+1", "Ana"]
    members = [classes.join(info.code, name)[0] for name in hostile]
    for member in members:
        classes.check_exercise(member, "scaling", "scaling.ex1", '=HYPERLINK("http://x")', False)
    as_json, as_zip = classroom.export_files(classes.teacher(info.code, key))
    with zipfile.ZipFile(io.BytesIO(as_zip)) as archive:
        cells = [
            cell
            for name in archive.namelist()
            for row in csv.reader(io.StringIO(archive.read(name).decode("utf-8")))
            for cell in row
        ]
    starts = spreadsheet.FORMULA_STARTS
    assert not [cell for cell in cells if cell.startswith(starts)]
    for name in hostile[:-1]:
        assert "'" + name in cells  # kept, as text
    assert '\'=HYPERLINK("http://x")' in cells and "'=1+1 class" in cells
    data = json.loads(as_json)
    assert [s["name"] for s in data["students"]] == hostile  # the JSON keeps the values as stored


def test_the_projected_dashboard_names_nobody_beside_an_anonymous_spotlight():
    classes, _ = store.open_store()
    info, key = classes.create_class("runs")
    weakest, _token = classes.join(info.code, "Weakest Student")
    run = classes.post_run(weakest, "masking", {"masking.seed": 2}, [[1, 1.0, 1.0, 0.05]], {"exact_match": 0.05})
    teacher = classes.teacher(info.code, key)
    teacher.spotlight(run, named=False)
    at = open_page(CLASS_PAGE, params={"class": info.code, "teacher": key})

    def shown(at: AppTest) -> str:
        tables = " ".join(t.value.to_string() for t in at.dataframe)
        return texts(at) + tables

    assert "a student's run on *Masking*" in shown(at) and "Weakest Student" not in shown(at)
    assert "hidden while a run is spotlighted" in shown(at)
    teacher.spotlight(None)
    at.run()
    assert "Weakest Student" not in shown(at)  # names are off until the teacher asks
    at.toggle(key="classroom.dash.names").set_value(True).run()
    assert "Weakest Student" in shown(at)
    teacher.spotlight(run, named=False)
    at.run()
    assert "Weakest Student" not in shown(at)  # the anonymous spotlight hides them again
    teacher.spotlight(run, named=True)
    at.run()
    assert "Weakest Student" in shown(at)  # named on purpose


def test_a_classs_cookies_last_until_the_class_ends():
    teacher, code, _key = start(hours=1)
    scripts = cookie_scripts(teacher, "attention_lab_teacher")
    assert scripts and all(3500 <= max_age(s) <= 3600 for s in scripts)
    student = join(code, "Ana")
    scripts = cookie_scripts(student, "attention_lab_class")
    assert scripts and all(3500 <= max_age(s) <= 3600 for s in scripts)
    assert all("SameSite=Lax" in s for s in scripts)


def busy_database(path) -> sa.exc.OperationalError:
    """A real SQLite "database is locked", as the store would raise it when another writer holds the file."""
    holder, other = sqlite3.connect(path, timeout=0), sqlite3.connect(path, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        other.execute("BEGIN EXCLUSIVE")
    except sqlite3.OperationalError as error:
        return sa.exc.OperationalError("BEGIN EXCLUSIVE", {}, error)
    finally:
        holder.close()
        other.close()
    raise AssertionError("SQLite let two writers in")


def test_a_teachers_cookie_outlives_a_busy_or_paused_store_not_a_wrong_key(monkeypatch, fresh_server_state, tmp_path):
    _at, code, key = start()
    jar = {"attention_lab_teacher": f"{code}.{key}"}  # what a reopened tab's browser sends
    monkeypatch.setattr(ContextProxy, "cookies", property(lambda _self: StreamlitCookies(jar)))
    checked = store.ClassStore.teacher
    error = busy_database(tmp_path / "busy.sqlite3")

    def busy(*_args, **_kwargs):
        raise error

    monkeypatch.setattr(store.ClassStore, "teacher", busy)
    at = open_page(CLASS_PAGE)
    assert "Opening your dashboard did not go through: the course's database was busy. Try again." in texts(at)
    assert not cookie_scripts(at, "attention_lab_teacher")  # kept: the database was busy, the key is still good
    assert classroom._failed_at[0] == 0.0  # busy is not lost: nothing paused
    monkeypatch.setattr(store.ClassStore, "teacher", checked)
    at.run()
    assert "Here now" in " ".join(m.label for m in at.metric)  # the next draw opens the dashboard

    classroom._failed_at[0] = time.time()  # a lost database: class features paused on this server
    paused = open_page(LESSON)  # a lesson reads the teacher's cookie too
    assert "classroom.teacher" not in paused.session_state
    classroom._failed_at[0] = 0.0  # back
    paused.switch_page(CLASS_PAGE).run()
    assert "Here now" in " ".join(m.label for m in paused.metric)  # checked once the store is back, not skipped

    jar["attention_lab_teacher"] = f"{code}.{'x' * len(key)}"  # a key that is not this class's
    stale = open_page(CLASS_PAGE)
    scripts = cookie_scripts(stale, "attention_lab_teacher")
    assert scripts and all(max_age(s) == 0 for s in scripts)  # forgotten
    assert "Here now" not in " ".join(m.label for m in stale.metric) and "did not go through" not in texts(stale)


def test_leave_this_computer_forgets_every_key():
    _teacher, code, _key = start()
    student = join(code, "Ana")
    student.switch_page(LESSON).run()
    assert student.session_state["learner.key"]
    student.switch_page(CLASS_PAGE).run()
    student.button(key="classroom.leave_computer").click().run()
    assert not student.exception, student.exception
    for name in ("attention_lab_learner", "attention_lab_class", "attention_lab_teacher"):
        scripts = cookie_scripts(student, name)
        assert scripts and all(max_age(s) == 0 for s in scripts), name
    assert "no longer holds your keys" in texts(student)
    for name in ("learner.key", "classroom.member", "classroom.teacher"):
        assert name not in student.session_state
    student.switch_page(LESSON).run()  # a new learner now: the old cookie goes, then the new key's is written
    assert max_age(cookie_scripts(student, "attention_lab_learner")[-1]) > 0
    student.run()
    assert all(max_age(s) > 0 for s in cookie_scripts(student, "attention_lab_learner"))


def test_a_student_whose_class_ended_is_told_so():
    _teacher, code, key = start()
    student = join(code, "Ana")
    classes, _ = store.open_store()
    classes.teacher(code, key).end()
    student.run()
    assert f"Your class {code} has ended" in texts(student)
    assert "classroom.member" not in student.session_state
    assert all(max_age(s) == 0 for s in cookie_scripts(student, "attention_lab_class"))
    linked = open_page(CLASS_PAGE, params={"join": code})  # last week's link
    assert f"The class {code} has ended" in texts(linked)


def test_purging_runs_once_an_hour_per_server(monkeypatch):
    calls = []
    monkeypatch.setattr(store.ClassStore, "purge_ended", lambda self: calls.append("classes") or 0)
    monkeypatch.setattr(store.Learners, "purge_idle", lambda self: calls.append("learners") or 0)
    monkeypatch.setattr(classroom, "_purged_at", [0.0])
    classroom.stores()
    classroom.stores()
    assert calls == ["classes", "learners"]
