"""The lesson's shipped results: ``assets/results/kv_cache.json``, made by ``scripts/kv_cache_results.py``.

One :class:`~lessons.common.comparison.Comparison`: the sliding-window runs (variant ``window``, one run per window
and seed, final ``accuracy``), the length sweep's runs (``gru-none``, ``gru-softmax``, ``gru-linear``, one per seed,
the score by length as the curve), and in its ``meta`` the step timings and memory rows of
:mod:`lessons.kv_cache.timing` with the machine they were measured on.
"""

from __future__ import annotations

from pathlib import Path

from lessons.common import verdicts
from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.kv_cache.length_sweep import LONG, LONG_METRIC, MODELS
from lessons.kv_cache.window_task import VARIANT
from lessons.seq2seq_bottleneck.shipped import length_mean

RESULTS = ROOT / "assets" / "results" / "kv_cache.json"
SCRIPT = "scripts/kv_cache_results.py"
LABELS = {VARIANT: "sliding window", **MODELS}


def load_results(path: Path | str = RESULTS) -> Comparison:
    """The shipped comparison; ``ValueError`` naming the script when a part is missing or has fewer seeds than a
    verdict needs (``verdicts.MIN_SEEDS``)."""
    results = Comparison.load(path, script=SCRIPT)
    lacking = [
        v for v in LABELS if v not in results.variants or len({r.seed for r in results.runs_of(v)}) < verdicts.MIN_SEEDS
    ]
    if lacking or not results.meta.get("timing") or not results.meta.get("machine"):
        raise ValueError(
            f"{Path(path).name} lacks {verdicts.MIN_SEEDS} seeds of {', '.join(lacking) or 'timings'}: run {SCRIPT}"
        )
    return results


def drift_figures(run: Run) -> dict[str, float]:
    """The figures of one run that the lesson's verdicts compare besides its final values: a length-sweep run's mean
    exact match on the long strings (``bench/drift.py`` holds them apart between kernel settings)."""
    return {LONG_METRIC: length_mean(run, LONG)} if run.variant in MODELS else {}
