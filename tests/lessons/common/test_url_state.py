"""Shareable state: a lesson's settings come from its link, refused values fall back with a note, and the
link follows the widgets (lessons.common.url_state, ui.linked)."""

import pytest
from streamlit.testing.v1 import AppTest

from lessons.common import url_state
from lessons.common.url_state import LinkValueError
from tests.helpers import open_page as open_with

QKV = "pages/queries_keys_values.py"
BAHDANAU = "pages/bahdanau_attention.py"


def link_notes(at: AppTest) -> list[str]:
    return [c.value for c in at.caption if "link_off" in c.value]


# --- the pure parsers --------------------------------------------------------------------------------------


def test_parse_number_accepts_finite_values_in_range():
    assert url_state.parse_number(" 16 ", 0, 64, integer=True) == 16
    assert url_state.parse_number("16.0", 0, 64, integer=True) == 16
    assert url_state.parse_number("0.5", 0.0, 1.0, integer=False) == 0.5


@pytest.mark.parametrize("raw", ["", " ", "abc", "nan", "inf", "-inf", "1e400", "65", "-1", "2.5", "0x10", "12abc"])
def test_parse_number_refuses_with_a_reason(raw):
    with pytest.raises(LinkValueError) as refused:
        url_state.parse_number(raw, 0, 64, integer=True)
    assert str(refused.value).startswith("it ")


def test_parse_choice_matches_the_value_or_its_label():
    tasks = {"dates": "Dates → ISO", "copy": "Copy"}
    assert url_state.parse_choice("copy", list(tasks), tasks.get) == "copy"
    assert url_state.parse_choice("Dates → ISO", list(tasks), tasks.get) == "dates"
    assert url_state.parse_choice("16", [2, 16, 64]) == 16
    for raw in ("Copy ", "<script>", "", "16.0"):
        with pytest.raises(LinkValueError):
            url_state.parse_choice(raw, [2, 16, 64] if raw == "16.0" else list(tasks), tasks.get)


def test_parse_text_and_bool():
    assert url_state.parse_text("I like pizza", 500) == "I like pizza"
    with pytest.raises(LinkValueError, match="longer than 500"):
        url_state.parse_text("x" * 501, 500)
    with pytest.raises(LinkValueError, match=f"longer than {url_state.MAX_PARAM_CHARS}"):
        url_state.parse_text("x" * 10_000, None)
    assert url_state.parse_bool("1") and url_state.parse_bool("TRUE") and not url_state.parse_bool("0")
    with pytest.raises(LinkValueError):
        url_state.parse_bool("maybe")


def test_to_param_and_shown():
    assert [url_state.to_param(v) for v in (16, 4.0, 0.5, True, False, "dates")] == [
        "16",
        "4",
        "0.5",
        "1",
        "0",
        "dates",
    ]
    assert url_state.shown("x" * 100) == "x" * url_state.SHOWN_CHARS + "…"


# --- pages opened from a link ---------------------------------------------------------------------------------


def test_a_link_opens_the_lesson_as_set():
    params = {
        "matrix_d_k": "16",
        "d_model": "32",
        "seed": "7",
        "query": "people",
        "sharpness": "4.5",
        "d_k": "4",
        "sentence": "I like pizza",
    }
    at = open_with(QKV, params)
    assert at.select_slider(key="queries_keys_values.matrix_d_k").value == 16
    assert at.select_slider(key="queries_keys_values.d_model").value == 32
    assert at.number_input(key="queries_keys_values.seed").value == 7
    assert at.selectbox(key="queries_keys_values.query").value == "people"
    assert at.slider(key="queries_keys_values.sharpness").value == 4.5
    assert at.select_slider(key="queries_keys_values.d_k").value == 4
    assert at.session_state["queries_keys_values.tokens"] == ("I", "like", "pizza")
    assert not link_notes(at)
    assert at.query_params["matrix_d_k"] == "16"  # kept in the link


