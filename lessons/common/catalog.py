"""The course, declared once: every lesson of Attention Lab, in order, with what it needs.

One :class:`Lesson` entry per lesson drives the course map (``app.py``), the sidebar, each page's set-up
(``ui.lesson``), the "Next: …" links and the tests that walk every page. Its ``slug`` is the lesson's one name in
every layer:

==================  ==============================================================================
page                ``pages/<slug>.py`` (served at ``/<slug>``)
lesson code         the package ``lessons/<slug>/``: ``__init__`` (the introduction, ``exercises()``) and
                    one module per section of the page
session-state keys  ``"<slug>.…"``
results script      ``scripts/<slug>_results.py``
shipped results     ``assets/results/<slug>.json``
tests               ``tests/lessons/<slug>/test_<module>.py``, ``tests/pages/test_<slug>.py``
==================  ==============================================================================

A lesson whose page file does not exist yet is not built: the course map lists it as "coming", without a link.
Adding a lesson copies nothing: an entry in its part's module (``part<N>.py``), its lessons package, a short
page, its tests (README, "Adding a lesson"). The shape of an entry is in :mod:`lessons.common.entries`.
"""

from __future__ import annotations

from lessons.common import part1, part2, part3, part4  # each part's entries, in course order
from lessons.common.entries import ROOT as ROOT  # the repository's root: lessons find their assets from it
from lessons.common.entries import Lesson, Part, Tool

COURSE: tuple[Part, ...] = (part1.PART, part2.PART, part3.PART, part4.PART)


TOOLS: tuple[Tool, ...] = (
    Tool(
        slug="classroom",
        title="Class",
        promise="Start a class or join one: polls, predict-then-reveal, class sweeps, spotlight.",
        icon=":material/groups:",
        tab_icon="🧑‍🏫",
    ),
    Tool(
        slug="own_data",
        title="Your own data",
        promise="Bring sentence pairs in any language, train a model on them, keep it, bring it back.",
        icon=":material/upload_file:",
        tab_icon="📄",
    ),
)


def tool(slug: str) -> Tool:
    for entry in TOOLS:
        if entry.slug == slug:
            return entry
    raise KeyError(f"no tool {slug!r}; the tools are {', '.join(t.slug for t in TOOLS)}")


def all_lessons() -> list[Lesson]:
    return [lesson for part in COURSE for lesson in part.lessons]


def built_lessons() -> list[Lesson]:
    return [lesson for lesson in all_lessons() if lesson.built]


def lesson(slug: str) -> Lesson:
    """The catalog entry of a lesson; ``KeyError`` naming the known slugs when there is none."""
    for entry in all_lessons():
        if entry.slug == slug:
            return entry
    raise KeyError(f"no lesson {slug!r} in the catalog; known: {', '.join(e.slug for e in all_lessons())}")


def next_lesson(slug: str) -> Lesson | None:
    """The built lesson after this one in course order, or None for the last."""
    order = all_lessons()
    index = next(i for i, entry in enumerate(order) if entry.slug == slug)
    return next((entry for entry in order[index + 1 :] if entry.built), None)


def number(slug: str) -> int:
    """The lesson's number on the course map (1-based, in course order)."""
    return next(i for i, entry in enumerate(all_lessons(), 1) if entry.slug == slug)
