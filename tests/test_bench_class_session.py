"""The class-session bench (``bench/class_session.py``) does what its last line says: a few students over Streamlit's
websocket protocol join, answer the teacher's question and post a run, and the answers and runs it counts are the
ones read back from the database. Correctness only: the timings are the bench's business, not a test's."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(
    r"^class session: students (\d+) store (\w+) answers (\d+)/(\d+) runs (\d+)/(\d+) dashboard p90 (\d+|none) ms "
    r"errors (\d+)$"
)


@pytest.mark.slow
def test_three_students_join_answer_and_post_on_sqlite():
    done = subprocess.run(
        [sys.executable, "-m", "bench.class_session", "--students", "3", "--store", "sqlite", "--linger", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    found = LINE.match(last)
    assert found, last
    n, kind, answers, of_a, runs, of_r, p90, errors = found.groups()
    assert (n, kind, of_a, of_r) == ("3", "sqlite", "3", "3")
    assert answers == "3" and runs == "3" and errors == "0", done.stderr[-3000:]
    assert p90 != "none"  # the dashboard refreshed while the students acted
