"""The catalog declares each lesson once, and everything else follows from it.

The last test adds a thirteenth lesson the way README says a maintainer would (a catalog entry, a lessons module,
a short page), in a copy of the app kept only for the test, and checks that it appears on the course map and in
the sidebar, that its page runs, and that the twelfth lesson's "Next" link leads to it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lessons.common import catalog, pretrained
from tests.helpers import ROOT


def test_every_lesson_has_one_name_in_every_layer():
    slugs = [entry.slug for entry in catalog.all_lessons()]
    assert slugs and len(slugs) == len(set(slugs))
    for entry in catalog.all_lessons():
        assert entry.built, entry.page
        module = entry.module()  # the package lessons/<slug>/
        assert hasattr(module, "__path__"), f"{entry.module_name} is a package, a module per section"
        assert callable(getattr(module, "exercises", None)), f"{entry.module_name} has no exercises()"
        assert (ROOT / "tests" / "pages" / f"test_{entry.slug}.py").is_file()
        assert list((ROOT / "tests" / "lessons" / entry.slug).glob("test_*.py")), entry.slug
        for path in entry.results:
            assert (ROOT / path).is_file(), path
            own = Path(path).stem == entry.slug or Path(path).stem.startswith(f"{entry.slug}_")  # transformer_depth
            assert own or path in _shared_results(), path
        if entry.results and Path(entry.results[0]).stem == entry.slug:
            assert (ROOT / entry.results_script).is_file(), entry.results_script
        for task, model in entry.pretrained:
            assert (ROOT / "assets" / "checkpoints" / f"{task}-{model}").is_dir(), (task, model)
            assert (task, model) in pretrained.available(), (task, model)  # what ui.pretrained(task, model) loads


def _shared_results() -> set[str]:
    """Results that are another lesson's own, which a lesson may borrow (scaling draws the scoring race)."""
    return {path for entry in catalog.all_lessons() for path in entry.results if Path(path).stem == entry.slug}


def test_only_lessons_live_in_the_lessons_folder():
    slugs = {entry.slug for entry in catalog.all_lessons()}
    tools = {entry.slug for entry in catalog.TOOLS}  # a tool may have pure code of its own there
    names = {p.stem for p in (ROOT / "lessons").iterdir() if p.name != "__pycache__" and not p.name.startswith(".")}
    assert slugs <= names - {"__init__", "common"} <= slugs | tools


def test_every_page_file_is_a_lesson_or_a_tool_in_the_catalog():
    pages = {p.stem for p in (ROOT / "pages").glob("*.py")}
    lessons = {entry.slug for entry in catalog.all_lessons()}
    assert lessons <= pages <= lessons | {entry.slug for entry in catalog.TOOLS}
    assert not lessons & {entry.slug for entry in catalog.TOOLS}


def test_next_lesson_follows_course_order_and_the_last_has_none():
    order = catalog.all_lessons()
    for before, after in zip(order, order[1:], strict=False):
        assert catalog.next_lesson(before.slug) == after
    assert catalog.next_lesson(order[-1].slug) is None
    assert [catalog.number(entry.slug) for entry in order] == list(range(1, len(order) + 1))


def test_an_unknown_slug_names_the_known_ones():
    with pytest.raises(KeyError, match="scaling"):
        catalog.lesson("no_such_lesson")


THIRTEENTH_ENTRY = """

# Added by tests/lessons/common/test_catalog.py in a throwaway copy of the app.
THIRTEENTH = Lesson(slug="thirteenth", title="A thirteenth lesson", promise="Added by writing a catalog entry.",
                    icon=":material/add:", tab_icon="➕", sources="Sources: the README on adding a lesson.")
COURSE = (*COURSE, Part("Part 4 · Beyond", (THIRTEENTH,)))
"""

THIRTEENTH_MODULE = '''
"""A lesson that exists only in a test: one softmax, one exercise."""

import math

from lessons.common.exercises import Exercise


def softmax(scores):
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    return [x / sum(e) for x in e]


def chart(scores):
    return {"mark": "bar", "data": {"values": [{"i": i, "w": w} for i, w in enumerate(softmax(scores))]},
            "encoding": {"x": {"field": "i", "type": "ordinal"}, "y": {"field": "w", "type": "quantitative"}}}


def exercises():
    return [Exercise(key="thirteenth.ex1", prompt="Which score wins?", choices=("the first", "the second"),
                     answer=1, explanation="The larger score gets the larger weight.")]
'''

THIRTEENTH_PAGE = '''
"""Lesson: a thirteenth lesson (kept only in tests)."""

import streamlit as st

import ui
from lessons import thirteenth

lesson = ui.lesson("thirteenth")
st.markdown("Two scores, one softmax.")
ui.vega(thirteenth.chart([1.0, 2.0]), key="thirteenth.chart")
ui.page_tail(lesson, exercises=thirteenth.exercises())
'''

DRIVER = """
import json
from streamlit.testing.v1 import AppTest

home = AppTest.from_file("app.py", default_timeout=60).run()
out = {"home_exception": [e.value for e in home.exception],
       "home_links": [link.proto.label for link in home.get("page_link")]}
page = AppTest.from_file("app.py", default_timeout=60).run()
page.switch_page("pages/thirteenth.py").run()
out["page_exception"] = [e.value for e in page.exception]
out["page_title"] = [t.value for t in page.title]
out["page_links"] = [link.proto.label for link in page.get("page_link")]
from lessons.common import catalog, pretrained
out["after_twelve"] = catalog.next_lesson("attention_bridge").slug
print(json.dumps(out))
"""


def test_a_thirteenth_lesson_added_through_the_catalog_appears_on_the_map(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy(ROOT / "app.py", app / "app.py")
    for folder in ("ui", "lessons", "pages", ".streamlit"):
        shutil.copytree(ROOT / folder, app / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("minimodels", "store", "assets"):
        (app / folder).symlink_to(ROOT / folder)
    with open(app / "lessons" / "common" / "catalog.py", "a", encoding="utf-8") as f:
        f.write(THIRTEENTH_ENTRY)
    (app / "lessons" / "thirteenth.py").write_text(textwrap.dedent(THIRTEENTH_MODULE), encoding="utf-8")
    (app / "pages" / "thirteenth.py").write_text(textwrap.dedent(THIRTEENTH_PAGE), encoding="utf-8")

    run = subprocess.run([sys.executable, "-c", DRIVER], cwd=app, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["home_exception"] == [] and out["page_exception"] == []
    assert any("A thirteenth lesson" in label for label in out["home_links"])  # the course map
    assert out["page_title"] == ["A thirteenth lesson"]  # set up from its catalog entry
    assert "A thirteenth lesson" in out["page_links"]  # the sidebar
    assert "Back to the course map" in out["page_links"]  # its tail: the last lesson now
    assert out["after_twelve"] == "thirteenth"  # the twelfth lesson's Next link
