"""Measure the positional-encoding comparison the lesson page opens with: ``assets/results/positional_encoding.json``.

    python scripts/positional_encoding_results.py --threads 1 --seeds 0 1 --steps 300

For each seed and each encoding (``none``, ``sinusoidal``, ``learned``), the same TinyTransformer (the same seed
for its initial weights and its batches) trains on ``reverse`` for ``--steps`` steps with the
shipped checkpoints' recipe (Adam, 50-step warm-up, inverse-square-root decay), checking 200 held-out strings
every ``--report-every`` steps. Then, untimed: exact match on the whole test split and how often the last
decoder layer's cross-attention peaks on the source character each output character comes from.

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

from lessons import positional_encoding as positional  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from minimodels.train import alignment_accuracy, build_model, default_train_config, evaluate, train  # noqa: E402
from scripts.common import Measurement, write_results  # noqa: E402


def measure(encoding: str, seed: int, steps: int, report_every: int) -> tuple[positional.RunSummary, int]:
    """One run; returns its summary and the model's parameter count."""
    task = get_task(positional.TASK)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before the clock starts
    model = build_model(positional.MODEL, task, seed=seed, positional=encoding)
    config = default_train_config(
        positional.MODEL,
        seed=seed,
        max_steps=steps,
        max_seconds=None,
        target_exact_match=None,
        report_every=report_every,
        device="cpu",
    )
    result = train(model, task, config)
    curve = [
        {"step": p.step, "seconds": round(p.seconds, 2), "loss": round(p.loss, 4), "exact_match": p.exact_match}
        for p in result.history
    ]
    reached = {}
    for level in positional.LEVELS:
        first = next((p for p in result.history if p.exact_match >= level), None)
        reached[positional.level_key(level)] = first and {"step": first.step, "seconds": round(first.seconds, 2)}
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test"))
    summary = positional.RunSummary(
        seed=seed,
        steps=result.steps,
        seconds=round(result.seconds, 2),
        exact_match=result.exact_match,
        test_exact_match=round(test, 4),
        alignment_accuracy=round(alignment_accuracy(model, task, "test")["accuracy"], 4),
        reached=reached,
        curve=curve,
    )
    return summary, sum(p.numel() for p in model.parameters() if p.requires_grad)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="one run per encoding and seed")
    p.add_argument("--steps", type=int, default=300, help="training steps per run")
    p.add_argument("--report-every", type=int, default=25, help="steps between held-out checks")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 or 2 on a shared laptop)")
    p.add_argument("--out", default=str(positional.RESULTS), help="where to write the JSON")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    measured = Measurement("positional_encoding_results.py", argv, args.threads)
    runs: dict[str, list[dict]] = {name: [] for name in positional.ENCODINGS}
    parameters: dict[str, int] = {}
    for seed in args.seeds:
        for name in positional.ENCODINGS:
            summary, parameters[name] = measure(name, seed, args.steps, args.report_every)
            runs[name].append(dataclasses.asdict(summary))
            print(
                f"seed {seed} {name:>10}: {summary.steps} steps, {summary.seconds:.1f} s, held-out "
                f"{summary.exact_match:.1%}, test {summary.test_exact_match:.1%}, anti-diagonal "
                f"{summary.alignment_accuracy:.1%}, reached {summary.reached}",
                flush=True,
            )
    document = {
        "lesson": "positional",
        "task": positional.TASK,
        "task_seed": 0,
        "model": positional.MODEL,
        "seeds": args.seeds,
        "steps": args.steps,
        "report_every": args.report_every,
        "levels": list(positional.LEVELS),
        "train_config": dataclasses.asdict(
            default_train_config(
                positional.MODEL,
                seed=args.seeds[0],
                max_steps=args.steps,
                max_seconds=None,
                target_exact_match=None,
                report_every=args.report_every,
                device="cpu",
            )
        ),  # fmt: skip
        **measured.provenance(),
        "encodings": {name: {"parameters": parameters[name], "runs": runs[name]} for name in positional.ENCODINGS},
    }
    write_results(args.out, document, positional.load_results)  # what was written must read back
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
