"""The class-scenario bench (``bench/class_scenario.py``): two students on a cold server open the lesson, act and
each train once, and what the row counts is what happened. Correctness only: the timings are the bench's business,
not a test's. The report's verdict on the targets is computed from the row."""

import json
import subprocess
import sys

import pytest

from bench import classroom_report, harness
from tests.helpers import ROOT


@pytest.mark.slow
def test_two_students_open_act_and_train_once_without_errors():
    done = subprocess.run(
        [sys.executable, "-m", "bench.class_scenario", "--students", "2", "--seconds", "50", "--window", "12", "18"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=330,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    row = json.loads(next(line for line in done.stderr.splitlines() if line.startswith("{")))
    assert row["errors"] == 0, row["error_samples"]
    counts = row["counts"]
    assert counts["title"] == counts["paragraph"] == counts["whole page"] == 2  # each student opened the lesson
    assert counts["train to first progress"] == 2  # each pressed Train once and saw its progress
    assert counts["progress gap"] >= 2
    p90 = row["p90_ms"]
    assert p90["title"] <= p90["whole page"] and p90["paragraph"] <= p90["whole page"]
    assert done.stdout.strip().splitlines()[-1].startswith("class scenario: students 2 ")


def _row(**p90) -> dict:
    base = {
        "paragraph": 400.0,
        "whole page": 900.0,
        "fragment control": 30.0,
        "whole-page control": 120.0,
        "check": 60.0,
        "poll answer": 40.0,
    }
    return {"students": 30, "p90_ms": base | p90, "longest_progress_gap_ms": 1200.0, "errors": 0}


def test_the_targets_are_read_from_the_row():
    assert all(classroom_report.scenario_met(_row()).values())
    assert not classroom_report.scenario_met(_row(check=260.0))["controls and checks"]
    assert not classroom_report.scenario_met(_row(paragraph=1001.0))["paragraph"]
    assert not classroom_report.scenario_met(_row(**{"whole page": 1600.0}))["whole page"]
    slow = _row() | {"longest_progress_gap_ms": 2500.0}
    assert not classroom_report.scenario_met(slow)["progress gap"]
    assert not classroom_report.scenario_met(_row() | {"errors": 1})["errors"]


def test_the_verdict_reads_every_stored_row_and_names_the_ones_that_missed():
    quick = _row() | {"date": "2026-11-29", "speed_ms": 60.0}
    slow = _row(**{"whole-page control": 331.3}) | {"date": "2026-11-28", "speed_ms": 190.2}
    crowd = {"students": 60, "errors": 2, "date": "2026-11-28", "speed_ms": 190.2}
    lines = classroom_report.scenario_verdicts([slow, quick, quick, crowd])
    assert lines[0] == (
        "30 students: every target met in 2 of 3 rows; not met in the row of 2026-11-28 at speed ms 190.2 "
        "(whole-page control p90 331.3 ms)."
    )
    assert lines[1] == (
        "60 students: every target met in 0 of 1 rows; not met in the row of 2026-11-28 at speed ms 190.2 (2 errors)."
    )
    assert classroom_report.scenario_verdicts([quick]) == ["30 students: every target met in 1 of 1 rows."]


def test_rows_measured_under_slowed_cores_are_judged_apart_and_name_their_code(monkeypatch):
    monkeypatch.delenv(harness.SLOW_CORES_ENV, raising=False)
    assert harness.slowed() is None
    monkeypatch.setenv(harness.SLOW_CORES_ENV, "0.425")  # as bench.slow_cores sets it for the bench it runs
    assert harness.slowed() == 0.425
    slowed = _row(**{"whole-page control": 276.0}) | {"date": "2026-11-29", "speed_ms": 65.0, "slow_cores": 0.425}
    met = _row() | {"date": "2026-11-30", "speed_ms": 57.0, "slow_cores": 0.425, "commit": "abc1234"}
    quick = _row() | {"date": "2026-11-29", "speed_ms": 60.0}
    assert classroom_report.scenario_verdicts([slowed, quick, met | {"commit": "abc1234+"}]) == [
        "30 students: every target met in 1 of 1 rows.",
        "30 students on cores slowed by 42.5%: every target met in 1 of 2 rows; not met in the row of 2026-11-29 at "
        "speed ms 65.0 (whole-page control p90 276.0 ms).",
    ]
    missed = met | {"errors": 1}
    assert classroom_report.scenario_verdicts([missed])[0].endswith(
        "not met in the row of 2026-11-30 (code abc1234) at speed ms 57.0 (1 error)."
    )


def test_a_new_row_pushes_out_only_an_old_row_of_its_own_kind(monkeypatch, tmp_path):
    from bench import class_scenario

    results = tmp_path / "classroom.json"
    monkeypatch.setattr(harness, "RESULTS", results)
    monkeypatch.setattr(class_scenario, "RESULTS", results)
    monkeypatch.setattr(classroom_report, "write", lambda: None)
    real = [_row() | {"date": f"2026-11-{day}", "speed_ms": 190.0} for day in range(20, 20 + class_scenario.KEEP)]
    results.write_text(json.dumps({class_scenario.SECTION: real}))
    for seed in range(class_scenario.KEEP + 2):
        class_scenario.write(_row() | {"date": "2026-11-30", "speed_ms": 57.0, "slow_cores": 0.425, "seed": seed})
    kept = json.loads(results.read_text())[class_scenario.SECTION]
    assert [r for r in kept if "slow_cores" not in r] == real
    assert [r["seed"] for r in kept if "slow_cores" in r] == list(range(2, class_scenario.KEEP + 2))


def test_a_missed_figure_says_how_many_timings_it_is_of():
    few = _row(**{"whole-page control": 331.3}) | {
        "date": "2026-11-28",
        "speed_ms": 190.2,
        "counts": {"whole-page control": 9},
    }
    assert classroom_report.scenario_verdicts([few]) == [
        "30 students: every target met in 0 of 1 rows; not met in the row of 2026-11-28 at speed ms 190.2 "
        "(whole-page control p90 331.3 ms of 9 timings)."
    ]


def test_the_table_names_the_code_each_row_measured():
    full = {
        "lesson": "masking",
        "window_s": [20.0, 50.0],
        "p50_ms": _row()["p90_ms"],
        "server_cores": 0.15,
        "load_before": 1.0,
        "load_after": 1.2,
        "date": "2026-11-30",
        "speed_ms": 57.0,
    }
    rows = [_row() | full | {"commit": "abc1234"}, _row() | full]
    table = [line for line in classroom_report.scenario_lines(rows) if line.startswith("| 30 |")]
    assert [line.rsplit("|", 2)[1].strip() for line in table] == ["abc1234", "—"]
