"""Train the architecture lab's presets and write ``assets/results/architecture_lab.json``, the table the page opens
with.

    python scripts/architecture_lab_results.py --tasks toy-translation --seeds 0 1 2 3 4 --max-steps 200 --stop-at 1.0 \
        --budget 600 --threads 1 --out assets/results/architecture_lab.json

(``--budget 600``: a cap of 120 s cuts a run short of its 200 steps on a machine at load ~9.)

The task is the toy English -> French translation (adjectives move behind their noun): unlike ``reverse``, which
every preset learns to ~100%, it separates the architectures after 200 steps.

Each preset of ``lessons.architecture_lab.presets.PRESETS`` (small copies of the paper's encoder/decoder combinations)
is built from the seed and trained as the page's Train button does
(``lessons.architecture_lab.training.train_config``: Adam, peak lr 1e-2 after 50 warm-up steps, inverse-square-root
decay, batches of 128, a report every 25 steps on 200 held-out examples, stop at 98% exact match), except that a run's
length is counted in steps (``--max-steps``, so that a busy machine does not cut a run short; ``--budget`` seconds is
only a safety cap). Each run's steps and seconds to 90% and its final exact match are recorded with its reports (a
``lessons.common.comparison.Comparison``: presets × seeds, one run per task), and for the first task and seed the
final attention of every layer on the task's probe, for the page's heatmaps.

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. A busy machine makes every "seconds" figure larger; steps hardly change.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.architecture_lab import compare_runs, presets, training, writing_chains  # noqa: E402
from lessons.common.comparison import Comparison, measure  # noqa: E402
from lessons.common.runs import Run  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from scripts.common import machine, parse  # noqa: E402

SCRIPT = "scripts/architecture_lab_results.py"


def load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def train_one(
    preset: presets.Preset,
    task_name: str,
    seed: int,
    budget: float,
    max_steps: int,
    threads: int,
    probe: bool,
    stop_at: float = training.STOP_AT,
) -> Run:
    """One training run of ``preset`` on ``task_name`` (with its final probe maps when ``probe``)."""
    task = get_task(task_name)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before the clock starts
    checked = writing_chains.check(preset.encoder, preset.decoder, task)
    if checked.error:
        raise SystemExit(f"{preset.key}: {checked.error}")
    model = writing_chains.build(checked.config, seed)
    config = training.train_config(budget, seed, threads=threads, max_steps=max_steps, target_exact_match=stop_at)
    result = training.train_model(model, task, config)
    return compare_runs.shipped_run(preset, task_name, seed, result, checked.parameters, probe=probe)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", nargs="+", default=["reverse"], choices=writing_chains.TASKS)
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--max-steps", type=int, default=400, help="training steps per run, at most")
    p.add_argument("--budget", type=float, default=150.0, help="seconds per run, at most (a safety cap)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument(
        "--stop-at",
        type=float,
        default=training.STOP_AT,
        help="stop a run once its held-out exact match reaches this (1.0: every run trains --max-steps)",
    )
    p.add_argument(
        "--presets", nargs="+", default=[p.key for p in presets.PRESETS], choices=[p.key for p in presets.PRESETS]
    )
    p.add_argument("--out", default=str(compare_runs.RESULTS))
    args = parse(p, argv)
    before, start = load(), time.perf_counter()

    def run_one(key: str, seed: int) -> list[Run]:
        preset = presets.PRESET_BY_KEY[key]
        first = (args.tasks[0], args.seeds[0])  # the run whose final maps the page shows
        return [
            train_one(
                preset, name, seed, args.budget, args.max_steps, args.threads, (name, seed) == first, args.stop_at
            )
            for name in args.tasks
        ]

    def report(run: Run, done: int, total: int) -> None:
        print(f"[{done}/{total}] {run.variant} {run.params['task']} seed {run.seed}: {dict(run.final)}", flush=True)

    meta = {
        "script": SCRIPT,
        "command": f"python {SCRIPT} " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(args.threads),
        "tasks": args.tasks,
        "seeds": args.seeds,
        "max_steps": args.max_steps,
        "budget_seconds": args.budget,
        "target": training.TARGET,
        "stop_at": args.stop_at,
        "load_1min_before": before,
    }
    labels = {key: presets.PRESET_BY_KEY[key].label for key in args.presets}
    results = measure(args.presets, args.seeds, run_one, meta, on_run=report, labels=labels)
    meta |= {"load_1min_after": load(), "seconds": round(time.perf_counter() - start, 1)}
    out = Comparison(results.variants, results.runs, meta, results.labels).save(args.out)
    compare_runs.load_results(out)  # the page's loader reads it back
    print(f"wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
