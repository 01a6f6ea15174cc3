"""What one generated token costs, measured: recomputing the whole prefix, reading a key–value cache, or updating
linear attention's running sums, at each length.

The model is the course's causal decoder (:class:`minimodels.small.TinyDecoder`, one self-attention of d =
``D_MODEL``) with random weights: the cost of a step does not depend on what the weights have learnt. At length t,
one step is

* **recompute**: the decoder run over all t tokens (what ``TinyDecoder.generate`` does for every new token):
  t queries, keys and values, a (t, t) score matrix;
* **cache**: one query, key and value, then one row of t scores against the cached keys
  (:func:`minimodels.kv_cache.decode_step`);
* **linear state**: one query, key and value, then the running sums :math:`(S, u)` updated and read
  (:func:`minimodels.linear_attention.linear_step`): nothing in it depends on t.

Each is timed ``REPEATS`` times after a warm-up; a step's time is the median, its spread the lowest and highest.
Timings are this machine's, under its load at the time, and are stored or shown with both.

Letters: t the length, d d_model.
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable

import numpy as np
import torch

from minimodels.device import cpu_model
from minimodels.kv_cache import KVCache, cache_bytes, decode_step
from minimodels.linear_attention import linear_step, state_size
from minimodels.small import SmallConfig, TinyDecoder

D_MODEL = 64
LENGTHS: tuple[int, ...] = (128, 256, 512, 1024, 2048)
REPEATS = 7
WAYS = {"recompute": "recompute the prefix", "cache": "key–value cache", "linear": "linear attention's state"}
BYTES = 4  # float32


def timing_model(max_len: int = max(LENGTHS)) -> TinyDecoder:
    torch.manual_seed(0)
    return TinyDecoder(SmallConfig(vocab_size=40, d_model=D_MODEL, positional="sinusoidal", max_len=max_len)).eval()


def _median_spread(fn: Callable[[], object], repeats: int) -> tuple[float, float, float]:
    fn()  # warm-up: the first call allocates
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), float(min(times)), float(max(times))


@torch.inference_mode()
def measure(lengths: tuple[int, ...] = LENGTHS, repeats: int = REPEATS) -> list[dict]:
    """For each way and length: ``{"way", "length", "median_s", "low_s", "high_s"}`` of one step at that length."""
    model = timing_model(max(lengths))
    attention = model.attention
    rows = []
    for t in lengths:
        tokens = torch.randint(1, 40, (1, t), generator=torch.Generator().manual_seed(t))
        cache = KVCache.empty(1, D_MODEL, t)
        for i in range(t - 1):
            decode_step(model, tokens[:, i], cache)  # fill the cache with the first t - 1 positions

        def cached_step(cache=cache, token=tokens[:, -1], t=t):
            cache.length = t - 1  # the same step again: it writes row t - 1 and reads rows 0..t - 1
            return decode_step(model, token, cache)

        x = model.position(model.embedding(tokens[:, -1:]), offset=t - 1)[:, 0]  # (1, d)
        state = (torch.rand(1, D_MODEL, D_MODEL), torch.rand(1, D_MODEL) + 1)  # S, u after t - 1 positions

        def linear(x=x, state=state):
            q, k, v = attention.W_q(x), attention.W_k(x), attention.W_v(x)  # (1, d) each
            out, _ = linear_step(q, k, v, state)
            return model.out(out)

        for way, fn in (("recompute", lambda tokens=tokens: model(tokens)), ("cache", cached_step), ("linear", linear)):
            median, low, high = _median_spread(fn, repeats)
            rows.append({"way": way, "length": t, "median_s": median, "low_s": low, "high_s": high})
    return rows


def growth(rows: list[dict], way: str) -> float:
    """The exponent a in time ∝ tᵃ, from the medians at the two longest lengths (1: linear, 2: quadratic)."""
    points = sorted((r["length"], r["median_s"]) for r in rows if r["way"] == way)
    (t1, s1), (t2, s2) = points[-2], points[-1]
    return math.log(s2 / s1) / math.log(t2 / t1)


def memory_rows(lengths: tuple[int, ...] = LENGTHS) -> list[dict]:
    """Bytes each way holds for one sequence at each length: the cache's keys and values from their shapes and as
    allocated (its buffers' storage), the (t, t) score matrix a recompute builds, linear attention's state."""
    rows = []
    for t in lengths:
        cache = KVCache.empty(1, D_MODEL, t)
        rows.append(
            {
                "length": t,
                "cache, from the shapes (bytes)": cache_bytes(t, D_MODEL),
                "cache, allocated (bytes)": cache.allocated_bytes,
                "recompute's score matrix (bytes)": t * t * BYTES,
                "linear state (bytes)": state_size(D_MODEL) * BYTES,
            }
        )
    return rows


def machine() -> dict:
    """What a timing depends on: the CPU, its vector instructions as torch uses them, threads, torch, the load."""
    return {
        "cpu_model": cpu_model(),  # the key every results file uses (ui.results names the CPU by it)
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "torch_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "load_1min": round(os.getloadavg()[0], 2),
    }
