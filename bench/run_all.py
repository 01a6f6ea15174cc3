"""Every figure of bench/RESULTS.md, measured now on this machine; ``--write`` rewrites that file.

    python -m bench.run_all [--seeds 0 1 2] [--write]     # measure (and rewrite RESULTS.md, results.json)
    python -m bench.run_all --render                       # RESULTS.md again from results.json

Runs, each in its own process (so one run's threads and caches do not touch the next):

* ``gru-additive`` and ``transformer`` on ``dates`` to 98% held-out exact match, 2 threads, then 1 thread;
* every other ``gru-*`` model on ``dates`` (2 threads), for the lessons' comparison;
* ``gru-additive`` (bidirectional) and ``transformer`` on ``toy-translation`` to 95%, with the attention's
  alignment accuracy against the gold alignment;
* a ``TinyTransformer`` training step against ``torch.nn.Transformer`` of the same size.

Figures are medians over seeds. The machine is described from ``nproc``, ``/proc/cpuinfo`` and torch, with
the 1-minute load average before each run (anything well above 0 means the figures are pessimistic).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

import torch

from lessons.common.catalog import all_lessons
from minimodels.device import cpu_model

ROOT = Path(__file__).resolve().parents[1]

SPEED_RUNS = [  # (task, model, threads, target, model overrides)
    ("dates", "gru-additive", 2, 0.98, []),
    ("dates", "gru-additive", 1, 0.98, []),
    ("dates", "gru-additive", 2, 0.98, ["bidirectional=true", "hidden_size=32"]),  # Bahdanau's BiRNN encoder
    ("dates", "gru-additive", 2, 0.98, ["attention_query=current"]),  # Luong's query: not Bahdanau's model
    ("dates", "transformer", 2, 0.98, []),
    ("dates", "transformer", 1, 0.98, []),
    ("dates", "gru-dot", 2, 0.98, []),
    ("dates", "gru-scaled_dot", 2, 0.98, []),
    ("dates", "gru-bilinear", 2, 0.98, []),
    ("dates", "gru-none", 2, 0.98, []),
    ("toy-translation", "gru-additive", 2, 0.95, ["bidirectional=true"]),
    ("toy-translation", "transformer", 2, 0.95, []),
]


def machine() -> dict:
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }


def _run(module: str, args: list[str]) -> list[dict]:
    out = subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def speed(seeds: list[int], max_seconds: float) -> list[dict]:
    summaries = []
    for task, model, threads, target, sets in SPEED_RUNS:
        args = ["--task", task, "--model", model, "--threads", str(threads), "--target", str(target)]
        args += ["--max-seconds", str(max_seconds), "--seeds", *map(str, seeds)]
        for s in sets:
            args += ["--set", s]
        lines = _run("bench.train_speed", args)
        for line in lines:
            print(json.dumps(line), flush=True)
        runs, summary = lines[:-1], lines[-1]
        summary["runs_detail"] = runs
        summary["overrides"] = sets
        summary["target"] = target
        summaries.append(summary)
    return summaries


def step_ratio(threads: int) -> dict:
    line = _run("bench.transformer_step", ["--threads", str(threads)])[-1]
    print(json.dumps(line), flush=True)
    return line


def _median(rows: list[dict], key: str):
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def _evaluations(rows: list[dict]) -> str:
    """Median held-out evaluations per run and their median seconds, e.g. ``8 (0.31)``; blank for older results."""
    count, seconds = _median(rows, "evaluations"), _median(rows, "evaluation_seconds")
    return "" if count is None else f"{count:g} ({seconds})"


def _targets(speeds: list[dict], steps: list[dict]) -> list[str]:
    """The issue's targets against the medians above (2 threads)."""

    def find(task, model, overrides=None):
        return next(
            s
            for s in speeds
            if s["summary"] == f"{task}/{model}"
            and s["threads"] == 2
            and (overrides is None or s["overrides"] == overrides)
        )

    def verdict(ok: bool) -> str:
        return "met" if ok else "**not met**"

    rows = []
    for task, model, limit in (("dates", "gru-additive", 5), ("dates", "transformer", 15)):
        s = find(task, model, overrides=[])  # the model as named, default sizes
        ok = s["reached"] == s["runs"] and s["median_seconds"] <= limit
        rows.append(
            f"| `{model}` on `{task}` to 98% in ≤ {limit} s (2 threads) | {s['median_seconds']} s | {verdict(ok)} |"
        )
    for model in ("gru-additive", "transformer"):
        s = find("toy-translation", model)
        em, align = s["median_test_exact_match"], s["median_test_alignment_accuracy"]
        ok = em >= 0.95 and align >= 0.90
        rows.append(
            f"| `{model}` on `toy-translation`: ≥ 95% exact match, alignment ≥ 90% | test EM {em}, alignment {align} "
            f"| {verdict(ok)} |"
        )
    worst = max(r["ratio"] for r in steps)
    rows.append(f"| TinyTransformer step ≤ 1.2 × torch.nn.Transformer | ratio ≤ {worst} | {verdict(worst <= 1.2)} |")
    return ["## Against the course's first targets", "", "| target | measured (median) | |", "|---|---|---|", *rows]


