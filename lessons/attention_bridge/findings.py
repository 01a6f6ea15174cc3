"""How the lesson puts a difference between seeds into words: the smallest gap that counts, a verdict as a
phrase, and what the shipped grid's seeds allow."""

from __future__ import annotations

from lessons.attention_bridge.experiments import EXPERIMENTS
from lessons.common import verdicts
from lessons.common.comparison import Comparison

MIN_GAP = 0.05  # token accuracy: a gap of 5 points or less is "little difference", whatever the seeds say
BLEU_MIN_GAP = 1.0  # BLEU points: a gap of one point or less is "little difference", whatever the seeds say


def verdict_words(verdict, fmt: str, more: str, less: str) -> str:
    """A verdict in words: "clearly higher (50% ± 2% against 80% ± 1%)" or "too close to call (…)"."""
    numbers = f"{verdict.a_spread.text(fmt, with_n=False)} against {verdict.b_spread.text(fmt, with_n=False)}"
    a, b = verdict.a_spread.mean, verdict.b_spread.mean
    if not verdict.clear:
        return f"too close to call ({numbers}; {verdict.why(fmt)})"
    return f"clearly {more if a > b else less} ({numbers})"


def seeds_note(results: Comparison) -> str:
    """How many seeds each shipped model has, and what that allows (computed from the runs)."""
    counts = sorted({len(results.runs_of(e.name)) for e in EXPERIMENTS})
    if counts == [1]:
        return (
            "**The shipped results are one seed per model (n = 1).** Every comparison below is one run against "
            "one run: an anecdote, not a finding (no spread can be measured). The script's "
            f"`--seeds {' '.join(map(str, range(verdicts.MIN_SEEDS)))}` makes {verdicts.MIN_SEEDS}, the fewest the "
            "course's rule calls a difference on."
        )
    least = counts[0]
    return (
        f"The shipped results are {'/'.join(map(str, counts))} seeds per model: mean ± sd over n = {least}"
        f"{' or more' if len(counts) > 1 else ''} runs; a difference is called only by the course's rule "
        f"({verdicts.TEST}, α = {verdicts.ALPHA:g}, at least {verdicts.MIN_SEEDS} seeds a side, a gap above the "
        "drift between machines)."
    )
