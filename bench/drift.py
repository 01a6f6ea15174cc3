"""Cross-machine drift, measured on one machine: the same seed of slices of the results scripts, rerun with
PyTorch's CPU kernels forced onto each vector unit this CPU has (``ATEN_CPU_CAPABILITY=default|avx2|avx512``, and
MKL's and oneDNN's matrix products held to the same unit: ``LIBRARY_ISA``) and with 1 and 2 threads. Each
setting rounds the sums of a matrix product in another order, exactly as another
machine would, and training amplifies that rounding step after step; the largest difference between settings is
the drift a figure must clear before a lesson calls one variant better than another.

    nice -n 10 python -m bench.drift            # every slice, every setting; writes assets/results/drift.json
    python -m bench.drift --slices transformer --settings avx2/1 avx512/1 --out /tmp/drift.json

Writes ``assets/results/drift.json`` (read by ``lessons.common.verdicts``: the rule's drift for a metric) with the
machine, its speed and load, and prints the table ``bench/drift.md`` records. A slice is the whole training of one
seed (a few seeds where each trains in seconds) of a results script (``SLICES``): the longer a model trains, the
further two roundings carry it apart, so a few steps measure only a lower bound of a full run's drift.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402
from lessons.common.verdicts import DRIFT_FILE, DRIFT_FORMAT  # noqa: E402

# slice name (the results file it stands for) -> the results script and its arguments: the whole training the
# shipped file records (its steps, every variant or setting the lesson compares), of one seed unless said
SLICES: dict[str, list[str]] = {
    "transformer": ["scripts.transformer_results", "--seeds", "0"],
    "scoring_functions": [
        "scripts.scoring_functions_results",
        *("--seeds", "0", "--budget", "none", "--sweep-seeds", "0"),
    ],
    # the whole training of the smallest D: its figures only part once the models learn to copy
    "seq2seq_bottleneck": ["scripts.seq2seq_bottleneck_results", "--seeds", "0", "--sizes", "16"],
    # the shipped grid's task and length, four presets the page's findings compare
    "architecture_lab": [
        "scripts.architecture_lab_results",
        *("--tasks", "toy-translation", "--seeds", "0", "--max-steps", "200", "--stop-at", "1.0", "--budget", "600"),
        *("--presets", "transformer", "selfatt-none", "convs2s", "rnmt"),
    ],
    "rnn_cells": ["scripts.rnn_cells_results", "--seeds", "0"],
    # three seeds: each trains in seconds
    "masking": ["scripts.masking_results", "--seeds", "0", "1", "2", "--no-checkpoints"],
    "positional_encoding": ["scripts.positional_encoding_results", "--seeds", "0", "1", "2", "--no-checkpoints"],
    "positions_that_travel": ["scripts.positions_that_travel_results", "--seeds", "0", "1", "2"],
    "induction_heads": ["scripts.induction_heads_results", "--seeds", "0", "1", "2", "3", "4"],
    "attention_explains": ["scripts.attention_explains_results", "--seeds", "0"],
    "multi_head_attention": ["scripts.multi_head_attention_results", "--seeds", "0"],
    "scaling": ["scripts.scaling_results", "--seeds", "0"],
    "kv_cache": ["scripts.kv_cache_results", "--seeds", "0"],
    # the files a lesson reads beside its own: the Transformer's depth study, the lab's 100-step grid, the RNN cells'
    # learning rates, the "it" study (its model written to the temporary folder, not over the shipped one)
    "transformer_depth": ["scripts.transformer_results", "--experiment", "depth", "--seeds", "0", "--steps", "250"],
    "architecture_lab_100_steps": [
        "scripts.architecture_lab_results",
        *("--tasks", "toy-translation", "--seeds", "0", "--max-steps", "100", "--stop-at", "1.0", "--budget", "120"),
        *("--presets", "transformer", "rnmt", "convs2s", "rnn-one-att", "rnn-multi-att"),
    ],
    "rnn_cells_learning_rates": ["scripts.rnn_cells_learning_rates", "--seeds", "0"],
    "multi_head_attention_it": [
        "scripts.multi_head_attention_coreference",
        *("--seeds", "0", "--steps", "800", "--checkpoint", str(Path(tempfile.gettempdir()) / "drift-it-model.pt")),
    ],
    # the whole training (every setting of the study, its 1200 steps) of one seed: the study's verdicts compare finals
    "attention_bridge_penalty": ["scripts.attention_bridge_penalty", "--seeds", "0", "--steps", "1200"],
    # the whole training (2000 steps) of one seed of the seven models the finding compares pair by pair and on average
    "attention_bridge_leave_out": ["scripts.attention_bridge_leave_out", "--seeds", "0", "--steps", "2000"],
    # the whole training (2000 steps) of one seed of the grid's seven models (Table 1); the shipped model stays
    "attention_bridge": [
        "scripts.attention_bridge_results",
        *("--seeds", "0", "--steps", "2000", "--batch-size", "64", "--jobs", "1", "--no-model"),
    ],
}
# slice name -> "module:function" giving, for one run, the figures its lesson's verdicts compare besides the run's
# final values (a mean over the run's curve), under the names the verdicts give them
DERIVED: dict[str, str] = {
    "kv_cache": "lessons.kv_cache.results:drift_figures",
    "seq2seq_bottleneck": "lessons.seq2seq_bottleneck.where_it_breaks:drift_figures",
}
# slice name -> "module:function" giving, for one setting's whole slice, the figures its lesson's verdicts compare that
# combine several runs (a mean over the pairs of six models), keyed as a run is: (variant, seed, params as JSON)
COMBINED: dict[str, str] = {
    "attention_bridge_leave_out": "lessons.attention_bridge.leave_out:drift_figures",
}
CAPABILITIES = ("default", "avx2", "avx512")
# The matrix products run in MKL and oneDNN, which pick their own kernels by CPU: each is held to the same vector
# unit as ATen's (ATEN_CPU_CAPABILITY alone changes only ATen's elementwise and reduction kernels).
LIBRARY_ISA = {
    "default": {"MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"},
    "avx2": {"MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "avx512": {"MKL_ENABLE_INSTRUCTIONS": "AVX512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
}
THREADS = (1, 2)  # 2 threads with the best vector unit only: the thread count changes how a sum is split, apart from
# the vector unit, and a slice takes minutes on a shared machine


def supported_capabilities() -> list[str]:
    """The vector units torch can use here: a capability this CPU lacks falls back to the best it has."""
    import torch  # here: the probe only, the slices run in their own processes

    best = torch.backends.cpu.get_cpu_capability().lower()
    order = list(CAPABILITIES)
    return order[: order.index(best) + 1] if best in order else ["default"]


def run_slice(name: str, capability: str, threads: int, out: Path, timeout: float) -> Comparison | None:
    """One slice in a fresh process, its kernels on ``capability`` with ``threads`` torch threads; None when it
    ran past ``timeout`` seconds (two threads on a machine whose cores are busy can take many times one thread's
    time). Idle threads wait passively (``OMP_WAIT_POLICY``): that changes how long a run takes, not its sums."""
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability, **LIBRARY_ISA[capability], "PYTHONPATH": str(ROOT)}
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    from scripts.common import SLICE  # here: it imports torch, which the slices load in their own processes

    env[SLICE] = "1"  # one seed: the lesson's loader, which asks for every seed, is not the reader here
    command = [sys.executable, "-m", *SLICES[name], "--threads", str(threads), "--out", str(out)]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        raise RuntimeError(f"{name} on {capability}/{threads} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return Comparison.load(out)


def _hook(table: dict[str, str], name: str):
    """The function ``table`` names for the slice ``name`` ("module:function"), or None."""
    if name not in table:
        return None
    module, function = table[name].split(":")
    return getattr(importlib.import_module(module), function)


def derived(name: str):
    """The slice's ``DERIVED`` function (run -> {metric: value}), or None when its verdicts read final values only."""
    return _hook(DERIVED, name)


