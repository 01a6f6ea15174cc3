"""The plain RNN at the learning rates around the page's: whether "it stays at chance from T = 20" is a property of
the cell or of the learning rate chosen for the LSTM (:data:`~lessons.rnn_cells.training.LR`).

Section 5's shipped comparison trains every cell at one learning rate, chosen so that the LSTM learns. The plain
RNN trains here alone at that rate and at larger ones (``scripts/rnn_cells_learning_rates.py``), the same recipe
otherwise, and :func:`rates_summary` says, computed from those runs, at which rates and distances some of its seeds
got past chance.
"""

from __future__ import annotations

from pathlib import Path

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.rnn_cells.training import LR, chance_ceiling

RESULTS = ROOT / "assets" / "results" / "rnn_cells_learning_rates.json"
SCRIPT = "scripts/rnn_cells_learning_rates.py"
RATES = (LR, 0.01, 0.03)  # the page's rate first
DISTANCES = (20, 40)
SOLVED = 0.95  # as section 5 counts a seed that solved a distance
ACCURACY = "accuracy"


def variant(lr: float) -> str:
    """The comparison's name for the plain RNN trained at ``lr``."""
    return f"lr {lr:g}"


def load_results(path: Path | str | None = None) -> Comparison:
    """The measured rates (``RESULTS`` by default); ``FileNotFoundError``/``ValueError`` naming the script."""
    results = Comparison.load(RESULTS if path is None else path, script=SCRIPT)
    if not results.variants or not results.param_values("distance"):
        raise ValueError(f"{Path(path or RESULTS).name} must hold the plain RNN at learning rates over distances")
    return results


def rates_summary(results: Comparison, lr: float = LR) -> str:
    """At each measured distance, how many seeds of the plain RNN solved it (≥ :data:`SOLVED`) and how many got
    past chance (above :func:`chance_ceiling`) at each learning rate, and what that means for section 5's "at
    chance" at ``lr``, the page's rate."""
    parts = []
    moved = False
    for d in results.param_values("distance"):
        cells = []
        for v in results.variants:
            runs = results.runs_of(v, {"distance": d})
            if not runs:
                continue
            values = [r.final.get(ACCURACY) or 0.0 for r in runs]
            solved = sum(x >= SOLVED for x in values)
            above = sum(x > chance_ceiling(d) for x in values)
            moved = moved or (v != variant(lr) and above > 0)
            cells.append(f"{v}: {solved} of {len(runs)} seeds solved it, {above} above chance")
        parts.append(f"at T = {d}, " + "; ".join(cells))
    verdict = (
        "So the plain RNN's “at chance” in the chart above holds at the learning rate chosen for the LSTM "
        f"({lr:g}); at a larger rate some of its seeds do learn: how far it gets depends on the recipe as well as "
        "on the cell."
        if moved
        else f"At none of these rates did any seed of the plain RNN get past chance: its “at chance” does not come "
        f"from the rate {lr:g} chosen for the LSTM."
    )
    return (
        "**The plain RNN at other learning rates** (alone, same recipe otherwise): " + "; ".join(parts) + ". " + verdict
    )
