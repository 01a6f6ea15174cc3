"""The command line: train one model on one task, one JSON line per report, then a final line.

::

    python -m minimodels.train --task dates --model gru-additive --target 0.98 --max-seconds 120 \\
        --threads 2 --seed 0 [--out assets/checkpoints/NAME]

With ``--out`` it saves a checkpoint whose ``training`` record keeps the command, so every shipped checkpoint
says how to make it again (see assets/checkpoints/README.md).

On a teacher's own sentence pairs (see :mod:`minimodels.own_data`) instead of a generated task::

    python -m minimodels.train --pairs TRAIN.tsv [--valid VALID.tsv] --model gru-additive|transformer --out DIR

trains sentencepiece models on the training pairs, holds out the validation file's pairs (or a seeded 10%),
prints the same JSON lines (``exact_match`` on the held-out pairs; ``test_exact_match`` on all of them) and
writes into DIR the one model file the "Your own data" page downloads and loads. A file it cannot use gets a
plain message and exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

import torch

from ..checkpoints import save_checkpoint
from ..own_data import (
    PairsError,
    PairsTask,
    artifact_filename,
    build_own_model,
    own_data_train_config,
    read_pairs,
    save_model,
)
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
    p.add_argument("--task", default=None, help=f"one of: {', '.join(TASK_NAMES)} (default: dates)")
    p.add_argument("--pairs", default=None, metavar="TRAIN.tsv", help="train on these sentence pairs (TSV or CSV)")
    p.add_argument("--valid", default=None, metavar="VALID.tsv", help="held-out pairs (default: 10%% of --pairs)")
    p.add_argument("--vocab-size", type=int, default=None, help="with --pairs: sentencepiece pieces per side, at most")
    p.add_argument(
        "--duplicates", choices=("keep", "drop"), default="keep", help="with --pairs: keep or drop repeated pairs"
    )
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
    p.add_argument("--out", default=None, help="save a checkpoint directory here (with --pairs: the model file)")
    return p


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _pairs_task(args):
    """The task of ``--pairs``/``--valid``, or the message that says why not (nothing written either way)."""

    try:
        files = []
        for option, given in (("--pairs", args.pairs), ("--valid", args.valid)):
            if given is None:
                files.append(None)
                continue
            path = Path(given)
            if not path.is_file():
                return None, f"{option}: no such file: {given}"
            try:
                files.append(read_pairs(path, duplicates=args.duplicates))
            except PairsError as error:
                raise PairsError(f"{option} {path.name}: {error}") from None
        for pf, option in zip(files, ("--pairs", "--valid"), strict=True):
            if pf is not None and (pf.skipped or pf.duplicates):
                print(
                    f"note: {option} {pf.name}: {len(pf.pairs)} pairs read, {len(pf.skipped)} lines skipped"
                    + "".join(f"; line {n}: {why}" for n, why in pf.skipped[:3])
                    + (
                        f"; {len(pf.duplicates)} repeated pairs {'dropped' if pf.duplicates_dropped else 'kept'}"
                        if pf.duplicates
                        else ""
                    ),
                    file=sys.stderr,
                )
        task = PairsTask.from_pairs(
            files[0], files[1], vocab_size=args.vocab_size, seed=args.task_seed, name=files[0].name
        )
    except PairsError as error:
        return None, str(error)
    return task, None


def _save_pairs_model(out: str, model, task, result, config, final: dict) -> str:

    data = save_model(model, task, curve=result.history, config=config, extra={"final": final})
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / artifact_filename(final["model"], task.fingerprint)
    path.write_bytes(data)
    return str(path)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.pairs is not None and args.task is not None:
        return _fail("--pairs trains on your file instead of a --task: give one of them")
    if args.valid is not None and args.pairs is None:
        return _fail("--valid needs --pairs (the training pairs)")
    if args.pairs is None and (args.vocab_size is not None or args.duplicates != "keep"):
        return _fail("--vocab-size and --duplicates apply to --pairs only")
    if args.pairs is None and args.task is None:
        args.task = "dates"
    if args.pairs is None and args.task not in TASK_NAMES:
        return _fail(f"unknown task {args.task!r}; choose from {', '.join(TASK_NAMES)}")
    if args.model not in MODEL_NAMES:
        return _fail(f"unknown model {args.model!r}; choose from {', '.join(MODEL_NAMES)}")
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            return _fail(f"--set expects FIELD=VALUE, got {item!r}")
        overrides[key.strip()] = _parse_value(value.strip())
    if args.out and args.pairs is not None and os.path.exists(args.out) and not os.path.isdir(args.out):
        return _fail(f"--out {args.out} is a file; give a folder for the model file")
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        if args.pairs is not None:
            task, problem = _pairs_task(args)
            if problem:
                return _fail(problem)
            model = build_own_model(args.model, task, seed=args.seed, **overrides)
        else:
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
        if args.pairs is not None:
            config = own_data_train_config(args.model, **options)
        else:
            config = default_train_config(args.model, **options)
    except ValueError as error:
        return _fail(str(error))

    def on_progress(p: Progress) -> None:
        print(json.dumps(p.as_json()), flush=True)

    result = train(model, task, config, on_progress)
    final = {
        "event": "done",
        "task": args.task if args.pairs is None else f"pairs:{task.source_name}",
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
    if args.pairs is not None:
        final["pairs"] = {
            "train": len(task.train),
            "held_out": len(task.valid),
            "held_out_from": task.held_out_from,
            "fingerprint": task.fingerprint,
        }
        final["vocab_size"] = {"source": task.source_tokenizer.vocab_size, "target": task.target_tokenizer.vocab_size}
        if args.out:
            final["model_file"] = _save_pairs_model(args.out, model, task, result, config, dict(final))
    elif args.out:
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
