"""Writes that two sessions may make at the same moment, and what a database error means.

A class makes many first writes at once: a new learner's first page and its fragments store the same key, two tabs
visit the same lesson, a double click sends one answer twice, two students pick the same name. Each of those is one
statement that cannot collide (:func:`upsert`: ``INSERT … ON CONFLICT``, on SQLite and PostgreSQL alike), or a
transaction run again when another one won the race (:func:`transaction`), so that it then sees the winner's row
and answers as if they had taken turns.

:func:`unreachable` tells a database that is gone (refused, cut off, a file that cannot be opened) from every other
error (a race lost twice, a constraint, a busy pool): only the first pauses the class features of a server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from store.errors import StoreUnavailable

T = TypeVar("T")

ATTEMPTS = 4  # runs of a transaction that lost a race
RETRY_STATES = {"40001", "40P01"}  # PostgreSQL: serialization failure, deadlock detected
LOST_STATES = {"57P01", "57P02", "57P03", "53300"}  # PostgreSQL: shut down, crashed, starting, too many connections
LOST_SQLITE = ("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_FULL", "SQLITE_READONLY")
_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def upsert(conn: sa.Connection, table: sa.Table, values: dict, keys: tuple[str, ...], update=None) -> None:
    """Insert ``values`` into ``table``; where a row with the same ``keys`` exists, set ``update`` on it instead
    (``{column: value or expression}``; a callable gets the statement's ``excluded`` row and returns that mapping;
    None: leave the row as it is). One statement: two sessions making the same first write both succeed."""
    insert = _INSERTS.get(conn.dialect.name)
    if insert is None:
        raise NotImplementedError(f"the class store runs on SQLite or PostgreSQL, not {conn.dialect.name}")
    statement = insert(table).values(**values)
    changes = update(statement.excluded) if callable(update) else update
    if changes:
        statement = statement.on_conflict_do_update(index_elements=list(keys), set_=changes)
    else:
        statement = statement.on_conflict_do_nothing(index_elements=list(keys))
    conn.execute(statement)


def lost_race(error: BaseException) -> bool:
    """A transaction that another one beat to the same row (a unique key, a deadlock, a serialization failure)."""
    if isinstance(error, sa.exc.IntegrityError):
        return True
    state = getattr(getattr(error, "orig", None), "sqlstate", None)
    return isinstance(error, sa.exc.DBAPIError) and state in RETRY_STATES


def transaction(engine: sa.Engine, work: Callable[[sa.Connection], T], attempts: int = ATTEMPTS) -> T:
    """``work(conn)`` in a transaction of its own, run again (a few times, a few milliseconds apart) when it lost a
    race: the next run reads the row that won and decides again (a name now taken, an answer now there)."""
    for attempt in range(attempts):
        try:
            with engine.begin() as conn:
                return work(conn)
        except sa.exc.DBAPIError as error:
            if not lost_race(error) or attempt == attempts - 1:
                raise
            time.sleep(0.005 * (attempt + 1))
    raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover


def unreachable(error: BaseException) -> bool:
    """True when ``error`` says the database cannot be reached or used at all (connection refused or lost, the
    server shutting down, a SQLite file that cannot be opened or written); False for any other error, which costs
    only the action it hit."""
    if isinstance(error, StoreUnavailable | ConnectionError):
        return True
    if not isinstance(error, sa.exc.DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    if not isinstance(error, sa.exc.OperationalError | sa.exc.InterfaceError):
        return False
    orig = error.orig
    name = getattr(orig, "sqlite_errorname", None)
    if name is not None:
        return name.startswith(LOST_SQLITE)
    state = getattr(orig, "sqlstate", None)
    return state is None or state.startswith("08") or state in LOST_STATES  # None: the client never got an answer
