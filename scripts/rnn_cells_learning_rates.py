"""Measure the plain RNN of the RNN-cells lesson at several learning rates (``rnn_cells_learning_rates.json``).

    nice -n 10 python scripts/rnn_cells_learning_rates.py --threads 1

Section 5 trains every cell at one learning rate, the one the LSTM needs. This trains the plain RNN alone
(``lessons.rnn_cells.training.measured_run``, the page's recipe otherwise) at that rate and larger ones, per seed and
distance, so the page can say whether its "at chance" belongs to the cell or to the rate.

    python scripts/rnn_cells_learning_rates.py --seeds 0 --distances 20 --steps 50 --out /tmp/rates.json   # a check
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import measure  # noqa: E402
from lessons.rnn_cells import learning_rates  # noqa: E402
from lessons.rnn_cells import training as rnn_training  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="one run per rate, seed, distance")
    p.add_argument("--distances", type=int, nargs="+", default=list(learning_rates.DISTANCES))
    p.add_argument("--rates", type=float, nargs="+", default=list(learning_rates.RATES), help="Adam's learning rates")
    p.add_argument("--steps", type=int, default=rnn_training.STEPS, help="at most this many steps per run")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", default=str(learning_rates.RESULTS), help="where to write the JSON")
    args = parse(p, argv)
    measured = Measurement("rnn_cells_learning_rates.py", argv, args.threads)
    rates = {learning_rates.variant(lr): lr for lr in args.rates}

    def run_one(name: str, seed: int):
        return [
            dataclasses.replace(rnn_training.measured_run("RNN", seed, d, args.steps, rates[name]), variant=name)
            for d in args.distances
        ]

    def progress(run, done: int, total: int) -> None:
        final = run.final
        print(
            f"[{done}/{total}] T {run.params['distance']:>3} seed {run.seed} {run.variant}: "
            f"{final['accuracy']:.1%} after {final['steps']:.0f} steps",
            flush=True,
        )

    meta = {
        "script": learning_rates.SCRIPT,
        "lesson": "rnn_cells",
        "cell": "RNN",
        "distances": args.distances,
        "seeds": args.seeds,
        "rates": args.rates,
        "recipe": {
            "hidden": rnn_training.HIDDEN,
            "embed": rnn_training.EMBED,
            "batch": rnn_training.BATCH,
            "max_steps": args.steps,
            "target": rnn_training.TARGET,
            "eval_size": rnn_training.EVAL_SIZE,
        },
    }
    results = measure(list(rates), args.seeds, run_one, meta, on_run=progress)
    save_comparison(results, measured, args.out, learning_rates.load_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
