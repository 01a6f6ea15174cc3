"""Classes: start, join, questions and answers, class sweeps, posted runs, spotlight, export and delete."""

from __future__ import annotations

import contextlib
import json
import math
import secrets
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

import sqlalchemy as sa

from store import names
from store.errors import ClassError, RateLimited
from store.schema import (
    answers,
    assignments,
    attempts,
    checked,
    classes,
    members,
    questions,
    runs,
    shared_models,
    sweeps,
)
from store.writes import transaction, upsert

DEFAULT_HOURS = 12.0
MAX_HOURS = 72.0
MAX_CLASS_NAME = 80
PRESENT_SECONDS = 90.0  # a student seen within this long is "here"
# Rate limits: (attempts, seconds). A student's flood of answers or runs, a class's flood of joins, wrong keys.
ANSWER_LIMIT = (20, 10.0)
RUN_LIMIT = (10, 60.0)
JOIN_LIMIT = (200, 60.0)  # per class
SESSION_JOIN_LIMIT = (10, 60.0)  # per browser session: a script cannot fill a class with names
CREATE_LIMIT = (10, 3600.0)  # classes one browser session may start in an hour
TEACHER_KEY_LIMIT = (5, 60.0)
LONGEST_WINDOW = max(
    w for _, w in (ANSWER_LIMIT, RUN_LIMIT, JOIN_LIMIT, SESSION_JOIN_LIMIT, CREATE_LIMIT, TEACHER_KEY_LIMIT)
)
MAX_ANSWER = 100  # characters of an answer
MAX_RUN_JSON = 200_000  # bytes of one posted run (curve, metrics, snapshot)
MAX_SHARED_MODEL = 5_000_000  # bytes of a model file the teacher shares (the Your own data page's upload cap)
PURGE_AFTER_DAYS = 30.0  # a class that ended (or expired) this long ago is removed with everything it stored


@dataclass(frozen=True)
class ClassInfo:
    code: str
    name: str
    created_at: float
    expires_at: float
    ended_at: float | None
    spotlight_run: int | None = None
    spotlight_named: bool = False

    def live(self, now: float | None = None) -> bool:
        return self.ended_at is None and (now or time.time()) < self.expires_at


@dataclass(frozen=True)
class Member:
    id: int
    class_code: str
    name: str


@dataclass(frozen=True)
class Question:
    id: int
    lesson: str
    key: str
    prompt: str
    choices: tuple[str, ...]
    truth: str
    explanation: str
    tolerance: float
    state: str  # open, closed, revealed

    @property
    def is_choice(self) -> bool:
        return bool(self.choices)


@dataclass(frozen=True)
class Sweep:
    id: int
    lesson: str
    settings: tuple[dict, ...]
    labels: dict
    open: bool

    def describe(self, index: int) -> str:
        """One setting as a student reads it: ``d_k = 64 · seed = 2``."""
        setting = self.settings[index]
        return " · ".join(f"{self.labels.get(k, k)} = {v}" for k, v in setting.items())


@dataclass(frozen=True)
class Run:
    id: int
    member_id: int
    member_name: str
    sweep_id: int | None
    lesson: str
    settings: dict
    curve: list
    metrics: dict
    snapshot: dict | None
    posted_at: float = field(default=0.0)


def _class_row(row) -> ClassInfo:
    return ClassInfo(
        row.code, row.name, row.created_at, row.expires_at, row.ended_at, row.spotlight_run, bool(row.spotlight_named)
    )


def _question_row(row) -> Question:
    return Question(
        row.id,
        row.lesson,
        row.key,
        row.prompt,
        tuple(row.choices or ()),
        row.truth,
        row.explanation,
        float(row.tolerance or 0.0),
        row.state,
    )


def _sweep_row(row) -> Sweep:
    return Sweep(row.id, row.lesson, tuple(row.settings), dict(row.labels), bool(row.open))


def _run_row(row, full: bool = True) -> Run:
    return Run(
        row.id,
        row.member_id,
        row.name,
        row.sweep_id,
        row.lesson,
        dict(row.settings),
        list(row.curve) if full else [],
        dict(row.metrics),
        row.snapshot if full else None,
        row.posted_at,
    )


def _finite_json(value, what: str) -> object:
    """``value`` as JSON the store keeps: finite numbers only (NaN is not JSON), bounded in size."""
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ClassError(f"The run's {what} could not be stored ({error}).") from None
    if len(text) > MAX_RUN_JSON:
        raise ClassError(f"The run's {what} is too large to post to the class.")
    return json.loads(text)


