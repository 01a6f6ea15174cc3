"""Presenter mode: ?present=1 or the sidebar toggle; larger text and figures, explanations folded, every
control kept, and it follows the teacher from page to page."""

import json

import pytest
from streamlit.testing.v1 import AppTest

import ui
from lessons.common import catalog, vega
from tests.helpers import open_page

QKV = "pages/queries_keys_values.py"
INTRO = "Attention is a **soft lookup**"  # the Q/K/V lesson's first explanation


def stylesheet_on(at: AppTest) -> bool:
    return any(node.value == ui.PRESENTER_CSS for node in at.get("html"))


def heights(at: AppTest) -> list[int]:
    return [json.loads(chart.proto.spec)["layout"]["height"] for chart in at.get("plotly_chart")]


def intro_folded(at: AppTest) -> bool:
    return any(INTRO in m.value for e in at.expander if e.label == "Explanation" for m in e.markdown)


def test_normal_mode_shows_the_explanations_and_no_stylesheet():
    at = open_page(QKV)
    assert not stylesheet_on(at) and not intro_folded(at)
    assert any(INTRO in m.value for m in at.main.markdown)
    assert at.toggle(key="ui.present.toggle").value is False


def test_present_link_turns_it_on_and_keeps_every_control():
    plain = open_page(QKV)
    at = open_page(QKV, {"present": "1"})
    assert at.toggle(key="ui.present.toggle").value is True
    assert stylesheet_on(at) and intro_folded(at)
    assert [h for h in heights(at)] == [int(h * ui.PRESENTER_SCALE) for h in heights(plain)]
    widgets = ("select_slider", "selectbox", "slider", "number_input", "text_input", "button")
    for kind in widgets:  # the controls that matter are all still there
        assert [w.key for w in getattr(at, kind)] == [w.key for w in getattr(plain, kind)], kind


def test_it_follows_the_teacher_to_the_next_page_and_switches_off():
    at = open_page(QKV, {"present": "true"})
    at.switch_page("pages/rnn_cells.py").run()
    assert not at.exception and stylesheet_on(at)
    assert at.query_params.get("present") == "1"  # the address bar says so: a copied link presents too
    at.toggle(key="ui.present.toggle").set_value(False).run()
    assert not stylesheet_on(at) and "present" not in at.query_params


def test_a_hostile_present_value_is_off():
    at = open_page(QKV, {"present": "<script>alert(1)</script>"})
    assert not stylesheet_on(at) and at.toggle(key="ui.present.toggle").value is False


def test_the_stylesheet_is_fixed_text():
    assert ui.PRESENTER_CSS.startswith("<style>") and ui.PRESENTER_CSS.endswith("</style>")
    assert "{" in ui.PRESENTER_CSS and "<script" not in ui.PRESENTER_CSS


def test_vega_charts_get_presenter_sizes_too():
    def softmax_specs(at: AppTest) -> list[dict]:
        specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
        titles = [s.get("title", "") for s in specs]
        return [
            s
            for s, t in zip(specs, titles, strict=True)
            if (t if isinstance(t, str) else t["text"]).endswith("of softmax")
        ]

    plain = softmax_specs(open_page("pages/scaling.py"))
    shown = softmax_specs(open_page("pages/scaling.py", {"present": "1"}))
    assert len(plain) == len(shown) == 3
    for before, after in zip(plain, shown, strict=True):
        assert "labelFontSize" not in before["encoding"]["x"]["axis"]
        assert after["encoding"]["x"]["axis"]["labelFontSize"] == vega.AXIS_PRESENTER["labelFontSize"]
        assert after["title"] == {"text": before["title"], "fontSize": vega.TITLE_PRESENTER}
        assert after["height"] == int(before["height"] * ui.PRESENTER_SCALE)


@pytest.mark.parametrize("lesson", catalog.all_lessons(), ids=lambda lesson: lesson.slug)
def test_every_lesson_opens_in_presenter_mode(lesson):
    """Presenter mode takes other paths through a page (explanations folded, larger figures): every lesson page
    opens in it without an exception, with the stylesheet on."""
    at = open_page(lesson.page, params={ui.PRESENT_PARAM: "1"})
    assert not at.exception, at.exception[0].value if at.exception else ""
    assert stylesheet_on(at) and at.title[0].value == lesson.title
