"""Whether one variant beats another: the rule (:func:`verdict`) on two spreads over seeds, and its result in
words (:class:`Verdict`). Clear only when the gap is larger than the spread: one seed is an anecdote, it never makes
a comparison clear.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lessons.common.runs import Spread

Outcome = Literal["better", "worse", "too close"]


@dataclass(frozen=True)
class Verdict:
    """Whether variant ``a`` is better than ``b`` on ``metric``, and whether the gap is larger than the spread."""

    a: str  # variant keys
    b: str
    a_label: str
    b_label: str
    metric: str
    higher_is_better: bool
    a_spread: Spread
    b_spread: Spread
    outcome: Outcome  # "better" / "worse": a is clearly ahead / behind; "too close": the gap is within the spread
    reason: str  # why, in words: "the gap 3% is within the spread (sd 2% + 2%)"

    @property
    def clear(self) -> bool:
        return self.outcome != "too close"

    @property
    def winner(self) -> str | None:
        """The variant clearly ahead, or None when too close to call."""
        return {"better": self.a, "worse": self.b}.get(self.outcome)

    def sentence(self, fmt: str = ".0%", metric_name: str | None = None, missing: str = "not reached") -> str:
        """The claim as a lesson states it: "A beats B on test exact match: 93% ± 2% (n = 3) against …"."""
        name = metric_name or self.metric
        numbers = f"{self.a_spread.text(fmt, missing)} against {self.b_spread.text(fmt, missing)}"
        if self.outcome == "better":
            return f"{self.a_label} beats {self.b_label} on {name}: {numbers}."
        if self.outcome == "worse":
            return f"{self.a_label} does not beat {self.b_label} on {name}; {self.b_label} is ahead: {numbers}."
        return f"{self.a_label} and {self.b_label} are too close to call on {name}: {numbers}; {self.why(fmt)}."

    def why(self, fmt: str) -> str:
        """Why a comparison is too close to call, its numbers in ``fmt`` (the format of the metric's values)."""
        a, b = self.a_spread, self.b_spread
        if a.total < 2 or b.total < 2 or a.missing or b.missing:
            return self.reason
        gap = abs(a.mean - b.mean)
        if gap == 0:
            return "the means are equal"
        if gap <= a.sd + b.sd:
            return f"the gap {gap:{fmt}} is within the spread over seeds (sd {a.sd:{fmt}} + {b.sd:{fmt}})"
        return self.reason


def by_outcome(verdicts: Mapping[Any, Verdict]) -> dict[Outcome, list]:
    """The keys of ``verdicts`` (a setting -> its verdict, e.g. d_k -> scaled vs unscaled) grouped by outcome, each
    group in the mapping's order: ``{"better": [...], "too close": [...], "worse": [...]}``."""
    groups: dict[Outcome, list] = {"better": [], "too close": [], "worse": []}
    for key, v in verdicts.items():
        groups[v.outcome].append(key)
    return groups


def verdict(
    a: Spread, b: Spread, *, higher_is_better: bool = True, none_is_worst: bool = True, min_gap: float = 0.0
) -> tuple[Outcome, str]:
    """The rule of :meth:`~lessons.common.comparison.Comparison.compare`, on two spreads: ``(outcome for a, reason)``.

    Clear only with at least two values a side and the means further apart than the two sds together (the drawn
    mean ± sd bands do not overlap) and than ``min_gap``. Runs without a value: with ``none_is_worst`` (steps to a
    level never reached) a side where every run got there is clearly ahead of a side where none did (again with
    two runs a side at least); any other mix of present and missing values is too close to call.
    """
    if a.total < 2 or b.total < 2:
        return "too close", "one seed is an anecdote: it takes at least two a side"
    if a.missing or b.missing:
        if none_is_worst and not a.missing and b.n == 0:
            return "better", "every run of the first has a value and none of the second has"
        if none_is_worst and not b.missing and a.n == 0:
            return "worse", "no run of the first has a value and every run of the second has"
        return "too close", f"{a.missing + b.missing} of {a.total + b.total} runs have no value"
    gap = a.mean - b.mean
    ahead = gap if higher_is_better else -gap
    spread = a.sd + b.sd
    if abs(gap) > spread and abs(gap) > min_gap:
        outcome: Outcome = "better" if ahead > 0 else "worse"
        return outcome, f"the gap {abs(gap):.4g} exceeds the spread (sd {a.sd:.4g} + {b.sd:.4g})"
    if abs(gap) <= min_gap:
        return "too close", f"the gap {abs(gap):.4g} is no more than {min_gap:.4g}"
    return "too close", f"the gap {abs(gap):.4g} is within the spread over seeds (sd {a.sd:.4g} + {b.sd:.4g})"
