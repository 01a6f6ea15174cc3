"""Measure the RNN-cells lesson's "Train the three cells" table: ``assets/results/rnn_cells.json``.

    python scripts/rnn_cells_results.py --threads 1 --seeds 0 1

For each distance T and seed, an RNN, a GRU and an LSTM start from that seed and train exactly as the page's
Train button does (``lessons.rnn_cells.training.train``: the same batches in turn, at most ``STEPS`` steps, a cell
stops at 99% held-out accuracy), with no time budget. Written: each cell's final held-out accuracy, its steps
and its own compute seconds, with the command, date, machine, torch threads and the load average.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.rnn_cells import training as rnn_training  # noqa: E402
from scripts.common import Measurement, write_results  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="one run per seed and distance")
    p.add_argument("--distances", type=int, nargs="+", default=list(rnn_training.DISTANCES))
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", default=str(rnn_training.RESULTS), help="where to write the JSON")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    measured = Measurement("rnn_cells_results.py", argv, args.threads)
    cells = {k: {"accuracy": {}, "steps": {}, "seconds": {}} for k in rnn_training.KINDS}
    for distance in args.distances:
        for seed in args.seeds:
            models = rnn_training.new_models(seed)
            histories = rnn_training.train(models, distance, seed=seed)
            for kind, history in histories.items():
                last = history[-1]
                cells[kind]["accuracy"].setdefault(str(distance), []).append(round(last.accuracy, 4))
                cells[kind]["steps"].setdefault(str(distance), []).append(last.step)
                cells[kind]["seconds"].setdefault(str(distance), []).append(round(last.seconds, 2))
                print(f"T {distance:>3} seed {seed} {kind:>4}: {last.accuracy:.1%} after {last.step} steps, "
                      f"{last.seconds:.1f} s", flush=True)  # fmt: skip
    document = {
        "lesson": "rnn_cells",
        "distances": args.distances,
        "seeds": args.seeds,
        "recipe": {
            "hidden": rnn_training.HIDDEN,
            "embed": rnn_training.EMBED,
            "batch": rnn_training.BATCH,
            "lr": rnn_training.LR,
            "max_steps": rnn_training.STEPS,
            "target": rnn_training.TARGET,
            "keep_bias": rnn_training.KEEP_BIAS,
            "eval_size": rnn_training.EVAL_SIZE,
        },
        **measured.provenance(),
        "cells": cells,
    }
    write_results(args.out, document, rnn_training.load_results)  # what was written must read back
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
