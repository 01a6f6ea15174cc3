"""``python -m minimodels.train --pairs TRAIN.tsv [--valid VALID.tsv] --out DIR``: the same JSON lines as
for a generated task, the page's model file in DIR, and a bad file refused with a message, exit 2, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from minimodels.own_data import load_model, read_pairs, write_pairs
from minimodels.own_data.examples import zelan_pairs
from minimodels.train import evaluate
from minimodels.train.cli import main
from tests.helpers import ROOT

GENERATED_KEYS = {  # the final line for a generated task (tests/minimodels/test_train.py reads the same keys)
    "event",
    "task",
    "model",
    "seed",
    "steps",
    "seconds",
    "exact_match",
    "eval_size",
    "loss",
    "stopped",
    "device",
    "threads",
    "parameters",
    "test_exact_match",
}


@pytest.fixture
def files(tmp_path):
    pairs = zelan_pairs(120, seed=5)
    train_file, valid_file = tmp_path / "train.tsv", tmp_path / "valid.tsv"
    train_file.write_text(write_pairs(pairs[:100]), encoding="utf-8")
    valid_file.write_text(write_pairs(pairs[100:]), encoding="utf-8")
    return train_file, valid_file


def _final(capsys) -> dict:
    lines = capsys.readouterr().out.strip().splitlines()
    return json.loads(lines[-1])


@pytest.mark.parametrize("model", ["gru-additive", "transformer"])
def test_pairs_train_prints_the_same_final_line_and_writes_the_model_file(files, tmp_path, capsys, model):
    train_file, _ = files
    out = tmp_path / "out"
    args = ["--pairs", str(train_file), "--model", model, "--max-steps", "4", "--report-every", "2"]
    assert main([*args, "--out", str(out), "--batch-size", "16"]) == 0
    final = _final(capsys)
    assert set(final) >= GENERATED_KEYS and final["task"] == "pairs:train.tsv" and final["steps"] == 4
    assert final["pairs"]["train"] == 90 and final["pairs"]["held_out"] == 10  # a seeded 10% held out
    assert final["pairs"]["fingerprint"] == read_pairs(train_file).fingerprint
    [written] = list(out.iterdir())
    assert str(written) == final["model_file"] and written.suffix == ".safetensors"
    loaded, task, meta = load_model(written.read_bytes())
    assert meta["model_name"] == model and meta["extra"]["final"]["steps"] == 4
    assert [p["step"] for p in meta["curve"]] == [2, 4]
    with torch.inference_mode():
        assert round(evaluate(loaded, task.encoded("valid")), 4) == final["test_exact_match"]


def test_pairs_with_a_validation_file_holds_out_that_file(files, capsys):
    train_file, valid_file = files
    assert main(["--pairs", str(train_file), "--valid", str(valid_file), "--max-steps", "2", "--batch-size", "8"]) == 0
    final = _final(capsys)
    assert final["pairs"]["train"] == 100 and final["pairs"]["held_out"] == 20
    assert final["pairs"]["held_out_from"] == "file" and final["eval_size"] == 20
    assert "model_file" not in final  # no --out, nothing written


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "--pairs bad.tsv: The file is empty"),
        (b"one column only\nand another\n", "two columns"),
        ("café\tcoffee\n".encode("latin-1"), "not UTF-8"),
        (b"\x00\x01\x02binary", "binary file"),
        (b"same\tsame\n", "No usable sentence pair"),
    ],
)
def test_a_bad_file_is_a_message_exit_2_and_nothing_written(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(content)
    out = tmp_path / "out"
    assert main(["--pairs", str(bad), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and "Traceback" not in captured.err
    assert captured.err.startswith("error: ") and len(captured.err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pairs", "missing.tsv"], "no such file: missing.tsv"),
        (["--pairs", "x.tsv", "--task", "dates"], "give one of them"),
        (["--valid", "x.tsv"], "--valid needs --pairs"),
        (["--task", "dates", "--vocab-size", "100"], "apply to --pairs only"),
    ],
)
def test_pairs_options_misused_are_one_line(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert main([*args, "--max-steps", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_bad_validation_file_names_itself(files, tmp_path, capsys):
    train_file, _ = files
    bad = tmp_path / "valid.csv"
    bad.write_text("just one column\n", encoding="utf-8")
    assert main(["--pairs", str(train_file), "--valid", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "--valid valid.csv: Each line needs two columns" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_the_command_line_itself(files, tmp_path):
    train_file, _ = files
    out = tmp_path / "out"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "minimodels.train",
            "--pairs",
            str(train_file),
            "--max-steps",
            "3",
            "--threads",
            "1",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    final = json.loads(run.stdout.strip().splitlines()[-1])
    assert final["event"] == "done" and len(list(out.iterdir())) == 1
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"\x00")
    run = subprocess.run(
        [sys.executable, "-m", "minimodels.train", "--pairs", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2 and run.stdout == "" and "binary file" in run.stderr and "Traceback" not in run.stderr
