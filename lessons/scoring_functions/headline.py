"""The lesson's claim about scaling by √d, computed from its two measurements (the GRU race of section 3 and the
reduced race of section 4) and shown under the introduction."""

from __future__ import annotations

from lessons.common.comparison import Comparison
from lessons.scoring_functions.race_softmax import start_and_end
from lessons.scoring_functions.race_training import LEVELS, level_metric
from lessons.scoring_functions.where_scaling_matters import sweep_summary, unit_arm


def headline(results: Comparison | None, sweep: Comparison | None) -> str:
    """The lesson's claim about scaling, computed from its two measurements: the reduced race at several d (where
    scaling helps, where it does not) and the GRU race (dot against scaled dot, steps to the first level, with how
    wide its scores start). Empty without results."""
    if results is None:
        return ""
    parts = []
    if sweep is not None:
        parts.append(f"In a one-layer race on unit-variance vectors (section 4), {sweep_summary(sweep)}.")
    metric = level_metric("steps", LEVELS[0])
    race = results.compare("dot", "scaled_dot", metric, higher_is_better=False)
    numbers = f"{race.a_spread.text('.0f')} against {race.b_spread.text('.0f')} steps to {LEVELS[0]:.0%}"
    stats = start_and_end(results).get("dot")
    size = f" (d = {stats['start d'].mean:.0f})" if stats else ""
    if race.winner == "dot":
        gru = f"In the GRU race of section 3{size}, unscaled dot learns faster than scaled dot ({numbers})"
    elif race.winner == "scaled_dot":
        gru = f"In the GRU race of section 3{size}, scaled dot learns faster than unscaled dot ({numbers})"
    else:
        gru = f"In the GRU race of section 3{size}, unscaled and scaled dot are too close to call ({numbers})"
    if stats:
        d = int(stats["start d"].mean)
        gru += (
            f": there q·k starts with sd {stats['start score sd'].mean:.2f} (largest α "
            f"{stats['start largest α'].mean:.2f})"
        )
        unit = sweep.runs_of("dot", unit_arm(d)) if sweep is not None else ()
        if unit:
            wide = sweep.spread("score sd at step 0", "dot", unit_arm(d)).mean
            peak = sweep.spread("largest α at step 0", "dot", unit_arm(d)).mean
            gru += f", where unit-variance vectors at d = {d} start at sd {wide:.1f} (largest α {peak:.2f})"
    parts.append(gru + ".")
    return "**What the measurements say about scaling by √d.** " + " ".join(parts)
