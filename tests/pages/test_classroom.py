"""The class page and the class on lesson pages, under AppTest: sessions of one server (one store) as a teacher
and students would use them. Teacher-only actions are tried from a student's session and must not be there."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import store
from tests.helpers import answer_exercise, open_page

CLASS_PAGE = "pages/classroom.py"
LESSON = "pages/scaling.py"


def _texts(at: AppTest) -> str:
    parts = [m.value for m in (*at.markdown, *at.success, *at.warning, *at.info, *at.caption)]
    return " ".join(str(p) for p in parts)


def _start_class(name: str = "Week 3") -> tuple[AppTest, str, str]:
    at = open_page(CLASS_PAGE)
    at.text_input(key="classroom.start.name").input(name)
    at.button(key="FormSubmitter:classroom.start.form-Start a class").click().run()
    assert not at.exception, at.exception
    teacher = at.session_state["classroom.teacher"]
    key = at.session_state["classroom.new_key"]
    return at, teacher.code, key


def _join(code: str, name: str) -> AppTest:
    at = open_page(CLASS_PAGE, params={"join": code})
    at.text_input(key="classroom.join.name").set_value(name)  # as a hostile client would send it, past max_chars
    at.button(key="FormSubmitter:classroom.join.form-Join").click().run()
    assert not at.exception, at.exception
    return at


def test_a_teacher_starts_a_class_and_gets_a_code_links_and_a_qr_code():
    at, code, key = _start_class()
    shown = " ".join(c.value for c in at.code)
    assert f"/classroom?join={code}" in shown and f"teacher={key}" in shown
    # an <img> of the SVG as a data: address (Streamlit's HTML keeps no inline <svg>), its alt text the code's title
    assert any("data:image/svg+xml;base64," in h.proto.body and "QR code" in h.proto.body for h in at.get("html"))
    assert f"Class code: `{code}`" in _texts(at)
    at.button(key="classroom.saved").click().run()  # the key is shown once
    assert f"teacher={key}" not in " ".join(c.value for c in at.code)


def test_a_student_joins_with_the_link_and_a_name_and_is_refused_a_taken_one():
    _at, code, _key = _start_class()
    ana = _join(code, "Ana")
    assert "You are in class" in _texts(ana) and "`Ana`" in _texts(ana)
    again = _join(code, "ANA")
    assert "already called" in _texts(again) and "classroom.member" not in again.session_state


@pytest.mark.parametrize("name", ["x" * 10_000, "", "\u0000\u0007", "a" * 25], ids=["10k", "empty", "controls", "25"])
def test_hostile_names_get_a_message_and_join_nobody(name):
    _at, code, key = _start_class()
    at = _join(code, name)
    assert any(w in _texts(at) for w in ("too long", "Pick a name")), _texts(at)
    assert "classroom.member" not in at.session_state
    classes, _ = store.open_store()
    assert classes.teacher(code, key).presence()["joined"] == 0


def test_html_in_a_name_is_shown_as_text():
    _at, code, _key = _start_class()
    at = _join(code, "<img src=x onerror=1>")
    assert "`<img src=x onerror=1>`" in _texts(at)  # an inline code span: shown verbatim, never HTML
    assert not any("<img" in h.proto.body for h in at.get("html"))


@pytest.mark.parametrize("code", ["QQQQQQ", "", "'; DROP TABLE classes;--"])
def test_an_unknown_code_gets_a_clear_message(code):
    at = open_page(CLASS_PAGE, params={"join": code})
    at.text_input(key="classroom.join.code").input(code)
    at.button(key="FormSubmitter:classroom.join.form-Join").click().run()
    assert not at.exception and "no class with the code" in _texts(at)


@pytest.fixture(params=["sqlite", "postgres"])
def either_store(request, monkeypatch):
    """The pages' store: the session's SQLite file, or a fresh database on the throwaway PostgreSQL cluster."""
    import sqlalchemy as sa

    from ui import classroom

    if request.param == "postgres":
        server = request.getfixturevalue("postgres_server")
        admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text("DROP DATABASE IF EXISTS pages WITH (FORCE)"))
            conn.execute(sa.text("CREATE DATABASE pages"))
        admin.dispose()
        monkeypatch.setenv(store.db.ENV_URL, server.rsplit("/", 1)[0] + "/pages")
    classroom._open.clear()
    yield request.param
    monkeypatch.undo()
    classroom._open.clear()


def test_a_poll_from_the_lesson_page_to_the_reveal(either_store):
    """The whole poll, on both stores."""
    teacher, code, _key = _start_class()
    teacher.switch_page(LESSON).run()
    assert not teacher.exception, teacher.exception
    students = [_join(code, name) for name in ("Ana", "Bo", "Cy")]
    teacher.button(key="scaling.ex1.ask").click().run()
    assert not teacher.exception, teacher.exception
    for i, at in enumerate(students):
        at.switch_page(LESSON).run()
        assert "Question from your teacher" in _texts(at)
        box = at.number_input(key=next(w.key for w in at.number_input if w.key.startswith("classroom.q")))
        box.set_value(1.0 if i == 0 else 32.0)
        at.button(key=next(b.key for b in at.button if b.key.startswith("FormSubmitter:classroom.q"))).click().run()
        assert "Your answer is in" in _texts(at)
    teacher.switch_page(CLASS_PAGE).run()
    assert "**3** answers so far" in _texts(teacher)
    assert not any("32" in str(t.value) for t in teacher.table)  # answers arrive as a count, not their content
    teacher.button(key="classroom.dash.reveal").click().run()
    shown = _texts(teacher)
    assert "of 3" in shown and "Worked answer" in shown
    students[0].run()
    assert "Worked answer" in _texts(students[0]) and "of 3" in _texts(students[0])


def test_a_student_session_reaches_no_teacher_action():
    _teacher, code, key = _start_class()
    at = _join(code, "Mallory")
    at.switch_page(LESSON).run()
    keys = {w.key for w in at.button} | {w.key for w in at.get("download_button")}
    assert not [
        k
        for k in keys
        if k
        and (
            k.endswith(".ask")
            or k.startswith("classroom.dash")
            or k.startswith("classroom.spot")
            or k.startswith("classroom.export")
            or k in ("classroom.delete", "classroom.end")
        )
    ]
    assert "teacher" not in " ".join(str(v) for v in at.session_state["classroom.member"].__dict__.values())
    # the teacher link with a wrong key: refused, and the session stays a student's
    wrong = open_page(CLASS_PAGE, params={"class": code, "teacher": key[:-2] + "xx"})
    assert "not this class's teacher key" in _texts(wrong)
    assert "classroom.teacher" not in wrong.session_state
    assert not [b for b in wrong.button if b.key and b.key.startswith(("classroom.dash", "classroom.delete"))]


def test_the_teacher_link_opens_the_dashboard_and_leaves_the_address_bar():
    _at, code, key = _start_class()
    at = open_page(CLASS_PAGE, params={"class": code, "teacher": key})
    assert "classroom.teacher" in at.session_state and "teacher" not in at.query_params
    assert "Here now" in [m.label for m in at.metric]


def test_a_lesson_works_alone_when_the_store_is_unreachable(monkeypatch):
    from ui import classroom

    monkeypatch.setenv(store.db.ENV_URL, "postgresql+psycopg://nobody@127.0.0.1:1/nothing")
    classroom._open.clear()
    classroom._failed_at[0] = 0.0
    try:
        at = open_page(LESSON)
        assert "cannot be reached" in _texts(at)
        answer_exercise(at, "scaling.ex1", 1.0)  # the exercise still checks the answer
        assert at.warning or at.success
        page = open_page(CLASS_PAGE)
        assert "cannot be reached" in _texts(page)
    finally:
        monkeypatch.undo()
        classroom._open.clear()
        classroom._failed_at[0] = 0.0


def test_runs_from_any_page_show_on_the_dashboard_and_in_the_spotlight():
    classes, _ = store.open_store()
    info, key = classes.create_class("runs")
    member, _token = classes.join(info.code, "Ana")
    shot = {"rows": ["a", "b"], "cols": ["x", "y"], "z": [[0.9, 0.1], [0.2, 0.8]]}
    classes.post_run(member, "own_data", {}, [[1, 1.0, 2.0, 0.1], [2, 2.0, 1.0, 0.6]], {"exact_match": 0.6}, shot)
    run = classes.post_run(member, "masking", {"masking.seed": 2}, [[1, 1.0, 1.0, 0.5]], {"exact_match": 0.5})
    teacher = open_page(CLASS_PAGE, params={"class": info.code, "teacher": key})
    rows = teacher.dataframe[-1].value if teacher.dataframe else None
    assert rows is not None and set(rows["lesson"]) == {"Your own data", "Masking"}
    assert "seed = 2" in set(rows["setting"])
    classes.teacher(info.code, key).spotlight(run, named=False)
    teacher.run()
    text = _texts(teacher)
    assert "**Spotlight:** a student's run on *Masking*" in text and "Ana" not in text.split("Spotlight")[1][:80]


def test_a_refresh_without_a_shared_connection_still_draws(monkeypatch):
    """A replica whose pool has no connection to spare for a refresh: each read takes its own, the page draws."""
    _at, code, key = _start_class()

    def exhausted(self):
        raise TimeoutError("QueuePool limit reached")

    monkeypatch.setattr(store.ClassStore, "reading", exhausted)
    teacher = open_page(CLASS_PAGE, params={"class": code, "teacher": key})
    assert not teacher.exception, teacher.exception
    assert "Here now" in [m.label for m in teacher.metric]


def test_leaving_forgets_the_class_and_its_cookie():
    _at, code, _key = _start_class()
    at = _join(code, "Ana")
    at.button(key="classroom.leave").click().run()
    assert "classroom.member" not in at.session_state and "You left the class." in _texts(at)
    scripts = [h.proto.body for h in at.get("html") if "attention_lab_class=" in h.proto.body]
    assert scripts and all("Max-Age=0" in body for body in scripts)  # the cookie is deleted, not rewritten
    at.run()
    assert "classroom.member" not in at.session_state and "You left the class." not in _texts(at)


def test_the_class_state_is_read_once_a_second_for_every_student(monkeypatch):
    from ui import classroom

    monkeypatch.setattr(classroom, "SHARED_READ_SECONDS", 60.0)
    classroom._shared.clear()
    reads = []
    first = classroom._shared_read(("question", "X"), lambda: reads.append(1) or "open")
    second = classroom._shared_read(("question", "X"), lambda: reads.append(2) or "revealed")
    assert first == second == "open" and reads == [1]  # the second session got the first one's read
    assert classroom._shared_read(("question", "Y"), lambda: "other") == "other"  # per class
    monkeypatch.setattr(classroom, "SHARED_READ_SECONDS", 0.0)
    assert classroom._shared_read(("question", "X"), lambda: "revealed") == "revealed"  # read again once stale

    def failing():
        raise store.ClassError("gone")

    with pytest.raises(store.ClassError):
        classroom._shared_read(("question", "Z"), failing)
    assert ("question", "Z") not in classroom._shared  # a failure is never kept