# A refresh's reads sharing one connection (see ClassStore.reading): the engine it belongs to, and the connection.
_READER: ContextVar[tuple[sa.Engine, sa.Connection] | None] = ContextVar("class_store_reader", default=None)


@contextlib.contextmanager
def reading(engine: sa.Engine) -> Iterator[None]:
    """Inside, the store's reads on ``engine`` share one connection in autocommit: a server database (PostgreSQL)
    answers a dashboard refresh's several reads with one pool checkout (and its liveness ping) and one round trip
    per query, instead of a checkout, BEGIN and ROLLBACK around each of them. Each read still sees every write
    committed before it (writes keep their own connection and transaction). SQLite has no round trips to save:
    there every read keeps its own connection, as outside."""
    if engine.dialect.name == "sqlite" or _READER.get() is not None:
        yield
        return
    with engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT")
        token = _READER.set((engine, conn))
        try:
            yield
        finally:
            _READER.reset(token)


@contextlib.contextmanager
def _reader(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A connection for one read: the shared one inside :func:`reading`, else a connection of its own."""
    shared = _READER.get()
    if shared is not None and shared[0] is engine:
        yield shared[1]
        return
    with engine.connect() as conn:
        yield conn


class ClassStore:
    """Everything a student's session may do, and :meth:`teacher` for the rest."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """Reads inside share one connection (see :func:`reading`): for a page's or a fragment's refresh."""
        return reading(self.engine)

    # ------------------------------------------------------------------------------------------- rate limits
    def _allow(self, conn: sa.Connection, scope: str, limit: tuple[int, float], now: float) -> None:
        """Count one attempt in ``scope``; refuse when ``limit`` = (attempts, seconds) is already used up. Attempts
        older than the longest window are forgotten (every scope's, now and then: the table stays small)."""
        count, window = limit
        if secrets.randbelow(50) == 0:
            conn.execute(attempts.delete().where(attempts.c.at < now - LONGEST_WINDOW))
        used = conn.execute(
            sa.select(sa.func.count()).where(attempts.c.scope == scope, attempts.c.at >= now - window)
        ).scalar()
        if used >= count:
            raise RateLimited(f"Too many tries in a short time: wait {math.ceil(window)} seconds and try again.")
        conn.execute(attempts.insert().values(scope=scope, at=now))

    # ------------------------------------------------------------------------------------------------ classes
    def create_class(
        self, name: str, hours: float = DEFAULT_HOURS, now: float | None = None, session: str | None = None
    ) -> tuple[ClassInfo, str]:
        """A new class and its teacher key (returned once; only its hash is kept). ``session``: the browser session
        asking, rate-limited."""
        now = now or time.time()
        name = " ".join("".join(c for c in str(name or "") if c.isprintable()).split())[:MAX_CLASS_NAME]
        if not name:
            raise ClassError("Give the class a name (for example the course and the date).")
        if not (isinstance(hours, int | float) and 0 < hours <= MAX_HOURS):
            raise ClassError(f"A class lasts between a few minutes and {MAX_HOURS:.0f} hours.")
        key = names.new_secret()
        if session is not None:
            with self.engine.begin() as conn:  # counted (committed) before anything else can refuse
                self._allow(conn, f"create:{session}", CREATE_LIMIT, now)
        with self.engine.begin() as conn:
            for _ in range(20):
                code = names.new_code()
                if conn.execute(sa.select(classes.c.code).where(classes.c.code == code)).first() is None:
                    break
            else:  # pragma: no cover - 25^6 codes
                raise ClassError("Could not find a free class code; try again.")
            conn.execute(
                classes.insert().values(
                    code=code,
                    name=name,
                    teacher_key_hash=names.digest(key),
                    created_at=now,
                    expires_at=now + hours * 3600.0,
                    ended_at=None,
                    spotlight_run=None,
                    spotlight_named=False,
                )
            )
        return ClassInfo(code, name, now, now + hours * 3600.0, None), key

    def find(self, code: str) -> ClassInfo | None:
        with _reader(self.engine) as conn:
            row = conn.execute(sa.select(classes).where(classes.c.code == names.normal_code(code))).first()
        return None if row is None else _class_row(row)

    def get_class(self, code: str, now: float | None = None) -> ClassInfo:
        """The class behind a code a student typed or opened, or a :class:`ClassError` saying why not."""
        shown = names.normal_code(code)
        info = self.find(code) if shown else None
        if info is None:
            raise ClassError(f"There is no class with the code {shown or '(empty)'}: check the code on the projector.")
        if info.ended_at is not None:
            raise ClassError(f"The class {info.code} has ended.")
        if (now or time.time()) >= info.expires_at:
            raise ClassError(f"The class {info.code} has expired.")
        return info

    def teacher(self, code: str, key: str, now: float | None = None) -> Teacher:
        """The teacher's handle on a class, only against its key (wrong keys: at most 5 a minute per class)."""
        now = now or time.time()
        info = self.find(code)
        if info is None:
            raise ClassError(f"There is no class with the code {names.normal_code(code) or '(empty)'}.")
        with self.engine.begin() as conn:  # a wrong key is counted (committed) before it is refused
            stored = conn.execute(sa.select(classes.c.teacher_key_hash).where(classes.c.code == info.code)).scalar()
            wrong = not key or names.digest(str(key)) != stored
            if wrong:
                self._allow(conn, f"teacher-key:{info.code}", TEACHER_KEY_LIMIT, now)
        if wrong:
            raise ClassError("That is not this class's teacher key.")
        return Teacher(self, info.code)

    # ------------------------------------------------------------------------------------------------ members
    def join(
        self, code: str, name: str | None = None, now: float | None = None, session: str | None = None
    ) -> tuple[Member, str]:
        """Join a live class under ``name`` (a generated one when None). Returns the member and their token,
        which lets the same browser come back as the same student."""
        now = now or time.time()
        info = self.get_class(code, now)
        chosen = names.clean_name(name) if name is not None else None
        token = names.new_secret()

        def work(conn: sa.Connection) -> Member:
            # run again when another student took the same name at the same moment: then the name is taken
            self._allow(conn, f"join:{info.code}", JOIN_LIMIT, now)
            if session is not None:
                self._allow(conn, f"join-session:{session}", SESSION_JOIN_LIMIT, now)
            for _ in range(30):
                shown = chosen or names.generated_name()
                taken = conn.execute(
                    sa.select(members.c.id).where(
                        members.c.class_code == info.code, members.c.name_key == shown.casefold()
                    )
                ).first()
                if taken is None:
                    break
                if chosen is not None:
                    raise ClassError(f"Someone in this class is already called “{shown}”: pick another name.")
            result = conn.execute(
                members.insert().values(
                    class_code=info.code,
                    name=shown,
                    name_key=shown.casefold(),
                    token_hash=names.digest(token),
                    joined_at=now,
                    last_seen=now,
                    lesson=None,
                )
            )
            return Member(result.inserted_primary_key[0], info.code, shown)

        return transaction(self.engine, work), token

    def rejoin(self, code: str, token: str, now: float | None = None) -> Member | None:
        """The member a browser's token belongs to in a live class, or None."""
        if not token:
            return None
        info = self.get_class(code, now)
        with _reader(self.engine) as conn:
            row = conn.execute(
                sa.select(members).where(
                    members.c.class_code == info.code, members.c.token_hash == names.digest(str(token))
                )
            ).first()
        return None if row is None else Member(row.id, row.class_code, row.name)

    def touch(self, member: Member, lesson: str | None, now: float | None = None) -> None:
        """The student is here, on ``lesson`` (None: the class page)."""
        with self.engine.begin() as conn:
            conn.execute(
                members.update().where(members.c.id == member.id).values(last_seen=now or time.time(), lesson=lesson)
            )

    # ---------------------------------------------------------------------------------------------- questions
    def current_question(self, code: str) -> Question | None:
        """The class's latest question (open, closed or revealed), or None."""
        with _reader(self.engine) as conn:
            row = conn.execute(
                sa.select(questions)
                .where(questions.c.class_code == names.normal_code(code))
                .order_by(questions.c.id.desc())
                .limit(1)
            ).first()
        return None if row is None else _question_row(row)

    def answer(self, member: Member, question_id: int, response, now: float | None = None) -> None:
        """A student's answer (a choice's index, or a number) to the open question; answering again replaces it."""
        now = now or time.time()
        self.get_class(member.class_code, now)

        def work(conn: sa.Connection) -> None:
            self._allow(conn, f"answer:{member.id}", ANSWER_LIMIT, now)
            row = conn.execute(
                sa.select(questions).where(questions.c.id == question_id, questions.c.class_code == member.class_code)
            ).first()
            if row is None:
                raise ClassError("That question is not one of this class's.")
            if row.state != "open":
                raise ClassError("This question is closed: answers are no longer taken.")
            text = _answer_text(_question_row(row), response)
            given = {"question_id": question_id, "member_id": member.id, "answer": text, "at": now}
            upsert(conn, answers, given, ("question_id", "member_id"), {"answer": text, "at": now})

        transaction(self.engine, work)

    def my_answer(self, member: Member, question_id: int) -> str | None:
        with _reader(self.engine) as conn:
            return conn.execute(
                sa.select(answers.c.answer).where(
                    answers.c.question_id == question_id, answers.c.member_id == member.id
                )
            ).scalar()

    def answer_count(self, question_id: int) -> int:
        """How many have answered (the projector shows the count while answers arrive, never their content)."""
        with _reader(self.engine) as conn:
            return int(conn.execute(sa.select(sa.func.count()).where(answers.c.question_id == question_id)).scalar())

    def revealed_distribution(self, question_id: int) -> dict | None:
        """The answers' distribution once the teacher revealed it (None before)."""
        with _reader(self.engine) as conn:
            row = conn.execute(sa.select(questions).where(questions.c.id == question_id)).first()
        if row is None or row.state != "revealed":
            return None
        return _distribution(self.engine, _question_row(row))

    # -------------------------------------------------------------------------------------------------- sweeps
    def current_sweep(self, code: str, lesson: str) -> Sweep | None:
        """The open class sweep on ``lesson``, or None."""
        with _reader(self.engine) as conn:
            row = conn.execute(
                sa.select(sweeps)
                .where(
                    sweeps.c.class_code == names.normal_code(code), sweeps.c.lesson == lesson, sweeps.c.open.is_(True)
                )
                .order_by(sweeps.c.id.desc())
                .limit(1)
            ).first()
        return None if row is None else _sweep_row(row)

    def assignment(self, member: Member, sweep: Sweep) -> int:
        """The index of the setting this student runs in ``sweep``: given once, to the least-taken setting, so
        a class covers the grid evenly and each setting gets several students (its spread)."""
        mine = (assignments.c.sweep_id == sweep.id) & (assignments.c.member_id == member.id)
        with _reader(self.engine) as conn:  # the usual case, a student's page redrawn: one read, no lock
            given = conn.execute(sa.select(assignments.c.setting).where(mine)).scalar()
        if given is not None:
            return int(given)
        with self.engine.begin() as conn:
            # Hand-outs of one sweep take turns: touching the sweep's row first takes the write lock (SQLite) or the
            # row's lock (PostgreSQL) before the counts are read, so two students joining at once never both see
            # the same setting as the least taken (without it, racing students were given one setting twice).
            conn.execute(sweeps.update().where(sweeps.c.id == sweep.id).values(id=sweep.id))
            given = conn.execute(sa.select(assignments.c.setting).where(mine)).scalar()
            if given is not None:
                return int(given)
            counts = dict(
                conn.execute(
                    sa.select(assignments.c.setting, sa.func.count())
                    .where(assignments.c.sweep_id == sweep.id)
                    .group_by(assignments.c.setting)
                ).all()
            )
            index = min(range(len(sweep.settings)), key=lambda i: (counts.get(i, 0), i))
            conn.execute(assignments.insert().values(sweep_id=sweep.id, member_id=member.id, setting=index))
        return index

    def post_run(
        self,
        member: Member,
        lesson: str,
        settings: dict,
        curve: list,
        metrics: dict,
        snapshot: dict | None = None,
        sweep_id: int | None = None,
        now: float | None = None,
    ) -> int:
        """A finished training run, posted to the class (its settings, curve, final metrics, attention map)."""
        now = now or time.time()
        self.get_class(member.class_code, now)
        values = dict(
            settings=_finite_json(settings, "settings"),
            curve=_finite_json(curve, "curve"),
            metrics=_finite_json(metrics, "metrics"),
            snapshot=None if snapshot is None else _finite_json(snapshot, "attention map"),
        )
        with self.engine.begin() as conn:
            self._allow(conn, f"run:{member.id}", RUN_LIMIT, now)
            if sweep_id is not None:
                row = conn.execute(sa.select(sweeps.c.class_code).where(sweeps.c.id == sweep_id)).first()
                if row is None or row.class_code != member.class_code:
                    raise ClassError("That sweep is not one of this class's.")
            result = conn.execute(
                runs.insert().values(
                    class_code=member.class_code,
                    member_id=member.id,
                    sweep_id=sweep_id,
                    lesson=lesson,
                    posted_at=now,
                    **values,
                )
            )
        return int(result.inserted_primary_key[0])

    def check_exercise(
        self, member: Member, lesson: str, exercise: str, answer, correct: bool, now: float | None = None
    ) -> None:
        """A lesson exercise a student checked on their own page during the class (their latest answer is kept):
        the dashboard shows each exercise's answers as they come in."""
        now = now or time.time()
        self.get_class(member.class_code, now)
        row = {
            "class_code": member.class_code,
            "member_id": member.id,
            "exercise": str(exercise)[:100],
            "lesson": str(lesson)[:64],
            "answer": str(answer)[:MAX_ANSWER],
            "correct": bool(correct),
            "at": now,
        }
        latest = {k: v for k, v in row.items() if k not in ("member_id", "exercise")}

        def work(conn: sa.Connection) -> None:
            self._allow(conn, f"answer:{member.id}", ANSWER_LIMIT, now)
            upsert(conn, checked, row, ("member_id", "exercise"), latest)

        transaction(self.engine, work)

    def shared_models(self, code: str) -> list[dict]:
        """The models the teacher shared with the class: ``[{"id", "name", "bytes", "shared_at"}]``, newest first."""
        with _reader(self.engine) as conn:
            rows = conn.execute(
                sa.select(
                    shared_models.c.id,
                    shared_models.c.name,
                    sa.func.length(shared_models.c.data).label("size"),
                    shared_models.c.shared_at,
                )
                .where(shared_models.c.class_code == names.normal_code(code))
                .order_by(shared_models.c.id.desc())
            ).all()
        return [{"id": r.id, "name": r.name, "bytes": int(r.size), "shared_at": r.shared_at} for r in rows]

    def shared_model(self, code: str, model_id: int) -> tuple[str, bytes]:
        """``(file name, bytes)`` of one shared model of the class."""
        with _reader(self.engine) as conn:
            row = conn.execute(
                sa.select(shared_models.c.name, shared_models.c.data).where(
                    shared_models.c.id == model_id, shared_models.c.class_code == names.normal_code(code)
                )
            ).first()
        if row is None:
            raise ClassError("That model is not one this class shares.")
        return row.name, bytes(row.data)

    def purge_ended(self, now: float | None = None, after_days: float = PURGE_AFTER_DAYS) -> int:
        """Remove every class that ended (or expired) more than ``after_days`` ago, with everything it stored;
        returns how many. A teacher downloads and deletes a class's data when it ends; this forgets the rest."""
        cutoff = (now or time.time()) - after_days * 86400.0
        ended = sa.case((classes.c.ended_at < classes.c.expires_at, classes.c.ended_at), else_=classes.c.expires_at)
        with self.engine.begin() as conn:
            codes = [code for (code,) in conn.execute(sa.select(classes.c.code).where(ended < cutoff))]
            for code in codes:
                _delete_class(conn, code)
        return len(codes)

    def spotlight(self, code: str) -> tuple[Run, str | None] | None:
        """The run on the projector and the name to show with it (None: anonymous), or None."""
        info = self.find(code)
        if info is None or info.spotlight_run is None:
            return None
        found = _runs(self.engine, info.code, run_id=info.spotlight_run)
        if not found:
            return None
        return found[0], (found[0].member_name if info.spotlight_named else None)


def _answer_text(question: Question, response) -> str:
    if question.is_choice:
        index = question.choices.index(response) if response in question.choices else response
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(question.choices):
            raise ClassError("Pick one of the options.")
        return str(index)
    try:
        value = float(response)
    except (TypeError, ValueError):
        raise ClassError("That is not a number.") from None
    if not math.isfinite(value):
        raise ClassError("That is not a finite number.")
    return repr(value)[:MAX_ANSWER]


def _distribution(engine: sa.Engine, question: Question) -> dict:
    """``{"choices": [(text, count, is_truth)...]}`` for a choice question; ``{"values": [...], "truth": x}`` else."""
    with _reader(engine) as conn:
        given = [
            row.answer for row in conn.execute(sa.select(answers.c.answer).where(answers.c.question_id == question.id))
        ]
    if question.is_choice:
        counts = [0] * len(question.choices)
        for text in given:
            counts[int(text)] += 1
        truth = int(float(question.truth))
        return {
            "choices": [(c, n, i == truth) for i, (c, n) in enumerate(zip(question.choices, counts, strict=True))],
            "answered": len(given),
        }
    values = sorted(float(text) for text in given)
    truth = float(question.truth)
    right = sum(abs(v - truth) <= question.tolerance for v in values)
    return {"values": values, "truth": truth, "tolerance": question.tolerance, "right": right, "answered": len(given)}


def _runs(
    engine: sa.Engine,
    code: str,
    lesson: str | None = None,
    sweep_id: int | None = None,
    run_id: int | None = None,
    full: bool = True,
) -> list[Run]:
    # not full: without each run's curve and attention map, the bulk of a run, decoded from JSON on every read
    columns = runs.c if full else [c for c in runs.c if c.name not in ("curve", "snapshot")]
    query = (
        sa.select(*columns, members.c.name)
        .join(members, members.c.id == runs.c.member_id)
        .where(runs.c.class_code == code)
        .order_by(runs.c.id)
    )
    if lesson is not None:
        query = query.where(runs.c.lesson == lesson)
    if sweep_id is not None:
        query = query.where(runs.c.sweep_id == sweep_id)
    if run_id is not None:
        query = query.where(runs.c.id == run_id)
    with _reader(engine) as conn:
        return [_run_row(row, full) for row in conn.execute(query)]


class Teacher:
    """What only the class's teacher may do. Handed out by :meth:`ClassStore.teacher` against the key."""

    def __init__(self, store: ClassStore, code: str):
        self._store = store
        self.code = code

    @property
    def engine(self) -> sa.Engine:
        return self._store.engine

    def info(self) -> ClassInfo:
        found = self._store.find(self.code)
        if found is None:
            raise ClassError("This class's data has been deleted.")
        return found

    def _live(self) -> None:
        info = self.info()
        if not info.live():
            raise ClassError(f"The class {info.code} has {'ended' if info.ended_at else 'expired'}.")

    def presence(self, now: float | None = None) -> dict:
        """Who is here: ``{"joined": n, "here": n, "per_lesson": {lesson or "class page": n}, "names": [...]}``."""
        now = now or time.time()
        with _reader(self.engine) as conn:
            rows = conn.execute(
                sa.select(members.c.name, members.c.lesson, members.c.last_seen)
                .where(members.c.class_code == self.code)
                .order_by(members.c.name)
            ).all()
        here = [row for row in rows if row.last_seen >= now - PRESENT_SECONDS]
        per_lesson: dict[str, int] = {}
        for row in here:
            per_lesson[row.lesson or ""] = per_lesson.get(row.lesson or "", 0) + 1
        return {"joined": len(rows), "here": len(here), "per_lesson": per_lesson, "names": [r.name for r in here]}

    # questions
    def open_question(
        self, lesson: str, key: str, prompt: str, choices, truth, explanation: str, tolerance: float = 0.0
    ) -> Question:
        """Put a question to the class (the previous one closes). ``truth``: the choice's index or the number,
        as the lesson's code computed it."""
        self._live()
        choices = tuple(str(c) for c in choices or ())
        truth_text = str(int(truth)) if choices else repr(float(truth))
        with self.engine.begin() as conn:
            conn.execute(
                questions.update()
                .where(questions.c.class_code == self.code, questions.c.state == "open")
                .values(state="closed")
            )
            result = conn.execute(
                questions.insert().values(
                    class_code=self.code,
                    lesson=lesson,
                    key=key,
                    prompt=prompt,
                    choices=list(choices),
                    truth=truth_text,
                    explanation=explanation,
                    tolerance=float(tolerance),
                    state="open",
                    opened_at=time.time(),
                )
            )
        return Question(
            int(result.inserted_primary_key[0]),
            lesson,
            key,
            prompt,
            choices,
            truth_text,
            explanation,
            float(tolerance),
            "open",
        )

    def current_question(self) -> Question | None:
        """The class's latest question (open, closed or revealed), or None."""
        return self._store.current_question(self.code)

    def answer_count(self, question_id: int) -> int:
        return self._store.answer_count(question_id)

    def _set_question(self, question_id: int, state: str) -> None:
        with self.engine.begin() as conn:
            done = conn.execute(
                questions.update()
                .where(questions.c.id == question_id, questions.c.class_code == self.code)
                .values(state=state)
            )
        if done.rowcount == 0:
            raise ClassError("That question is not one of this class's.")

    def close_question(self, question_id: int) -> None:
        self._set_question(question_id, "closed")

    def reveal(self, question_id: int) -> dict:
        """Close the question and show the answers' distribution next to the truth."""
        self._set_question(question_id, "revealed")
        return self.distribution(question_id)

    def distribution(self, question_id: int) -> dict:
        with _reader(self.engine) as conn:
            row = conn.execute(
                sa.select(questions).where(questions.c.id == question_id, questions.c.class_code == self.code)
            ).first()
        if row is None:
            raise ClassError("That question is not one of this class's.")
        return _distribution(self.engine, _question_row(row))

    # sweeps and runs
    def start_sweep(self, lesson: str, settings: list[dict], labels: dict | None = None) -> Sweep:
        """Hand the class a grid of settings on ``lesson`` (each student gets one); an earlier sweep there closes."""
        self._live()
        settings = [dict(s) for s in settings]
        if not settings or len(settings) > 64:
            raise ClassError("A class sweep has between 1 and 64 settings.")
        labels = dict(labels or {})
        with self.engine.begin() as conn:
            conn.execute(
                sweeps.update().where(sweeps.c.class_code == self.code, sweeps.c.lesson == lesson).values(open=False)
            )
            result = conn.execute(
                sweeps.insert().values(
                    class_code=self.code,
                    lesson=lesson,
                    settings=_finite_json(settings, "settings"),
                    labels=labels,
                    open=True,
                    created_at=time.time(),
                )
            )
        return Sweep(int(result.inserted_primary_key[0]), lesson, tuple(settings), labels, True)

    def close_sweep(self, sweep_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                sweeps.update().where(sweeps.c.id == sweep_id, sweeps.c.class_code == self.code).values(open=False)
            )

    def sweeps(self) -> list[Sweep]:
        with _reader(self.engine) as conn:
            rows = conn.execute(sa.select(sweeps).where(sweeps.c.class_code == self.code).order_by(sweeps.c.id)).all()
        return [_sweep_row(row) for row in rows]

    def exercises(self) -> list[dict]:
        """Each lesson exercise the students checked on their own pages: how many answered, how many right, and
        the answers given with their counts (most given first)."""
        with _reader(self.engine) as conn:
            rows = conn.execute(
                sa.select(checked.c.lesson, checked.c.exercise, checked.c.answer, checked.c.correct)
                .where(checked.c.class_code == self.code)
                .order_by(checked.c.lesson, checked.c.exercise)
            ).all()
        out: dict[str, dict] = {}
        for row in rows:
            entry = out.setdefault(
                row.exercise, {"lesson": row.lesson, "exercise": row.exercise, "answered": 0, "right": 0, "answers": {}}
            )
            entry["answered"] += 1
            entry["right"] += bool(row.correct)
            entry["answers"][row.answer] = entry["answers"].get(row.answer, 0) + 1
        for entry in out.values():
            entry["answers"] = dict(sorted(entry["answers"].items(), key=lambda kv: -kv[1]))
        return list(out.values())

    def runs(self, lesson: str | None = None, sweep_id: int | None = None, full: bool = True) -> list[Run]:
        """The class's runs; ``full=False``: without their curves and attention maps (empty), which the dashboard's
        table and pooled sweeps never read, so its refresh every 2 s does not decode them for every run."""
        return _runs(self.engine, self.code, lesson=lesson, sweep_id=sweep_id, full=full)

    def spotlit(self) -> tuple[Run, str | None] | None:
        """The run on the projector and the name to show with it (None: anonymous), or None."""
        return self._store.spotlight(self.code)

    def spotlight(self, run_id: int | None, named: bool = False) -> None:
        """Put one run on the projector (anonymous unless ``named``); None takes it down."""
        if run_id is not None and not _runs(self.engine, self.code, run_id=run_id):
            raise ClassError("That run is not one of this class's.")
        with self.engine.begin() as conn:
            conn.execute(
                classes.update()
                .where(classes.c.code == self.code)
                .values(spotlight_run=run_id, spotlight_named=bool(named and run_id is not None))
            )

    def share_model(self, name: str, data: bytes) -> int:
        """Share a model file with the class (students load it on their Your own data page)."""
        self._live()
        if not data or len(data) > MAX_SHARED_MODEL:
            raise ClassError(f"A shared model file is at most {MAX_SHARED_MODEL // 1_000_000} MB.")
        with self.engine.begin() as conn:
            result = conn.execute(
                shared_models.insert().values(
                    class_code=self.code, name=str(name)[:200], data=bytes(data), shared_at=time.time()
                )
            )
        return int(result.inserted_primary_key[0])

    # after class
    def end(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                classes.update()
                .where(classes.c.code == self.code, classes.c.ended_at.is_(None))
                .values(ended_at=time.time())
            )

    def export(self) -> dict[str, list[dict]]:
        """Everything the class stored, table by table (no keys, no tokens): for CSV and JSON downloads."""
        with _reader(self.engine) as conn:
            info = (
                conn.execute(
                    sa.select(
                        classes.c.code, classes.c.name, classes.c.created_at, classes.c.expires_at, classes.c.ended_at
                    ).where(classes.c.code == self.code)
                )
                .mappings()
                .all()
            )
            people = (
                conn.execute(
                    sa.select(members.c.id, members.c.name, members.c.joined_at, members.c.last_seen, members.c.lesson)
                    .where(members.c.class_code == self.code)
                    .order_by(members.c.id)
                )
                .mappings()
                .all()
            )
            asked = (
                conn.execute(sa.select(questions).where(questions.c.class_code == self.code).order_by(questions.c.id))
                .mappings()
                .all()
            )
            given = (
                conn.execute(
                    sa.select(answers.c.question_id, members.c.name, answers.c.answer, answers.c.at)
                    .join(members, members.c.id == answers.c.member_id)
                    .where(members.c.class_code == self.code)
                    .order_by(answers.c.question_id, answers.c.at)
                )
                .mappings()
                .all()
            )
            own = (
                conn.execute(
                    sa.select(
                        checked.c.lesson,
                        checked.c.exercise,
                        members.c.name,
                        checked.c.answer,
                        checked.c.correct,
                        checked.c.at,
                    )
                    .join(members, members.c.id == checked.c.member_id)
                    .where(checked.c.class_code == self.code)
                    .order_by(checked.c.at)
                )
                .mappings()
                .all()
            )
            grids = (
                conn.execute(sa.select(sweeps).where(sweeps.c.class_code == self.code).order_by(sweeps.c.id))
                .mappings()
                .all()
            )
        trained = [
            {
                "id": r.id,
                "student": r.member_name,
                "lesson": r.lesson,
                "sweep": r.sweep_id,
                "settings": r.settings,
                "metrics": r.metrics,
                "curve": r.curve,
                "snapshot": r.snapshot,
                "posted_at": r.posted_at,
            }
            for r in self.runs()
        ]
        return {
            "class": [dict(r) for r in info],
            "students": [dict(r) for r in people],
            "questions": [dict(r) for r in asked],
            "answers": [dict(r) for r in given],
            "exercises": [dict(r) for r in own],
            "sweeps": [dict(r) for r in grids],
            "runs": trained,
        }

    def delete(self) -> None:
        """Remove the class and everything it stored."""
        with self.engine.begin() as conn:
            _delete_class(conn, self.code)


def _delete_class(conn: sa.Connection, code: str) -> None:
    """Remove class ``code`` and everything it stored, in ``conn``'s transaction."""
    ids = sa.select(members.c.id).where(members.c.class_code == code)
    question_ids = sa.select(questions.c.id).where(questions.c.class_code == code)
    sweep_ids = sa.select(sweeps.c.id).where(sweeps.c.class_code == code)
    conn.execute(answers.delete().where(answers.c.question_id.in_(question_ids)))
    conn.execute(assignments.delete().where(assignments.c.sweep_id.in_(sweep_ids)))
    conn.execute(runs.delete().where(runs.c.class_code == code))
    conn.execute(checked.delete().where(checked.c.class_code == code))
    conn.execute(shared_models.delete().where(shared_models.c.class_code == code))
    conn.execute(sweeps.delete().where(sweeps.c.class_code == code))
    conn.execute(questions.delete().where(questions.c.class_code == code))
    conn.execute(
        attempts.delete().where(
            attempts.c.scope.in_(
                [f"{kind}:{i}" for (i,) in conn.execute(ids) for kind in ("answer", "run")]
                + [f"join:{code}", f"teacher-key:{code}"]
            )
        )
    )
    conn.execute(members.delete().where(members.c.class_code == code))
    conn.execute(classes.delete().where(classes.c.code == code))
