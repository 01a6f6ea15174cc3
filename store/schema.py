"""The store's tables and its versioned schema.

``schema_version`` holds one row: the version the database is at. :data:`MIGRATIONS` lists every step from an
empty database to today's; :func:`upgrade` runs the missing ones in order, in one transaction each, so a server
upgraded in the middle of a class keeps the class's data (tested from each older version). A step is only ever
added at the end, never edited once shipped.
"""

from __future__ import annotations

import time

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

MIGRATIONS: tuple[tuple[sa.Table, ...], ...] = (
    (classes, members, questions, answers, sweeps, assignments, runs, checked, shared_models),
    (learners, visits, solved),
    (attempts,),
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
                    for table in MIGRATIONS[step]:
                        table.create(conn, checkfirst=True)
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
