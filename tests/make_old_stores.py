"""Write stores made by the old code itself, for the upgrade tests: ``python -m tests.make_old_stores``.

For each commit that shipped a different store (:data:`COMMITS`), its ``store/`` package is taken out of git
(``git archive``, into a temporary folder) and run in a fresh Python that imports nothing of today's code: it opens a
store, starts a class and a second class it ends, has two students join, answer a question, take a sweep's setting
and post a run, and has a learner visit and solve, through that commit's own API. What it writes is kept in
``tests/fixtures/old_stores/``: the SQLite file, and a plain SQL dump (``pg_dump``) of the same written to a throwaway
PostgreSQL cluster, with ``index.json`` holding the keys and tokens the test needs to act as that class's teacher,
student and learner. Run again only to add a commit: the fixtures are what those commits wrote once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import sqlalchemy as sa

from store import throwaway

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "fixtures" / "old_stores"
COMMITS = {  # every shape of the store a commit shipped, oldest first
    "e3518b7368d03781d4f5e4780dbcc50cbe5e7648": "the first store: version 3, visits without exercises",
    "e07a9ac3c24ecf65d3048f4e2dbf29deedc2b277": "visits.exercises added to shipped version 2",
    "6ece5446cf05d67840ed9d1f5adaa52512584f76": "the checked table added to shipped version 1",
    "f2afd4796c4ec873fe64d0b8614647c7d4020506": "the shared_models table added to shipped version 1",
}

# What the old code does, run by that commit's store package alone (only its own API, only what every one of them has).
WRITER = r"""
import json, sys
from store import open_store

classes, learners = open_store(sys.argv[1])
info, key = classes.create_class("Week 1, from an older server")
teacher = classes.teacher(info.code, key)
ana, ana_token = classes.join(info.code, "Ana")
bo, _bo_token = classes.join(info.code, "Bo")
question = teacher.open_question("scaling", "scaling.ex1", "Which one?", ["a", "b"], 1, "Because.")
classes.answer(ana, question.id, 1)
classes.answer(bo, question.id, 0)
sweep = teacher.start_sweep("masking", [{"masking.seed": 0}, {"masking.seed": 1}], {"masking.seed": "seed"})
classes.assignment(ana, sweep)
classes.post_run(ana, "masking", {"masking.seed": 0}, [[10, 1.5, 2.0, 0.25]], {"exact_match": 0.25}, sweep_id=sweep.id)
if hasattr(classes, "check_exercise"):
    classes.check_exercise(ana, "scaling", "scaling.ex2", "3", True)
if hasattr(teacher, "share_model"):
    teacher.share_model("shared.safetensors", b"model bytes")
ended, ended_key = classes.create_class("An ended class")
classes.teacher(ended.code, ended_key).end()
learner = learners.new_key()
learners.visit(learner, "scaling")
learners.solve(learner, "scaling", "scaling.ex1", "1", True)
if hasattr(learners, "set_exercises"):
    learners.set_exercises(learner, "scaling", 4)
classes.engine.dispose()
print(json.dumps({"code": info.code, "teacher_key": key, "student_token": ana_token, "ended": ended.code,
                  "learner_key": learner, "question": question.id}))
"""


def old_store(commit: str, folder: Path) -> Path:
    """``store/`` as it was at ``commit``, alone in ``folder``."""
    archive = subprocess.run(["git", "archive", commit, "store"], cwd=ROOT, check=True, capture_output=True).stdout
    path = folder / commit[:7]
    path.mkdir()
    tar = path / "store.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as t:
        t.extractall(path, filter="data")
    tar.unlink()
    return path


def write(code: Path, url: str) -> dict:
    """Run the old store code at ``code`` against ``url``; returns what the writer printed."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    env.pop("ATTENTION_LAB_DB_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", WRITER, url], cwd=code, env=env, check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def sqlite_fixture(code: Path, target: Path) -> dict:
    written = write(code, f"sqlite:///{target}")
    with sqlite3.connect(target) as conn:  # one self-contained file: the write-ahead log folded in
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
    return written


def postgres_fixture(code: Path, target: Path, server: str) -> dict:
    """Write with the old code into a fresh database of the cluster at ``server`` and dump it as plain SQL."""
    name = f"old_{code.name}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    admin.dispose()
    url = server.rsplit("/", 1)[0] + f"/{name}"
    written = write(code, url)
    port = sa.engine.make_url(url).port
    dump = subprocess.run(
        [f"{throwaway.binaries()}/pg_dump", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "--no-owner",
         "--no-privileges", "--inserts", name],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    target.write_text(dump)
    return written


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    index = {}
    with tempfile.TemporaryDirectory(prefix="attention-lab-old-stores-") as tmp, throwaway.cluster() as server:
        for commit, what in COMMITS.items():
            code = old_store(commit, Path(tmp))
            short = commit[:7]
            sqlite_file, sql_file = OUT / f"{short}.sqlite3", OUT / f"{short}.postgres.sql"
            sqlite_file.unlink(missing_ok=True)
            index[short] = {
                "commit": commit,
                "what": what,
                "sqlite": sqlite_fixture(code, sqlite_file),
                "postgres": postgres_fixture(code, sql_file, server),
            }
            print(f"{short}: {sqlite_file.stat().st_size:,} bytes of SQLite, {sql_file.stat().st_size:,} of SQL")
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
