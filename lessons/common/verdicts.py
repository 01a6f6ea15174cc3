"""Whether one variant beats another: the rule (:func:`verdict`) on two spreads over seeds, and its result in
words (:class:`Verdict`).

One rule for every lesson. A difference is called only when all three hold:

1. at least :data:`MIN_SEEDS` seeds a side (fewer is an anecdote, however far apart);
2. a stated test says so at :data:`ALPHA`: Welch's t-test, two-sided, on the two sets of seeds (when some runs
   have no value, a level never reached, Fisher's exact test on how many runs of each side reached it);
3. the gap exceeds the cross-machine drift measured for that metric (``assets/results/drift.json``, made by
   ``bench/drift.py``: the same code and seed rerun on every vector unit and thread count of one machine). A gap
   that another machine's rounding could open or close is no finding.

Otherwise the comparison is "too close to call", and the reason says which condition failed, in words.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lessons.common.entries import ROOT
from lessons.common.runs import Spread
from lessons.common.significance import fisher_exact, welch

Outcome = Literal["better", "worse", "too close"]

ALPHA = 0.05  # the tests' significance level, two-sided
MIN_SEEDS = 5  # seeds a side before any difference is called
TEST = "Welch's t-test"
COUNT_TEST = "Fisher's exact test"
DRIFT_FILE = ROOT / "assets" / "results" / "drift.json"
DRIFT_FORMAT = "attention-lab/drift/1"


# ------------------------------------------------------------------------------------------------ the drift
@functools.cache
def drift_table() -> dict:
    """``assets/results/drift.json`` as written by ``bench/drift.py`` (read once); empty when it is missing."""
    if not DRIFT_FILE.is_file():
        return {}
    data = json.loads(DRIFT_FILE.read_text(encoding="utf-8"))
    if data.get("format") != DRIFT_FORMAT:
        raise ValueError(f"{DRIFT_FILE.name} is not a {DRIFT_FORMAT} file: run `python -m bench.drift` again")
    return data


def measured_drift(metric: str | None, results: str | None = None) -> float | None:
    """The cross-machine drift measured for ``metric``: its slice's figure when ``results`` (a results file's
    name, ``"transformer"``) was measured, else the largest over every slice that has a metric of that name;
    None when none was measured."""
    table = drift_table()
    if metric is None:
        return None
    found = table.get("slices", {}).get(results or "", {}).get("metrics", {}).get(metric)
    if found is not None:
        return float(found["drift"])
    value = table.get("metrics", {}).get(metric)
    return None if value is None else float(value)


def added_drift(*parts: tuple[str, str | None]) -> float | None:
    """The drift of a gap between figures of different results files: each part's ``(metric, results)`` drift
    (:func:`measured_drift`), added, since each side can move by its own; None when any part has none measured."""
    found = [measured_drift(metric, results) for metric, results in parts]
    return None if any(d is None for d in found) else float(sum(found))


# ------------------------------------------------------------------------------------------------ the rule
@dataclass(frozen=True)
class Judgement:
    """What the rule found: the outcome for ``a``, the reason in words, the test's p and the drift it used, and
    whether it could weigh the two at all (``weighed``: enough seeds, a test run on them, and for values a drift
    measured to hold their gap against). "Too close to call" without ``weighed`` says the evidence is missing, not
    that the two are alike."""

    outcome: Outcome
    reason: str
    p: float | None = None
    drift: float | None = None
    weighed: bool = False


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def judge(
    a: Spread,
    b: Spread,
    *,
    higher_is_better: bool = True,
    none_is_worst: bool = True,
    min_gap: float = 0.0,
    metric: str | None = None,
    results: str | None = None,
    fmt: str = ".4g",
    drift: float | None = None,
) -> Judgement:
    """The rule (see the module's docstring) with its p and drift; the reason's numbers in ``fmt``. ``drift``: the
    drift to hold the gap against when the two sides come from different files (:func:`added_drift`; ``metric`` then
    only names it), else the one measured for ``metric`` of ``results``."""
    rule = f"{TEST}, α = {ALPHA:g}"
    if a.total < MIN_SEEDS or b.total < MIN_SEEDS:
        anecdote = "one seed is an anecdote: " if min(a.total, b.total) == 1 else ""
        return Judgement(
            "too close",
            f"{anecdote}n = {a.total} and {b.total} seeds, and the rule ({rule}) takes at least {MIN_SEEDS} a side",
        )
    if a.missing or b.missing:
        if not none_is_worst or (a.n and b.n):
            return Judgement("too close", f"{a.missing + b.missing} of {a.total + b.total} runs have no value")
        p = fisher_exact(a.n, a.missing, b.n, b.missing)
        counts = f"{a.n} of {a.total} runs against {b.n} of {b.total} have a value"
        if p >= ALPHA or a.n == b.n:
            alike = f"{counts}: {COUNT_TEST} gives {_p(p)}, not below α = {ALPHA:g}"
            return Judgement("too close", alike, p, None, True)
        outcome: Outcome = "better" if a.n > b.n else "worse"
        return Judgement(outcome, f"{counts}: {COUNT_TEST}, α = {ALPHA:g}, {_p(p)}", p, None, True)
    _, _, p = welch(a.present, b.present)
    gap = abs(a.mean - b.mean)
    n = f"n = {a.n} and {b.n}"
    drift = measured_drift(metric, results) if drift is None else drift
    weighed = drift is not None
    if p >= ALPHA:
        return Judgement("too close", f"{TEST} on {n} seeds gives {_p(p)}, not below α = {ALPHA:g}", p, None, weighed)
    if drift is None:
        return Judgement("too close", f"no cross-machine drift has been measured for {metric or 'this metric'}", p)
    if gap <= drift:
        return Judgement(
            "too close",
            f"{TEST} gives {_p(p)} ({n}), but the gap {gap:{fmt}} is no more than the cross-machine drift "
            f"{drift:{fmt}} measured for {metric}",
            p,
            drift,
            weighed,
        )
    if gap <= min_gap:
        return Judgement("too close", f"the gap {gap:{fmt}} is no more than {min_gap:{fmt}}", p, drift, weighed)
    ahead = (a.mean - b.mean) if higher_is_better else (b.mean - a.mean)
    return Judgement(
        "better" if ahead > 0 else "worse",
        f"{rule}: {_p(p)} ({n}); the gap {gap:{fmt}} exceeds the cross-machine drift {drift:{fmt}}",
        p,
        drift,
        weighed,
    )


def verdict(
    a: Spread,
    b: Spread,
    *,
    higher_is_better: bool = True,
    none_is_worst: bool = True,
    min_gap: float = 0.0,
    metric: str | None = None,
    results: str | None = None,
    drift: float | None = None,
) -> tuple[Outcome, str]:
    """The rule of :meth:`~lessons.common.comparison.Comparison.compare`, on two spreads: ``(outcome for a, reason)``.

    Clear only with at least :data:`MIN_SEEDS` runs a side, Welch's t-test below :data:`ALPHA` and a gap larger
    than the cross-machine drift measured for ``metric`` (of the results file ``results``) and than ``min_gap``.
    Runs without a value: with ``none_is_worst`` (steps to a level never reached) and every run of one side
    reaching it, Fisher's exact test on the counts decides; any other mix of present and missing values is too
    close to call."""
    found = judge(
        a,
        b,
        higher_is_better=higher_is_better,
        none_is_worst=none_is_worst,
        min_gap=min_gap,
        metric=metric,
        results=results,
        drift=drift,
    )
    return found.outcome, found.reason


@dataclass(frozen=True)
class Verdict:
    """Whether variant ``a`` is better than ``b`` on ``metric``, by the rule of :func:`verdict`."""

    a: str  # variant keys
    b: str
    a_label: str
    b_label: str
    metric: str
    higher_is_better: bool
    a_spread: Spread
    b_spread: Spread
    outcome: Outcome  # "better" / "worse": a is clearly ahead / behind; "too close": the rule calls no difference
    reason: str  # why, in words: the test, α, n, p, and the drift the gap was held against
    none_is_worst: bool = True
    min_gap: float = 0.0
    results: str | None = None  # the results file's name, for the metric's drift

    @property
    def clear(self) -> bool:
        return self.outcome != "too close"

    @property
    def weighed(self) -> bool:
        """Whether the rule could weigh the two at all (:attr:`Judgement.weighed`)."""
        return self.judgement.weighed

    @property
    def winner(self) -> str | None:
        """The variant clearly ahead, or None when too close to call."""
        return {"better": self.a, "worse": self.b}.get(self.outcome)

    def sentence(self, fmt: str = ".0%", metric_name: str | None = None, missing: str = "not reached") -> str:
        """The claim as a lesson states it: "A beats B on test exact match: 93% ± 2% (n = 5) against … (Welch's
        t-test, α = 0.05: p = 0.003 …)."."""
        name = metric_name or self.metric
        numbers = f"{self.a_spread.text(fmt, missing)} against {self.b_spread.text(fmt, missing)}"
        if self.outcome == "better":
            return f"{self.a_label} beats {self.b_label} on {name}: {numbers} ({self.why(fmt)})."
        if self.outcome == "worse":
            return (
                f"{self.a_label} does not beat {self.b_label} on {name}; {self.b_label} is ahead: {numbers} "
                f"({self.why(fmt)})."
            )
        return f"{self.a_label} and {self.b_label} are too close to call on {name}: {numbers}; {self.why(fmt)}."

    def why(self, fmt: str) -> str:
        """The rule's reason, its gap and drift in ``fmt`` (the format of the metric's values)."""
        return judge(
            self.a_spread,
            self.b_spread,
            higher_is_better=self.higher_is_better,
            none_is_worst=self.none_is_worst,
            min_gap=self.min_gap,
            metric=self.metric,
            results=self.results,
            fmt=fmt,
        ).reason

    @property
    def p(self) -> float | None:
        """The stated test's two-sided p (None when it was not run: too few seeds, or values missing)."""
        return self.judgement.p

    @functools.cached_property
    def judgement(self) -> Judgement:
        return judge(
            self.a_spread,
            self.b_spread,
            higher_is_better=self.higher_is_better,
            none_is_worst=self.none_is_worst,
            min_gap=self.min_gap,
            metric=self.metric,
            results=self.results,
        )


def by_outcome(verdicts: Mapping[Any, Verdict]) -> dict[Outcome, list]:
    """The keys of ``verdicts`` (a setting -> its verdict, e.g. d_k -> scaled vs unscaled) grouped by outcome, each
    group in the mapping's order: ``{"better": [...], "too close": [...], "worse": [...]}``."""
    groups: dict[Outcome, list] = {"better": [], "too close": [], "worse": []}
    for key, v in verdicts.items():
        groups[v.outcome].append(key)
    return groups
