"""Timing a forward pass on this machine, the one way the lessons do it (lesson 1's price of recurrence, lesson 5's
why no recurrence): warm up once, then average as many calls as fit in a small budget, several times over."""

from __future__ import annotations

import time
from collections.abc import Callable

import torch


def call_seconds(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, *, budget: float = 0.02, repeats: int = 3
) -> list[float]:
    """``repeats`` averages of ``fn(x)``'s wall time in seconds, each over as many calls as fit in ``budget``
    seconds (at least one), after one warm-up call; no autograd. On a shared machine other work only ever adds
    time, so the smallest of them is the best estimate of the call itself."""
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
