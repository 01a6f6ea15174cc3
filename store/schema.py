"""The store's tables and its versioned schema.

``schema_version`` holds one row: the version the database is at. :data:`MIGRATIONS` lists every step from an
empty database to today's; :func:`upgrade` runs the missing ones in order, in one transaction each, so a server
upgraded in the middle of a class keeps the class's data.

The schema is append-only: a step is only ever added at the end, never edited once shipped. A test pins the SQL each
shipped step runs (:func:`step_sql`, on SQLite and PostgreSQL), so changing a table a shipped step creates fails
there: a new column or table is a new :class:`Step`. Steps 1 and 2 were edited after they shipped (``checked`` and
``shared_models`` joined step 1, ``visits.exercises`` step 2), so stores made before those edits were at version 3
without them; step 4 completes every such store, and the upgrade test starts from stores written by each of those
commits' own code (``tests/fixtures/old_stores/``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sqlalchemy as sa

metadata = sa.MetaData()

schema_version = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))

# ----------------------------------------------------------------------------------------------- version 1: classes
classes = sa.Table(
    "classes",
    metadata,
    sa.Column("code", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("teacher_key_hash", sa.String(64), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Column("ended_at", sa.Float),
    sa.Column("spotlight_run", sa.Integer),  # a run on the projector, or NULL
    sa.Column("spotlight_named", sa.Boolean, nullable=False, default=False),
)
members = sa.Table(
    "members",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("class_code", sa.String(16), sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("name_key", sa.String(100), nullable=False),  # case-folded: names are unique in a class, any case
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("joined_at", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("lesson", sa.String(64)),  # the lesson the student last opened
    sa.UniqueConstraint("class_code", "name_key"),
)
questions = sa.Table(
    "questions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("class_code", sa.String(16), sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("lesson", sa.String(64), nullable=False),
    sa.Column("key", sa.String(100), nullable=False),  # the exercise's key
    sa.Column("prompt", sa.Text, nullable=False),
    sa.Column("choices", sa.JSON, nullable=False),  # [] for a number
    sa.Column("truth", sa.Text, nullable=False),  # the answer as the lesson's code computed it, shown at reveal
    sa.Column("explanation", sa.Text, nullable=False),
    sa.Column("tolerance", sa.Float, nullable=False, default=0.0),
    sa.Column("state", sa.String(16), nullable=False),  # open, closed, revealed
    sa.Column("opened_at", sa.Float, nullable=False),
)
answers = sa.Table(
    "answers",
    metadata,
    sa.Column("question_id", sa.Integer, sa.ForeignKey("questions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
sweeps = sa.Table(
    "sweeps",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("class_code", sa.String(16), sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("lesson", sa.String(64), nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),  # the grid: a list of {widget key: value}
    sa.Column("labels", sa.JSON, nullable=False),  # {widget key: what the student reads}
    sa.Column("open", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
assignments = sa.Table(
    "assignments",
    metadata,
    sa.Column("sweep_id", sa.Integer, sa.ForeignKey("sweeps.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("setting", sa.Integer, nullable=False),  # index into the sweep's grid
)
runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("class_code", sa.String(16), sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False),
    sa.Column("sweep_id", sa.Integer, sa.ForeignKey("sweeps.id", ondelete="SET NULL")),
    sa.Column("lesson", sa.String(64), nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),
    sa.Column("curve", sa.JSON, nullable=False),  # [[step, seconds, loss, exact_match], ...]
    sa.Column("metrics", sa.JSON, nullable=False),  # final figures
    sa.Column("snapshot", sa.JSON),  # an attention map: {"rows": [...], "cols": [...], "z": [[...]]}
    sa.Column("posted_at", sa.Float, nullable=False),
)

checked = sa.Table(
    "checked",
    metadata,
    sa.Column("class_code", sa.String(16), sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("exercise", sa.String(100), primary_key=True),  # a lesson's exercise a student checked in class
    sa.Column("lesson", sa.String(64), nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("correct", sa.Boolean, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

shared_models = sa.Table(
    "shared_models",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("class_code", sa.String(16), sa.ForeignKey("classes.code", ondelete="CASCADE"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),  # the model file's name
    sa.Column("data", sa.LargeBinary, nullable=False),  # the one-file model (safetensors; loading runs no code)
    sa.Column("shared_at", sa.Float, nullable=False),
)

# ---------------------------------------------------------------------------------------------- version 2: learners
learners = sa.Table(
    "learners",
    metadata,
    sa.Column("key_hash", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("last_lesson", sa.String(64)),
    sa.Column("last_place", sa.String(200)),  # the section or exercise they were at (a page anchor)
    sa.Column("updated_at", sa.Float, nullable=False),
)
visits = sa.Table(
    "visits",
    metadata,
    sa.Column("key_hash", sa.String(64), sa.ForeignKey("learners.key_hash", ondelete="CASCADE"), primary_key=True),
    sa.Column("lesson", sa.String(64), primary_key=True),
    sa.Column("first_at", sa.Float, nullable=False),
    sa.Column("last_at", sa.Float, nullable=False),
    sa.Column("exercises", sa.Integer),  # how many exercises the lesson showed the learner (None: not yet seen)
)
solved = sa.Table(
    "solved",
    metadata,
    sa.Column("key_hash", sa.String(64), sa.ForeignKey("learners.key_hash", ondelete="CASCADE"), primary_key=True),
    sa.Column("exercise", sa.String(100), primary_key=True),
    sa.Column("lesson", sa.String(64), nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("correct", sa.Boolean, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

# ----------------------------------------------------------------------------------------- version 3: rate limits
attempts = sa.Table(
    "attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("scope", sa.String(120), nullable=False, index=True),  # e.g. "teacher-key:ACDEFG", "member:12"
    sa.Column("at", sa.Float, nullable=False),
)


@dataclass(frozen=True)
class Step:
    """One step of the schema: the tables it creates where they are missing, then the columns it adds to tables
    that lack them (``(table, column name)``: the column as the table declares it)."""

    tables: tuple[sa.Table, ...] = ()
    columns: tuple[tuple[sa.Table, str], ...] = ()


MIGRATIONS: tuple[Step, ...] = (
    Step(tables=(classes, members, questions, answers, sweeps, assignments, runs, checked, shared_models)),
    Step(tables=(learners, visits, solved)),
    Step(tables=(attempts,)),
    # stores made before steps 1 and 2 gained these are at version 3 without them
    Step(tables=(checked, shared_models), columns=((visits, "exercises"),)),
)
VERSION = len(MIGRATIONS)


def current_version(conn: sa.Connection) -> int:
    """The version the database is at: 0 when empty."""
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    return int(conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0)


def upgrade(engine: sa.Engine, to: int = VERSION, attempts_left: int = 5) -> int:
    """Bring the database to version ``to`` (today's by default), keeping what it holds. Safe when several
    replicas start at once: PostgreSQL serializes them with an advisory lock; on SQLite a replica that loses the
    race re-reads the version and tries again."""
    for attempt in range(attempts_left):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(742021)"))
                schema_version.create(conn, checkfirst=True)
                version = current_version(conn)
                for step in range(version, to):
                    run_step(conn, MIGRATIONS[step])
                    conn.execute(schema_version.delete())
                    conn.execute(schema_version.insert().values(version=step + 1))
                return max(version, to)
        except sa.exc.OperationalError as error:
            # only a lost race between replicas upgrading at once is worth another try; a database that cannot be
            # reached is said at once (it would otherwise cost every page two seconds of retries)
            race = any(word in str(error).lower() for word in ("locked", "already exists", "busy"))
            if not race or attempt == attempts_left - 1:
                raise
            time.sleep(0.2 * (attempt + 1))
    return to


def _add_column(table: sa.Table, name: str, dialect: sa.Dialect) -> str:
    column = sa.schema.CreateColumn(table.c[name]).compile(dialect=dialect)
    return f"ALTER TABLE {table.name} ADD COLUMN {column}"


def run_step(conn: sa.Connection, step: Step) -> None:
    """Run one step on ``conn``: what it creates or adds that is not there yet (a step completes a store that
    already holds part of it)."""
    for table in step.tables:
        table.create(conn, checkfirst=True)
    for table, name in step.columns:
        if name not in {column["name"] for column in sa.inspect(conn).get_columns(table.name)}:
            conn.execute(sa.text(_add_column(table, name, conn.dialect)))


def step_definition(step: Step) -> str:
    """What ``step`` creates and adds, as text that depends only on the tables' declarations (not on how a version
    of SQLAlchemy lays out its SQL): every table's columns with their types, keys, nullability and defaults, its
    constraints and indexes, then every added column. What a test pins for each shipped step."""

    def column(c: sa.Column) -> str:
        keys = ",".join(f"{k.target_fullname} on delete {k.ondelete}" for k in sorted(c.foreign_keys, key=str))
        default = c.default.arg if c.default is not None and not callable(c.default.arg) else None
        return (
            f"  {c.name} {c.type!r} null={c.nullable} pk={c.primary_key} autoincrement={c.autoincrement} "
            f"index={c.index} default={default!r} references=[{keys}]"
        )

    lines = []
    for table in step.tables:
        lines.append(f"table {table.name}")
        lines += [column(c) for c in table.columns]
        uniques = [c for c in table.constraints if isinstance(c, sa.UniqueConstraint)]
        lines += [f"  unique({', '.join(c.name for c in u.columns)})" for u in uniques]
    lines += [f"add {table.name}:" + column(table.c[name]) for table, name in step.columns]
    return "\n".join(lines)
