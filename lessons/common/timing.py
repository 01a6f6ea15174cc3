"""Timing a forward pass on this machine, the one way the lessons do it (lesson 1's price of recurrence, lesson 5's
why no recurrence): warm up once, then average as many calls as fit in a small budget, :data:`REPEATS` times over;
a page states the median of those timings with their range, as this machine's (another machine, or this one
under another load, times otherwise)."""

from __future__ import annotations

import time
from collections.abc import Callable

import torch


def call_seconds(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, *, budget: float = 0.02, repeats: int | None = None
) -> list[float]:
    """``repeats`` averages of ``fn(x)``'s wall time in seconds, each over as many calls as fit in ``budget``
    seconds (at least one), after one warm-up call; no autograd. ``repeats``: :data:`REPEATS` unless given."""
    repeats = REPEATS if repeats is None else repeats
    out = []
    with torch.inference_mode():
        fn(x)  # warm-up: the first call of a shape pays for allocation
        for _ in range(repeats):
            calls, start = 0, time.perf_counter()
            while (elapsed := time.perf_counter() - start) < budget or calls == 0:
                fn(x)
                calls += 1
            out.append(elapsed / calls)
    return out


REPEATS = 5  # timings behind every figure a page states: their median, and their range beside it


def median(samples) -> float:
    """The median of repeated timings: one slow repeat (another program's turn on a shared machine) moves it less
    than it moves the mean, and one lucky repeat less than it moves the minimum."""
    ordered = sorted(float(s) for s in samples)
    if not ordered:
        raise ValueError("no timings")
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def timing_text(samples, unit: str = "ms", fmt: str = ".3g") -> str:
    """Repeated timings in words: "1.23 ms (median of 5 on this server: 1.1–1.4 ms)"."""
    values = [float(s) for s in samples]
    if len(values) == 1:
        return f"{values[0]:{fmt}} {unit} (one timing on this server)"
    return (
        f"{median(values):{fmt}} {unit} (median of {len(values)} on this server: "
        f"{min(values):{fmt}}–{max(values):{fmt}} {unit})"
    )


def apart(a, b) -> int:
    """-1 when every timing of ``a`` is below every timing of ``b``, 1 when every one is above, 0 when their
    ranges overlap: a difference inside the repeats' own range is none this machine can show."""
    if max(a) < min(b):
        return -1
    if min(a) > max(b):
        return 1
    return 0
