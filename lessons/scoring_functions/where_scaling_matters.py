"""Section 4, where scaling starts to matter: the reduced race's measured sweep over d (shipped with the race),
read and checked; at every d the verdict of scaled against unscaled dot, its table, charts and caption; and the
prediction exercise about small entries at a large d."""

from __future__ import annotations

import math
from collections.abc import Sequence

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.verdicts import Verdict, by_outcome
from lessons.scoring_functions.four_scores import COLORS
from lessons.scoring_functions.reduced_race import (
    EARLY_ALPHA,
    SMALL_SIGMA,
    SWEEP_DS,
    SWEEP_SCORES,
    RetrievalConfig,
    early_metric,
    sweep_configs,
)
from lessons.scoring_functions.shipped_race import SCRIPT

TITLE = "4 · Where scaling starts to matter"
TEXT = (
    "Why divide by √d at all? If q and k have d independent entries of variance σ², q·k = Σⱼ qⱼkⱼ has variance "
    "d·σ⁴: its sd is √d·σ². For unit-variance vectors (lesson 10's layer norm keeps a Transformer's so), that is "
    "√d, and at large d the softmax puts almost all its weight on one key before anything is learned. To see where "
    "that starts to matter, a race small enough to run at several d over several seeds: **one attention layer**, "
    "nothing else, must learn projections W_q, W_k under which a query finds the key it is a noisy copy of. "
    "The values are the keys; the loss is the distance between the context c and the right key. The measure: "
    "the mean α on the right key, on held-out queries, early in training (how fast it learns where to look)."
)


def sweep_problem(c: Comparison) -> str | None:
    """What makes a measured sweep unfit for the page, or None."""
    if set(c.variants) != set(SWEEP_SCORES):
        return f"the d sweep must compare {', '.join(SWEEP_SCORES)}, not {', '.join(c.variants)}"
    for score in SWEEP_SCORES:
        for config in sweep_configs(c.param_values("d") or SWEEP_DS):
            runs = c.runs_of(score, {"d": config.d, "sigma": round(config.sigma, 4)})
            if len(runs) < 2:
                return f"the d sweep has {len(runs)} seed(s) of {score} at d = {config.d}, σ = {config.sigma:.2f}"
    return None


def load_sweep(results: Comparison | None) -> Comparison | None:
    """The reduced race at several d that the shipped race keeps in ``meta["d_sweep"]``; None when absent.
    ``ValueError`` naming the script when it is there but unusable."""
    data = (results.meta if results is not None else {}).get("d_sweep")
    if data is None:
        return None
    sweep = Comparison.from_dict(data, "the d sweep")
    problem = sweep_problem(sweep)
    if problem:
        raise ValueError(f"{problem}: run `python {SCRIPT}` again")
    return sweep


def unit_arm(d: int) -> dict:
    """The unit-variance arm of the sweep at ``d``."""
    return {"d": d, "sigma": 1.0}


def sweep_verdicts(sweep: Comparison) -> dict[int, Verdict]:
    """At every d of the unit-variance sweep: does scaled dot put more weight on the right key after the early
    step than unscaled dot, clearly by the course's verdict rule?"""
    metric = early_metric()
    return {
        d: sweep.compare("scaled_dot", "dot", metric, where=unit_arm(d))
        for d in sweep.param_values("d")
        if sweep.runs_of("dot", unit_arm(d))
    }


def _ds(ds: Sequence[int]) -> str:
    return ", ".join(str(d) for d in ds)


def sweep_summary(sweep: Comparison) -> str:
    """Where scaling matters in the reduced race, and where it does not, from :func:`sweep_verdicts`."""
    verdicts = sweep_verdicts(sweep)
    ahead, close, behind = by_outcome(verdicts).values()  # scaled dot against dot
    parts = []
    if ahead:
        parts.append(f"scaling clearly helps at d = {_ds(ahead)}")
    if close:
        parts.append(f"it makes no difference the rule can call at d = {_ds(close)}")
    if behind:
        parts.append(f"unscaled dot is clearly ahead at d = {_ds(behind)}")
    return "; ".join(parts)


def sweep_lines(sweep: Comparison) -> list[str]:
    """One sentence per d of the unit-variance sweep, the verdict with its numbers."""
    metric = early_metric()
    return [
        f"d = {d}: " + v.sentence(".2f", f"{metric} (mean over held-out queries)")
        for d, v in sweep_verdicts(sweep).items()
    ]


SWEEP_COLUMNS = {
    "score sd at step 0": ".1f",
    "largest α at step 0": ".2f",
    EARLY_ALPHA.format(early=RetrievalConfig(d=1).early): ".2f",
    "accuracy": ".0%",
}