def render(info: dict, date: str, speeds: list[dict], steps: list[dict]) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Measured on {date} by `python -m bench.run_all --write` (every figure below is printed by that run).",
        "",
        f"- Machine: {info['nproc']} cores (`nproc`), {info['cpu']} (`/proc/cpuinfo`), "
        f"CPU capability {info['cpu_capability']}, GPU: {info['gpu'] or 'none'}",
        f"- torch {info['torch']}, Python {info['python']}",
        "",
        "## Time to a held-out exact match (training wall time, evaluation included)",
        "",
        "Held-out exact match: 200 validation sentences decoded greedily (the stopping rule), checked at every",
        "report (25 steps) and, between reports, every 5 steps once the training batch itself (teacher forced)",
        "is at the target; `evaluations (s)`: how many such checks a run made and their seconds, included in",
        "`seconds`. The weights evaluated, tested and aligned are the moving average of the weights where the",
        "model's recipe keeps one (`gru-additive`, `transformer`: `TrainConfig.average` in `default_train_config`).",
        "Test: the whole test split (500 sentences), after training. Alignment: share of target tokens",
        "whose attention argmax falls on a gold source token (test split, teacher forced; Transformer: last",
        "decoder layer, heads averaged). Medians over seeds; `load` is the 1-minute load average before the",
        "runs (the machine is shared; 0 would be idle). `CPU seconds`: the process's CPU time, all threads; for",
        "a 1-thread run on a busy machine it approximates the wall time the run would take on an idle core.",
        "",
        "| task | model | threads | target | reached | seconds | CPU seconds | steps | ms/step | evaluations (s) "
        "| s to 95% | test EM | alignment | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in speeds:
        runs = s["runs_detail"]
        task, model = s["summary"].split("/")
        if "attention_query=current" in s["overrides"]:
            model = "gru, additive score on s_t (Luong's query; not gru-additive)"
        elif s["overrides"]:
            model += " (" + ", ".join(s["overrides"]) + ")"
        align = _median(runs, "test_alignment_accuracy")
        lines.append(
            f"| {task} | {model} | {s['threads']} | {s['target']} | {s['reached']}/{s['runs']} "
            f"| {s['median_seconds']} | {_median(runs, 'cpu_seconds')} | {s['median_steps']} "
            f"| {_median(runs, 'ms_per_step')} | {_evaluations(runs)} "
            f"| {_median(runs, 'seconds_to_95')} | {s['median_test_exact_match']} "
            f"| {'' if align is None else align} | {_median(runs, 'load_1min_before')} |"
        )
    lines += ["", *_targets(speeds, steps)]
    lines += [
        "",
        "## TinyTransformer training step vs torch.nn.Transformer",
        "",
        "Same d_model, heads, feed-forward width, layers, batch, lengths, masks, embeddings and output layer;",
        "forward + loss + backward + Adam step; ours also returns every attention map. Median over steps,",
        "the two models alternated in rounds.",
        "",
        "| threads | batch | source len | target len | d_model | heads | d_ff | layers | ours ms | torch ms | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in steps:
        lines.append(
            f"| {r['threads']} | {r['batch']} | {r['source_len']} | {r['target_len']} | {r['d_model']} "
            f"| {r['heads']} | {r['d_ff']} | {r['layers']} | {r['ours_ms']} | {r['torch_ms']} | {r['ratio']} |"
        )
    return "\n".join([*lines, "", *shipped_results(), *written_sections()]) + "\n"


def written_sections() -> list[str]:
    """The sections other bench scripts wrote with their ``--write`` (``bench/sections/<name>.md``, in name order),
    so that re-rendering this file keeps them."""
    lines = []
    for path in sorted((ROOT / "bench" / "sections").glob("*.md")):
        lines += ["", *path.read_text(encoding="utf-8").rstrip("\n").splitlines()]
    return lines


def shipped_results() -> list[str]:
    """How long each lesson's shipped comparison took to make, as its script recorded it in the file it wrote
    (``meta``: the command, seeds, wall seconds, date, the machine's load before)."""

    lines = [
        "## Regenerating the shipped results",
        "",
        "Each lesson's `assets/results/<slug>.json` is written by `scripts/<slug>_results.py`, which records in the",
        "file how it was made; this table is read from those records (`python -m bench.run_all --render`).",
        "Seconds are wall time on this project's shared 2-core machine, with the 1-minute load average before the",
        "run: a busy machine makes the seconds larger; steps and accuracies do not change.",
        "",
        "| lesson | command | seeds | seconds | date | load before |",
        "|---|---|---|---|---|---|",
    ]
    for lesson in all_lessons():
        # the lesson's own file, then any further file of its catalog entry named after it (transformer_depth.json)
        extra = [r for r in lesson.results if Path(r).stem.startswith(f"{lesson.slug}_")]
        for relative in (f"assets/results/{lesson.slug}.json", *extra):
            path = ROOT / relative
            if not path.exists():
                continue
            meta = json.loads(path.read_text(encoding="utf-8"))["meta"]
            load = meta.get("load_1min_before", meta.get("load_average_before", ""))
            load = load[0] if isinstance(load, list) else load
            seconds = meta.get("seconds", "not recorded")
            name = lesson.slug if path.stem == lesson.slug else f"{lesson.slug} ({path.name})"
            lines.append(
                f"| {name} | `{meta.get('command', '')}` | {len(meta.get('seeds', []))} | {seconds} "
                f"| {str(meta.get('date', ''))[:10]} | {load} |"
            )
            for added in meta.get("added", []):  # variants trained later into the same file, by their own command
                lines.append(
                    f"| {name}, added | `{added.get('command', '')}` | {len(added.get('seeds', []))} "
                    f"| {added.get('seconds', 'not recorded')} | {str(added.get('date', ''))[:10]} "
                    f"| {added.get('load_1min_before', '')} |"
                )
    return lines


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--max-seconds", type=float, default=120.0)
    p.add_argument("--date", default=datetime.date.today().isoformat())
    p.add_argument("--write", action="store_true", help="rewrite bench/RESULTS.md and bench/results.json")
    p.add_argument("--render", action="store_true", help="only rewrite RESULTS.md from bench/results.json")
    args = p.parse_args(argv)
    if args.render:
        raw = json.loads((ROOT / "bench" / "results.json").read_text())
        text = render(raw["machine"], raw["date"], raw["speed"], raw["transformer_step"])
        (ROOT / "bench" / "RESULTS.md").write_text(text)
        return
    info = machine()
    print(json.dumps(info), flush=True)
    steps = [step_ratio(2), step_ratio(1)]
    speeds = speed(args.seeds, args.max_seconds)
    if args.write:
        (ROOT / "bench" / "RESULTS.md").write_text(render(info, args.date, speeds, steps))
        raw = {"date": args.date, "machine": info, "speed": speeds, "transformer_step": steps}
        (ROOT / "bench" / "results.json").write_text(json.dumps(raw, indent=1) + "\n")


if __name__ == "__main__":
    main()
