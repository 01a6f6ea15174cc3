"""Measure the Transformer lesson's residual and layer-norm ablations: ``assets/results/transformer.json``.

    python scripts/transformer_results.py --threads 1 --steps 300 --seeds 0 1 2

The shipped Transformer (2 + 2 layers, 4 heads, d_model 64) is trained on ``dates`` four times from each seed
with the same batches and the same step budget: as shipped (pre-LN), post-LN (the paper's arrangement), without
residual connections and without layer norm (``TransformerConfig``'s ``norm_first``, ``residual`` and
``layer_norm`` flags). Every 25 steps the trainer reports its loss and the held-out exact match (200 validation
sentences, greedy); at the end, untimed, exact match on the whole test split. The runs make one
``lessons.common.comparison.Comparison`` (one variant per arrangement, one run per seed).

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. About twenty seconds per variant and seed on one quiet core.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import transformer  # noqa: E402
from lessons.common.comparison import measure  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from minimodels.train import build_model, evaluate, train  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, tokenized  # noqa: E402


def train_variant(variant: str, seed: int, steps: int, threads: int) -> dict:
    """One training run of ``variant``: its reports and its final test exact match."""
    task = get_task(transformer.ABLATION_TASK)
    model = build_model(transformer.MODEL, task, seed=seed, **transformer.VARIANTS[variant])
    result = train(model, task, transformer.results_config(steps, seed, threads))
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test").to(result.device))
    return {
        "config": transformer.VARIANTS[variant],
        "parameters": sum(p.numel() for p in model.parameters()),
        "steps": result.steps,
        "seconds": round(result.seconds, 2),
        "exact_match": round(result.exact_match, 4),
        "test_exact_match": round(test, 4),
        "history": [
            {"step": p.step, "seconds": round(p.seconds, 2), "loss": round(p.loss, 5), "exact_match": p.exact_match}
            for p in result.history
        ],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=300, help="training steps per variant")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2],
                   help="initial weights and batch order; every variant is trained once per seed")  # fmt: skip
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--variants", nargs="+", default=list(transformer.VARIANTS), choices=list(transformer.VARIANTS))
    p.add_argument("--out", default=str(transformer.RESULTS), help="where to write the JSON")
    args = parse(p, argv)
    task = tokenized(transformer.ABLATION_TASK)
    measured = Measurement("transformer_results.py", argv, args.threads)

    def run_one(variant: str, seed: int):
        return transformer.ablation_run(variant, seed, train_variant(variant, seed, args.steps, args.threads))

    def progress(run, done: int, total: int) -> None:
        f = run.final
        print(
            f"[{done}/{total}] {run.variant:>14} seed {run.seed}: {f['steps']:.0f} steps, {f['seconds']:.1f} s, "
            f"held-out {f['held-out exact']:.1%}, test {f['test exact']:.1%}, final loss {f['final loss']:.4f}",
            flush=True,
        )

    config = transformer.results_config(args.steps, args.seeds[0], args.threads)
    meta = {"lesson": "transformer", "script": transformer.RESULT_SCRIPT, "task": transformer.ABLATION_TASK,
            "task_seed": 0, "seeds": args.seeds, "max_steps": args.steps, "test_size": len(task.test),
            "train_config": dataclasses.asdict(config)}  # fmt: skip
    comparison = measure(args.variants, args.seeds, run_one, meta, on_run=progress, labels=transformer.VARIANT_LABELS)
    save_comparison(comparison, measured, args.out, transformer.load_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
