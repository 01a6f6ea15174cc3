"""The class-session bench (``bench/class_session.py``) does what its last line says: a few students over Streamlit's
websocket protocol join, answer the teacher's question and post a run, and the answers and runs it counts are the
ones read back from the database. Correctness only: the timings are the bench's business, not a test's."""

import json
import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

LINE = re.compile(
    r"^class session: students (\d+) store (\w+) answers (\d+)/(\d+) runs (\d+)/(\d+) dashboard p90 (\d+|none) ms "
    r"errors (\d+)$"
)


@pytest.mark.slow
def test_three_students_join_answer_and_post_on_sqlite():
    done = subprocess.run(
        [sys.executable, "-m", "bench.class_session", "--students", "3", "--store", "sqlite", "--linger", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    found = LINE.match(last)
    assert found, last
    n, kind, answers, of_a, runs, of_r, p90, errors = found.groups()
    assert (n, kind, of_a, of_r) == ("3", "sqlite", "3", "3")
    assert answers == "3" and runs == "3" and errors == "0", done.stderr[-3000:]
    assert p90 != "none"  # the dashboard refreshed while the students acted


@pytest.mark.slow
def test_the_full_rerun_mode_runs_whole_pages_and_counts_what_it_ran(streamlit_server):
    """``bench.classroom full``: students open lessons in fresh tabs and move controls outside fragments;
    every run is counted, page opens apart, and a page's exception would be an error."""
    import asyncio
    import concurrent.futures

    from bench import classroom

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Playwright may hold this thread's event loop
        row = pool.submit(asyncio.run, classroom._full_load(streamlit_server, 3, 6.0, 0)).result(timeout=240)
    assert row["errors"] == 0, row["error_samples"]
    assert row["runs"] >= 3 and 0 < row["page_opens"] <= row["runs"]
    assert row["median_ms"] > 0 and row["p90_ms"] >= row["median_ms"]


@pytest.mark.slow
def test_the_full_rerun_mode_on_reference_pages_opens_them_and_reruns_them_whole():
    """``bench.classroom full --reference``: the same students on pages that compute nothing (no control outside
    a fragment there, so a whole run is the script run again); page opens and whole runs are both counted."""
    import asyncio
    import urllib.parse
    from concurrent.futures import ThreadPoolExecutor

    from bench import classroom

    pages = classroom.reference_pages(scale=0.5)
    stored = json.loads(classroom.RESULTS.read_text())["same_weight"]["rows"]  # the lessons same_weight measured
    assert len(pages) == len(stored) and {row["lesson"] for row in stored} <= {
        lesson.slug for lesson in classroom.built_lessons()
    }
    assert all(dict(urllib.parse.parse_qsl(query))["queue"] == "1" for _, query in pages)
    with classroom.server(script="bench/weighted_page.py") as (url, _), ThreadPoolExecutor(1) as pool:
        row = pool.submit(asyncio.run, classroom._full_load(url, 3, 6.0, 0, pages)).result(timeout=240)
    assert row["errors"] == 0, row["error_samples"]
    assert 0 < row["page_opens"] < row["runs"]  # some whole runs were reruns of an open page
    assert row["median_ms"] > 0 and row["p90_ms"] >= row["median_ms"]
