"""A made-up comparison of the lesson's shape, for tests that must see a verdict go either way (never shipped)."""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.kv_cache import length_sweep, results, window_task


def comparison(
    *, linear_long: float = 0.1, softmax_long: float = 0.9, gru_long: float = 0.0, seeds=range(5)
) -> Comparison:
    """Windows at their ceiling (± a little per seed) and the sweep's models at the given exact match on the long
    strings (1.0 on the others)."""
    runs = []
    for seed in seeds:
        jitter = 0.01 * (seed - 2)
        for w in window_task.WINDOWS:
            acc = min(1.0, max(0.0, window_task.ceiling(w) + jitter))
            runs.append(Run(window_task.VARIANT, seed, {"window": w}, (), {window_task.METRIC: acc}))
        for model, long in (("gru-none", gru_long), ("gru-softmax", softmax_long), ("gru-linear", linear_long)):
            curve = tuple(
                {
                    "length": n,
                    "exact_match": (long + jitter if n >= length_sweep.LONG[0] else 1.0),
                    "token_accuracy": 1.0,
                    "count": 10,
                }
                for n in range(2, 19)
            )
            runs.append(Run(model, seed, {"hidden_size": length_sweep.D, "steps": 500}, curve, {"loss": 0.1}))
    timing = [
        {"way": way, "length": t, "median_s": base * t**a, "low_s": base * t**a * 0.9, "high_s": base * t**a * 1.2}
        for way, base, a in (("recompute", 1e-8, 2.0), ("cache", 1e-4, 0.0), ("linear", 1e-4, 0.0))
        for t in (128, 256, 512, 1024, 2048)
    ]
    meta = {
        "script": results.SCRIPT,
        "seeds": list(seeds),
        "timing": timing,
        "machine": {
            "cpu_model": "a test CPU",
            "cpu_capability": "AVX2",
            "torch_threads": 1,
            "cpu_count": 2,
            "torch": "x",
            "load_1min": 0.5,
        },
        "window": {"steps": 400},
        "sweep": {"steps": 500, "per_length": 40},
    }
    return Comparison(tuple(results.LABELS), tuple(runs), meta, results.LABELS)
