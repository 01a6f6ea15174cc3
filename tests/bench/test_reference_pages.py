"""The pages the browser benches measure against (``bench/bare_heatmap.py``, ``bench/weighted_page.py``) run
and draw what their docstrings say: a yardstick that broke would make every ratio meaningless."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import ROOT, plotly_array


def run(script: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "bench" / script), default_timeout=60)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def heatmap_shape(at: AppTest) -> tuple[int, int]:
    (chart,) = at.get("plotly_chart")
    (trace,) = json.loads(chart.proto.spec)["data"]
    return plotly_array(trace["z"]).shape


def test_the_bare_page_draws_one_heatmap_of_the_size_asked_and_its_slider_redraws_it():
    at = run("bare_heatmap.py", rows="6", cols="9")
    assert heatmap_shape(at) == (6, 9)
    first = at.get("plotly_chart")[0].proto.spec
    at.slider[0].set_value(7).run()
    assert at.get("plotly_chart")[0].proto.spec != first


@pytest.mark.parametrize("static", [0, 25])
def test_the_weighted_page_is_the_bare_page_among_that_many_unchanging_paragraphs(static):
    at = run("weighted_page.py", rows="4", cols="5", static=str(static))
    assert heatmap_shape(at) == (4, 5)
    assert len(at.markdown) == static
    assert len(at.header) == (static // 2 + 9) // 10 + (static - static // 2 + 9) // 10
    paragraphs = [m.value for m in at.markdown]
    at.slider[0].set_value(3).run()
    assert not at.exception, at.exception
    assert [m.value for m in at.markdown] == paragraphs


def test_the_same_weight_reference_holds_the_lessons_charts_tables_and_element_count():
    """``bench.same_weight``: the reference page given a lesson's counts holds as many elements, Plotly figures
    (its own heatmap among them), Vega-Lite charts and tables as the lesson, and its slider still redraws."""
    from bench.same_weight import reference_query, weight
    from tests.helpers import open_page

    lesson = weight(open_page("pages/masking.py"))
    query, got = reference_query(lesson, 3, 5)
    assert got == lesson
    params = dict(part.split("=") for part in query.split("&"))
    at = run("weighted_page.py", **params)
    assert weight(at) == lesson
    first = [c.proto.spec for c in at.get("plotly_chart")]
    at.slider[0].set_value(9).run()
    after = [c.proto.spec for c in at.get("plotly_chart")]
    assert sum(a != b for a, b in zip(first, after, strict=True)) == 1  # only the fragment's heatmap changed


@pytest.mark.parametrize("queued", [False, True])
def test_the_weighted_page_waits_its_turn_in_the_lessons_queue_only_when_asked(monkeypatch, queued):
    """``?queue=1`` (``bench.classroom full --reference``): the reference takes one of the lessons' places for
    whole-page runs after its title and gives it back at its end, so the class's floor has the lessons' queue."""
    from ui import server

    calls = []
    monkeypatch.setattr(server, "admit", lambda: calls.append("admit") or 0.0)
    monkeypatch.setattr(server, "page_drawn", lambda: calls.append("leave"))
    at = run("weighted_page.py", static="4", **({"queue": "1"} if queued else {}))
    assert len(at.markdown) == 4
    assert calls == (["admit", "leave"] if queued else [])


def test_the_class_tables_give_the_servers_cpu_a_run_from_the_stored_seconds_and_runs():
    from bench.classroom_report import _cpu_ms_per_run

    row = {"runs": 800, "cpu_s_per_replica": [30.0, 26.0]}
    assert _cpu_ms_per_run(row) == "70"  # every replica's seconds together, over the runs
    assert _cpu_ms_per_run({"runs": 800}) == ""  # a row stored before the seconds were


def test_the_prepared_reference_draws_the_same_figures_as_the_built_one():
    """``?prepared=1`` (the true floor: figures built once and handed over serialised, as ``ui.plotly`` does) draws
    the same heatmaps as the reference that builds them on every run."""

    def heatmaps(at: AppTest) -> list:
        return [plotly_array(json.loads(c.proto.spec)["data"][0]["z"]).tolist() for c in at.get("plotly_chart")]

    built = heatmaps(run("weighted_page.py", rows="3", cols="4", plotly="2"))
    prepared = heatmaps(run("weighted_page.py", rows="3", cols="4", plotly="2", prepared="1"))
    assert len(built) == 3 and prepared == built
