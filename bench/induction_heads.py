"""Does the induction-heads page's recipe form its induction head within about a minute on 2 CPU threads?

    nice -n 10 python -m bench.induction_heads [--seeds 0 1 2] [--threads 2] [--steps 1200]

For each seed: the page's recipe (``lessons.induction_heads.training.train``, evaluation on the probe sequences at
every report included, as the live panel runs it) with ``torch.set_num_threads(--threads)``; the wall-clock and the
process's CPU seconds for the whole run, the step and the second at which an induction head formed (a layer-2
prefix-matching score at the lesson's level), and the milliseconds a step. The machine is printed with it: its CPU
model, torch's CPU capability, the torch version, the 1-minute load before and after and ``speed_ms`` (see
``bench/harness.py``), because on a shared machine a figure is only as good as the load it was taken under. One JSON
line per seed, then a summary line with the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch

from bench.harness import speed_ms
from lessons.induction_heads import training
from minimodels.device import cpu_model


def one_seed(seed: int, steps: int) -> dict:
    wall, cpu = time.perf_counter(), time.process_time()
    _, reports = training.train(seed, steps)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    curve = [p.point() for p in reports]
    formed = training.formed_at(curve)
    return {
        "seed": seed,
        "steps": reports[-1].step,
        "seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "ms_a_step": round(1000 * wall / reports[-1].step, 2),
        "formed_at_step": formed,
        "formed_at_seconds": next((p["seconds"] for p in curve if p["step"] == formed), None),
        "in_context_accuracy": round(reports[-1].reading.accuracy_copy, 3),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=training.STEPS)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    before = {"load_1min_before": round(os.getloadavg()[0], 2), "speed_ms_before": speed_ms()}
    print(
        json.dumps(
            {
                "cpu_model": cpu_model(),
                "cpu_capability": torch.backends.cpu.get_cpu_capability(),
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
                "nproc": os.cpu_count(),
                **before,
            }
        ),
        flush=True,
    )
    rows = []
    for seed in args.seeds:
        rows.append(one_seed(seed, args.steps))
        print(json.dumps(rows[-1]), flush=True)
    formed = [r["formed_at_seconds"] for r in rows if r["formed_at_seconds"] is not None]
    summary = {
        "seeds": len(rows),
        "formed": len(formed),
        "median_seconds": statistics.median(r["seconds"] for r in rows),
        "median_formed_at_seconds": statistics.median(formed) if formed else None,
        "median_ms_a_step": statistics.median(r["ms_a_step"] for r in rows),
        "load_1min_after": round(os.getloadavg()[0], 2),
        "speed_ms_after": speed_ms(),
    }
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
