"""Races and sweeps made up for the scoring lesson's tests: a run read off a given curve, a race of such runs, the
statistics of a softmax kept in a race's runs, a run of the reduced race, and a sweep of them."""

import dataclasses

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.scoring_functions import four_scores, race_training, reduced_race


def run(score, seed, points, test=0.9, align=0.5, seconds_per_step=0.1):
    """A run of ``score`` whose held-out exact match was ``em`` at each (step, em) of ``points``."""
    curve = [{"step": s, "seconds": s * seconds_per_step, "loss": 1 / s, "exact_match": em} for s, em in points]
    return race_training.run_of(score, seed, curve, "target", test, align if test is not None else None)


def race_of(*runs, models=None) -> Comparison:
    variants = tuple(s for s in four_scores.SCORES if any(r.variant == s for r in runs))
    return Comparison(variants, runs, {"models": models or {}}, four_scores.LABELS)


def stats(sd, peak, d=64):
    return {"d": d, "query variance": 0.05, "key variance": 0.05, "score sd": sd, "largest α": peak, "uniform α": 0.09}


def with_scores(results, dot_end_sd=6.5):
    """``results`` with statistics of the softmax at the start and the end in every dot and scaled dot run."""
    scores = {"dot": {"start": stats(0.4, 0.14), "end": stats(dot_end_sd, 0.9)},
              "scaled_dot": {"start": stats(0.05, 0.09), "end": stats(1.2, 0.3)}}  # fmt: skip
    runs = [
        dataclasses.replace(r, extra={**r.extra, "scores": scores[r.variant]}) if r.variant in scores else r
        for r in results.runs
    ]
    return dataclasses.replace(results, runs=tuple(runs))


def retrieval(score, seed, d, alpha, sigma=1.0, sd=1.0, peak=0.3):
    metric = reduced_race.early_metric()
    final = {
        "score sd at step 0": sd,
        "largest α at step 0": peak,
        metric: alpha,
        "accuracy": 1.0,
        "α on the right key": alpha,
        "accuracy after 50 steps": 1.0,
    }
    curve = (
        {"step": 0, "loss": 1.0, "accuracy": 0.1, "alpha": 0.06},
        {"step": 50, "loss": 0.5, "accuracy": 0.9, "alpha": alpha},
    )
    return Run(score, seed, params={"d": d, "sigma": round(sigma, 4)}, curve=curve, final=final)


def sweep_of(alphas: dict, small: tuple = (0.98, 0.16)) -> Comparison:
    """A sweep where, at each d, dot and scaled dot put ``alphas[d]`` = (dot, scaled) on the right key (± 0.01)."""
    runs = []
    for d, (dot, scaled) in alphas.items():
        for seed in range(3):
            runs += [
                retrieval("dot", seed, d, dot + 0.01 * seed),
                retrieval("scaled_dot", seed, d, scaled + 0.01 * seed),
            ]
    for seed in range(3):
        runs += [
            retrieval("dot", seed, max(alphas), small[0], reduced_race.SMALL_SIGMA),
            retrieval("scaled_dot", seed, max(alphas), small[1], reduced_race.SMALL_SIGMA),
        ]
    return Comparison(reduced_race.SWEEP_SCORES, tuple(runs), {"seeds": [0, 1, 2]}, four_scores.LABELS)
