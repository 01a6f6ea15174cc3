"""The measured results over seeds: what ``scripts/induction_heads_results.py`` runs for one seed, and what the page
reads back (when induction heads formed, and what knocking each kind of head out costs).

One seed trains the recipe (:func:`~lessons.induction_heads.training.train`) once; the trained model is then read
with every head kept ("intact") and with one kind of head switched off. Which head is which is read from that
model's own scores, because a seed does not decide in advance which head becomes what:

* the previous-token head: the layer-1 head with the higher previous-token score;
* the other layer-1 head (a control: the one with the lower previous-token score);
* the induction head: the layer-2 head with the higher prefix-matching score;
* layer 2 whole: both layer-2 heads at once.

Letters: L layers, h heads per layer, R the random part's length.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, Spread
from lessons.common.verdicts import Verdict
from lessons.induction_heads import training
from lessons.induction_heads.training import CONFIG, formed_at, head_name, knocked_out, read

RESULTS = ROOT / "assets" / "results" / "induction_heads.json"
SCRIPT = "scripts/induction_heads_results.py"
INTACT = "intact"
KNOCKOUTS = ("previous-token head out", "other layer-1 head out", "induction head out", "layer 2 out")
VARIANTS = (INTACT, *KNOCKOUTS)
LABELS = {
    INTACT: "every head kept",
    "previous-token head out": "the previous-token head knocked out",
    "other layer-1 head out": "the other layer-1 head knocked out",
    "induction head out": "the strongest induction head knocked out",
    "layer 2 out": "both layer-2 heads knocked out",
}
ACCURACY = "in-context accuracy"  # next token right in the copy (probe sequences)
RANDOM_ACCURACY = "random-half accuracy"
FORMED = "formed at step"  # first report with a layer-2 prefix-matching score at the level; None: never
FORMED_SECONDS = "seconds to form"


def switches(reading: training.Reading) -> dict[str, torch.Tensor]:
    """Each knock-out's ``keep (L, h)``, the heads chosen from the intact model's own scores."""
    last = CONFIG.n_layers - 1
    previous = int(np.argmax(reading.previous_token[0]))
    induction = int(np.argmax(reading.prefix_matching[last]))
    layer_two = torch.ones(CONFIG.n_layers, CONFIG.n_heads)
    layer_two[last] = 0.0
    return {
        "previous-token head out": knocked_out(0, previous),
        "other layer-1 head out": knocked_out(0, int(np.argmin(reading.previous_token[0]))),
        "induction head out": knocked_out(last, induction),
        "layer 2 out": layer_two,
    }


def measured_runs(seed: int, steps: int = training.STEPS) -> list[Run]:
    """One seed: the recipe trained, then read intact and with each knock-out. The intact run keeps the curve."""
    model, reports = training.train(seed, steps)
    curve = [p.point() for p in reports]
    intact = reports[-1].reading
    formed = formed_at(curve)
    seconds = next((p["seconds"] for p in curve if p["step"] == formed), None)
    params = {"steps": reports[-1].step}
    heads = {
        "previous-token head": head_name(*intact.previous_head),
        "induction head": head_name(CONFIG.n_layers - 1, int(np.argmax(intact.prefix_matching[-1]))),
    }
    runs = [
        Run(
            INTACT,
            seed,
            params,
            curve,
            {
                ACCURACY: intact.accuracy_copy,
                RANDOM_ACCURACY: intact.accuracy_random,
                FORMED: formed,
                FORMED_SECONDS: seconds,
            },
            {"heads": heads, "train seconds": curve[-1]["seconds"]},
        )
    ]
    for name, keep in switches(intact).items():
        r = read(model, keep)
        runs.append(Run(name, seed, params, (), {ACCURACY: r.accuracy_copy, RANDOM_ACCURACY: r.accuracy_random}))
    return runs


def load_results(path: Path | str = RESULTS) -> Comparison:
    """The comparison written by the results script; ``ValueError`` when it is not usable (fewer than 5 seeds)."""
    path = Path(path)
    results = Comparison.load(path, script=SCRIPT)
    lacking = [v for v in VARIANTS if v not in results.variants or len(results.runs_of(v)) < 5]
    if lacking or any(not r.curve for r in results.runs_of(INTACT)):
        raise ValueError(f"{path.name} lacks five seeds of {', '.join(lacking) or 'curves'}: re-run {SCRIPT}")
    return results


@dataclass(frozen=True)
class Formation:
    """When the seeds formed an induction head: the steps of those that did, out of how many."""

    steps: tuple[float, ...]  # the seeds that formed one, in seed order
    seeds: int  # how many seeds were run
    seconds: tuple[float, ...]  # wall-clock seconds to formation, on the machine that measured them

    @property
    def median(self) -> float | None:
        return statistics.median(self.steps) if self.steps else None

    def sentence(self) -> str:
        """ "9 of 10 seeds formed an induction head …", from the numbers (it can say none did)."""
        if not self.steps:
            return f"None of the {self.seeds} seeds formed an induction head within the recipe's steps."
        lo, hi = min(self.steps), max(self.steps)
        q1, _, q3 = statistics.quantiles(self.steps, n=4) if len(self.steps) > 1 else (lo, lo, lo)
        return (
            f"{len(self.steps)} of {self.seeds} seeds formed an induction head (a layer-2 head with a prefix-matching "
            f"score of {training.INDUCTION_LEVEL:.0%} or more), at step {self.median:.0f} in the median (quartiles "
            f"{q1:.0f}–{q3:.0f}, range {lo:.0f}–{hi:.0f}; reports every {training.REPORT_EVERY} steps)."
        )


def formation(results: Comparison) -> Formation:
    runs = results.runs_of(INTACT)
    formed = [r for r in runs if r.final.get(FORMED) is not None]
    return Formation(
        tuple(r.final[FORMED] for r in formed),
        len(runs),
        tuple(r.final[FORMED_SECONDS] for r in formed if r.final.get(FORMED_SECONDS) is not None),
    )


def knockout_verdicts(results: Comparison) -> dict[str, Verdict]:
    """Intact against each knock-out, on the in-context accuracy (the shared rule)."""
    return {name: results.compare(INTACT, name, ACCURACY) for name in KNOCKOUTS}


def accuracy_spread(results: Comparison, variant: str) -> Spread:
    return results.spread(ACCURACY, variant)
