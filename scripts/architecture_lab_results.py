"""Train the architecture lab's presets and write ``assets/results/architecture_lab.json``, the table the page opens
with.

    python scripts/architecture_lab_results.py --tasks reverse --seeds 0 --max-steps 400 --budget 150 --threads 1

Each preset of ``lessons.architecture_lab.PRESETS`` (small copies of the paper's encoder/decoder combinations) is built
from the seed and trained as the page's Train button does (``lessons.architecture_lab.train_config``: Adam, peak lr 1e-2
after 50 warm-up steps, inverse-square-root decay, batches of 128, a report every 25 steps on 200 held-out
examples, stop at 98% exact match), except that a run's length is counted in steps (``--max-steps``, so that a
busy machine does not cut a run short; ``--budget`` seconds is only a safety cap). Each run's steps and seconds
to 90% and its final exact match are recorded, and for the first task and seed the final attention of every
layer on the task's probe, for the page's heatmaps.

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. A busy machine makes every "seconds" figure larger; steps hardly change.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import architecture_lab as archlab  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from scripts.common import machine  # noqa: E402


def load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def measure(preset: archlab.Preset, task_name: str, seed: int, budget: float, max_steps: int, threads: int):
    """One training run of ``preset``: its table row and its final probe maps."""
    task = get_task(task_name)
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before the clock starts
    checked = archlab.check(preset.encoder, preset.decoder, task)
    if checked.error:
        raise SystemExit(f"{preset.key}: {checked.error}")
    model = archlab.build(checked.config, seed)
    result = archlab.train_model(model, task, archlab.train_config(budget, seed, threads=threads, max_steps=max_steps))
    row = archlab.run_row(preset.label, preset.encoder, preset.decoder, "gru", task_name, checked.parameters, result)
    last = result.history[-1]
    probe = {
        "task": task_name,
        "seed": seed,
        "step": last.step,
        "source_tokens": list(last.source_tokens),
        "target_tokens": list(last.target_tokens),
        "prediction": last.prediction,
        "maps": {name: [[[round(float(v), 4) for v in r] for r in head] for head in m]
                 for name, m in last.attention_maps.items()},
    }  # fmt: skip
    return row, probe


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", nargs="+", default=["reverse"], choices=archlab.TASKS)
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--max-steps", type=int, default=400, help="training steps per run, at most")
    p.add_argument("--budget", type=float, default=150.0, help="seconds per run, at most (a safety cap)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--presets", nargs="+", default=[p.key for p in archlab.PRESETS])
    p.add_argument("--out", default=str(archlab.RESULTS))
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    before = load()
    runs, probes = [], {}
    for key in args.presets:
        preset = archlab.PRESET_BY_KEY[key]
        for task_name in args.tasks:
            for seed in args.seeds:
                start = time.perf_counter()
                row, probe = measure(preset, task_name, seed, args.budget, args.max_steps, args.threads)
                runs.append({**row, "seed": seed})
                if key not in probes:
                    probes[key] = probe
                print(json.dumps({**row, "wall": round(time.perf_counter() - start, 1)}), flush=True)
    meta = {
        "command": "python scripts/architecture_lab_results.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(args.threads),
        "tasks": args.tasks,
        "seeds": args.seeds,
        "max_steps": args.max_steps,
        "budget_seconds": args.budget,
        "target": archlab.TARGET,
        "stop_at": archlab.STOP_AT,
        "load_1min_before": before,
        "load_1min_after": load(),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"meta": meta, "runs": runs, "probes": probes}, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
