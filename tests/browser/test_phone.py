"""Every page on a phone (390 × 844 px, touch), in a real Chromium: nothing sticks out past the right edge, and every
control is big enough for a finger. Measured once per page (``tests/browser/audit.py``)."""

import re

import pytest

from tests.browser.audit import pages, serious, visit

pytestmark = pytest.mark.browser


KNOWN: dict = {}  # pages with a known overflow, each with its reason (none today)


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=KNOWN[p]) if p in KNOWN else p for p in pages()], ids=lambda path: path or "home"
)
def test_nothing_sticks_out_past_the_right_edge_of_a_phone(path, browser, streamlit_server):
    found = visit(browser, streamlit_server, path)
    assert not found["exceptions"], found["exceptions"]
    layout = found["overflow"]
    assert layout["windowWidth"] == 390
    assert layout["documentWidth"] <= layout["windowWidth"], "the page scrolls sideways"
    # a wide equation, table or chart may scroll inside its own box; nothing may leave the page
    assert layout["stickingOut"] == [], layout["stickingOut"]


@pytest.mark.parametrize("path", pages(), ids=lambda path: path or "home")
def test_every_equation_fits_a_phones_width(path, browser, streamlit_server):
    """A display equation wider than the screen scrolls inside its box, and a reader sees its first part as if it
    were the whole (the attention bridge's showed A and hid M = AH): an equation of several parts is written in lines
    (``\\begin{gathered}``)."""
    wide = visit(browser, streamlit_server, path)["equations"]
    assert wide == [], wide


@pytest.mark.parametrize("path", pages(), ids=lambda path: path or "home")
def test_every_control_is_a_touch_target_of_24_px(path, browser, streamlit_server):
    """WCAG 2.2's target size (2.5.8): 24 × 24 px, or that much room around a smaller one (axe-core's rule)."""
    targets = [v for v in serious(visit(browser, streamlit_server, path)["axe"]) if v["id"] == "target-size"]
    assert targets == [], targets


# pages with a chart whose text still overlaps on a phone, each with its reason
OVERLAPPING: dict = {}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=OVERLAPPING[p]) if p in OVERLAPPING else p for p in pages()],
    ids=lambda path: path or "home",
)
def test_no_two_text_boxes_of_a_chart_overlap_on_a_phone(path, browser, streamlit_server):
    """Every Plotly chart's title, panel titles, tick labels, axis titles, the words beside its points and bars and
    its legend's (``audit.CHART_TEXT_OVERLAPS_JS``)."""
    found = visit(browser, streamlit_server, path)["chart_texts"]
    overlaps = found["overlaps"]
    assert overlaps == [], f"{len(overlaps)} overlaps in {found['charts']} charts, the first: {overlaps[:8]}"


@pytest.mark.parametrize("path", pages(), ids=lambda path: path or "home")
def test_a_table_that_scrolls_sideways_says_so(path, browser, streamlit_server):
    """A data frame's columns scroll inside its grid, and a static table's inside its box; on a phone nothing shows
    there is more to the right (no scroll bar until touched): a data frame says so under it, a static table above
    it (as a chart does); one that fits says nothing."""
    seen = visit(browser, streamlit_server, path)
    frames = seen["data_frames"]
    wrong = [f for f in frames if f["scrolls"] != f["says"]]
    assert wrong == [], wrong
    covered = [f for f in frames if f["says"] and f["room"] < f["line"] - 1]  # the words under the grid, not on it
    assert covered == [], covered
    static = seen["static_tables"]  # a static table's box says so above it
    assert [t for t in static if t["scrolls"] != t["says"]] == [], static


def test_the_course_map_links_are_finger_sized(browser, streamlit_server):
    links = visit(browser, streamlit_server, "")["links"]
    assert len(links) >= 12  # every lesson of the map is a link (and the tools that exist)
    small = [link for link in links if link["height"] < 24 or link["width"] < 24]
    assert small == [], small


def test_the_course_map_lists_the_lessons_in_course_order_on_a_phone(browser, streamlit_server):
    """Streamlit stacks a row's columns on a phone: the map's lessons, numbered in course order, read top to bottom
    in that order."""
    links = visit(browser, streamlit_server, "")["links"]
    numbered = [link for link in links if re.search(r"\d+\. ", link["text"])]  # after the icon's name
    assert len(numbered) >= 12
    in_order = sorted(numbered, key=lambda link: link["top"])
    top_to_bottom = [int(re.search(r"(\d+)\. ", link["text"]).group(1)) for link in in_order]
    assert top_to_bottom == sorted(top_to_bottom), top_to_bottom
