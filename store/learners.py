"""A learner alone: progress kept without an account, under a learner key the learner holds.

The key lives in the learner's browser (a cookie) or in their link, as they choose; the store keeps only its hash.
What is kept: the lessons visited, each exercise answered (the answer and whether it was right), and the last place
read (the lesson and the section or exercise), so the course map can say done / in progress and "resume" can open
where they stopped. :meth:`Learners.wipe` forgets all of it.
"""

from __future__ import annotations

import re
import time

import sqlalchemy as sa

from store import names
from store.errors import StoreError
from store.schema import learners, solved, visits
from store.writes import transaction, upsert

KEY_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{20,64}$")
MAX_PLACE = 200
KEEP_DAYS = 400.0  # a learner not seen for this long is forgotten (the browser's key lasts a year)


def valid_key(key: str | None) -> bool:
    return bool(key) and bool(KEY_PATTERN.match(str(key)))


class Learners:
    def __init__(self, engine: sa.Engine):
        self.engine = engine

    @staticmethod
    def fresh_key() -> str:
        """A new learner key, not stored yet: the first write that names it (a visit, an answer) stores it, in the
        same transaction, so a student's first page open costs one transaction less than :meth:`new_key`'s."""
        return names.new_secret()

    def new_key(self, now: float | None = None) -> str:
        """A new learner key, stored now (the lessons use :meth:`fresh_key`, stored by their first write)."""
        key = self.fresh_key()
        now = now or time.time()
        with self.engine.begin() as conn:
            conn.execute(learners.insert().values(key_hash=names.digest(key), created_at=now, updated_at=now))
        return key

    def _hash(self, key: str, conn: sa.Connection, now: float) -> str:
        """The stored learner for ``key``, created if this is the first time the store sees it (a key from a
        link made on another server of the same course is welcome; two first writes at once store it once)."""
        if not valid_key(key):
            raise StoreError("That learner key is not one this course makes.")
        hashed = names.digest(key)
        upsert(conn, learners, {"key_hash": hashed, "created_at": now, "updated_at": now}, ("key_hash",))
        return hashed

    def visit(self, key: str, lesson: str, place: str | None = None, now: float | None = None) -> None:
        """The learner opened ``lesson`` (and is at ``place``, a section or exercise anchor, when known)."""
        now = now or time.time()

        def work(conn: sa.Connection) -> None:
            hashed = self._hash(key, conn, now)
            first = {"key_hash": hashed, "lesson": lesson, "first_at": now, "last_at": now}
            upsert(conn, visits, first, ("key_hash", "lesson"), {"last_at": now})
            values = {"last_lesson": lesson, "updated_at": now}
            if place is not None:
                values["last_place"] = str(place)[:MAX_PLACE]
            else:
                current = conn.execute(sa.select(learners.c.last_lesson).where(learners.c.key_hash == hashed)).scalar()
                if current != lesson:
                    values["last_place"] = None
            conn.execute(learners.update().where(learners.c.key_hash == hashed).values(**values))

        transaction(self.engine, work)

    def solve(self, key: str, lesson: str, exercise: str, answer, correct: bool, now: float | None = None) -> None:
        """An exercise answered (the latest answer is kept; once right, it stays solved)."""
        now = now or time.time()

        def work(conn: sa.Connection) -> None:
            hashed = self._hash(key, conn, now)
            row = {"key_hash": hashed, "exercise": exercise, "lesson": lesson, "answer": str(answer)[:100], "at": now}
            upsert(
                conn,
                solved,
                {**row, "correct": bool(correct)},
                ("key_hash", "exercise"),
                lambda new: {
                    "lesson": new.lesson,
                    "answer": new.answer,
                    "at": new.at,
                    "correct": sa.or_(solved.c.correct, new.correct),
                },
            )
            conn.execute(
                learners.update()
                .where(learners.c.key_hash == hashed)
                .values(last_lesson=lesson, last_place=exercise, updated_at=now)
            )

        transaction(self.engine, work)

    def answers(self, key: str) -> dict[str, tuple[str, bool]]:
        """Every exercise the learner answered: ``{exercise key: (answer, right)}``."""
        if not valid_key(key):
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(solved.c.exercise, solved.c.answer, solved.c.correct).where(
                    solved.c.key_hash == names.digest(key)
                )
            ).all()
        return {row.exercise: (row.answer, bool(row.correct)) for row in rows}

    def set_exercises(self, key: str, lesson: str, count: int, now: float | None = None) -> None:
        """How many exercises ``lesson`` showed the learner: the lesson is done once that many are answered right."""
        now = now or time.time()

        def work(conn: sa.Connection) -> None:
            first = {"key_hash": self._hash(key, conn, now), "lesson": lesson, "first_at": now, "last_at": now}
            upsert(conn, visits, {**first, "exercises": int(count)}, ("key_hash", "lesson"), {"exercises": int(count)})

        transaction(self.engine, work)

    def progress(self, key: str, exercises_per_lesson: dict[str, int] | None = None) -> dict[str, str]:
        """``{lesson: "done" | "in progress"}`` for the lessons the learner opened. Done: every one of the lesson's
        exercises answered right (how many: ``exercises_per_lesson``, else what the lesson last showed)."""
        if not valid_key(key):
            return {}
        hashed = names.digest(key)
        with self.engine.connect() as conn:
            shown = dict(
                conn.execute(sa.select(visits.c.lesson, visits.c.exercises).where(visits.c.key_hash == hashed)).all()
            )
            opened = list(shown)
            right = dict(
                conn.execute(
                    sa.select(solved.c.lesson, sa.func.count())
                    .where(solved.c.key_hash == hashed, solved.c.correct.is_(True))
                    .group_by(solved.c.lesson)
                ).all()
            )
        states = {}
        for lesson in set(opened) | set(right):
            needed = (exercises_per_lesson or {}).get(lesson, shown.get(lesson) or 0)
            states[lesson] = "done" if needed and right.get(lesson, 0) >= needed else "in progress"
        return states

    def resume(self, key: str) -> tuple[str, str | None] | None:
        """``(lesson, place)`` where the learner stopped, or None."""
        if not valid_key(key):
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(learners.c.last_lesson, learners.c.last_place).where(learners.c.key_hash == names.digest(key))
            ).first()
        return None if row is None or row.last_lesson is None else (row.last_lesson, row.last_place)

    def purge_idle(self, now: float | None = None, after_days: float = KEEP_DAYS) -> int:
        """Forget every learner not seen for ``after_days`` (visits, answers, place, key); returns how many."""
        cutoff = (now or time.time()) - after_days * 86400.0
        idle = sa.select(learners.c.key_hash).where(learners.c.updated_at < cutoff)
        with self.engine.begin() as conn:
            conn.execute(solved.delete().where(solved.c.key_hash.in_(idle)))
            conn.execute(visits.delete().where(visits.c.key_hash.in_(idle)))
            return conn.execute(learners.delete().where(learners.c.updated_at < cutoff)).rowcount

    def wipe(self, key: str) -> None:
        """Forget the learner: visits, answers, place, and the key itself."""
        if not valid_key(key):
            return
        hashed = names.digest(key)
        with self.engine.begin() as conn:
            conn.execute(solved.delete().where(solved.c.key_hash == hashed))
            conn.execute(visits.delete().where(visits.c.key_hash == hashed))
            conn.execute(learners.delete().where(learners.c.key_hash == hashed))