def sweep_rows(sweep: Comparison) -> list[dict]:
    """The unit-variance sweep's table: per score and d, mean ± sd over seeds of the start and of the learning."""
    rows = sweep.table(SWEEP_COLUMNS, by="d", where={"sigma": 1.0}, variant_header="score")
    return sorted(rows, key=lambda r: (r["d"], r["score"]))


def sweep_charts(sweep: Comparison, d: int) -> tuple[dict, dict]:
    """Two Vega-Lite charts with every seed faint, the mean and a ± sd band: the early α on the right key against d
    (log scale), and the held-out α on the right key against the training step at ``d``."""
    colors = {s: COLORS[s] for s in SWEEP_SCORES}
    metric = early_metric()
    against_d = curves_chart(
        sweep.sweep_points(metric, "d", where={"sigma": 1.0}),
        y_title=metric,
        x_title="d (log scale)",
        title="After the first steps, at every d",
        log_x=True,
        percent=True,
        colors=colors,
    )
    curves = curves_chart(
        sweep.curve_points("alpha", where=unit_arm(d)),
        y_title="α on the right key",
        x_title="training step",
        title=f"Learning, at d = {d}",
        percent=True,
        colors=colors,
    )
    return against_d, curves


def sweep_caption(sweep: Comparison) -> str:
    config = RetrievalConfig(d=1)
    seeds = ", ".join(str(s) for s in sweep.seeds)
    return (
        f"Shipped, measured by the lesson's script: one attention layer (W_q, W_k learned, values = keys), N = "
        f"{config.keys} keys of unit-variance entries, the query a copy of one key plus noise of sd {config.noise}; "
        f"Adam {config.lr:g}, batches of {config.batch}, {config.steps} steps; seeds {seeds} (faint: each seed; line: "
        f"the mean; band: ± sd). Held-out: {config.held_out} fixed queries; “accuracy”: how often the largest α falls "
        f"on the right key after the {config.steps} steps. Here {sweep_summary(sweep)}."
    )


VERDICT_CHOICES = ("scaled dot, clearly", "unscaled dot, clearly", "too close to call over the seeds")


def verdict_choice(v: Verdict) -> int:
    """The index in :data:`VERDICT_CHOICES` of a verdict of scaled dot against unscaled dot."""
    return {"scaled_dot": 0, "dot": 1}.get(v.winner, 2)


def _small_entries_exercises(sweep: Comparison | None) -> list[Exercise]:
    """Predict: the reduced race at the largest d with small entries (the sweep's unshown arm); none without it."""
    largest = max(sweep.param_values("d")) if sweep is not None else 0
    small_arm = {"d": largest, "sigma": round(SMALL_SIGMA, 4)}
    if sweep is None or not all(sweep.runs_of(s, small_arm) for s in SWEEP_SCORES):
        return []
    metric, config = early_metric(), RetrievalConfig(d=largest, sigma=SMALL_SIGMA)
    v = sweep.compare("scaled_dot", "dot", metric, where=small_arm)
    sd = {s: sweep.spread("score sd at step 0", s, small_arm).mean for s in SWEEP_SCORES}
    peak = {s: sweep.spread("largest α at step 0", s, small_arm).mean for s in SWEEP_SCORES}
    return [
        Exercise(
            key="scoring_functions.ex5",
            prompt=(
                f"Predict: section 4's one-layer race at d = {config.d}, but with vectors whose entries have "
                f"variance {config.sigma**2:.2f} (like the GRU's states) instead of 1. After {config.early} steps, "
                "which puts more weight on the right key? (This run is not drawn on the page.)"
            ),
            choices=VERDICT_CHOICES,
            answer=verdict_choice(v),
            explanation=(
                f"Measured by the lesson's script over seeds {', '.join(map(str, sweep.seeds))}: "
                f"{v.sentence('.2f', metric)} At the start the unscaled scores spread with sd {sd['dot']:.2f} "
                f"(√{config.d}·{config.sigma**2:.2f} = {math.sqrt(config.d) * config.sigma**2:.2f}), not "
                f"{math.sqrt(config.d):.0f}, so its softmax is not saturated (largest α {peak['dot']:.2f}); the "
                f"scaled scores spread with sd {sd['scaled_dot']:.2f} and start almost uniform (largest α "
                f"{peak['scaled_dot']:.2f}, uniform 1/{config.keys} = {1 / config.keys:.2f}). Large d makes "
                "scaling matter only when the entries are not small."
            ),
            hint="What matters is how wide the scores spread at the start: √d·σ², not d alone.",
        )
    ]
