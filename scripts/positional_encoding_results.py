"""Measure the positional-encoding comparison the lesson page opens with: ``assets/results/positional_encoding.json``.

    python scripts/positional_encoding_results.py --threads 1 --seeds 0 1 --steps 300

For each seed and each encoding (``none``, ``sinusoidal``, ``learned``), the same TinyTransformer (the same seed
for its initial weights and its batches) trains on ``reverse`` for ``--steps`` steps with the
shipped checkpoints' recipe (Adam, 50-step warm-up, inverse-square-root decay), checking 200 held-out strings
every ``--report-every`` steps. Then, untimed: exact match on the whole test split and how often the last
decoder layer's cross-attention peaks on the source character each output character comes from.

The file is a ``lessons.common.comparison.Comparison`` of the three encodings × the seeds: each run's curve of
held-out checks, its final metrics (``lessons.positional_encoding.FINAL``) and its parameter count.

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. A fixed step budget makes the steps reproducible; the seconds depend on the machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import positional_encoding  # noqa: E402
from lessons.common.comparison import Run, first_reached, measure  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from minimodels.train import alignment_accuracy, build_model, default_train_config, evaluate, train  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def config(seed: int, steps: int, report_every: int):
    """The shipped checkpoints' recipe for a fixed number of steps, on the CPU."""
    return default_train_config(positional_encoding.MODEL, seed=seed, max_steps=steps, max_seconds=None,
                                target_exact_match=None, report_every=report_every, device="cpu")  # fmt: skip


def run_one(encoding: str, seed: int, steps: int, report_every: int) -> Run:
    """Train one model with ``encoding`` from ``seed`` for ``steps`` steps; then, untimed, test it."""
    task = get_task(positional_encoding.TASK)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before the clock starts
    model = build_model(positional_encoding.MODEL, task, seed=seed, positional=encoding)
    result = train(model, task, config(seed, steps, report_every))
    history = result.history
    curve = [{"step": p.step, "seconds": p.seconds, "loss": p.loss, "exact_match": p.exact_match} for p in history]
    final = {}
    for level in positional_encoding.LEVELS:
        for x in ("step", "seconds"):
            final[positional_encoding.reached_metric(level, x)] = first_reached(curve, "exact_match", level, x)
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test"))
    final |= {
        "steps": result.steps,
        "seconds": result.seconds,
        "held-out exact": result.exact_match,
        "test exact": test,
        "anti-diagonal": alignment_accuracy(model, task, "test")["accuracy"],
    }
    parameters = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return Run(encoding, seed, curve=tuple(curve), final=final, extra={"parameters": parameters})


def report(run: Run, done: int, total: int) -> None:
    f = run.final
    print(
        f"[{done}/{total}] seed {run.seed} {run.variant:>10}: {f['steps']:g} steps, {f['seconds']:.1f} s, held-out "
        f"{f['held-out exact']:.1%}, test {f['test exact']:.1%}, anti-diagonal {f['anti-diagonal']:.1%}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="one run per encoding and seed")
    p.add_argument("--steps", type=int, default=300, help="training steps per run")
    p.add_argument("--report-every", type=int, default=25, help="steps between held-out checks")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 or 2 on a shared laptop)")
    p.add_argument("--out", default=str(positional_encoding.RESULTS), help="where to write the JSON")
    args = parse(p, argv)
    measured = Measurement("positional_encoding_results.py", argv, args.threads)
    results = measure(
        positional_encoding.ENCODINGS, args.seeds,
        lambda encoding, seed: run_one(encoding, seed, args.steps, args.report_every),
        meta={}, on_run=report, labels=positional_encoding.LABELS,
    )  # fmt: skip
    meta = {
        "lesson": "positional_encoding", "script": positional_encoding.SCRIPT, "task": positional_encoding.TASK,
        "task_seed": 0, "model": positional_encoding.MODEL, "seeds": args.seeds, "steps": args.steps,
        "report_every": args.report_every, "levels": list(positional_encoding.LEVELS),
        "train_config": dataclasses.asdict(config(args.seeds[0], args.steps, args.report_every)),
    }  # fmt: skip
    save_comparison(results, measured, args.out, positional_encoding.load_results, **meta)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
