"""The command line: train one model on one task, one JSON line per report, then a final line.

::

    python -m minimodels.train --task dates --model gru-additive --target 0.98 --max-seconds 120 \\
        --threads 2 --seed 0 [--out assets/checkpoints/NAME]

With ``--out`` it saves a checkpoint whose ``training`` record keeps the command, so every shipped checkpoint
says how to make it again (see assets/checkpoints/README.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

import torch

from ..tasks import TASK_NAMES, get_task
from .config import default_train_config
from .loop import train
from .metrics import alignment_accuracy, evaluate
from .models import MODEL_NAMES, build_model
from .snapshots import Progress


def _parse_value(text: str):
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m minimodels.train",
        description="Train a model on a task, printing one JSON line per progress report and a final one.",
    )
    p.add_argument("--task", default="dates", help=f"one of: {', '.join(TASK_NAMES)}")
    p.add_argument("--model", default="gru-additive", help=f"one of: {', '.join(MODEL_NAMES)}")
    p.add_argument("--target", type=float, default=0.98, help="stop at this held-out exact match (0 = never)")
    p.add_argument("--max-seconds", type=float, default=120.0, help="wall-time budget (0 = none)")
    p.add_argument("--max-steps", type=int, default=5000, help="step budget (0 = none)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    p.add_argument("--seed", type=int, default=0, help="seeds the initial weights and the batch order")
    p.add_argument("--task-seed", type=int, default=0, help="seeds the generated data (the course uses 0)")
    p.add_argument("--device", default=None, help="cpu | cuda | mps (default: the fastest available)")
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--warmup-steps", type=int, default=None, help="linear lr warm-up over this many steps")
    p.add_argument("--decay", action="store_true", help="after warm-up, lr x (warmup/step)**decay_power")
    p.add_argument(
        "--average", type=float, default=None, help="decay of the weights' average judged and saved (0 = off)"
    )
    p.add_argument("--report-every", type=int, default=None)
    p.add_argument("--eval-size", type=int, default=None)
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="model config field, repeatable")
    p.add_argument("--no-test", action="store_true", help="skip the final full test-split evaluation")
    p.add_argument("--out", default=None, help="save a checkpoint directory here")
    return p


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.task not in TASK_NAMES:
        return _fail(f"unknown task {args.task!r}; choose from {', '.join(TASK_NAMES)}")
    if args.model not in MODEL_NAMES:
        return _fail(f"unknown model {args.model!r}; choose from {', '.join(MODEL_NAMES)}")
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            return _fail(f"--set expects FIELD=VALUE, got {item!r}")
        overrides[key.strip()] = _parse_value(value.strip())
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        task = get_task(args.task, seed=args.task_seed)
        model = build_model(args.model, task, seed=args.seed, **overrides)
    except (ValueError, FileNotFoundError) as error:
        return _fail(str(error))
    options = {
        "seed": args.seed,
        "target_exact_match": args.target or None,
        "max_seconds": args.max_seconds or None,
        "max_steps": args.max_steps or None,
        "device": args.device,
    }
    for name in ("batch_size", "lr", "warmup_steps", "report_every", "eval_size"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.average is not None:
        options["average"] = args.average or None  # 0: the last step's weights, whatever the model's recipe
    if args.decay:
        if not (args.warmup_steps or args.model == "transformer"):
            return _fail("--decay needs --warmup-steps (it decays from the end of the warm-up)")
        options["decay"] = True
    try:
        config = default_train_config(args.model, **options)
    except ValueError as error:
        return _fail(str(error))

    def on_progress(p: Progress) -> None:
        print(json.dumps(p.as_json()), flush=True)

    result = train(model, task, config, on_progress)
    final = {
        "event": "done",
        "task": args.task,
        "model": args.model,
        "seed": args.seed,
        "steps": result.steps,
        "seconds": round(result.seconds, 3),
        "exact_match": round(result.exact_match, 4),
        "eval_size": min(config.eval_size, len(task.valid)),
        "loss": round(result.loss, 5),
        "stopped": result.stopped,
        "device": result.device,
        "threads": torch.get_num_threads(),
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    if not args.no_test:
        with torch.inference_mode():
            final["test_exact_match"] = round(evaluate(model, task.encoded("test").to(result.device)), 4)
        alignment = alignment_accuracy(model, task, "test")
        if alignment:
            final["test_alignment_accuracy"] = round(alignment["accuracy"], 4)
    if args.out:
        from ..checkpoints import save_checkpoint

        training = {k: final[k] for k in ("steps", "seconds", "exact_match", "stopped", "device", "threads")}
        training.update({k: final[k] for k in ("test_exact_match", "test_alignment_accuracy") if k in final})
        training["command"] = "python -m minimodels.train " + " ".join(sys.argv[1:] if argv is None else argv)
        training["train_config"] = dataclasses.asdict(config)
        path = save_checkpoint(
            args.out,
            model,
            model_name=args.model,
            task=task,
            task_seed=args.task_seed,
            seed=args.seed,
            training=training,
        )
        final["checkpoint"] = str(path)
    print(json.dumps(final), flush=True)
    return 0
