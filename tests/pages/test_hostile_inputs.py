"""Bad input, everywhere: every text box, number box and link parameter of every built lesson gets hostile
values. No exception, a message where a value is refused, the page still works afterwards, and no typed text
is ever rendered as HTML.

Cost: each round sets every box of a page at once (box k gets value k + round of the corpus), so every box
sees several values and the corpus is covered across boxes, in a handful of runs per page. Lessons built
later are walked automatically (``built_lessons()``).
"""

import math

import pytest
from streamlit.testing.v1 import AppTest

from lessons.common.catalog import built_lessons
from tests.helpers import open_page

MARKER = "hostile-7f3a"  # in every markup value, to find it wherever it lands
TEXTS = [
    "",
    "   \t  ",
    "x" * 10_000,
    "🙂🤖🧠 " * 20,
    "שלום עולם مرحبا بالعالم",
    "a\x00b\x07c\x1b[31md\u202ee\u200bf",
    f"<script>alert('{MARKER}')</script>",
    f"<b>{MARKER}</b><img src=x onerror=alert(1)>",
    f"'; DROP TABLE students; -- {MARKER}",
    "**bold** [link](javascript:alert(1)) $x$ `code`",
]
NUMBERS = [1e308, -1e308, float("nan"), -1.0, 1e12, 0.5]
PARAMS = ["", "   ", "x" * 3000, f"<script>{MARKER}</script>", "nan", "-1e400", "🙂", "1; DROP TABLE x"]
ROUNDS = 2
LESSONS = built_lessons()


def assert_healthy(at: AppTest, title: str) -> None:
    assert not at.exception, at.exception
    assert at.title and at.title[0].value == title, "the page no longer draws its title"
    for node in at._tree:  # no user text as HTML: only our own fixed stylesheet is ever raw HTML
        if node.type == "html" or getattr(node, "allow_html", False):
            assert MARKER not in node.value, f"typed text rendered as HTML: {node.value[:120]!r}"


def boxes(at: AppTest) -> list:
    """Every text and number box a student can type into (a disabled one cannot be typed into)."""
    return [box for box in (*at.text_input, *at.text_area, *at.number_input) if not box.proto.disabled]


def hostile_value(box, k: int):
    if box.type == "number_input":
        value = NUMBERS[k % len(NUMBERS)]
        if box.proto.data_type == box.proto.INT and not math.isfinite(value):
            return (
                int(1e12) if value != value else int(math.copysign(1e12, value))
            )  # a browser sends no NaN to an int box
        return value
    return TEXTS[k % len(TEXTS)]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.url_path)
def test_every_box_survives_hostile_values(lesson):
    at = open_page(lesson.page)
    assert_healthy(at, lesson.title)
    keys = [box.key for box in boxes(at)]
    assert keys, "a lesson with no text or number box: nothing to walk"
    for round_ in range(ROUNDS):
        refused_text = False
        for k, box in enumerate(boxes(at)):
            value = hostile_value(box, k + round_)
            box.set_value(value)
            refused_text |= box.type != "number_input" and not str(value).strip()
            if box.key and box.key.endswith(".answer"):  # an exercise: its form commits on "Check"
                at.button(key=f"FormSubmitter:{box.key.removesuffix('.answer')}.form-Check").click()
        at.run()
        assert_healthy(at, lesson.title)
        if refused_text:  # an empty sentence is refused with a message, never silently
            assert at.warning or at.error or at.info, "an empty text box got no message"
    for box in boxes(at):  # back to the page's own values: it still answers
        box.set_value(box.proto.default if box.proto.HasField("default") else None)
    at.run()
    assert_healthy(at, lesson.title)
    assert [box.key for box in boxes(at)] == keys


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.url_path)
def test_every_link_parameter_survives_hostile_values(lesson):
    keys = {node.key for node in open_page(lesson.page)._tree if isinstance(getattr(node, "key", None), str)}
    params = sorted(key.split(".", 1)[1] for key in keys if "." in key and ":" not in key)
    for round_ in range(2):
        values = {p: PARAMS[(k + round_ * 3) % len(PARAMS)] for k, p in enumerate(params)}
        at = open_page(lesson.page, values)
        assert_healthy(at, lesson.title)
        notes = [c.value for c in at.caption if "link_off" in c.value]
        for param in at.session_state["ui.linked"] if "ui.linked" in at.session_state else ():  # noqa: SIM401
            used = at.query_params.get(param) == values[param]
            assert used or any(f"`{param}=" in note for note in notes), f"{param}={values[param][:20]!r}: no note"
