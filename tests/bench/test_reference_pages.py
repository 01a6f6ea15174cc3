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


def test_the_class_floor_is_judged_against_the_target_from_its_own_figures():
    """``bench/CLASSROOM.md``'s floor lines compare the lessons with the floor, and the floor with the target, from
    the stored figures."""
    from bench.classroom import _floor_lines

    def row(p90, scale=1.0, students=30):
        return {
            "students": students,
            "paragraphs_scale": scale,
            "runs": 10,
            "median_ms": 1.0,
            "p90_ms": p90,
            "p99_ms": p90,
            "errors": 0,
            "server_cpu_per_wall_s": 0.5,
            "clients_cpu_per_wall_s": 0.1,
            "load_before": 0.3,
            "date": "2026-11-27",
        }

    lessons = {30: row(1300.0)}
    slow = "\n".join(_floor_lines([row(494.0), row(244.0, scale=0.5)], lessons))
    fast = "\n".join(_floor_lines([row(300.0)], lessons))
    assert "compute nothing p90 494.0 ms" in slow and "2.6× the floor, which is itself above the 400" in slow
    assert "| 0.5 | 30 |" in slow
    assert "4.3× the floor, which is itself within the 400 ms target" in fast
    assert _floor_lines([], lessons) == []


def test_the_class_tables_give_the_servers_cpu_a_run_from_the_stored_seconds_and_runs():
    from bench.classroom import _cpu_ms_per_run, _floor_lines

    row = {
        "students": 30,
        "paragraphs_scale": 1.0,
        "runs": 800,
        "median_ms": 1.0,
        "p90_ms": 900.0,
        "p99_ms": 900.0,
        "errors": 0,
        "server_cpu_per_wall_s": 0.9,
        "clients_cpu_per_wall_s": 0.1,
        "load_before": 0.3,
        "date": "2026-11-27",
        "cpu_s_per_replica": [30.0, 26.0],
    }
    assert _cpu_ms_per_run(row) == "70"  # every replica's seconds together, over the runs
    assert _cpu_ms_per_run({k: v for k, v in row.items() if k != "cpu_s_per_replica"}) == ""  # stored before
    floor = {**row, "runs": 1000, "cpu_s_per_replica": [37.0], "p90_ms": 300.0}
    text = "\n".join(_floor_lines([floor], {30: row}))
    assert "70 ms of CPU a run" in text and "37 ms of CPU a run" in text and "| 0.9 | 37 | 0.1 |" in text


def test_a_class_row_carries_how_fast_the_machine_ran_python(monkeypatch):
    """``speed_ms`` counts the CPU's work, not the wall clock's (a waiting thread, as under a busy server, adds
    nothing), and the class tables show it beside the row's load."""
    import json
    import time

    import bench.classroom as classroom

    plain = classroom.speed_ms(repeats=1)
    assert plain > 0 and classroom.machine()["speed_ms"] > 0

    def waiting(*args, **kwargs):
        time.sleep(0.00002)  # 20,000 calls: 0.4 s or more of wall time, no CPU
        return json.dumps(*args, **kwargs)

    monkeypatch.setattr(classroom, "json", type("Slow", (), {"dumps": staticmethod(waiting)}))
    started = time.perf_counter()
    waited = classroom.speed_ms(repeats=1)
    assert time.perf_counter() - started > 0.4 and waited < 1000 * (time.perf_counter() - started) / 2
    row = {
        "students": 30,
        "paragraphs_scale": 1.0,
        "runs": 800,
        "median_ms": 1.0,
        "p90_ms": 900.0,
        "p99_ms": 900.0,
        "errors": 0,
        "server_cpu_per_wall_s": 0.9,
        "clients_cpu_per_wall_s": 0.1,
        "load_before": 0.3,
        "speed_ms": 123.4,
        "date": "2026-11-28",
    }
    assert "| 0.3 | 123.4 | 2026-11-28 |" in "\n".join(classroom._floor_lines([row], {}))
    before = {k: v for k, v in row.items() if k != "speed_ms"}  # a row stored before the speed was
    assert "| 0.3 |  | 2026-11-28 |" in "\n".join(classroom._floor_lines([before], {}))


def test_the_same_weight_summary_names_the_machine_speed_when_it_was_stored():
    from bench.classroom import _same_weight_lines

    w = {"rows": [], "seconds": 10.0, "load_before": 0.5, "speed_ms": 96.1, "date": "2026-11-28"}
    assert "load before: 0.5; speed ms: 96.1; date: 2026-11-28" in "\n".join(_same_weight_lines(w))
    before = {k: v for k, v in w.items() if k != "speed_ms"}
    assert "load before: 0.5; date: 2026-11-28" in "\n".join(_same_weight_lines(before))
