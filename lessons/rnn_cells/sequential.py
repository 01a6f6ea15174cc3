"""Section 6, the price of recurrence: the steps of an RNN cannot run in parallel, measured.

The Transformer lecture's "Limitation?" slide: RNN, GRU, LSTM, "more and more complex", and *sequential*. Step t
needs a⟨t−1⟩, so reading T tokens is T steps one after another, however many cores are free. A feed-forward
layer applied to every position, or self-attention over the sequence (taught in lesson 5), is one operation over
all T positions at once. :func:`chain_lengths` counts, in each one's autograd graph, the matrix products that
must run one after another (the price of recurrence, counted, so no load on the machine can move it);
:func:`measure_sequential` times the forward pass of each on this machine for several T.
The exercise counts by hand the steps a stacked RNN must still take one after another (:func:`steps_in_a_row`).

Letters: B batch, T sequence length, H size of every vector.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lessons.common.catalog import number
from lessons.common.chains import matrix_product_chain
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.timing import REPEATS, apart, call_seconds, median, timing_text

LENGTHS = (8, 32, 128, 512)  # T
BATCH = 8  # B sequences per call
SIZE = 64  # H: the RNN's input and hidden size, the feed-forward layer's and the attention's vectors
RNN_NAME = "RNN (T steps in a row)"
FEED_FORWARD = "feed-forward, 2 layers (all T at once)"
ATTENTION = f"self-attention, lesson {number('queries_keys_values')} (all T at once)"
LAYERS = (RNN_NAME, FEED_FORWARD, ATTENTION)
COLORS = {RNN_NAME: "#d62728", FEED_FORWARD: "#8c564b", ATTENTION: "#17becf"}

TITLE = "6 · The price of recurrence: one step at a time"
TEXT = (
    "The lecture's *Limitation?* slide: RNN, GRU, LSTM, more and more complex, and **sequential**. Step t needs "
    "a⟨t−1⟩, so reading T tokens takes T steps, one after the other, however many cores are free. A feed-forward "
    "network applied to every position, or self-attention over the sequence (lesson 5), is one operation over "
    "all T positions at once. The price is counted first, from each layer's own computation graph: the longest "
    "chain of matrix products each of which needs the one before. Then it is timed, on this server, once (the "
    f"forward pass only, a batch of {BATCH} sequences, vectors of {SIZE} numbers):"
)


def layers(size: int = SIZE, seed: int = 0) -> dict[str, Callable[[torch.Tensor], torch.Tensor]]:
    """The three forward passes over ``x`` (B, T, H), each returning (B, T, H). The feed-forward network has two
    layers so that it does the RNN's arithmetic per position (W_ax x and W_aa a: 2H² multiply-adds); attention's
    grows with T (T·2H per position)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        rnn = nn.RNN(size, size, batch_first=True)  # torch's own loop over t, in C++: the fastest RNN it has
        first, second = nn.Linear(size, size), nn.Linear(size, size)

    def recurrent(x: torch.Tensor) -> torch.Tensor:
        return rnn(x)[0]  # (B, T, H): a⟨t⟩ = tanh(W_ax x⟨t⟩ + W_aa a⟨t−1⟩ + b), t = 1 … T in turn

    def feed_forward(x: torch.Tensor) -> torch.Tensor:  # 2H² multiply-adds per position, as many as the RNN's step
        return torch.tanh(second(torch.tanh(first(x))))  # (B, T, H): each product covers every position together

    def attention(x: torch.Tensor) -> torch.Tensor:
        scores = x @ x.transpose(1, 2) / math.sqrt(x.shape[-1])  # (B, T, T): every position against every other
        return torch.softmax(scores, dim=-1) @ x  # (B, T, H)

    return {RNN_NAME: recurrent, FEED_FORWARD: feed_forward, ATTENTION: attention}


def chain_lengths(lengths: Sequence[int] = LENGTHS, *, size: int = SIZE) -> dict[str, tuple[int, ...]]:
    """Per layer, the longest chain of matrix products in its forward pass's autograd graph at each T
    (:func:`~lessons.common.chains.matrix_product_chain`): one sequence of random inputs, the same weights as
    :func:`layers`."""
    fns = layers(size)
    generator = torch.Generator().manual_seed(0)
    chains: dict[str, list[int]] = {name: [] for name in fns}
    for t in lengths:
        x = torch.randn(1, t, size, generator=generator, requires_grad=True)  # (1, T, H)
        for name, fn in fns.items():
            chains[name].append(matrix_product_chain(fn(x)))
    return {name: tuple(v) for name, v in chains.items()}


