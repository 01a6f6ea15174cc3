"""Measure the Transformer lesson's ablations (``assets/results/transformer.json``) and depth sweep.

    python scripts/transformer_results.py --threads 1 --steps 300 --seeds 0 1 2
    python scripts/transformer_results.py --experiment depth --threads 1 --steps 250 --seeds 0 1 2

The shipped Transformer (2 + 2 layers, 4 heads, d_model 64) is trained on ``dates`` five times from each seed
with the same batches and the same step budget: as shipped (pre-LN), post-LN (the paper's arrangement), without
residual connections, without layer norm and without its feed-forward networks (``TransformerConfig``'s
``norm_first``, ``residual``, ``layer_norm`` and ``feed_forward`` flags). Every 25 steps the trainer reports its
loss and the held-out exact match (200 validation sentences, greedy); at the end, untimed, exact match on the
whole test split. The runs make one ``lessons.common.comparison.Comparison`` (one variant per arrangement, one run
per seed).

``--experiment depth`` measures the depth argument instead (``assets/results/transformer_depth.json``): a smaller
Transformer (``lessons.transformer.DEPTH_MODEL``) with 1, 2, 4 and 8 layers a stack, as shipped, without residuals and
without layer norm, every depth from each seed, judged by its final training loss and held-out exact match.

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

from lessons.common import verdicts  # noqa: E402
from lessons.common.comparison import measure  # noqa: E402
from lessons.transformer import ablation_runs, reading  # noqa: E402
from lessons.transformer.depth import (  # noqa: E402
    DEPTH_MODEL,
    DEPTH_RESULTS,
    DEPTH_SCRIPT,
    DEPTH_VARIANTS,
    DEPTHS,
    depth_config,
    depth_overrides,
    depth_run,
    load_depth_results,
)
from minimodels.tasks import get_task  # noqa: E402
from minimodels.train import build_model, evaluate, train  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, tokenized  # noqa: E402


def train_variant(variant: str, seed: int, steps: int, threads: int) -> dict:
    """One training run of ``variant``: its reports and its final test exact match."""
    task = get_task(ablation_runs.ABLATION_TASK)
    model = build_model(reading.MODEL, task, seed=seed, **ablation_runs.VARIANTS[variant])
    result = train(model, task, ablation_runs.results_config(steps, seed, threads))
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test").to(result.device))
    return {
        "config": ablation_runs.VARIANTS[variant],
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


def train_depth(variant: str, seed: int, depth: int, steps: int, threads: int) -> dict:
    """One point of the depth sweep: ``variant`` with ``depth`` layers a stack, its reports and final numbers."""
    task = get_task(ablation_runs.ABLATION_TASK)
    model = build_model(reading.MODEL, task, seed=seed, **depth_overrides(variant, depth))
    result = train(model, task, depth_config(steps, seed, threads))
    return {
        "parameters": sum(p.numel() for p in model.parameters()),
        "steps": result.steps,
        "seconds": round(result.seconds, 2),
        "exact_match": round(result.exact_match, 4),
        "history": [
            {"step": p.step, "seconds": round(p.seconds, 2), "loss": round(p.loss, 5), "exact_match": p.exact_match}
            for p in result.history
        ],
    }


def depth_sweep(args, measured: Measurement) -> int:
    """``--experiment depth``: every variant of the sweep at every depth, from every seed."""
    task = tokenized(ablation_runs.ABLATION_TASK)
    variants = [v for v in args.variants if v in DEPTH_VARIANTS] or list(DEPTH_VARIANTS)

    def run_one(variant: str, seed: int):
        runs = []
        for depth in args.depths:
            run = depth_run(variant, seed, depth, train_depth(variant, seed, depth, args.steps, args.threads))
            f = run.final
            print(
                f"  {variant:>14} seed {seed} depth {depth}: {f['seconds']:.1f} s, "
                f"held-out {f['held-out exact']:.1%}, final loss {f['final loss']:.4f}",
                flush=True,
            )
            runs.append(run)
        return runs

    config = depth_config(args.steps, args.seeds[0], args.threads)
    meta = {
        "lesson": "transformer",
        "script": DEPTH_SCRIPT,
        "task": ablation_runs.ABLATION_TASK,
        "task_seed": 0,
        "seeds": args.seeds,
        "max_steps": args.steps,
        "depths": args.depths,
        "model": DEPTH_MODEL,
        "valid_size": len(task.valid),
        "train_config": dataclasses.asdict(config),
    }
    comparison = measure(variants, args.seeds, run_one, meta, labels=ablation_runs.VARIANT_LABELS)
    save_comparison(comparison, measured, args.out or str(DEPTH_RESULTS), load_depth_results)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=300, help="training steps per variant")
    p.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=list(range(verdicts.MIN_SEEDS)),
        help="initial weights and batch order; every variant is trained once per seed",
    )
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--variants", nargs="+", default=list(ablation_runs.VARIANTS), choices=list(ablation_runs.VARIANTS))
    p.add_argument(
        "--experiment",
        choices=("ablation", "depth"),
        default="ablation",
        help="the variants at the shipped size, or the small model at several depths",
    )
    p.add_argument("--depths", type=int, nargs="+", default=list(DEPTHS), help="layers a stack (depth)")
    p.add_argument("--out", default=None, help="where to write the JSON (default: the lesson's file for it)")
    args = parse(p, argv)
    measured = Measurement("transformer_results.py", argv, args.threads)
    if args.experiment == "depth":
        return depth_sweep(args, measured)
    task = tokenized(ablation_runs.ABLATION_TASK)

    def run_one(variant: str, seed: int):
        return ablation_runs.ablation_run(variant, seed, train_variant(variant, seed, args.steps, args.threads))

    def progress(run, done: int, total: int) -> None:
        f = run.final
        print(
            f"[{done}/{total}] {run.variant:>14} seed {run.seed}: {f['steps']:.0f} steps, {f['seconds']:.1f} s, "
            f"held-out {f['held-out exact']:.1%}, test {f['test exact']:.1%}, final loss {f['final loss']:.4f}",
            flush=True,
        )

    config = ablation_runs.results_config(args.steps, args.seeds[0], args.threads)
    meta = {
        "lesson": "transformer",
        "script": ablation_runs.RESULT_SCRIPT,
        "task": ablation_runs.ABLATION_TASK,
        "task_seed": 0,
        "seeds": args.seeds,
        "max_steps": args.steps,
        "test_size": len(task.test),
        "train_config": dataclasses.asdict(config),
    }
    comparison = measure(args.variants, args.seeds, run_one, meta, on_run=progress, labels=ablation_runs.VARIANT_LABELS)
    save_comparison(comparison, measured, args.out or str(ablation_runs.RESULTS), ablation_runs.load_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
