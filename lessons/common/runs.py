"""What one training measured (:class:`Run`: one variant, one seed, its curve and final metrics), and a metric
over seeds (:class:`Spread`: mean ± sample sd and n, the runs without a value counted, never dropped silently).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def _number(value: Any, what: str) -> float | None:
    """``value`` as a float (None stays None: "never reached", "not measured"); ``ValueError`` naming ``what``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{what} must be a number or None, not {value!r}")
    return float(value)


def first_reached(curve: Sequence[Mapping[str, float]], metric: str, level: float, x: str = "step") -> float | None:
    """``x`` (step, seconds…) of the first report of ``curve`` whose ``metric`` is at least ``level``; None if none
    is. What goes in a run's ``final`` as "steps to 90%"."""
    for point in curve:
        value = point.get(metric)
        if value is not None and value >= level:
            return float(point[x])
    return None


def curve_of(history: Sequence) -> list[dict]:
    """A training run's reports (``minimodels.train.Progress``: step, seconds, loss, exact match) as the per-report
    record a :class:`Run` keeps for its ``curve``."""
    return [
        {
            "step": p.step,
            "seconds": round(p.seconds, 3),
            "loss": round(p.loss, 5),
            "exact_match": round(p.exact_match, 4),
        }
        for p in history
    ]


# ---------------------------------------------------------------------------------------------------- a run
@dataclass(frozen=True)
class Run:
    """One training of one variant with one seed, as measured."""

    variant: str  # which arm of the comparison ("dot", "h = 4", "LSTM")
    seed: int  # initial weights and batch order
    # the settings that define it beyond the variant: {"distance": 20}, {"cell": "LSTM", "heads": 4}
    params: Mapping[str, Any] = field(default_factory=dict)
    # every report, in order: {"step", "seconds", "loss", "exact_match", …}
    curve: tuple[Mapping[str, float], ...] = ()
    # the final metrics, by name: {"test exact match": 0.93, "steps to 90%": None (never reached), …}
    final: Mapping[str, float | None] = field(default_factory=dict)
    # anything else kept with it: probe maps, parameter counts, why it stopped
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.variant, str) or not self.variant:
            raise ValueError(f"a run's variant must be a non-empty string, not {self.variant!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer):
            raise ValueError(f"run {self.variant}: the seed must be an integer, not {self.seed!r}")
        what = f"run {self.variant} seed {self.seed}"
        final = {str(k): _number(v, f"{what}: final {k!r}") for k, v in dict(self.final).items()}
        curve = tuple(dict(point) for point in self.curve)
        object.__setattr__(self, "seed", int(self.seed))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "curve", curve)
        object.__setattr__(self, "final", final)
        object.__setattr__(self, "extra", dict(self.extra))

    def value(self, metric: str) -> float | None:
        """The final ``metric``; ``KeyError`` naming the metrics it has when it has no such metric at all."""
        if metric not in self.final:
            has = ", ".join(sorted(self.final)) or "none"
            raise KeyError(f"run {self.variant} seed {self.seed} has no final {metric!r} (it has: {has})")
        return self.final[metric]

    def matches(self, where: Mapping[str, Any] | None) -> bool:
        """Whether every setting of ``where`` is one of this run's params."""
        return not where or all(k in self.params and self.params[k] == v for k, v in where.items())

    def reached(self, metric: str, level: float, x: str = "step") -> float | None:
        """:func:`first_reached` on this run's curve."""
        return first_reached(self.curve, metric, level, x)

    def to_dict(self) -> dict:
        return {
            "variant": self.variant,
            "seed": self.seed,
            "params": dict(self.params),
            "curve": list(self.curve),
            "final": dict(self.final),
            "extra": dict(self.extra),
        }


# ------------------------------------------------------------------------------------------------- a spread
@dataclass(frozen=True)
class Spread:
    """A metric over seeds: mean ± sample sd and n; the runs without a value (None) counted, never dropped silently."""

    values: tuple[float | None, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(_number(v, "a spread's value") for v in self.values))

    def __getstate__(self) -> dict:
        """Its values only: a pickle (and so ``ui.kept.digest``'s fingerprint) is the same before and after the
        properties below were first read."""
        return {"values": self.values}

    # Computed once per spread (its values never change): a lesson's verdicts and exercises read the same spreads
    # on every run of the page, for every student.
    @functools.cached_property
    def present(self) -> tuple[float, ...]:
        return tuple(v for v in self.values if v is not None)

    @property
    def n(self) -> int:
        """How many values the mean and sd are of (the runs that have one)."""
        return len(self.present)

    @property
    def total(self) -> int:
        """How many runs, with a value or without."""
        return len(self.values)

    @property
    def missing(self) -> int:
        """How many runs have no value (None: never reached, not measured)."""
        return self.total - self.n

    @functools.cached_property
    def mean(self) -> float | None:
        return float(np.mean(self.present)) if self.present else None

    @functools.cached_property
    def sd(self) -> float | None:
        """Sample standard deviation (ddof = 1); 0 for a single value, None for none."""
        if not self.present:
            return None
        return float(np.std(self.present, ddof=1)) if self.n > 1 else 0.0

    @property
    def min(self) -> float | None:
        return min(self.present) if self.present else None

    @property
    def max(self) -> float | None:
        return max(self.present) if self.present else None

    def text(self, fmt: str = ".0%", missing: str = "not reached", with_n: bool = True) -> str:
        """Mean ± sd and n: "93% ± 2% (n = 3)"; "93% (n = 1)"; "93% ± 2% (n = 2; 1 of 3 not reached)";
        "not reached (3 of 3)"; "–" for no runs. ``with_n=False`` (a table with its own n column) leaves out n
        where every run has a value: "93% ± 2%"."""
        if not self.values:
            return "–"
        if not self.present:
            return f"{missing} ({self.total} of {self.total})"
        text = format(self.mean, fmt) + (f" ± {format(self.sd, fmt)}" if self.n > 1 else "")
        if self.missing:
            return f"{text} (n = {self.n}; {self.missing} of {self.total} {missing})"
        return f"{text} (n = {self.n})" if with_n else text


def load_note(meta: Mapping[str, Any]) -> str:
    """How busy the machine was while a results file was measured, read from its ``meta`` (the 1-minute load average
    before and after, the machine's cores): what its seconds are worth. The steps a run takes do not depend on it."""
    before, after = meta.get("load_1min_before"), meta.get("load_1min_after")
    if before is None and after is None:
        return "How busy the machine was is not recorded"
    cores = (meta.get("machine") or {}).get("cpu_count")
    said = ["?" if x is None else x for x in (before, after)]
    text = f"1-minute load average {said[0]} before and {said[1]} after"
    if not cores or before is None:
        return text
    text += f" on {cores} cores"
    if before >= cores:
        return text + ": other work kept every core busy when it started, so its seconds include waiting for them"
    if before >= 0.5:
        return text + f": other work held about {before:.1f} of them when it started, so its seconds may include waits"
    return text + ": the machine was otherwise idle when it started"