def combined(name: str):
    """The slice's ``COMBINED`` function (a setting's results -> {run key: {metric: value}}), or None."""
    return _hook(COMBINED, name)


def differences(results: dict[str, Comparison], figures=None, across=None) -> dict[str, dict]:
    """Per metric, the largest difference between settings over every run (variant, seed, params) of a slice, and
    where it was; runs with a value in some settings and none in others are counted apart. ``figures`` (run ->
    {metric: value}) adds what a lesson compares besides a run's final values; ``across`` (a setting's results ->
    {run key: {metric: value}}) what it compares across runs."""

    def found(comparison: Comparison):
        """(run key, {metric: value}) for every run of one setting, then what ``across`` finds across its runs."""
        for run in comparison.runs:
            key = (run.variant, run.seed, json.dumps(run.params, sort_keys=True))
            yield key, {**run.final, **(figures(run) if figures else {})}
        yield from (across(comparison) if across else {}).items()

    values: dict[tuple, dict[str, float | None]] = {}
    for setting, comparison in results.items():
        for key, metrics in found(comparison):
            for metric, value in metrics.items():
                values.setdefault((metric, *key), {})[setting] = value
    out: dict[str, dict] = {}
    for (metric, variant, seed, params), by_setting in sorted(values.items()):
        present = [v for v in by_setting.values() if v is not None]
        entry = out.setdefault(metric, {"drift": 0.0, "where": None, "missing_in_some": 0})
        if len(present) < len(by_setting) and present:
            entry["missing_in_some"] += 1
        if len(present) > 1:
            gap = max(present) - min(present)
            if gap > entry["drift"] or entry["where"] is None:
                entry["drift"], entry["where"] = gap, f"{variant}, seed {seed}, {params}"
    return out


