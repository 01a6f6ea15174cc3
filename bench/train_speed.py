"""Wall time for a model to reach a held-out exact match, the figure that makes live training possible.

    python -m bench.train_speed --task dates --model gru-additive --threads 2 --target 0.98 [--seeds 0 1 2]

For each seed: build the model, then time :func:`minimodels.train.train` (evaluation included, model building
and data generation excluded) until the held-out exact match (200 validation sentences, checked every
``report_every`` steps) reaches the target. Afterwards, untimed: exact match on the whole test split and,
where the task has gold alignments, how often the attention's argmax falls on a gold source token.

Prints one JSON line per run and a summary line with the medians. The 1-minute load average is recorded
with each run: a figure taken on a busy machine is not a figure for an idle one. So is the process's CPU
time (all its threads): on a shared machine, a 1-thread run's CPU seconds approximate its idle wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch

from minimodels.tasks import get_task
from minimodels.train import alignment_accuracy, build_model, default_train_config, evaluate, train


def _first_at(history, level: float) -> tuple[int, float] | tuple[None, None]:
    for p in history:
        if p.exact_match >= level:
            return p.step, p.seconds
    return None, None


def measure(
    task_name: str,
    model_name: str,
    seed: int = 0,
    target: float = 0.98,
    max_seconds: float = 120.0,
    overrides: dict | None = None,
    train_options: dict | None = None,
) -> dict:
    """One timed run; returns its figures."""
    task = get_task(task_name)
    task.encoded("train"), task.encoded("valid"), task.encoded("test")  # tokenize before the clock starts
    model = build_model(model_name, task, seed=seed, **(overrides or {}))
    config = default_train_config(
        model_name, seed=seed, target_exact_match=target, max_seconds=max_seconds, **(train_options or {})
    )
    load = os.getloadavg()[0]
    cpu_start = time.process_time()
    result = train(model, task, config)
    cpu_seconds = time.process_time() - cpu_start
    steps_95, seconds_95 = _first_at(result.history, 0.95)
    row = {
        "task": task_name,
        "model": model_name,
        "seed": seed,
        "threads": torch.get_num_threads(),
        "device": result.device,
        "load_1min_before": round(load, 2),
        "target": target,
        "reached": result.stopped == "target",
        "steps": result.steps,
        "seconds": round(result.seconds, 2),
        "cpu_seconds": round(cpu_seconds, 2),
        "ms_per_step": round(1e3 * result.seconds / result.steps, 1),
        "evaluations": result.evaluations,  # held-out checks (greedy decoding), included in "seconds"
        "evaluation_seconds": round(result.evaluation_seconds, 2),
        "held_out_exact_match": result.exact_match,
        "steps_to_95": steps_95,
        "seconds_to_95": None if seconds_95 is None else round(seconds_95, 2),
    }
    with torch.inference_mode():
        row["test_exact_match"] = round(evaluate(model, task.encoded("test").to(result.device)), 4)
    alignment = alignment_accuracy(model, task, "test")
    if alignment:
        row["test_alignment_accuracy"] = round(alignment["accuracy"], 4)
        best = max(alignment["maps"], key=alignment["maps"].get)
        row["best_map"] = best
        row["best_map_alignment_accuracy"] = round(alignment["maps"][best], 4)
    return row


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="dates")
    p.add_argument("--model", default="gru-additive")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--target", type=float, default=0.98)
    p.add_argument("--max-seconds", type=float, default=120.0)
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="model config override")
    p.add_argument("--train", action="append", default=[], metavar="FIELD=VALUE", help="TrainConfig override")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)

    def pairs(items):
        out = {}
        for item in items:
            key, _, value = item.partition("=")
            out[key] = json.loads(value) if value[:1] in "0123456789-[{tfn" else value
        return out

    rows = []
    for seed in args.seeds:
        row = measure(args.task, args.model, seed, args.target, args.max_seconds, pairs(args.set), pairs(args.train))
        print(json.dumps(row), flush=True)
        rows.append(row)
    summary = {
        "summary": f"{args.task}/{args.model}",
        "threads": args.threads,
        "runs": len(rows),
        "reached": sum(r["reached"] for r in rows),
        "median_seconds": statistics.median(r["seconds"] for r in rows),
        "median_steps": statistics.median(r["steps"] for r in rows),
        "median_test_exact_match": statistics.median(r["test_exact_match"] for r in rows),
    }
    if "test_alignment_accuracy" in rows[0]:
        summary["median_test_alignment_accuracy"] = statistics.median(r["test_alignment_accuracy"] for r in rows)
    print(json.dumps(summary), flush=True)
    return rows


if __name__ == "__main__":
    main()
