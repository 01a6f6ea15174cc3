"""The catalog declares each lesson once, and everything else follows from it.

The last test adds a thirteenth lesson by README's "Adding a lesson" steps alone (its catalog entry, its package, its
page, its tests), in a throwaway copy of the repository, and runs the fast suite there: the course map, the sidebar,
the "Next" links, the order of concepts, the code's shape and every page's walk must all take the new lesson.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


# A thirteenth lesson, written by README's "Adding a lesson" steps alone: the files below, by their paths there.
THIRTEENTH = {
    # 1. the catalog entry, in a part of its own
    "lessons/common/catalog.py": """

THIRTEENTH = Lesson(
    slug="thirteenth",
    title="A thirteenth lesson",
    promise="Added by README's steps alone.",
    icon=":material/add:",
    tab_icon="➕",
    introduces=("a thirteenth idea",),
    sources="Sources: the README on adding a lesson.",
)
COURSE = (*COURSE, Part("Part 4 · Beyond", (THIRTEENTH,)))
""",
    # ... and the words that signal its concept on a page, for the order test
    "tests/lessons/common/test_lesson_order.py": """

SIGNALS["a thirteenth idea"] = (r"\\bthirteenth idea\\b",)
""",
    # ... and its letters, in its part's table of symbols
    "lessons/common/symbol_tables.py": """

PART_4 = (*PART_4, Symbol("w₁, w₂", "the softmax's two weights", ("thirteenth",)))
""",
    # 2. the lesson's package: its introduction and exercises, and one module per section
    "lessons/thirteenth/__init__.py": '''"""A thirteenth lesson: one softmax. Sections: :mod:`.softmax`."""

from lessons.common.exercises import Exercise
from lessons.thirteenth import softmax

INTRO = (
    "Two scores go in, two weights come out. The softmax makes every score positive with an exponential and divides "
    "by their sum, so the weights add up to one and keep the scores' order. Change a score by one and its weight "
    "changes by a factor of e against the other's. This is the step every attention takes after it scores."
)


def exercises() -> list[Exercise]:
    return [softmax.which_wins()]
''',
    "lessons/thirteenth/softmax.py": '''"""Section 1: the softmax of two scores."""

import math

from lessons.common.exercises import Exercise

TITLE = "1 · A softmax"
TEXT = (
    "The larger score gets the larger weight, and only the gap between the two scores matters: adding the same "
    "number to both changes nothing. The bars below are the two weights of the scores 1 and 2."
)


def softmax(scores: list[float]) -> list[float]:
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    return [x / sum(e) for x in e]


def chart(scores: list[float]) -> dict:
    values = [{"i": i, "w": w} for i, w in enumerate(softmax(scores))]
    encoding = {"x": {"field": "i", "type": "ordinal"}, "y": {"field": "w", "type": "quantitative"}}
    return {"mark": "bar", "data": {"values": values}, "encoding": encoding}


def which_wins() -> Exercise:
    return Exercise(
        key="thirteenth.ex1",
        prompt="Which score wins?",
        choices=("the first", "the second"),
        answer=1,
        explanation=TEXT,
    )
''',
    # 3. the page
    "pages/thirteenth.py": '''"""Lesson: a thirteenth lesson."""

import ui
from lessons import thirteenth
from lessons.thirteenth import softmax

lesson = ui.lesson("thirteenth", thirteenth.INTRO)
ui.symbols("thirteenth")
ui.section(softmax.TITLE, softmax.TEXT)
ui.vega(softmax.chart([1.0, 2.0]), key="thirteenth.chart")
ui.page_tail(lesson, code=[("The code", (softmax.softmax,))], exercises=thirteenth.exercises())
''',
    # 4. its tests: a test file per section module, and the page under AppTest
    "tests/lessons/thirteenth/__init__.py": "",
    "tests/lessons/thirteenth/test_softmax.py": """from lessons.thirteenth import softmax


def test_the_weights_sum_to_one_and_the_larger_score_wins():
    weights = softmax.softmax([1.0, 2.0])
    assert abs(sum(weights) - 1) < 1e-12 and weights[1] > weights[0]
""",
    "tests/pages/test_thirteenth.py": """from tests.helpers import open_page


def test_the_page_opens_with_its_section_and_its_exercise():
    at = open_page("pages/thirteenth.py")
    assert not at.exception, at.exception
    assert [h.value for h in at.header][0] == "1 · A softmax"
""",
}


def _adding_a_lesson() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme[readme.index("### Adding a lesson") : readme.index("## The `minimodels` core")]


def test_readme_names_every_file_the_thirteenth_lesson_needed():
    steps = _adding_a_lesson()
    for path in THIRTEENTH:
        named = path.replace("softmax", "<section>").replace("thirteenth", "<slug>")
        assert f"`{named}`" in steps, f"README's steps do not name {named}"


@pytest.mark.slow  # the fast suite, once more, in a copy of the repository
def test_a_thirteenth_lesson_added_by_the_readmes_steps_keeps_the_fast_suite_green(tmp_path):
    copy = tmp_path / "repo"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source, target = ROOT / name, copy / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    for name, text in THIRTEENTH.items():
        path = copy / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:  # the catalog gains an entry; every other file is new
            f.write(text)
    # The copy's run makes its own class store and temporary files, in a folder of its own that it must leave empty.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ATTENTION_LAB_"))}
    env["TMPDIR"] = str(scratch)
    fast = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow and not browser"]
    report = tmp_path / "fast.xml"
    run = subprocess.run(
        [*fast, "-x", f"--junitxml={report}", f"--basetemp={tmp_path / 'basetemp'}"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    # torch's compile cache (made when a test imports torch.optim to compare with it) is one a user, used again
    left = [path.name for path in scratch.iterdir() if not path.name.startswith("torchinductor_")]
    assert left == [], "a test run left temporary files behind"
    ran = report.read_text(encoding="utf-8")
    assert 'name="test_the_weights_sum_to_one_and_the_larger_score_wins"' in ran  # its section's test ran there
    assert 'name="test_every_lesson_page_runs_and_is_set_up_from_its_catalog_entry[thirteenth]"' in ran
    collected = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "tests/lessons/thirteenth",
            "tests/pages/test_thirteenth.py",
        ],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "test_thirteenth.py::" in collected  # its page test is in the full suite (slow: pages are walked whole)