def machine() -> dict:
    """What the drift was measured on (the slices' own settings are listed beside it)."""
    import torch  # here: the probe only

    from minimodels.device import cpu_model  # here: it imports torch, which the slices load in their own processes

    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "best_capability": torch.backends.cpu.get_cpu_capability(),
        "torch": torch.__version__,
        "python": platform.python_version(),
    }


def write(out: Path, slices: dict[str, dict], info: dict, argv: list[str] | None) -> None:
    """The drift file: per slice and metric, and per metric the largest over the slices (what the rule reads)."""
    metrics: dict[str, float] = {}
    for entry in slices.values():
        for metric, found in entry["metrics"].items():
            metrics[metric] = max(metrics.get(metric, 0.0), found["drift"])
    document = {
        "format": DRIFT_FORMAT,
        "what": "per metric, the largest difference between kernel settings for the same code and seed",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "speed_ms": round(info["speed_ms"], 1),
        "load_1min_before": round(info["load_before"], 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
        "seconds": round(time.perf_counter() - info["started"], 1),
        "settings": info["settings"],
        "command": "python -m bench.drift " + " ".join(sys.argv[1:] if argv is None else argv),
        "slices": slices,
        "metrics": {m: float(f"{d:.6g}") for m, d in sorted(metrics.items())},
    }
    out.write_text(json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def combine(earlier: dict, later: dict) -> dict:
    """One slice measured twice (a few steps, then the whole training; other settings): the later measurement's
    command, seconds and settings, the earlier one's kept under ``earlier``, and per metric the larger drift of the
    two, so that a new measurement never forgets a difference between settings already seen."""
    metrics = dict(later["metrics"])
    for metric, found in earlier["metrics"].items():
        if metric not in metrics or found["drift"] > metrics[metric]["drift"]:
            metrics[metric] = {**found, "where": f"{found['where']}, by {earlier['command']}"}
    kept = {k: earlier[k] for k in ("command", "settings", "seconds")}
    return {**later, "metrics": metrics, "earlier": [*earlier.get("earlier", []), kept, *later.get("earlier", [])]}


def merge(paths: list[Path], out: Path) -> None:
    """One drift file from several (slices measured side by side, each run writing its own): their slices together
    (a slice in several files: :func:`combine`, in the files' order), the per-metric figure again the largest over
    every slice; the first file's machine, and the highest speed_ms and load of any, so that nothing reads calmer
    than it was."""
    documents = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    slices: dict[str, dict] = {}
    for document in documents:
        for name, entry in document["slices"].items():
            slices[name] = combine(slices[name], entry) if name in slices else entry
    metrics: dict[str, float] = {}
    for entry in slices.values():
        for metric, found in entry["metrics"].items():
            metrics[metric] = max(metrics.get(metric, 0.0), found["drift"])
    merged = {
        **documents[0],
        "date": max(d["date"] for d in documents),
        "speed_ms": max(d["speed_ms"] for d in documents),
        "load_1min_before": max(d["load_1min_before"] for d in documents),
        "load_1min_after": max(d["load_1min_after"] for d in documents),
        "seconds": max(d["seconds"] for d in documents),
        "command": " ; ".join(d["command"] for d in documents) + " ; merged by python -m bench.drift --merge",
        "slices": slices,
        "metrics": {m: float(f"{v:.6g}") for m, v in sorted(metrics.items())},
    }
    out.write_text(json.dumps(merged, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--slices", nargs="+", default=list(SLICES), choices=list(SLICES))
    p.add_argument("--settings", nargs="+", default=None, help="capability/threads, e.g. avx2/1 (default: every one)")
    p.add_argument("--out", default=str(DRIFT_FILE))
    p.add_argument("--timeout", type=float, default=900.0, help="seconds a slice may take in one setting")
    p.add_argument("--merge", nargs="+", default=None, help="drift files to join into --out (slices run side by side)")
    args = p.parse_args(argv)
    if args.merge:
        merge([Path(m) for m in args.merge], Path(args.out))
        print(f"wrote {args.out}")
        return 0
    from bench.harness import speed_ms  # here: its import starts torch, not needed for --help

    capabilities = supported_capabilities()
    # the widest and the plainest vector unit first: the pair most likely to round apart
    ordered = [capabilities[-1], capabilities[0], *capabilities[1:-1]]
    settings = args.settings or [f"{c}/1" for c in ordered] + [f"{capabilities[-1]}/{t}" for t in THREADS[1:]]
    info = {"speed_ms": speed_ms(), "load_before": os.getloadavg()[0], "started": time.perf_counter()}
    info["settings"] = settings
    slices: dict[str, dict] = {}
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.slices:
            results, seconds = {}, {}
            for setting in settings:
                capability, threads = setting.split("/")
                t0 = time.perf_counter()
                where = Path(tmp) / f"{name}-{capability}-{threads}.json"
                found = run_slice(name, capability, int(threads), where, args.timeout)
                seconds[setting] = round(time.perf_counter() - t0, 1)
                if found is None:
                    seconds[setting] = f"timed out after {args.timeout:.0f} s"
                else:
                    results[setting] = found
                print(f"{name} {setting}: {seconds[setting]} s", flush=True)
                slices[name] = {
                    "command": "python -m " + " ".join(SLICES[name]),
                    "seconds": seconds,
                    "settings": list(results),
                    "metrics": differences(results, derived(name), combined(name)),
                }
                if len(results) > 1:  # after every setting: a run cut short keeps what it measured
                    write(out, slices, info, argv)
    print(f"wrote {out}")
    print("\n| slice | metric | drift | where |\n|---|---|---|---|")
    for name, entry in slices.items():
        for metric, found in entry["metrics"].items():
            extra = (
                f" ({found['missing_in_some']} runs reach it in some settings only)" if found["missing_in_some"] else ""
            )
            print(f"| {name} | {metric} | {found['drift']:.4g} | {found['where']}{extra} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
