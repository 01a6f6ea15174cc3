"""Made-up inputs for the attention bridge's tests: a grid shaped like the results script's, with chosen
numbers, and one-hot attention maps."""

import numpy as np

from lessons.attention_bridge import experiments
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from minimodels.tasks.multilingual import LANGUAGES


def fake_results(plain=0.02, mono=0.4, seeds=(0,)) -> Comparison:
    """A comparison shaped like scripts/attention_bridge_results.py's, with chosen zero-shot numbers (each seed a
    little apart from the next, so that several seeds have a spread)."""
    runs = []
    zeros = {"hub": plain, "hub-mono": mono, "hub-mono-nopenalty": mono}  # the others have no zero-shot direction
    for e in experiments.EXPERIMENTS:
        A = np.eye(3, 5) if e.penalty_weight else np.full((3, 5), 0.2)
        for seed in seeds:
            z = zeros[e.name] + 0.01 * seed if e.name in zeros else None
            test = {
                "en→it": {"exact_match": z or 0.0, "token_accuracy": z or 0.0},
                "fr→en": {"exact_match": 0.9, "token_accuracy": 0.95},
            }
            summary = {
                "trained_exact": 0.9,
                "trained_tokens": 0.95,
                "zero_shot_exact": z,
                "en_fr_exact": 0.9,
                "zero_shot_tokens": None if z is None else z + 0.1,
                "redundancy": 0.5 if e.penalty_weight else 2.0,
                "agreement": 0.6,
            }
            probe = {lang: {"A": A.tolist(), "tokens": ["a", "b", "c", "d", "</s>"]} for lang in LANGUAGES}
            history = [
                {"step": 10, "exact_match": 0.5, "zero_shot": z},
                {"step": 20, "exact_match": 0.6, "zero_shot": z},
            ]
            runs.append(experiments.experiment_run(e, seed, history, test, summary, probe=probe))
    meta = {"command": "python scripts/attention_bridge_results.py", "seeds": list(seeds)}
    return Comparison(
        tuple(e.name for e in experiments.EXPERIMENTS),
        tuple(runs),
        meta,
        {e.name: e.label for e in experiments.EXPERIMENTS},
    )


def one_hot(k_positions, S):
    A = np.zeros((len(k_positions), S))
    A[range(len(k_positions)), k_positions] = 1.0
    return A


def with_finals(results: Comparison, finals: dict[str, dict[str, float]]) -> Comparison:
    """``results`` with some finals replaced per experiment (every seed keeps its 0.01 offset)."""
    runs = [
        Run(
            r.variant,
            r.seed,
            r.params,
            r.curve,
            {**r.final, **{k: v + 0.01 * r.seed for k, v in finals.get(r.variant, {}).items()}},
            r.extra,
        )
        for r in results.runs
    ]
    return Comparison(results.variants, tuple(runs), results.meta, results.labels)


SHIPPED_LIKE = {  # the shipped numbers' shape: no penalty ahead on scores and agreement, the penalty less redundant
    "hub-mono": {"trained_exact": 0.334, "zero_shot_tokens": 0.246, "agreement": 0.077, "redundancy": 0.63},
    "hub-mono-nopenalty": {"trained_exact": 0.644, "zero_shot_tokens": 0.334, "agreement": 0.863, "redundancy": 1.31},
}
