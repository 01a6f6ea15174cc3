"""What the results scripts in ``scripts/`` write beside their figures: how, when and on what they were measured."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from lessons.common import verdicts
from lessons.common.comparison import Comparison
from minimodels.device import cpu_model
from minimodels.tasks import get_task


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """A results script's arguments, with torch set to the threads they ask for (``--threads``, else one)."""
    args = parser.parse_args(argv)
    torch.set_num_threads(getattr(args, "threads", 1))
    return args


def seeded_parser(
    description: str, *, steps: int, out: str | Path, checkpoints: bool = True
) -> argparse.ArgumentParser:
    """A results script's usual options: ``--seeds`` (0 to 4: the fewest the verdict rule calls on), ``--steps``,
    ``--threads`` (1), ``--out`` and, for a script that also writes its lesson's checkpoints, ``--no-checkpoints``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(verdicts.MIN_SEEDS)))
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=str(out))
    if checkpoints:
        parser.add_argument("--no-checkpoints", action="store_true", help="do not write the seed-0 checkpoints")
    return parser


def tokenized(task_name: str):
    """The task with every split tokenized, so that no clock a script starts afterwards counts the tokenizing."""
    task = get_task(task_name)
    for split in ("train", "valid", "test"):
        task.encoded(split)
    return task


def machine(threads: int) -> dict:
    """What a results file says it was measured on: the CPU, the vector unit torch's kernels ran on (another one
    rounds otherwise: ``bench/drift.py``), the threads, torch and Python."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": threads,
    }


class Measurement:
    """Made where a results script's clock starts; :meth:`provenance` is what its JSON says of how it was made."""

    def __init__(self, script: str, argv: list[str] | None, threads: int):
        self.command = f"python scripts/{script} " + " ".join(sys.argv[1:] if argv is None else argv)
        self.threads = threads
        self.load_before = os.getloadavg()[0]
        self.start = time.perf_counter()

    def provenance(self) -> dict:
        """The command, date, machine, load average before and after, and wall-clock seconds since the start."""
        return {
            "command": self.command.strip(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(self.threads),
            "load_1min_before": round(self.load_before, 2),
            "load_1min_after": round(os.getloadavg()[0], 2),
            "seconds": round(time.perf_counter() - self.start, 1),
        }


SLICE = "ATTENTION_LAB_SLICE"  # set by scripts.reproduce for its reruns: a part of a grid, not a shipped file


def sliced() -> bool:
    """Whether this run is a slice for ``scripts.reproduce`` (``SLICE``): the page's sentences, which need every
    seed, are then not printed after the file is written."""
    return bool(os.environ.get(SLICE))


def save_comparison(
    comparison: Comparison, measured: Measurement, out: str | Path, read_back: Callable[[Path], object], **meta
) -> Path:
    """Stamp a measured comparison with how it was made (and ``meta``), save it, check that the lesson's own loader
    reads it back, and say where it went. A rerun of a slice (``SLICE`` in the environment: one seed, a part of the
    grid, fewer than the page needs) is read back as a comparison only."""
    stamped = {**comparison.meta, **measured.provenance(), **meta}
    out = dataclasses.replace(comparison, meta=stamped).save(out)
    (Comparison.load if sliced() else read_back)(out)
    print(f"wrote {out} in {stamped['seconds']} s", flush=True)
    return out
