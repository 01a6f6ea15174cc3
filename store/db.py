"""Opening the store: which database, and the settings that make SQLite fit a class of 60."""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa

from store import schema
from store.classes import ClassStore
from store.errors import StoreUnavailable
from store.learners import Learners

ENV_URL = "ATTENTION_LAB_DB_URL"  # a SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db
DEFAULT_SQLITE = Path(__file__).resolve().parents[1] / "var" / "attention_lab.sqlite3"
BUSY_TIMEOUT_MS = 10_000  # a writer waits this long for another before giving up


def database_url(configured: str | None = None) -> str:
    """The store's URL: the one configured (secrets or ``ATTENTION_LAB_DB_URL``), else the embedded SQLite file."""
    url = configured or os.environ.get(ENV_URL, "").strip()
    if url:
        return url
    DEFAULT_SQLITE.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{DEFAULT_SQLITE}"


def engine_options(url: str) -> dict:
    """``create_engine`` options for ``url``: a busy timeout for SQLite, a small pool with liveness checks."""
    if url.startswith("sqlite"):
        return {"connect_args": {"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}}
    return {
        "pool_pre_ping": True,
        # A replica may hold a whole class after another one failed (60 sessions whose fragments read every few
        # seconds): room for 30 at once; a PostgreSQL server's default 100 connections serve three such replicas.
        "pool_size": 10,
        "max_overflow": 20,
        "pool_timeout": 10,
        "connect_args": {"connect_timeout": 5},  # a server that is down is said so in seconds, not minutes
    }


def prepare(engine: sa.Engine) -> sa.Engine:
    """SQLite: write-ahead log (readers never wait for the writer), a busy timeout, foreign keys on. Every new
    connection gets them; returns ``engine``."""
    if engine.dialect.name == "sqlite":

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

    return engine


def open_engine(url: str | None = None) -> sa.Engine:
    """A prepared engine for ``url`` (see :func:`database_url`), its schema upgraded to today's."""
    url = database_url(url)
    engine = prepare(sa.create_engine(url, **engine_options(url)))
    try:
        schema.upgrade(engine)
    except sa.exc.SQLAlchemyError as error:
        engine.dispose()
        raise StoreUnavailable(f"The class store cannot be reached ({type(error).__name__}).") from error
    return engine


def open_store(url: str | None = None):
    """``(ClassStore, Learners)`` on one engine."""
    engine = open_engine(url)
    return ClassStore(engine), Learners(engine)