def chain_sentence(chains: dict[str, tuple[int, ...]], lengths: Sequence[int] = LENGTHS) -> str:
    """What the counted chains show, computed: for each layer, its chain at each T, and whether it grows with T."""
    parts = []
    for name in LAYERS:
        values = chains[name]
        counts = ", ".join(f"{c} at T = {t}" for t, c in zip(lengths, values, strict=True))
        grows = "growing with T" if values[-1] > values[0] else "the same at every T"
        parts.append(f"{name.split(' (')[0]}: {counts} ({grows})")
    return (
        "**Counted in each layer's computation graph** (matrix products that must run one after another): "
        + "; ".join(parts)
        + ". No number of cores shortens a chain; it only runs the products of one link side by side."
    )


def steps_in_a_row(length: int, layers: int, recurrent: bool = True) -> int:
    """The longest chain of steps that must run one after another to read ``length`` tokens with a stack of
    ``layers``. In a recurrent stack, step t of layer l needs step t−1 of layer l and step t of layer l−1 (the
    longest path through that grid, counted step by step); a stack of self-attention or feed-forward layers needs
    only its layers in turn, each covering every position at once."""
    if not recurrent:
        return layers
    depth = [[0] * (length + 1) for _ in range(layers + 1)]
    for layer in range(1, layers + 1):
        for t in range(1, length + 1):
            depth[layer][t] = 1 + max(depth[layer - 1][t], depth[layer][t - 1])
    return depth[layers][length]


@dataclass(frozen=True)
class Timing:
    lengths: tuple[int, ...]
    ms: dict[str, tuple[tuple[float, ...], ...]]  # layer -> per length, each repeat's milliseconds per sequence
    batch: int
    size: int
    threads: int  # torch's intra-op threads while measuring

    def samples(self, layer: str, length: int) -> tuple[float, ...]:
        return self.ms[layer][self.lengths.index(length)]

    def at(self, layer: str, length: int) -> float:
        """The median of the repeats (:func:`lessons.common.timing.median`)."""
        return median(self.samples(layer, length))

    def growth(self, layer: str) -> float:
        """How many times longer the longest sequence took than the shortest (medians)."""
        return self.at(layer, self.lengths[-1]) / self.at(layer, self.lengths[0])


def measure_sequential(
    lengths: Sequence[int] = LENGTHS, *, batch: int = BATCH, size: int = SIZE, budget: float = 0.02
) -> Timing:
    """Time each layer's forward pass on a seeded random batch (B, T, H) for each T: milliseconds per sequence.
    About ``repeats × budget`` seconds per layer and length (1.2 s with the defaults)."""
    if not lengths or any(not 1 <= t <= 4096 for t in lengths):
        raise ValueError("lengths must be between 1 and 4096")
    fns = layers(size)
    generator = torch.Generator().manual_seed(0)
    ms: dict[str, list[tuple[float, ...]]] = {name: [] for name in fns}
    for t in lengths:
        x = torch.randn(batch, t, size, generator=generator)  # (B, T, H)
        for name, fn in fns.items():
            ms[name].append(tuple(1000 * s / batch for s in call_seconds(fn, x, budget=budget)))
    return Timing(tuple(lengths), {k: tuple(v) for k, v in ms.items()}, batch, size, torch.get_num_threads())


def timing_chart(timing: Timing) -> dict:
    """Milliseconds per sequence against T, both axes logarithmic (a slope of 1 is time proportional to T): the
    median of the repeats, the band from the fastest to the slowest, each repeat a faint line."""
    points = [
        {"variant": name, "seed": repeat, "x": t, "y": v, "order": i}
        for i, name in enumerate(LAYERS)
        for t, samples in zip(timing.lengths, timing.ms[name], strict=True)
        for repeat, v in enumerate(samples)
    ]
    return curves_chart(
        points,
        y_title="ms per sequence (forward; median of repeats)",
        center="median",
        x_title="sequence length T",
        title=f"Forward time (B = {timing.batch}, H = {timing.size}, "
        f"{timing.threads} thread{'s' if timing.threads > 1 else ''})",
        log_x=True,
        log_y=True,
        height=320,
        colors=COLORS,
    )


