"""A page drawn whole in the normal scales leaves its figures' high-contrast twins to be made later, when no page is
being drawn (``ui.server.later``): the class's first student to switch high contrast on then waits for no figure to
be built or prepared. A section's own control, rerunning its fragment, leaves none (few switch over each new value),
nor does a page drawn in high contrast."""

from __future__ import annotations

import pytest

from tests.helpers import open_page, plotly_specs
from ui import charts as ui_charts
from ui import server
from ui.kept import Kept
from ui.style import CONTRAST_KEY

PAGE = "pages/masking.py"


@pytest.fixture
def later(monkeypatch):
    """What the page leaves for later, kept here instead of in the server's thread; caches empty, as on a fresh
    server, so that every figure is made now."""
    left: list = []
    monkeypatch.setattr(server, "later", left.append)
    monkeypatch.setattr(ui_charts, "_BUILT", Kept(512))
    monkeypatch.setattr(ui_charts, "_DRAWN", Kept(512))
    return left


def test_the_first_switch_to_high_contrast_finds_every_figure_made(later, monkeypatch):
    at = open_page(PAGE)
    assert len(later) >= len(plotly_specs(at)) > 0  # a twin for each figure the page made
    for work in later:
        work()
    prepared = []
    prepare = ui_charts._prepare
    monkeypatch.setattr(ui_charts, "_prepare", lambda fig, *flags: prepared.append(flags) or prepare(fig, *flags))
    at.toggle(key=f"{CONTRAST_KEY}.toggle").set_value(True).run()
    assert not at.exception
    assert prepared == []  # nothing built or prepared while the student waits
    normal = {s["layout"].get("title", {}).get("text") for s in plotly_specs(open_page(PAGE))}
    assert {s["layout"].get("title", {}).get("text") for s in plotly_specs(at)} == normal  # the same figures


def test_a_fragments_rerun_leaves_nothing_for_later(monkeypatch):
    """AppTest reruns the whole script for every widget: the fragment's rerun is read from Streamlit's own run
    context, as the server has it."""
    from streamlit.runtime.scriptrunner_utils import script_run_context

    class Run:
        fragment_ids_this_run: list = []

    monkeypatch.setattr(script_run_context, "get_script_run_ctx", lambda **_: Run)
    assert not server.fragment_rerun() and ui_charts._twin_wanted((False, False, False))
    Run.fragment_ids_this_run = ["a section's fragment"]
    assert server.fragment_rerun() and not ui_charts._twin_wanted((False, False, False))
    assert not ui_charts._twin_wanted((False, True, False))  # in high contrast already: no twin


def test_a_page_drawn_in_high_contrast_leaves_nothing_for_later(later):
    open_page(PAGE, params={"contrast": "high"})
    assert later == []
