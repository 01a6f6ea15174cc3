"""Measure the Transformer lesson's residual and layer-norm ablations: ``assets/results/transformer.json``.

    python scripts/transformer_results.py --threads 1 --steps 300

The shipped Transformer (2 + 2 layers, 4 heads, d_model 64) is trained on ``dates`` four times from the same seed
with the same batches and the same step budget: as shipped (pre-LN), post-LN (the paper's arrangement), without
residual connections and without layer norm (``TransformerConfig``'s ``norm_first``, ``residual`` and
``layer_norm`` flags). Every 25 steps the trainer reports its loss and the held-out exact match (200 validation
sentences, greedy); at the end, untimed, exact match on the whole test split.

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. About a minute per variant on one quiet core.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import transformer as tr  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from minimodels.train import build_model, evaluate, train  # noqa: E402
from scripts.common import Measurement, write_results  # noqa: E402


def measure(variant: str, seed: int, steps: int, threads: int) -> dict:
    """One training run of ``variant``: its reports and its final test exact match."""
    task = get_task(tr.ABLATION_TASK)
    model = build_model(tr.MODEL, task, seed=seed, **tr.VARIANTS[variant])
    result = train(model, task, tr.results_config(steps, seed, threads))
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test").to(result.device))
    return {
        "config": tr.VARIANTS[variant],
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
    p.add_argument("--seed", type=int, default=0, help="initial weights and batch order, the same for every variant")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--variants", nargs="+", default=list(tr.VARIANTS), choices=list(tr.VARIANTS))
    p.add_argument("--out", default=str(tr.RESULTS), help="where to write the JSON")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    task = get_task(tr.ABLATION_TASK)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before any clock starts
    measured = Measurement("transformer_results.py", argv, args.threads)
    runs = {}
    for variant in args.variants:
        runs[variant] = run = measure(variant, args.seed, args.steps, args.threads)
        print(
            f"{variant:>14}: {run['steps']} steps, {run['seconds']:.1f} s, held-out {run['exact_match']:.1%}, "
            f"test {run['test_exact_match']:.1%}, final loss {run['history'][-1]['loss']:.4f}",
            flush=True,
        )
    document = {
        "lesson": "transformer",
        "task": tr.ABLATION_TASK,
        "task_seed": 0,
        "seed": args.seed,
        "max_steps": args.steps,
        "test_size": len(task.test),
        "train_config": dataclasses.asdict(tr.results_config(args.steps, args.seed, args.threads)),
        **measured.provenance(),
        "runs": runs,
    }
    write_results(args.out, document, tr.load_results)  # what was written must read back
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
