"""Measure scaled against unscaled self-attention at four sizes of d_k: ``assets/results/scaling.json``.

    python scripts/scaling_results.py [--seeds 0 1 2] [--d-k 8 32 128 512] [--steps 400] [--threads 1] [--out PATH]

For every seed and d_k, two fresh one-head self-attention models (``lessons.scaling.recall_training.RecallAttention``:
d_k = d_model, minimodels' ``DotProductAttention`` or ``ScaledDotProductAttention``, weights equal at the start) learn
the recall task for the same Adam steps on the same batches. Each run records, before training, the softmax's mean
largest weight and entropy and the gradient norm reaching W^Q and W^K, then held-out accuracy, loss and the question's
largest α every ``lessons.scaling.recall_training.RECALL_REPORT`` steps (time: the thread's CPU seconds). The file is a
``lessons.common.comparison.Comparison`` of the two scores, one run per seed and d_k, with the command, date, machine,
load and wall time it took.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import measure  # noqa: E402
from lessons.scaling import recall, recall_training, scores  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=list(recall_training.RECALL_SEEDS))
    p.add_argument(
        "--d-k", type=int, nargs="+", default=list(recall_training.RECALL_D_K), choices=recall_training.RECALL_D_K
    )
    p.add_argument("--steps", type=int, default=recall_training.RECALL_STEPS)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default=str(ROOT / "assets" / "results" / "scaling.json"))
    args = parse(p, argv)
    measured = Measurement("scaling_results.py", argv, threads=args.threads)

    def run_one(scale: str, seed: int):
        return [recall_training.train_recall(d_k, scale, seed, args.steps) for d_k in args.d_k]

    def progress(run, done: int, total: int) -> None:
        print(
            f"[{done}/{total}] {run.variant} seed {run.seed} d_k {run.params['d_k']}: "
            f"accuracy {run.final['test accuracy']:.3f}, {run.curve[-1]['seconds']:.1f} s",
            flush=True,
        )

    results = measure(
        scores.SCORES,
        args.seeds,
        run_one,
        on_run=progress,
        labels=scores.LABELS,
        meta={
            "script": "scripts/scaling_results.py",
            "seeds": args.seeds,
            "task": "recall",
            "train_config": recall_training.recall_config(args.steps),
        },
    )
    out = save_comparison(results, measured, args.out, recall_training.load_results)
    for row in recall.recall_rows(recall_training.load_results(out)):
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
