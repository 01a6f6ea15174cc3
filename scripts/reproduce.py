"""Reproduction, checked: rerun a slice of every results script with the shipped file's own command, and print each
rerun figure beside the shipped one.

    python -m scripts.reproduce --quick                  # every shipped file, one seed and a small part of its grid
    python -m scripts.reproduce --quick --only rnn_cells transformer

For each file in ``assets/results/`` the shipped command (its ``meta["command"]``, or for seeds joined from processes
run side by side the first process's) is run again with the first seed
only, writing to a temporary folder (never over the shipped files or checkpoints), and with ``--quick`` a part of its
grid (``QUICK``: one variant, one size; the steps, budget and recipe stay the shipped ones, so the rerun trains
exactly what the shipped run of that seed trained). Then, per rerun figure: the shipped value of the same run
(variant, seed, setting), the rerun's, and whether the rerun lies within the shipped band, mean ± 2 sd over the
shipped seeds of that variant and setting. Timing figures (seconds, ms) measure the machine and its load, not the
model, and are left out. A figure outside the band on another machine is what ``bench/drift.py`` measures.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402
from lessons.common.runs import Spread  # noqa: E402
from scripts.common import SLICE  # noqa: E402

RESULTS = ROOT / "assets" / "results"
BAND_SDS = 2.0  # the shipped band: mean ± 2 sd over the shipped seeds

# shipped file -> the part of its grid a quick rerun trains (options added to the shipped command), from the file
QUICK: dict[str, Callable[[Comparison], list[str]]] = {
    "architecture_lab": lambda c: ["--presets", "transformer"],
    "architecture_lab_100_steps": lambda c: ["--presets", "transformer"],
    "attention_bridge": lambda c: ["--variants", "bilingual"],
    "attention_bridge_leave_out": lambda c: ["--variants", c.variants[-1]],
    "attention_bridge_long_run": lambda c: ["--stop-at", str(c.runs[0].curve[0]["step"])],
    "multi_head_attention": lambda c: ["--heads", str(min(c.param_values("heads") or [1]))],
    "rnn_cells": lambda c: ["--distances", str(min(c.param_values("distance")))],
    "scaling": lambda c: ["--d-k", str(min(c.param_values("d_k")))],
    "scoring_functions": lambda c: ["--sweep-seeds", str(c.seeds[0])],
    "seq2seq_bottleneck": lambda c: ["--sizes", str(min(c.param_values("hidden_size")))],
    "transformer": lambda c: ["--variants", "full"],
    "transformer_depth": lambda c: ["--depths", str(min(c.param_values("depth")))],
}
# options that keep a rerun from writing over what ships beside the results file
SIDE_FILES = {
    "masking": lambda tmp: ["--no-checkpoints"],
    "positional_encoding": lambda tmp: ["--no-checkpoints"],
    "multi_head_attention_it": lambda tmp: ["--checkpoint", str(tmp / "it-resolver")],
    "attention_bridge": lambda tmp: ["--model-dir", str(tmp / "bridge-model" / "model")],
}
TIMING_WORDS = ("second", "CPU s", "wall s", " ms")


def _options(words: list[str]) -> dict[str, list[str]]:
    """``--name value …`` words as name -> values, in order."""
    options: dict[str, list[str]] = {}
    for word in words:
        if word.startswith("--"):
            options[word] = []
        elif options:
            options[next(reversed(options))].append(word)
    return options


def merged(command: str, extra: list[str]) -> tuple[str, list[str]]:
    """The shipped command's script (as a module) and its options, with ``extra`` options replacing those of the
    same name."""
    words = shlex.split(command)
    script = next(w for w in words if w.endswith(".py"))
    options = _options(words[words.index(script) + 1 :]) | _options(extra)
    return script.removesuffix(".py").replace("/", "."), [w for k, v in options.items() for w in (k, *v)]


def first_command(meta: dict) -> str:
    """The command that made the file's first seed: its ``command``, or for seeds joined from processes run side by
    side (``scripts.join_seeds``) the first process's own."""
    joined = meta.get("joined")
    return joined[0]["command"] if joined else meta["command"]


def rerun(name: str, shipped: Comparison, quick: bool, tmp: Path) -> tuple[Comparison, float]:
    """Run the slice; the rerun comparison and its wall seconds."""
    extra = ["--seeds", str(shipped.seeds[0]), "--out", str(tmp / f"{name}.json")]
    if quick and name in QUICK:
        extra += QUICK[name](shipped)
    extra += SIDE_FILES.get(name, lambda _: [])(tmp)
    module, args = merged(first_command(shipped.meta), extra)
    started = time.perf_counter()
    env = {**os.environ, SLICE: "1"}  # the lesson's loader would ask for the seeds a slice leaves out
    done = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{done.stdout[-1500:]}\n{done.stderr[-2500:]}")
    return Comparison.load(tmp / f"{name}.json"), time.perf_counter() - started