def timing_summary(timing: Timing) -> str:
    """What the measurement shows, computed: how each layer's time grew with T, and at the longest T the RNN
    against the feed-forward network (the same arithmetic per position) and against self-attention. Medians of the
    repeats, their range beside them; a ratio is stated only where the two ranges do not overlap."""
    first, last = timing.lengths[0], timing.lengths[-1]
    rnn, ff, att = (timing.samples(name, last) for name in LAYERS)
    lesson = number("queries_keys_values")  # self-attention's own lesson, named where it is mentioned
    return (
        f"From T = {first} to T = {last} ({last // first}× longer) the RNN's median time grew "
        f"{timing.growth(RNN_NAME):.0f}×, the feed-forward network's {timing.growth(FEED_FORWARD):.0f}× and "
        f"self-attention's (lesson {lesson}) {timing.growth(ATTENTION):.0f}× (its work grows with T²). At T = {last} "
        f"the RNN took {timing_text(rnn)} per sequence, {_times(rnn, ff)} the feed-forward network "
        f"({timing_text(ff)}), which does the same multiply-adds per position in one operation instead of {last} "
        f"steps that each wait for the one before; self-attention (lesson {lesson}, here without its projections) "
        f"took {timing_text(att)}, {_times(att, rnn)} the RNN. These are this server's times, measured once when "
        f"the page first ran; lesson {lesson} times a GRU encoder against a whole self-attention layer, other "
        "models, so its comparison may come out otherwise."
    )


def _times(a_samples: tuple[float, ...], b_samples: tuple[float, ...]) -> str:
    """``a`` against ``b`` in words: "12× as long as", "about as long as" (also whenever their repeats' ranges
    overlap), "a third as long as"."""
    a, b = median(a_samples), median(b_samples)
    ratio = a / b
    if not apart(a_samples, b_samples):
        return "about as long as (their repeats overlap)"
    if ratio >= 1.5:
        return f"{ratio:.0f}× as long as" if ratio >= 10 else f"{ratio:.1f}× as long as"
    if ratio > 1 / 1.5:
        return "about as long as"
    return f"{ratio:.2f}× as long as"


CAPTION = (
    "Both axes are logarithmic: a slope of 1 is time proportional to T. Each line is the median of "
    f"{REPEATS} timings, the band from the fastest to the slowest, each timing faint. Measured on this server's "
    "CPU with the threads the page uses; a busy server only adds time. On one thread every layer does its "
    "multiply-adds one after another, so the gap here is the cost of T small steps against one large one; a GPU "
    "runs one large operation on thousands of cores at once, which the RNN's chain of steps cannot use (not "
    "measured here). "
    "`python -m bench.rnn_sequential` prints the same figures with the machine's load."
)


# ------------------------------------------------------------------------------------------------- exercises
STEPS_EXERCISE = {"length": 30, "layers": 2}  # a size the page's chart does not show


def exercises() -> list[Exercise]:
    """By hand: the steps a two-layer RNN must take one after another, against a two-layer self-attention stack."""
    T, L = STEPS_EXERCISE.values()
    chain = steps_in_a_row(T, L)
    attention = number("queries_keys_values")
    return [
        Exercise(
            key="rnn_cells.ex6",
            prompt=(
                f"Compute by hand. A {L}-layer RNN reads T = {T} tokens. Step t of layer 2 needs step t of layer 1 and "
                "its own step t − 1. With as many cores as you like, how many steps must still run one after another?"
            ),
            answer=chain,
            explanation=(
                f"Layer 1 takes its {T} steps in a row. Layer 2 can start as soon as layer 1's first step is done, "
                f"and then follows one step behind: it finishes {L - 1} step later, so {T} + {L} − 1 = {chain} steps "
                f"in a row. Twice the length, twice the chain. A stack of {L} self-attention layers (lesson "
                f"{attention}) needs "
                f"{steps_in_a_row(T, L, recurrent=False)} steps in a row whatever T is: each layer covers every "
                "position at once (it does more arithmetic, T² scores, but all of it can run side by side)."
            ),
            hint="Draw the grid of (layer, step) and follow the longest chain of arrows.",
        )
    ]
