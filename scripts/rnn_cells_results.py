"""Measure the RNN-cells lesson's "Train the three cells" table: ``assets/results/rnn_cells.json``.

    python scripts/rnn_cells_results.py --threads 1 --seeds 0 1 2 3 4

For each variant (the three cells, and an LSTM whose forget-gate bias starts at the usual 1 instead of the lesson's
3), seed and distance T, the cell starts from that seed and trains exactly as the page's Train button
trains it beside the other two (``lessons.rnn_cells.training.measured_run``: the seed's batches, at most ``STEPS``
steps, stopping at 99% held-out accuracy), with no time budget. Written with ``Comparison.save``: the cells as
variants, one run per seed and distance (``params={"distance": T}``), each with its reports and its final held-out
accuracy, steps and own compute seconds; and the command, date, machine, torch threads and the load average.

    python scripts/rnn_cells_results.py --seeds 0 --distances 5 --steps 50 --out /tmp/rnn_cells.json   # a check
    python scripts/rnn_cells_results.py --lr 0.03 --out /tmp/rnn_cells_lr03.json   # the lesson's first recipe
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import measure  # noqa: E402
from lessons.rnn_cells import training as rnn_training  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="one run per cell, seed, distance")
    p.add_argument("--distances", type=int, nargs="+", default=list(rnn_training.DISTANCES))
    p.add_argument("--steps", type=int, default=rnn_training.STEPS, help="at most this many steps per cell")
    p.add_argument("--lr", type=float, default=rnn_training.LR, help="Adam's learning rate (the page's: the default)")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", default=str(rnn_training.RESULTS), help="where to write the JSON")
    args = parse(p, argv)
    measured = Measurement("rnn_cells_results.py", argv, args.threads)

    def run_one(kind: str, seed: int):
        return [rnn_training.measured_run(kind, seed, distance, args.steps, args.lr) for distance in args.distances]

    def progress(run, done: int, total: int) -> None:
        final, where = run.final, f"T {run.params['distance']:>3} seed {run.seed} {run.variant:>8}"
        print(f"[{done}/{total}] {where}: {final['accuracy']:.1%} after {final['steps']:.0f} steps, "
              f"{final['seconds']:.1f} s", flush=True)  # fmt: skip

    meta = {
        "script": rnn_training.SCRIPT,
        "lesson": "rnn_cells",
        "distances": args.distances,
        "seeds": args.seeds,
        "recipe": {
            "hidden": rnn_training.HIDDEN,
            "embed": rnn_training.EMBED,
            "batch": rnn_training.BATCH,
            "lr": args.lr,
            "max_steps": args.steps,
            "target": rnn_training.TARGET,
            "keep_bias": rnn_training.KEEP_BIAS,
            "standard_bias": rnn_training.STANDARD_BIAS,
            "eval_size": rnn_training.EVAL_SIZE,
        },
    }
    results = measure(rnn_training.VARIANTS, args.seeds, run_one, meta, on_run=progress, labels=rnn_training.LABELS)
    save_comparison(results, measured, args.out, rnn_training.load_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
