"""Two writes that create the same row at the same moment, with real threads, on SQLite and on the throwaway
PostgreSQL: each pair meets at a barrier, thirty times; every write either lands or is refused with a message (a
:class:`StoreError`), never a database error, and the rows come out as if the writes had taken turns."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

import store
from store import schema
from store.errors import ClassError, StoreError

ROUNDS = 30


@pytest.fixture
def opened(store_url):
    classes, learners = store.open_store(store_url)
    yield classes, learners
    classes.engine.dispose()


def race(*writes) -> list:
    """Run ``writes`` in threads that start together; returns what each returned or raised, in order."""
    barrier = threading.Barrier(len(writes))
    results: list = [None] * len(writes)

    def run(i: int, write) -> None:
        barrier.wait()
        try:
            results[i] = write()
        except Exception as error:  # noqa: BLE001 - what each write met is the result
            results[i] = error

    threads = [threading.Thread(target=run, args=(i, w)) for i, w in enumerate(writes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def database_errors(results: list) -> list[str]:
    """What the store let through that is not a message for the page."""
    return [repr(r) for r in results if isinstance(r, Exception) and not isinstance(r, StoreError)]


def count(engine: sa.Engine, table: sa.Table, *where) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table).where(*where)).scalar()


def test_a_new_learners_first_writes_at_once(opened):
    """A fresh key's first visit, its lesson's exercise count and its first answer, all at once (a new tab's first
    run and its fragments): the learner is stored once."""
    _, learners = opened
    errors = []
    for _ in range(ROUNDS):
        key = learners.fresh_key()
        results = race(
            lambda key=key: learners.visit(key, "scaling"),
            lambda key=key: learners.set_exercises(key, "scaling", 3),
            lambda key=key: learners.solve(key, "scaling", "scaling.ex1", "1", True),
        )
        errors += database_errors(results)
        assert learners.progress(key) == {"scaling": "in progress"}
        assert learners.answers(key) == {"scaling.ex1": ("1", True)}
    assert errors == []


def test_first_visits_to_one_lesson_at_once(opened):
    _, learners = opened
    errors = []
    for i in range(ROUNDS):
        key = learners.new_key()
        lesson = f"lesson{i}"
        visits = [lambda key=key, lesson=lesson: learners.visit(key, lesson) for _ in range(3)]
        errors += database_errors(race(*visits))
        assert count(learners.engine, schema.visits, schema.visits.c.lesson == lesson) == 1
    assert errors == []


def test_the_same_name_joining_at_once_gets_in_once(opened):
    classes, _ = opened
    errors, joined = [], 0
    for i in range(ROUNDS):
        info, _key = classes.create_class(f"c{i}")
        results = race(*[lambda code=info.code: classes.join(code, "Ana") for _ in range(3)])
        errors += database_errors(results)
        refused = [r for r in results if isinstance(r, ClassError)]
        assert all("already called" in str(r) for r in refused)
        joined += sum(isinstance(r, tuple) for r in results)
        assert count(classes.engine, schema.members, schema.members.c.class_code == info.code) == 1
    assert errors == [] and joined == ROUNDS


def test_one_students_answers_and_checks_at_once(opened):
    """A double click: the same answer, the same exercise check, sent twice at once; the latest one is kept."""
    classes, learners = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    errors = []
    for i in range(ROUNDS):
        member, _token = classes.join(info.code, f"S{i}")
        question = teacher.open_question("scaling", f"scaling.ex{i}", "?", ["a", "b"], 0, "e")
        learner = learners.new_key()
        results = race(
            lambda m=member, q=question: classes.answer(m, q.id, 0),
            lambda m=member, q=question: classes.answer(m, q.id, 1),
            lambda m=member: classes.check_exercise(m, "scaling", "scaling.ex1", "2", True),
            lambda m=member: classes.check_exercise(m, "scaling", "scaling.ex1", "3", False),
            lambda k=learner: learners.solve(k, "scaling", "scaling.ex1", "2", True),
            lambda k=learner: learners.solve(k, "scaling", "scaling.ex1", "3", False),
        )
        errors += database_errors(results)
        assert classes.answer_count(question.id) == 1
        assert count(classes.engine, schema.checked, schema.checked.c.member_id == member.id) == 1
        assert learners.answers(learner)["scaling.ex1"][1] is True  # once right, it stays solved
    assert errors == []
