"""The class store: classes, their students, questions, answers, training runs, and each learner's progress.

Pure Python on SQLAlchemy Core (no Streamlit): the UI layer opens it through ``st.connection`` (``ui.classroom``),
the tests and ``bench/class_session.py`` open it directly with :func:`open_store`. An embedded SQLite file by
default (WAL, busy timeout: nothing to set up), PostgreSQL when a URL is configured, for a department server
with several replicas. The schema is versioned (:mod:`store.schema`): opening a store upgrades it in place and
keeps every class and learner already stored.

Trust: what only a teacher may do (the dashboard's data, reveal, spotlight, hand-out, export, delete, end) is a
method of :class:`store.classes.Teacher`, which only :meth:`ClassStore.teacher` hands out, against the class's
teacher key (stored hashed, wrong keys rate-limited). A student's session holds a :class:`Member`, never a key.

Concurrent first writes are single upserts or transactions run again (:mod:`store.writes`); only a database that
cannot be reached reads as such (:func:`unreachable`). Classes that ended more than
:data:`~store.classes.PURGE_AFTER_DAYS` ago and learners idle for :data:`~store.learners.KEEP_DAYS` are removed
(:meth:`ClassStore.purge_ended`, :meth:`Learners.purge_idle`).
"""

from store.classes import ClassInfo, ClassStore, Member, Question, Run, Teacher
from store.db import DEFAULT_SQLITE, database_url, open_engine, open_store
from store.errors import ClassError, RateLimited, StoreError, StoreUnavailable
from store.learners import Learners
from store.names import clean_name, generated_name
from store.writes import unreachable

__all__ = [
    "DEFAULT_SQLITE",
    "ClassError",
    "ClassInfo",
    "ClassStore",
    "Learners",
    "Member",
    "Question",
    "RateLimited",
    "Run",
    "StoreError",
    "StoreUnavailable",
    "Teacher",
    "clean_name",
    "database_url",
    "generated_name",
    "open_engine",
    "open_store",
    "unreachable",
]