def _row(run, params: dict, metric: str, value, shipped: dict, others: list[dict]) -> dict:
    """One rerun figure: ``shipped``, the same run's figures as shipped, and ``others``, every shipped seed's of that
    variant and setting; the band is theirs (mean ± 2 sd), or the shipped value itself where there is one seed."""
    spread = Spread(tuple(o.get(metric) for o in others))
    row = {"variant": run.variant, "seed": run.seed, "params": params, "metric": metric}
    row |= {"shipped": shipped.get(metric), "rerun": value, "n": spread.n}
    if spread.n >= 2 and value is not None:
        low, high = spread.mean - BAND_SDS * spread.sd, spread.mean + BAND_SDS * spread.sd
        return row | {"band": (low, high), "within": bool(low <= value <= high)}
    return row | {"band": None, "within": value == shipped.get(metric)}


def _timing(metric: str) -> bool:
    return any(word in metric for word in TIMING_WORDS)


def rows(shipped: Comparison, again: Comparison) -> list[dict]:
    """Per rerun figure (timings left out): the shipped value of the same run, the rerun's, the shipped band. A rerun
    stopped early (its ``meta["stop_at"]``) is compared at its last checkpoint with the shipped curves at that step."""
    if again.meta.get("stop_at") is not None:
        return rows_at_checkpoint(shipped, again)
    out = []
    for run in again.runs:
        key = json.dumps(run.params, sort_keys=True)
        same = [r for r in shipped.runs_of(run.variant) if json.dumps(r.params, sort_keys=True) == key]
        before = next((r for r in same if r.seed == run.seed), None)
        if before is None:
            continue
        others = [r.final for r in same]
        out += [_row(run, run.params, m, v, before.final, others) for m, v in run.final.items() if not _timing(m)]
    return out


def rows_at_checkpoint(shipped: Comparison, again: Comparison) -> list[dict]:
    """Per figure of the rerun's last checkpoint: the shipped run's figure at the same step, and the band of the
    shipped seeds there."""
    out = []
    for run in again.runs:
        point = run.curve[-1]
        at = {r.seed: p for r in shipped.runs_of(run.variant) for p in r.curve if p["step"] == point["step"]}
        if run.seed not in at:
            continue
        others, params = list(at.values()), {"step": point["step"]}
        out += [
            _row(run, params, m, v, at[run.seed], others) for m, v in point.items() if m != "step" and not _timing(m)
        ]
    return out


def _number(value) -> str:
    return "–" if value is None else f"{value:.4g}"


def report(name: str, found: list[dict], seconds: float) -> list[str]:
    inside = sum(r["within"] for r in found)
    lines = [f"## {name}: {inside} of {len(found)} rerun figures within the shipped band ({seconds:.0f} s)"]
    for r in found:
        band = "–" if r["band"] is None else f"{_number(r['band'][0])} … {_number(r['band'][1])}"
        params = ", ".join(f"{k} = {v}" for k, v in r["params"].items())
        lines.append(
            f"  {r['variant']}{f' ({params})' if params else ''}, seed {r['seed']}, {r['metric']}: shipped "
            f"{_number(r['shipped'])}, rerun {_number(r['rerun'])}; band (mean ± 2 sd, n = {r['n']}) {band}: "
            + ("within" if r["within"] else "OUTSIDE")
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a part of each grid (QUICK), one seed")
    p.add_argument("--only", nargs="+", default=None, help="these shipped files (their names, e.g. rnn_cells)")
    p.add_argument("--results", default=str(RESULTS), help="where the shipped files are")
    args = p.parse_args(argv)
    files = {p.stem: p for p in sorted(Path(args.results).glob("*.json")) if p.stem != "drift"}
    unknown = set(args.only or ()) - set(files)
    if unknown:
        p.error(f"no shipped file named {', '.join(sorted(unknown))} (there are: {', '.join(files)})")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or list(files):
            shipped = Comparison.load(files[name])
            try:
                again, seconds = rerun(name, shipped, args.quick, Path(tmp))
            except RuntimeError as error:
                print(f"## {name}: the rerun failed\n{error}", flush=True)
                failed.append(name)
                continue
            print("\n".join(report(name, rows(shipped, again), seconds)), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
