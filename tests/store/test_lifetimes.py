"""How long the store keeps things, and what a database error means, on SQLite and on the throwaway PostgreSQL: ended
classes and idle learners are purged after their stated time; only a database that is gone reads as unreachable."""

from __future__ import annotations

import sqlite3
import time

import pytest
import sqlalchemy as sa

import store
from store import classes as class_module
from store import learners as learner_module
from store import schema


@pytest.fixture
def opened(store_url):
    classes, learners = store.open_store(store_url)
    yield classes, learners
    classes.engine.dispose()


def _rows(engine: sa.Engine, table: sa.Table) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()


def test_ended_and_expired_classes_are_purged_after_the_stated_time(opened):
    classes, _ = opened
    ended, ended_key = classes.create_class("ended now", hours=1)
    expired, _ = classes.create_class("expires in an hour", hours=1)
    running, _ = classes.create_class("three days long", hours=72)
    for info in (ended, expired, running):
        member, _token = classes.join(info.code, "Ana")
        classes.post_run(member, "masking", {}, [[1, 1.0, 1.0, 0.5]], {"exact_match": 0.5})
        classes.check_exercise(member, "scaling", "scaling.ex1", "1", True)
    classes.teacher(ended.code, ended_key).end()
    days = class_module.PURGE_AFTER_DAYS * 86400
    assert classes.purge_ended(now=time.time() + days - 60) == 0  # not yet: a month after the end, not before
    assert classes.purge_ended(now=time.time() + days + 2 * 3600) == 2
    assert classes.find(ended.code) is None and classes.find(expired.code) is None
    assert classes.find(running.code) is not None  # it ended 72 h after it started: not a month ago yet
    for table in (schema.members, schema.runs, schema.checked):
        assert _rows(classes.engine, table) == 1, table.name  # only the running class's rows are left


def test_idle_learners_are_forgotten_after_the_stated_time(opened):
    _, learners = opened
    key = learners.new_key()
    learners.visit(key, "scaling")
    learners.solve(key, "scaling", "scaling.ex1", "1", True)
    days = learner_module.KEEP_DAYS * 86400
    assert learners.purge_idle(now=time.time() + days - 60) == 0 and learners.resume(key) is not None
    assert learners.purge_idle(now=time.time() + days + 60) == 1
    assert learners.resume(key) is None and learners.answers(key) == {}
    assert _rows(learners.engine, schema.visits) == 0 and _rows(learners.engine, schema.solved) == 0


def test_a_refused_connection_and_a_file_that_cannot_be_opened_are_unreachable(tmp_path):
    for url in ("postgresql+psycopg://nobody@127.0.0.1:1/nothing", f"sqlite:///{tmp_path}/no/such/folder/x.db"):
        engine = sa.create_engine(url, connect_args={"connect_timeout": 2} if "postgres" in url else {})
        with pytest.raises(sa.exc.OperationalError) as caught:
            engine.connect()
        assert store.unreachable(caught.value), url
    with pytest.raises(store.StoreUnavailable) as caught:
        store.open_store("postgresql+psycopg://nobody@127.0.0.1:1/nothing")
    assert store.unreachable(caught.value)


def test_a_broken_rule_a_busy_database_and_a_busy_pool_are_not(opened):
    classes, _ = opened
    info, _key = classes.create_class("c")
    with pytest.raises(sa.exc.IntegrityError) as caught, classes.engine.begin() as conn:
        conn.execute(
            schema.classes.insert().values(
                code=info.code, name="twice", teacher_key_hash="x", created_at=0.0, expires_at=1.0
            )
        )
    assert not store.unreachable(caught.value)
    assert not store.unreachable(sa.exc.TimeoutError("QueuePool limit of size 10 overflow 20 reached"))
    assert not store.unreachable(ValueError("a bug"))


def test_a_locked_sqlite_file_is_busy_not_unreachable(tmp_path):
    path = tmp_path / "locked.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.1})
    with pytest.raises(sa.exc.OperationalError) as caught, engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO t VALUES (1)"))
    holder.execute("ROLLBACK")
    holder.close()
    assert "locked" in str(caught.value) and not store.unreachable(caught.value)


@pytest.mark.slow
def test_a_connection_the_server_cuts_is_unreachable(postgres_server):
    engine = sa.create_engine(postgres_server)
    with engine.connect() as conn:
        pid = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar()
        admin = sa.create_engine(postgres_server, isolation_level="AUTOCOMMIT")
        with admin.connect() as other:
            other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        admin.dispose()
        with pytest.raises(sa.exc.DBAPIError) as caught:
            conn.execute(sa.text("SELECT 1"))
    engine.dispose()
    assert store.unreachable(caught.value)
