"""``python -m scripts.reproduce --quick`` on one tiny slice: a results file made here is rerun from its own command,
and every rerun figure is printed beside the shipped one with the shipped band."""

import subprocess
import sys

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from scripts import reproduce
from scripts.common import SLICE, Measurement, save_comparison


def test_the_shipped_command_is_rerun_with_one_seed_and_a_quick_slice():
    module, args = reproduce.merged(
        "python scripts/rnn_cells_results.py --threads 1 --seeds 0 1 2 --out assets/results/rnn_cells.json",
        ["--seeds", "0", "--out", "/tmp/x.json", "--distances", "5"],
    )
    assert module == "scripts.rnn_cells_results"
    assert args == ["--threads", "1", "--seeds", "0", "--out", "/tmp/x.json", "--distances", "5"]


@pytest.mark.slow
def test_reproduce_quick_reruns_a_tiny_slice_and_prints_rerun_beside_shipped(tmp_path, capsys):
    shipped = tmp_path / "rnn_cells.json"
    made = [sys.executable, "-m", "scripts.rnn_cells_results", "--seeds", "0", "1", "--distances", "5", "8"]
    made += ["--steps", "15", "--threads", "1", "--out", str(shipped)]
    subprocess.run(made, check=True, capture_output=True, cwd=reproduce.ROOT)
    assert reproduce.main(["--quick", "--only", "rnn_cells", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    results = Comparison.load(shipped)
    figures = [r for r in results.runs if r.seed == 0 and r.params["distance"] == 5]  # the quick slice: seed 0, T = 5
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(lines) == len(figures) * 2  # accuracy and steps per cell; seconds are left out
    for run in figures:
        for metric in ("accuracy", "steps"):
            value = f"{run.final[metric]:.4g}"
            line = next(x for x in lines if x.startswith(f"  {run.variant} (distance = 5), seed 0, {metric}:"))
            assert f"shipped {value}, rerun {value};" in line and line.endswith("within")  # same seed, same machine
    assert out.startswith(f"## rnn_cells: {len(lines)} of {len(lines)} rerun figures within the shipped band")
    with pytest.raises(SystemExit):
        reproduce.main(["--only", "no_such_file", "--results", str(tmp_path)])


def test_a_run_stopped_at_a_checkpoint_is_compared_with_the_shipped_run_at_that_step():
    def run(seed, points):
        curve = tuple({"step": s, "seconds": 9.0, "bleu": b} for s, b in points)
        return Run("without a-b", seed, {}, curve, {"bleu": points[-1][1]})

    shipped = Comparison(("without a-b",), (run(0, [(1000, 0.25), (2000, 0.5)]), run(1, [(1000, 0.3), (2000, 0.6)])))
    again = Comparison(("without a-b",), (run(0, [(1000, 0.25)]),), {"stop_at": 1000})
    (row,) = reproduce.rows(shipped, again)  # the rerun says it stopped early; the seconds are left out
    assert (row["metric"], row["params"], row["shipped"], row["rerun"], row["n"]) == (
        "bleu",
        {"step": 1000},
        0.25,
        0.25,
        2,
    )
    assert row["within"] and row["band"][0] < 0.25 < row["band"][1]  # not the end of the shipped run (0.5)
    moved = Comparison(("without a-b",), (run(0, [(1000, 0.9)]),), {"stop_at": 1000})
    assert not reproduce.rows(shipped, moved)[0]["within"]


def test_a_slice_is_saved_without_the_lessons_loader(tmp_path, monkeypatch):
    def loader(path):
        raise ValueError("the page needs three seeds")

    measured = Measurement("x.py", [], 1)
    one = Comparison(("a",), (Run("a", 0, {}, (), {"m": 1.0}),))
    with pytest.raises(ValueError, match="three seeds"):
        save_comparison(one, measured, tmp_path / "whole.json", loader)
    monkeypatch.setenv(SLICE, "1")
    assert Comparison.load(save_comparison(one, measured, tmp_path / "slice.json", loader)).runs[0].final == {"m": 1.0}
