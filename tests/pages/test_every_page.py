"""Every page runs under Streamlit's AppTest without an exception, and its controls answer."""

import math

import pytest

from lessons.common import catalog
from lessons.common.catalog import built_lessons
from tests.helpers import ROOT, answer_exercise, open_page, table_as_read

PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


def test_home_page_lists_every_lesson():
    at = open_page()
    text = " ".join(m.value for m in at.markdown)
    from lessons.common.catalog import COURSE, all_lessons

    tools = ["Tools"] if any(tool.built for tool in catalog.TOOLS) else []
    assert [h.value for h in at.header] == [part.title for part in COURSE] + tools  # the three parts, in order
    links = {link.proto.page: link.proto.label for link in at.main.get("page_link")}
    for lesson in all_lessons():
        assert lesson.promise in text  # every lesson with its one-line promise
        if lesson.built:
            assert lesson.title in links[lesson.url_path]
        else:
            assert lesson.title in text and lesson.url_path not in links  # listed as "coming", without a link


def test_every_page_file_is_on_the_course_map():
    tools = [tool.page for tool in catalog.TOOLS if tool.built]
    assert sorted([lesson.page for lesson in built_lessons()] + tools) == PAGES


WIDGETS = (
    "button",
    "checkbox",
    "multiselect",
    "number_input",
    "radio",
    "select_slider",
    "selectbox",
    "slider",
    "text_area",
    "text_input",
    "toggle",
)


@pytest.mark.parametrize("lesson", built_lessons(), ids=lambda lesson: lesson.slug)
def test_every_lesson_page_runs_and_is_set_up_from_its_catalog_entry(lesson):
    at = open_page(lesson.page)
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == [lesson.title]  # ui.lesson: the title from the catalog
    keys = [w.key for kind in WIDGETS for w in getattr(at, kind) if w.key]
    keys = [k.removeprefix("FormSubmitter:") for k in keys if not k.startswith("ui.")]  # the sidebar's own
    assert keys and all(k.startswith(f"{lesson.slug}.") for k in keys), keys  # one name: the key prefix
    assert any(c.value == lesson.sources for c in at.caption)  # ui.page_tail: the catalog's sources
    links = [link.proto.label for link in at.main.get("page_link")]
    following = catalog.next_lesson(lesson.slug)
    assert links[-1] == (f"Next: {following.title}" if following else "Back to the course map")


QKV = "pages/queries_keys_values.py"


def test_qkv_shows_the_lecture_numbers():
    at = open_page(QKV)
    table = table_as_read(at.table[0])
    assert list(table["Thinking"]) == ["112", "14", "0.88", "0.88 · v₁"]
    assert list(table["Machines"]) == ["96", "12", "0.12", "0.12 · v₂"]


def test_qkv_sentence_input_refuses_empty_and_long_text_and_keeps_the_last_one():
    at = open_page(QKV)
    at.text_input(key="queries_keys_values.sentence").set_value("I like pizza").run()
    assert not at.warning
    assert at.session_state["queries_keys_values.tokens"] == ("I", "like", "pizza")
    for bad in ["", "   ", "word " * 200]:
        at.text_input(key="queries_keys_values.sentence").set_value(bad).run()
        assert not at.exception
        assert at.warning and "Showing the last sentence that worked" in at.warning[0].value
        assert at.session_state["queries_keys_values.tokens"] == ("I", "like", "pizza")


def test_qkv_hostile_text_is_accepted_as_plain_tokens():
    at = open_page(QKV)
    at.text_input(key="queries_keys_values.sentence").set_value(
        "<script>alert(1)</script> 🙂 שלום '; DROP TABLE x;--"
    ).run()
    assert not at.exception and not at.warning
    assert at.session_state["queries_keys_values.tokens"][0] == "<script>alert(1)</script>"


def test_qkv_controls_rerun_cleanly():
    at = open_page(QKV)
    at.select_slider(key="queries_keys_values.d_k").set_value(256).run()
    assert [m.value for m in at.metric] == ["0.731", "0.269"]
    at.selectbox(key="queries_keys_values.query").set_value("people").run()
    at.slider(key="queries_keys_values.sharpness").set_value(20.0).run()
    at.select_slider(key="queries_keys_values.d_model").set_value(64).run()
    at.select_slider(key="queries_keys_values.matrix_d_k").set_value(2).run()
    at.number_input(key="queries_keys_values.seed").set_value(7).run()
    assert not at.exception


def test_qkv_exercises_are_checked():
    at = open_page(QKV)
    answer_exercise(at, "queries_keys_values.ex1", 1 / (1 + math.e))  # by hand: softmax(112/8, 104/8)[1]
    assert any(s.value.startswith("Right") for s in at.success)
    answer_exercise(at, "queries_keys_values.ex2", 0.5)
    assert any("Not quite" in w.value and "Worked answer" in w.value for w in at.warning)
