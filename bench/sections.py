"""What every bench section that ``bench.run_all --render`` appends to RESULTS.md shares: how it was measured, said
in one line (the date, the command, the seconds, the machine, torch, the load before), and where ``--write``
stores it (``bench/sections/<name>.md``)."""

from __future__ import annotations

import datetime
import os
import statistics
import sys
from pathlib import Path

import torch

FOLDER = Path(__file__).resolve().parent / "sections"


def measured_by(module: str, argv, seconds: float, load_before: float) -> str:
    """The start of a section's provenance line: ``Measured on <date> by `python -m bench.<module> …` in <s> s:
    <cores> cores, torch <version>, 1-minute load before <load>.``"""
    args = " ".join(argv if argv is not None else sys.argv[1:])
    return (
        f"Measured on {datetime.date.today().isoformat()} by `{f'python -m bench.{module} {args}'.rstrip()}` in "
        f"{seconds:.1f} s: {os.cpu_count()} cores, torch {torch.__version__}, 1-minute load before {load_before:.2f}."
    )


def write(name: str, lines: list[str]) -> Path:
    """Store a section as ``bench/sections/<name>.md`` for RESULTS.md's next render."""
    FOLDER.mkdir(exist_ok=True)
    path = FOLDER / f"{name}.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def mean_sd(values, fmt: str = ".3f") -> str:
    """A table cell: the mean ± the sample standard deviation of ``values``."""
    return f"{statistics.mean(values):{fmt}} ± {statistics.stdev(values):{fmt}}"


def row(*cells) -> str:
    """One Markdown table row."""
    return "| " + " | ".join(str(c) for c in cells) + " |"
