"""The shipped race (``assets/results/scoring_functions.json``, made by the lesson's script): read, checked, and
its probe maps and machine for the page."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import load_note
from lessons.scoring_functions.four_scores import LABELS, SCORES
from lessons.scoring_functions.race_training import RUN_METRICS

RESULTS = ROOT / "assets" / "results" / "scoring_functions.json"
SCRIPT = "scripts/scoring_functions_results.py"


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped race (``RESULTS`` by default): the four scores over seeds, checked; ``FileNotFoundError`` or
    ``ValueError`` naming the file and the script that makes it when it is unusable."""
    path = Path(path) if path is not None else RESULTS
    results = Comparison.load(path, script=SCRIPT)
    problem = results_problem(results)
    if problem:
        raise ValueError(f"{path.name}: {problem}: run `python {SCRIPT}` again")
    return results


def results_problem(c: Comparison) -> str | None:
    """What makes a measured race unfit for the page (its scores, seeds, figures, probes), or None."""
    if set(c.variants) != set(SCORES):
        return f"it must compare the scores {', '.join(SCORES)}, not {', '.join(c.variants)}"
    seeds = list(c.meta.get("seeds", ()))
    for score in SCORES:
        runs = c.runs_of(score)
        if [r.seed for r in runs] != seeds:
            return f"{score} has runs for seeds {[r.seed for r in runs]}, expected {seeds}"
        for r in runs:
            missing = [m for m in RUN_METRICS if m not in r.final]
            if missing:
                return f"{score} seed {r.seed} lacks {', '.join(missing)}"
        probes = [r.extra["probe"] for r in runs if "probe" in r.extra]
        if len(probes) != 1:
            return f"{score} must keep one probe map, not {len(probes)}"
        z = np.asarray(probes[0].get("attention", []), dtype=float)
        if z.shape != (len(probes[0].get("target_tokens", ())), len(probes[0].get("source_tokens", ()))):
            return f"{score}: the probe's attention does not match its tokens"
    return None


def shipped_maps(c: Comparison) -> dict[str, dict]:
    """Each score's attention on the probe sentence at the end of the run that kept it, for :func:`attention_grid`."""
    maps = {}
    for score in c.variants:
        for run in c.runs_of(score):
            if "probe" in run.extra:
                p = run.extra["probe"]
                maps[score] = {
                    **p,
                    "seed": run.seed,
                    "title": f"{LABELS[score]} · seed {run.seed} · step {p.get('step', '?')}",
                }
    return maps


def provenance_note(meta: Mapping) -> str:
    """What the page adds to ``ui.provenance``'s caption of the shipped race: the machine and how busy it was."""
    machine = meta.get("machine", {})
    return (
        f"Processor {machine.get('processor', '?')}, torch {machine.get('torch', '?')}; {load_note(meta)}. Your "
        "laptop's seconds will differ; the steps hardly at all."
    )
