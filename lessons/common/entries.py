"""The shape of the catalog's entries: a :class:`Lesson` (with the :class:`Axis` settings a class sweep may hand
out), the :class:`Part` of the course it belongs to, and a :class:`Tool` (a page that is not a lesson). The entries
themselves are in :mod:`lessons.common.catalog`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Axis:
    """One setting of a lesson's training panel that a teacher can spread over the class (a class sweep): the
    widget's key, what the student reads, and the values the teacher may hand out. A student's setting is written
    into the widget's session state before the page draws it."""

    key: str  # the widget's key, "<slug>.…"
    label: str
    values: tuple


@dataclass(frozen=True)
class Lesson:
    slug: str  # the lesson's one name in every layer (see the module docstring)
    title: str  # as it appears on the course map, the sidebar and the page's title
    promise: str  # one line: what the student will see or be able to do
    icon: str  # a Material icon for st.page_link
    tab_icon: str  # the browser tab's icon
    introduces: tuple[str, ...] = ()  # the concepts this lesson teaches first (a later lesson may use them)
    results: tuple[str, ...] = ()  # shipped results it draws, relative to the repo root
    pretrained: tuple[tuple[str, str], ...] = ()  # shipped checkpoints it loads: (task, model name)
    sources: str = ""  # the lectures and papers it follows, as the page credits them (markdown)
    sweep: tuple[Axis, ...] = ()  # the training panel's settings a teacher can hand out in a class sweep

    @property
    def page(self) -> str:
        """The page file, relative to the repo root (what st.page_link takes)."""
        return f"pages/{self.slug}.py"

    @property
    def built(self) -> bool:
        return (ROOT / self.page).is_file()

    @property
    def url_path(self) -> str:
        """The path Streamlit serves the page at: the page file's name without ``.py``."""
        return self.slug

    @property
    def module_name(self) -> str:
        return f"lessons.{self.slug}"

    def module(self) -> ModuleType:
        """The lesson's pure-Python module (text, numbers, exercises, chart builders)."""
        return importlib.import_module(self.module_name)

    @property
    def results_script(self) -> str:
        return f"scripts/{self.slug}_results.py"


@dataclass(frozen=True)
class Part:
    title: str
    lessons: tuple[Lesson, ...]


@dataclass(frozen=True)
class Tool:
    """A page that is not a lesson: the class (teacher and students in one link) and the learner's own data.

    Its ``slug`` names ``pages/<slug>.py`` and, when it has pure code of its own, ``lessons/<slug>.py``; the course
    map and the sidebar list it under "Tools" once its page exists."""

    slug: str
    title: str
    promise: str
    icon: str  # a Material icon for st.page_link
    tab_icon: str  # the browser tab's icon

    @property
    def page(self) -> str:
        return f"pages/{self.slug}.py"

    @property
    def built(self) -> bool:
        return (ROOT / self.page).is_file()
