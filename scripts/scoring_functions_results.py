"""Measure the scoring-functions race that the lesson page opens with: ``assets/results/scoring_functions.json``.

    python scripts/scoring_functions_results.py --threads 1 --seeds 0 1 2 3 4 --budget none

For each seed, the four GRU encoder–decoders (dot, scaled dot, bilinear, additive) start from that seed and race on
``dates`` exactly as the page's Train button does (``lessons.scoring_functions.race_training.race``: turns of ten
steps, each model's own compute seconds counted, stop at 98% held-out exact match or after ``--budget`` seconds).
``--budget none`` leaves the seconds out of the stop: a model stops at 98% or after the race's ``max_steps``, so what it
learns does not depend on how busy the machine is (a model's own seconds are wall-clock time between its turns, and
other processes' load lengthens them); only the seconds figures still do.
Then, untimed: exact match on the whole test split and alignment accuracy against the gold alignment. The first
seed's final attention on the task's probe sentence is kept (in that run's ``extra``) for the page's heatmaps, and
the dot and scaled dot models' score statistics before and after the race (``race_softmax.race_score_stats``: the
variance of queries and keys, the sd of q·k, the largest α) in their runs' ``extra["scores"]``: why the unscaled
scores are small here.

First, in seconds: the reduced race (``reduced_race.retrieval_run``: one attention layer finding the key a query is
a noisy copy of) at d = 4, 16, 64, 256 on unit-variance vectors, and at d = 256 on vectors of variance 0.05, for dot
and scaled dot over ``--sweep-seeds``: where scaling starts to matter. It is kept as a second comparison in
``meta["d_sweep"]``.

The result is one ``lessons.common.comparison.Comparison`` (variants: the scores; one run per seed), written with
``Comparison.save``. Figures are only what was measured: the command, date, machine, torch threads and the load
average before and after are written with them. Run it on a calm machine (a busy one makes every "seconds" figure
larger).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common import verdicts  # noqa: E402
from lessons.common.comparison import Comparison, measure  # noqa: E402
from lessons.common.runs import Run  # noqa: E402
from lessons.scoring_functions import (  # noqa: E402
    four_scores,
    race_softmax,
    race_training,
    reduced_race,
    shipped_race,
)
from minimodels.tasks import get_task  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def parse_budget(text: str) -> float | None:
    """``--budget``: compute seconds per model, or ``none`` for a race stopped by steps only."""
    if text.strip().lower() == "none":
        return None
    seconds = float(text)
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"a budget is a positive number of seconds or none, not {text!r}")
    return seconds


def race_once(seed: int, budget: float | None, threads: int, probe: bool) -> tuple[dict[str, Run], dict]:
    """One race from ``seed``: each score's run (with its final probe map when ``probe``) and its models' sizes."""
    task = get_task(race_training.TASK)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before any clock starts
    models = race_training.new_models(task, seed)
    start = {s: race_softmax.race_score_stats(models[s].eval(), task) for s in race_softmax.STAT_SCORES}
    latest: list[race_training.RaceReport] = []
    config = race_training.race_config(seed, threads=threads)
    runs = race_training.race(models, task, config, budget_seconds=budget, on_progress=latest.append)
    for score in race_softmax.STAT_SCORES:  # untimed: what each dot model's softmax saw, before and after
        scores = {"start": start[score], "end": race_softmax.race_score_stats(models[score].eval(), task)}
        runs[score] = dataclasses.replace(runs[score], extra={**runs[score].extra, "scores": scores})
    if probe:
        for score, history in latest[-1].histories.items():
            last = history[-1]
            attention = [[round(float(v), 4) for v in row] for row in last.attention]
            probe_map = {
                "step": last.step,
                "attention": attention,
                "source_tokens": list(last.source_tokens),
                "target_tokens": list(last.target_tokens),
                "prediction": last.prediction,
            }
            runs[score] = dataclasses.replace(runs[score], extra={**runs[score].extra, "probe": probe_map})
    sizes = {
        score: {
            "model": race_training.model_name(score),
            "attends_from": race_training.QUERY[score],
            "parameters": {"score": race_training.score_parameters(m), "model": four_scores.parameter_count(m)},
        }
        for score, m in models.items()
    }
    return runs, sizes


def d_sweep(seeds: list[int]) -> Comparison:
    """The reduced race (``reduced_race.retrieval_run``) at every d of the sweep, both dot scores, every seed."""
    runs = []
    for config in reduced_race.sweep_configs():
        for score in reduced_race.SWEEP_SCORES:
            for seed in seeds:
                run = reduced_race.retrieval_run(score, config, seed)
                runs.append(run)
                early = reduced_race.early_metric(config)
                print(
                    f"d = {config.d:>3} σ = {config.sigma:.2f} seed {seed} {score:>10}: {early} "
                    f"{run.final[early]:.2f}, final accuracy {run.final['accuracy']:.0%}",
                    flush=True,
                )
    meta = {
        "script": shipped_race.SCRIPT,
        "seeds": seeds,
        "config": dataclasses.asdict(reduced_race.RetrievalConfig(d=0)),
    }
    labels = {s: four_scores.LABELS[s] for s in reduced_race.SWEEP_SCORES}
    return Comparison(reduced_race.SWEEP_SCORES, tuple(runs), meta, labels)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(verdicts.MIN_SEEDS)), help="one race per seed")
    p.add_argument(
        "--budget",
        type=parse_budget,
        default=30.0,
        help="compute seconds per model and seed, at most; none: stop at the target or the race's max_steps only",
    )
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 or 2 on a shared laptop)")
    p.add_argument(
        "--sweep-seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2, 3, 4],
        help="seeds of the reduced race at several d (seconds each)",
    )
    p.add_argument("--out", default=str(shipped_race.RESULTS), help="where to write the JSON")
    args = parse(p, argv)
    measured = Measurement("scoring_functions_results.py", argv, args.threads)
    races: dict[int, dict[str, Run]] = {}
    models: dict[str, dict] = {}

    def run_one(score: str, seed: int) -> Run:  # a race trains the four scores of a seed together, once
        if seed not in races:
            races[seed], sizes = race_once(seed, args.budget, args.threads, probe=seed == args.seeds[0])
            models.update(sizes)
        return races[seed][score]

    def on_run(run: Run, done: int, total: int) -> None:
        f = run.final
        print(
            f"[{done}/{total}] seed {run.seed} {run.variant:>10}: {f['steps']:.0f} steps, {f['seconds']:.1f} s, "
            f"held-out {f['held-out exact match']:.1%}, test {f['test exact match']:.1%}, alignment "
            f"{f['alignment accuracy']:.1%} ({run.extra['stopped']})",
            flush=True,
        )

    meta = {
        "lesson": "scoring_functions",
        "script": shipped_race.SCRIPT,
        "task": race_training.TASK,
        "task_seed": 0,
        "seeds": args.seeds,
        "levels": list(race_training.LEVELS),
        "budget_seconds": args.budget,
        "train_config": dataclasses.asdict(race_training.race_config(args.seeds[0], threads=args.threads)),
    }
    meta["d_sweep"] = d_sweep(args.sweep_seeds).to_dict()
    comparison = measure(four_scores.SCORES, args.seeds, run_one, meta, on_run, four_scores.LABELS)
    save_comparison(comparison, measured, args.out, shipped_race.load_results, models=models)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
