"""Made-up comparisons for the multi-head lesson's tests: numbers chosen so that each sentence computed from
them can be predicted, and turned round."""

import numpy as np

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.multi_head_attention import head_counts_runs, resolving_it_runs


def fake_results(test_exact=(0.9, 0.95, 0.97, 0.93), worst=(0.9, 0.8, 0.7, 0.6), pace=(1, 2, 4, 8), spread=0.0):
    """A comparison of 1, 2, 4 and 8 heads, two seeds each: h reaches 100% exact match at step 100 · ``pace``,
    ends at ``test_exact`` (± ``spread`` between the seeds) and its worst head at ``worst``."""
    runs = []
    for heads, test, low, slow in zip(head_counts_runs.RESULT_HEADS, test_exact, worst, pace, strict=True):
        for seed, sign in ((0, -1), (1, 1)):
            curve = [
                {"step": s, "seconds": s / 10, "loss": 1 / s, "exact_match": min(1.0, s / (100 * slow))}
                for s in (25, 50, 100, 200, 400, 800)
            ]
            probe = {
                "seed": seed,
                "step": 800,
                "source": ["a", "</s>"],
                "target": ["x", "</s>"],
                "maps": {"decoder.1.cross": np.full((heads, 2, 2), 0.5).tolist()},
            }
            runs.append(
                head_counts_runs.head_run(
                    heads,
                    seed,
                    steps=800,
                    seconds=80.0 + heads,
                    cpu_seconds=60.0,
                    exact_match=curve[-1]["exact_match"],
                    test_exact_match=test + sign * spread,
                    head_alignment=[0.9] * (heads - 1) + [low],
                    alignment=0.9,
                    parameters=1000,
                    curve=curve,
                    probe=probe if seed == 0 else None,
                )
            )
    variants = tuple(head_counts_runs.variant(h) for h in head_counts_runs.RESULT_HEADS)
    return Comparison(variants, tuple(runs), {"seeds": [0, 1], "script": head_counts_runs.RESULT_SCRIPT})


def it_comparison(one_layer: float, best_second: float) -> Comparison:
    """A made-up comparison of 1 and 2 layers: accuracies and best layer-2 head around the given values."""
    acc, prefers = "test " + resolving_it_runs.ACCURACY, resolving_it_runs.PREFERS
    runs = []
    for seed, wobble in enumerate((-0.01, 0.0, 0.01)):
        common = {
            "CPU s": 1.0,
            "layer 1, ratio change": 1e-6,
            f"layer 1, best head: {prefers}": 0.5,
            f"layer 1, best head: {resolving_it_runs.FLIPS}": 0.0,
        }
        runs.append(Run("1 layer", seed, final={**common, acc: one_layer + wobble}))
        runs.append(
            Run(
                "2 layers",
                seed,
                final={**common, acc: 0.9 + wobble, f"layer 2, best head: {prefers}": best_second + wobble},
            )
        )
    return Comparison(("1 layer", "2 layers"), tuple(runs))
