"""A lesson's tables (``ui.table``, ``ui.text_table``): a static table shows every header and cell as the text it is
(Streamlit reads Markdown there), and on a phone a table of words is a static table whose cells wrap, while a table
of measured numbers stays a data frame with its formats."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import ui.charts
from tests.helpers import ROOT, table_as_read

MARKDOWN = "**bold** $x^2$ :red[red] - 1. [a](b) ~s~ <b>tag</b> :tada:"


def _words(rows) -> bool:
    return ui.charts._words_only(pd.DataFrame(rows))


def test_words_beside_whole_numbers_are_words_and_a_measured_number_is_not():
    assert _words([{"head": 1, "English": "Japan (Japan) 100%"}])
    assert not _words([{"model": "RNN", "exact match": 0.93}])  # keeps the data frame's format
    assert not _words([{"step": 1, "n": 5}])  # no words: nothing to wrap
    assert not _words([])
    many = [{"line": n, "why it was skipped": "one column"} for n in range(ui.charts.WRAPPED_ROWS + 1)]
    assert not _words(many) and _words(many[:-1])  # a long one scrolls within its own height


def _page():
    import ui

    ui.text_table([{"line": 1, "source ($)": "**bold** $x^2$ :red[red] - 1. [a](b) ~s~ <b>tag</b> :tada:"}])


def test_a_static_table_shows_markdown_as_the_text_it_is():
    at = AppTest.from_function(_page).run()
    assert not at.exception
    shown = table_as_read(at.table[0])
    assert list(shown.columns) == ["line", "source ($)"] and shown["source ($)"].iloc[0] == MARKDOWN
    assert shown["line"].iloc[0] == 1  # a number stays a number


def _lesson_tables():
    import ui

    ui.table([{"from": "English", "into English": "the friend does not cook my pizza in Japan"}])
    ui.table([{"model": "RNN", "exact match": 0.93}])


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_on_a_phone_a_table_of_words_wraps_and_numbers_stay_a_data_frame(phone, monkeypatch):
    monkeypatch.setattr(ui.charts, "narrow_screen", lambda: phone)
    at = AppTest.from_function(_lesson_tables).run()
    assert not at.exception
    assert len(at.table) == (1 if phone else 0) and len(at.dataframe) == (1 if phone else 2)
    if phone:
        assert table_as_read(at.table[0])["into English"].iloc[0] == "the friend does not cook my pizza in Japan"


def test_every_table_of_a_page_goes_through_ui_charts():
    """``st.table`` reads Markdown in a student's text, and ``st.dataframe`` skips the phone's wrapping: pages and the
    UI layer draw tables with ``ui.table`` or ``ui.text_table`` only."""
    direct = re.compile(r"\bst\.(table|dataframe)\(")
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        if path.name != "charts.py" or path.parent.name != "ui"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if direct.search(line)
    ]
    assert found == [], found