def test_refused_link_values_fall_back_to_defaults_with_a_note():
    params = {
        "matrix_d_k": "abc",
        "seed": "1e400",
        "query": "<script>alert(1)</script>",
        "sharpness": "nan",
        "d_k": "-1",
        "d_model": "99999999999999999999",
        "sentence": "x" * 5000,
    }
    at = open_with(QKV, params)
    assert at.select_slider(key="queries_keys_values.matrix_d_k").value == 8
    assert at.number_input(key="queries_keys_values.seed").value == 0
    assert at.slider(key="queries_keys_values.sharpness").value == 3.0
    assert at.select_slider(key="queries_keys_values.d_model").value == 16
    notes = link_notes(at)
    assert len(notes) == len(params), notes
    assert any("`seed=1e400`" in n and "not a finite number" in n for n in notes)
    assert any("`query=<script>alert(1)</script>`" in n for n in notes)  # quoted as code, never markup
    assert not at.query_params  # the refused values left the link


def test_the_link_follows_the_widgets_and_drops_defaults():
    at = open_with(QKV, {})
    at.select_slider(key="queries_keys_values.matrix_d_k").set_value(32).run()
    at.number_input(key="queries_keys_values.seed").set_value(12).run()
    assert at.query_params["matrix_d_k"] == "32" and at.query_params["seed"] == "12"
    at.select_slider(key="queries_keys_values.matrix_d_k").set_value(8).run()  # back to the default: out of the link
    assert "matrix_d_k" not in at.query_params and at.query_params["seed"] == "12"


def test_a_task_link_uses_the_short_task_name():
    at = open_with(BAHDANAU, {"task": "dates", "beam": "2"})
    assert at.selectbox(key="bahdanau_attention.task").value == "dates"
    assert at.slider(key="bahdanau_attention.beam").value == 2
    assert not link_notes(at)


def toggles_and_multiselects():
    import streamlit as st

    import ui

    heads = ui.linked(st.multiselect, "Heads", [1, 2, 3, 4], default=[1], key="lab.heads")
    mask = ui.linked(st.toggle, "Causal mask", value=True, key="lab.mask")
    st.write(f"heads {heads} mask {mask}")


def run_function(params: dict) -> AppTest:
    at = AppTest.from_function(toggles_and_multiselects)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_toggle_and_a_multiselect_in_the_link():
    at = run_function({"heads": ["2", "3", "3"], "mask": "0"})
    assert at.markdown[0].value == "heads [2, 3] mask False" and not link_notes(at)
    at = run_function({"heads": ["9"], "mask": "maybe"})
    assert at.markdown[0].value == "heads [1] mask True"
    assert [note.split(" was not used: ")[1] for note in link_notes(at)] == [
        "it is not one of the choices. Showing the default.",
        "it is neither on (1) nor off (0). Showing the default.",
    ]
    assert "`heads=9`" in link_notes(at)[0] and "`mask=maybe`" in link_notes(at)[1]
    at.multiselect(key="lab.heads").set_value([2, 4]).run()
    at.toggle(key="lab.mask").set_value(False).run()
    assert at.query_params["heads"] == ["2", "4"] and at.query_params["mask"] == "0"
    at.multiselect(key="lab.heads").set_value([1]).run()
    assert "heads" not in at.query_params


def test_a_linked_widgets_signature_read_once_is_the_one_python_reads_for_it():
    """ui.linked binds a call's arguments to the widget's signature, read once per widget function: on the page's
    own widget, a column's (a bound method of another object) and a sidebar's, it is what inspect reads."""
    import inspect

    import streamlit as st

    from ui.links import _signature

    for kind in (
        "slider",
        "select_slider",
        "selectbox",
        "radio",
        "number_input",
        "text_input",
        "text_area",
        "toggle",
        "checkbox",
        "multiselect",
    ):
        for widget in (getattr(st, kind), getattr(st.sidebar, kind)):
            assert _signature(widget) == inspect.signature(widget), kind
            assert "self" not in _signature(widget).parameters
