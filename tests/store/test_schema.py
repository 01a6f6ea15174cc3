"""The schema is append-only: each shipped step's definition is pinned, and today's code completes the stores that
every older commit's own code wrote (``tests/fixtures/old_stores/``, made by ``tests/make_old_stores.py``), on SQLite
and on the throwaway PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa

import store
from store import schema, throwaway

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "old_stores"
OLD = json.loads((FIXTURES / "index.json").read_text())

# sha256 of schema.step_definition(step) for each shipped step. A step is never edited once shipped: when this test
# fails, put the change in a new Step at the end of MIGRATIONS instead (and pin that one when it ships).
PINNED = {
    1: "46454338ac2ae9f49f653247abe9f0298d297b5c4e30246836b88598f615d6f4",
    2: "218e1cc4bdf73351f42141a7153b9aff613feb62b82d66e0e19632b8b2e44f68",
    3: "2dda16cad79ea1cf94820c98472bb48437d1537c6be9dad083baeea9d3c87734",
    4: "9a623c01833cff7b9ada5f7548b5c3a8a7a9d67dfdfb8a1d131618cbfebe1d51",
}


def test_every_shipped_step_is_as_it_shipped():
    shipped = {
        number: hashlib.sha256(schema.step_definition(step).encode()).hexdigest()
        for number, step in enumerate(schema.MIGRATIONS, start=1)
        if number in PINNED
    }
    assert shipped == PINNED, "a shipped schema step was edited: add a new Step instead"
    assert len(schema.MIGRATIONS) == len(PINNED), "a new step: pin its definition here once it ships"


def _columns(engine: sa.Engine) -> dict[str, set[str]]:
    inspector = sa.inspect(engine)
    return {name: {c["name"] for c in inspector.get_columns(name)} for name in inspector.get_table_names()}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def dialect(request):
    return request.param


def _restore(commit: str, dialect: str, tmp_path: Path, request) -> str:
    """A store as ``commit``'s own code left it: a copy of its SQLite file, or its dump loaded into a new database
    of the session's PostgreSQL cluster. Returns its URL."""
    if dialect == "sqlite":
        target = tmp_path / "old.sqlite3"
        shutil.copy(FIXTURES / f"{commit}.sqlite3", target)
        return f"sqlite:///{target}"
    server = request.getfixturevalue("postgres_server")
    name = f"old_{commit}_{tmp_path.name[-12:].replace('-', '_').lower()}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    admin.dispose()
    url = sa.engine.make_url(server)
    subprocess.run(
        [f"{throwaway.binaries()}/psql", "-v", "ON_ERROR_STOP=1", "-q", "-h", "127.0.0.1", "-p", str(url.port),
         "-U", "postgres", "-d", name, "-f", str(FIXTURES / f"{commit}.postgres.sql")],
        check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return server.rsplit("/", 1)[0] + f"/{name}"


@pytest.mark.parametrize("commit", list(OLD))
def test_a_store_written_by_an_older_commit_is_completed_and_keeps_its_data(commit, dialect, tmp_path, request):
    url = _restore(commit, dialect, tmp_path, request)
    old = OLD[commit][dialect]
    before = store.db.prepare(sa.create_engine(url))
    with before.connect() as conn:
        assert schema.current_version(conn) == 3  # every one of them was at version 3, whatever it held
    before.dispose()

    classes, learners = store.open_store(url)
    try:
        with classes.engine.connect() as conn:
            assert schema.current_version(conn) == schema.VERSION
        fresh_url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        fresh, _ = store.open_store(fresh_url)
        assert _columns(classes.engine) == _columns(fresh.engine)  # the same tables and columns as a new store
        fresh.engine.dispose()

        info = classes.find(old["code"])
        during = info.created_at + 60  # the class as it was while it ran
        ana = classes.rejoin(old["code"], old["student_token"], now=during)
        assert ana is not None and ana.name == "Ana"
        teacher = classes.teacher(old["code"], old["teacher_key"])
        assert teacher.presence(now=during)["joined"] == 2
        assert classes.answer_count(old["question"]) == 2 and len(teacher.runs()) == 1
        assert learners.progress(old["learner_key"]) == {"scaling": "in progress"}
        assert learners.resume(old["learner_key"])[0] == "scaling"

        # what failed on such stores: the newer tables and column are there and work
        classes.check_exercise(ana, "scaling", "scaling.ex3", "2", True, now=during)
        assert any(e["exercise"] == "scaling.ex3" for e in teacher.exercises())
        learners.set_exercises(old["learner_key"], "scaling", 1)
        assert learners.progress(old["learner_key"]) == {"scaling": "done"}
        exported = teacher.export()
        assert [s["name"] for s in exported["students"]] == ["Ana", "Bo"] and len(exported["exercises"]) >= 1
        classes.shared_models(old["code"])
        teacher.delete()
        assert classes.find(old["code"]) is None and classes.find(old["ended"]) is not None
        with classes.engine.connect() as conn:
            for table in (schema.members, schema.runs, schema.checked, schema.shared_models, schema.questions):
                count = sa.select(sa.func.count()).select_from(table).where(table.c.class_code == old["code"])
                assert conn.execute(count).scalar() == 0, table.name
    finally:
        classes.engine.dispose()
    again, _ = store.open_store(url)  # opening an up-to-date store changes nothing
    with again.engine.connect() as conn:
        assert schema.current_version(conn) == schema.VERSION
    assert again.find(old["ended"]).ended_at is not None
    again.engine.dispose()


def test_a_step_completes_a_store_that_holds_part_of_it(store_url):
    """Step 4 on a store that already has what it adds (every store made since): nothing happens twice."""
    engine = store.db.prepare(sa.create_engine(store_url))
    assert schema.upgrade(engine) == schema.VERSION
    with engine.begin() as conn:
        schema.run_step(conn, schema.MIGRATIONS[-1])
        schema.run_step(conn, schema.MIGRATIONS[-1])
    assert "exercises" in _columns(engine)["visits"]
    engine.dispose()
