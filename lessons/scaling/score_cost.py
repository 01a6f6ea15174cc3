"""Section 6 of the scaling lesson: additive or dot product, what each costs.

The lecture: "Dot product attention is much faster and space-efficient." Measured on the server when the page is
first shown: one sentence of T tokens attends to itself with minimodels' :class:`AdditiveAttention` and
:class:`ScaledDotProductAttention`; time is this thread's CPU time per forward pass, memory the bytes autograd keeps
for the backward pass. ``python -m bench.score_cost`` prints the same on a larger grid.

Letters: T the sentence's length (queries and keys), d the size of q and k and of additive's hidden layer.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.timing import apart, median, timing_text
from minimodels.attention import AdditiveAttention, ScaledDotProductAttention

TITLE = "6 · Additive or dot product: what each costs"
COST_D: tuple[int, ...] = (16, 64, 256)  # d: the size of q and k, and the additive score's hidden layer
COST_LENGTHS: tuple[int, ...] = (8, 32, 128)  # T: queries and keys (self-attention over one sentence)
COST_REPEATS = 5
COST_SCORES = {"additive": "additive vᵀ tanh(W_q q + W_k k)", "scaled_dot": "dot product q·k / √d"}
COST_TEXT = (
    "The lecture: “Additive attention computes the compatibility function using a feed-forward network with a "
    "single hidden layer. Dot product attention is much faster and space-efficient.” Measured here when the page "
    "was first opened on this server: one sentence of T tokens attends to itself with minimodels' "
    "AdditiveAttention (hidden layer of d, its own W_q and W_k) and ScaledDotProductAttention (q and k of size d, "
    "already projected). Time: this thread's CPU time for one forward pass, {repeats} repeats. Memory: the bytes "
    "autograd keeps for the backward pass, what a training step holds on to."
)


def score_module(score: str, d: int) -> nn.Module:
    """minimodels' module for ``score``: :class:`AdditiveAttention` with a hidden layer of d (its own W_q, W_k)
    or :class:`ScaledDotProductAttention` (no parameters: q and k come projected)."""
    if score == "additive":
        return AdditiveAttention(d, d, d).eval()
    if score == "scaled_dot":
        return ScaledDotProductAttention().eval()
    raise ValueError(f"score must be one of {', '.join(COST_SCORES)}, not {score!r}")


def saved_bytes(module: nn.Module, T: int, d: int) -> int:
    """Bytes of the tensors autograd keeps for the backward pass while ``module`` attends over one sentence of T
    random tokens of size d (self-attention: queries, keys and values are the same T vectors): the memory a
    training step holds until its backward pass, each tensor counted once however often it is saved."""
    x = torch.randn(1, T, d, requires_grad=True)
    kept: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        module(x, x, x)
    return sum(kept.values())


@dataclass(frozen=True)
class ScoreCost:
    """Time and memory of the two scores over one sentence, at every d and length, measured on this machine."""

    rows: tuple[dict, ...]  # {"score", "d", "T", "repeat", "ms", "saved_bytes"}
    threads: int
    repeats: int

    def values(self, score: str, d: int, T: int, field: str = "ms") -> list[float]:
        return [r[field] for r in self.rows if (r["score"], r["d"], r["T"]) == (score, d, T)]

    @property
    def ds(self) -> list[int]:
        return sorted({r["d"] for r in self.rows})

    @property
    def lengths(self) -> list[int]:
        return sorted({r["T"] for r in self.rows})


def measure_score_cost(ds=COST_D, lengths=COST_LENGTHS, repeats: int = COST_REPEATS) -> ScoreCost:
    """Time (this thread's CPU milliseconds, so another process's work is not counted) of one forward pass of
    each score module over one sentence of T random tokens of size d, ``repeats`` times in alternation after a
    warm-up, and the bytes it keeps for the backward pass (:func:`saved_bytes`)."""
    generator = torch.Generator().manual_seed(0)
    modules = {(s, d): score_module(s, d) for s in COST_SCORES for d in ds}
    inputs = {(d, T): torch.randn(1, T, d, generator=generator) for d in ds for T in lengths}
    kept = {(s, d, T): saved_bytes(modules[s, d], T, d) for s, d in modules for T in lengths}
    rows, threads = [], torch.get_num_threads()
    torch.set_num_threads(1)  # thread time counts this thread only: the work must not go to other threads
    try:
        rows = _timed(modules, inputs, kept, lengths, repeats)
    finally:
        torch.set_num_threads(threads)
    return ScoreCost(tuple(rows), 1, repeats)


@torch.inference_mode()
def _timed(modules: Mapping, inputs: Mapping, kept: Mapping, lengths: Sequence[int], repeats: int) -> list[dict]:
    rows = []
    for (_, d), module in modules.items():  # warm up: the first call of each shape pays for allocation
        module(*[inputs[d, lengths[0]]] * 3)
    for repeat in range(repeats):
        for (s, d), module in modules.items():
            for T in lengths:
                x = inputs[d, T]
                start = time.thread_time()
                module(x, x, x)
                ms = 1000 * (time.thread_time() - start)
                rows.append({"score": s, "d": d, "T": T, "repeat": repeat, "ms": ms, "saved_bytes": kept[s, d, T]})
    return rows


def _cost_label(score: str, d: int) -> str:
    return f"{'additive' if score == 'additive' else 'dot'}, d = {d}"


def cost_charts(cost: ScoreCost, height: int = 460) -> tuple[dict, dict]:
    """Time (the median of the repeats, the band from the fastest to the slowest) and memory kept for the backward
    pass against T, one line per score and d."""
    order = [(s, d) for s in COST_SCORES for d in cost.ds]
    colors = dict(
        zip(
            [_cost_label(s, d) for s, d in order],
            ["#f2b28c", "#e8743b", "#a33f0b", "#9ecae1", "#4c78a8", "#1f3f66"],
            strict=False,
        )
    )

    def points(field: str, only_first: bool) -> list[dict]:
        return [
            {
                "variant": _cost_label(r["score"], r["d"]),
                "label": _cost_label(r["score"], r["d"]),
                "order": order.index((r["score"], r["d"])),
                "seed": r["repeat"],
                "x": r["T"],
                "y": r[field],
            }
            for r in cost.rows
            if not (only_first and r["repeat"])
        ]

    common = {"x_title": "sentence length T", "log_x": True, "log_y": True, "height": height, "colors": colors}
    time_chart = curves_chart(points("ms", False), y_title="ms per sentence", title="Time", center="median", **common)
    memory_chart = curves_chart(
        points("saved_bytes", True), y_title="bytes kept for backward", title="Memory", **common
    )
    for chart in (time_chart, memory_chart):
        chart["encoding"]["x"] |= {"axis": {"values": cost.lengths, "title": "sentence length T"}}
    return time_chart, memory_chart


def cost_sentence(cost: ScoreCost) -> str:
    """The lecture's claim tested on the measurement: at the smallest and the largest size, which score was faster
    (the median of the repeats, and faster only when the repeats' ranges do not overlap:
    :func:`lessons.common.timing.apart`) and how many times the bytes additive kept."""
    parts = []
    for d, T in ((cost.ds[0], cost.lengths[0]), (cost.ds[-1], cost.lengths[-1])):
        dot, additive = tuple(cost.values("scaled_dot", d, T)), tuple(cost.values("additive", d, T))
        ratio = median(additive) / median(dot)
        said = {
            -1: f"the dot product was faster, {ratio:.1f}× (additive {timing_text(additive, fmt='.2f')}, dot "
            f"{timing_text(dot, fmt='.2f')}; every repeat of one below every repeat of the other)",
            1: f"additive was faster ({timing_text(additive, fmt='.2f')} against dot's {timing_text(dot, fmt='.2f')}; "
            "every repeat of one below every repeat of the other)",
            0: f"the two took about as long (additive {timing_text(additive, fmt='.2f')}, dot "
            f"{timing_text(dot, fmt='.2f')}: their repeats overlap)",
        }[apart(dot, additive)]
        kept = cost.values("additive", d, T, "saved_bytes")[0] / cost.values("scaled_dot", d, T, "saved_bytes")[0]
        parts.append(f"at d = {d}, T = {T}, {said}, and additive kept {kept:.1f}× the bytes")
    return (
        f"Measured: {parts[0]}; {parts[1]}. Additive builds a hidden vector of d numbers for every (query, key) "
        "pair, T·T·d numbers, where the dot product keeps one score per pair, T·T."
    )


def cost_caption(cost: ScoreCost) -> str:
    return (
        f"Measured on this server when the page was first opened ({cost.threads} torch thread"
        f"{'s' if cost.threads != 1 else ''}, {cost.repeats} repeats: the line their median, the band fastest to "
        "slowest; random inputs and weights; python -m bench.score_cost prints a larger grid with the machine's "
        "load). Log–log axes."
    )


COST_EX = {"T": 40, "d": 50}  # the hand exercise's sizes: not on the page's grid


def memory_exercise() -> Exercise:
    """By hand: how many numbers additive's tanh layer holds for one sentence, against the dot product's scores;
    the answer read from the module (the shape of the tensor its tanh produces)."""
    T, d = COST_EX["T"], COST_EX["d"]
    module = score_module("additive", d)
    x = torch.zeros(1, T, d)
    with torch.inference_mode():
        hidden = torch.tanh(module.W_q(x).unsqueeze(2) + module.W_k(x).unsqueeze(1))  # (1, T, T, d): as score()
    numbers = hidden.numel()
    return Exercise(
        key="scaling.ex6",
        prompt=(
            f"Additive attention with a hidden layer of d = {d} scores a sentence of T = {T} tokens against itself. "
            "How many numbers does its tanh layer hold at once (one sentence)?"
        ),
        answer=float(numbers),
        tolerance=0.5,
        explanation=(
            f"One hidden vector of d = {d} numbers for every (query, key) pair: T · T · d = {T} · {T} · {d} = "
            f"{numbers:,}. The dot product keeps one score per pair, {T * T:,}: {numbers // (T * T)}× fewer, and "
            "that factor d is the “space-efficient” of the lecture."
        ),
        hint="Count the (query, key) pairs first, then how many numbers each pair gets.",
    )
