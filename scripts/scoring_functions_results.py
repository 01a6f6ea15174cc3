"""Measure the scoring-functions race that the lesson page opens with: ``assets/results/scoring_functions.json``.

    python scripts/scoring_functions_results.py --threads 1 --seeds 0 1 2 --budget 30

For each seed, the four GRU encoder–decoders (dot, scaled dot, bilinear, additive) start from that seed and race
on ``dates`` exactly as the page's Train button does (``lessons.scoring_functions.race``: turns of ten steps, each
model's
own compute seconds counted, stop at 98% held-out exact match or after ``--budget`` seconds). Then, untimed:
exact match on the whole test split and alignment accuracy against the gold alignment. The first seed's final
attention on the task's probe sentence is kept for the page's heatmaps.

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. Run it on a calm machine (a busy one makes every "seconds" figure larger).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import scoring_functions as scoring  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from scripts.common import Measurement, write_results  # noqa: E402


def measure(seed: int, budget: float, threads: int) -> tuple[dict[str, scoring.RunSummary], dict, dict]:
    """One race from ``seed``: each score's summary, its final probe map and its parameter counts."""
    task = get_task(scoring.TASK)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before any clock starts
    models = scoring.new_models(task, seed)
    latest: list[scoring.RaceReport] = []
    config = scoring.race_config(seed, threads=threads)
    summaries = scoring.race(models, task, config, budget_seconds=budget, on_progress=latest.append)
    report = latest[-1]
    probes = {}
    for score, history in report.histories.items():
        last = history[-1]
        probes[score] = {
            "seed": seed,
            "step": last.step,
            "attention": [[round(float(v), 4) for v in row] for row in last.attention],
            "source_tokens": list(last.source_tokens),
            "target_tokens": list(last.target_tokens),
            "prediction": last.prediction,
        }
    parameters = {
        score: {"score": scoring.score_parameters(m), "model": scoring.parameter_count(m)}
        for score, m in models.items()
    }
    return summaries, probes, parameters


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="one race per seed")
    p.add_argument("--budget", type=float, default=30.0, help="compute seconds per model and seed, at most")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 or 2 on a shared laptop)")
    p.add_argument("--out", default=str(scoring.RESULTS), help="where to write the JSON")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    measured = Measurement("scoring_functions_results.py", argv, args.threads)
    runs: dict[str, list[dict]] = {s: [] for s in scoring.SCORES}
    probes, parameters = {}, {}
    for seed in args.seeds:
        summaries, seed_probes, parameters = measure(seed, args.budget, args.threads)
        if not probes:
            probes = seed_probes
        for score in scoring.SCORES:
            runs[score].append(dataclasses.asdict(summaries[score]))
            s = summaries[score]
            print(
                f"seed {seed} {score:>10}: {s.steps} steps, {s.seconds:.1f} s, held-out {s.exact_match:.1%}, "
                f"test {s.test_exact_match:.1%}, alignment {s.alignment_accuracy:.1%} ({s.stopped})",
                flush=True,
            )
    document = {
        "lesson": "scoring",
        "task": scoring.TASK,
        "task_seed": 0,
        "seeds": args.seeds,
        "levels": list(scoring.LEVELS),
        "budget_seconds": args.budget,
        "train_config": dataclasses.asdict(scoring.race_config(args.seeds[0], threads=args.threads)),
        **measured.provenance(),
        "models": {
            score: {
                "model": scoring.model_name(score),
                "attends_from": scoring.QUERY[score],
                "parameters": parameters[score],
                "runs": runs[score],
                "probe": probes[score],
            }
            for score in scoring.SCORES
        },
    }
    write_results(args.out, document, scoring.load_results)  # what was written must read back
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
