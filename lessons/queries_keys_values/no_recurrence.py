"""Section 7: why no recurrence, all positions at once (the lecture's "Limitation? … Sequential").

A GRU encoder's state at step t needs its state at step t − 1; self-attention has no state to wait for. Both are
counted from the models' own autograd graphs (the longest chain of matrix products each needing the one before)
and timed on the server, once; the sentence under the chart is computed from those numbers. The exercises count
the chain of a bidirectional and of a stacked GRU.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from lessons.common.catalog import number
from lessons.common.chains import matrix_product_chain
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.timing import REPEATS, apart, call_seconds, median
from minimodels.attention import scaled_dot_product_attention
from minimodels.cells import GRUCell
from minimodels.seq2seq import Seq2Seq, Seq2SeqConfig

TITLE = "7 · Why no recurrence: all positions at once"
TEXT = (
    "The lecture's *Limitation?* slide: an RNN, a GRU, an LSTM, each more complex than the last, are all "
    "**sequential**. The GRU encoder's state at step t needs its state at step t − 1, so reading T words is T "
    "matrix products one after another, however many cores are free. Self-attention has no state to wait for: "
    "$XW^Q$ projects every word at once, one product $QK^\\top$ gives all T × T scores, one more mixes the "
    "values. Below, both are counted from the models' own computation graphs (*steps*: the longest chain of "
    "matrix products each of which needs the one before) and timed on this server: a GRU encoder (the lessons' "
    "`Seq2Seq` encoder, E = H = {width}) against a self-attention layer of the same width (section 5's "
    "softmax(QKᵀ/√d)V with d = {width}), random weights, {batch} sequences per call, one CPU thread, measured "
    "once when the server first shows this section."
)

RECURRENCE_LENGTHS = (8, 16, 32, 64, 128, 256, 512)  # T
RECURRENCE_WIDTH = 64  # the GRU's E = H and the self-attention layer's d: the same width
RECURRENCE_BATCH = 8  # sequences per call; times are per sequence
RECURRENCE_REPEATS = REPEATS  # averages per figure: their median is stated, with their range
GRU_ENCODER = "GRU encoder (T steps in a row)"
SELF_ATTENTION = "self-attention layer (all T at once)"
RECURRENCE_COLORS = {GRU_ENCODER: "#d62728", SELF_ATTENTION: "#17becf"}


@dataclass
class RecurrenceModels:
    """The two layers the section compares, same width, seeded random weights."""

    encoder: object  # minimodels.seq2seq.Seq2Seq: its source embedding and GRU encoder
    W_q: torch.nn.Linear
    W_k: torch.nn.Linear
    W_v: torch.nn.Linear

    def gru(self, source: torch.Tensor) -> torch.Tensor:
        """The Seq2Seq encoder's states (B, T, H): torch's fused GRU, its loop over t in C++."""
        lengths = torch.full((source.shape[0],), source.shape[1])
        return self.encoder.encode(source, lengths).states

    def attention(self, source: torch.Tensor) -> torch.Tensor:
        """softmax(QKᵀ/√d)V on the same embeddings: (B, T, d)."""
        x = self.encoder.source_embedding(source)  # (B, T, d)
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x))[0]  # (B, T, d)

    def gru_stepped(self, source: torch.Tensor, layers: int = 1, bidirectional: bool = False) -> torch.Tensor:
        """The same GRU written as steps (lesson 1's :class:`minimodels.cells.GRUCell`, with the encoder's weights
        for the first layer): every state one cell call after the one before. ``layers`` > 1 stacks more cells
        (seeded random weights), each reading, position by position, the states of the layer below;
        ``bidirectional`` adds a right-to-left pass to every layer. Returns the top layer's states (B, T, H or 2H).
        Positions are kept as separate tensors, so the graph holds only the dependencies the GRU has."""

        gru, H = self.encoder.encoder, self.encoder.config.hidden_size
        embedded = self.encoder.source_embedding(source)  # (B, T, E)
        inputs = [embedded[:, t] for t in range(source.shape[1])]  # T × (B, E)
        g = torch.Generator().manual_seed(0)
        for layer in range(layers):
            passes = []
            for direction in range(2 if bidirectional else 1):
                cell = GRUCell(inputs[0].shape[-1], H)
                with torch.no_grad():
                    for name, p in cell.named_parameters():
                        first = layer == 0 and direction == 0  # the encoder's own weights
                        drawn = (torch.rand(p.shape, generator=g) * 2 - 1) / math.sqrt(H)  # PyTorch's own init range
                        p.copy_(getattr(gru, f"{name}_l0") if first else drawn)
                h, states = None, [None] * len(inputs)
                for t in range(len(inputs)) if direction == 0 else reversed(range(len(inputs))):
                    h, _ = cell(inputs[t], h)  # (B, H): needs the h of the step before
                    states[t] = h
                passes.append(states)
            inputs = [torch.cat(at_t, dim=-1) for at_t in zip(*passes, strict=True)]  # T × (B, H × directions)
        return torch.stack(inputs, dim=1)  # (B, T, H × directions)


def recurrence_models(width: int = RECURRENCE_WIDTH, vocab: int = 500, seed: int = 0) -> RecurrenceModels:

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        config = Seq2SeqConfig(
            source_vocab_size=vocab, target_vocab_size=8, attention="none", embedding_size=width, hidden_size=width
        )
        encoder = Seq2Seq(config).eval()
        W_q, W_k, W_v = (torch.nn.Linear(width, width, bias=False) for _ in range(3))
    return RecurrenceModels(encoder, W_q, W_k, W_v)


def sequential_steps(models: RecurrenceModels, length: int, **gru_options) -> dict[str, int]:
    """Matrix products one after another (:func:`matrix_product_chain`) for a sequence of ``length`` tokens."""
    source = torch.zeros(1, length, dtype=torch.long)
    with torch.enable_grad():
        return {
            GRU_ENCODER: matrix_product_chain(models.gru_stepped(source, **gru_options)),
            SELF_ATTENTION: matrix_product_chain(models.attention(source)),
        }


def multiply_adds(models: RecurrenceModels, length: int) -> dict[str, int]:
    """Multiply-adds per sequence of each layer, from its weight shapes: the GRU's 3 gates each do W_ih x and W_hh h
    at every step; self-attention does three T × d by d × d projections, then QKᵀ and αV, each T × T × d."""
    gru, d = models.encoder.encoder, models.W_q.in_features
    per_step = gru.weight_ih_l0.numel() + gru.weight_hh_l0.numel()  # 3H × E + 3H × H
    return {GRU_ENCODER: length * per_step, SELF_ATTENTION: 3 * length * d * d + 2 * length * length * d}


@dataclass(frozen=True)
class RecurrenceTiming:
    lengths: tuple[int, ...]
    ms: dict[str, tuple[tuple[float, ...], ...]]  # layer -> per length, each repeat's ms per sequence
    steps: dict[str, tuple[int, ...]]  # layer -> per length, matrix products one after another
    work: dict[str, tuple[int, ...]]  # layer -> per length, multiply-adds per sequence
    batch: int
    width: int
    threads: int
    seconds: float  # how long measuring took

    def samples(self, layer: str, length: int) -> tuple[float, ...]:
        """Each repeat's ms per sequence at ``length``."""
        return tuple(self.ms[layer][self.lengths.index(length)])

    def median(self, layer: str, length: int) -> float:
        """The median repeat's ms per sequence (:func:`lessons.common.timing.median`)."""
        return median(self.samples(layer, length))


def measure_recurrence(
    lengths=RECURRENCE_LENGTHS,
    *,
    batch: int = RECURRENCE_BATCH,
    width: int = RECURRENCE_WIDTH,
    budget: float = 0.01,
    repeats: int = RECURRENCE_REPEATS,
) -> RecurrenceTiming:
    """Wall time per sequence of the GRU encoder and the self-attention layer at each T (on whatever threads torch
    has here: the pages run on one), and each one's count of sequential matrix products and of multiply-adds."""
    lengths = tuple(int(t) for t in lengths)
    if not lengths or any(not 1 <= t <= 4096 for t in lengths):
        raise ValueError("lengths must be between 1 and 4096")
    started = time.perf_counter()
    models = recurrence_models(width)
    generator = torch.Generator().manual_seed(0)
    layers = {GRU_ENCODER: models.gru, SELF_ATTENTION: models.attention}
    ms: dict[str, list] = {name: [] for name in layers}
    steps: dict[str, list] = {name: [] for name in layers}
    work: dict[str, list] = {name: [] for name in layers}
    warm = torch.randint(4, 500, (batch, lengths[0]), generator=generator)  # (B, T)
    for fn in layers.values():  # the first calls of a fresh process are slow (allocations, kernel choice)
        call_seconds(fn, warm, budget=budget, repeats=repeats)
    for t in lengths:
        source = torch.randint(4, 500, (batch, t), generator=generator)  # (B, T)
        for name, fn in layers.items():
            ms[name].append(tuple(1000 * s / batch for s in call_seconds(fn, source, budget=budget, repeats=repeats)))
        for name, count in sequential_steps(models, t).items():
            steps[name].append(count)
        for name, count in multiply_adds(models, t).items():
            work[name].append(count)
    freeze = lambda d: {k: tuple(v) for k, v in d.items()}  # noqa: E731
    return RecurrenceTiming(
        lengths,
        freeze(ms),
        freeze(steps),
        freeze(work),
        batch,
        width,
        torch.get_num_threads(),
        time.perf_counter() - started,
    )


def recurrence_chart(timing: RecurrenceTiming) -> dict:
    """Milliseconds per sequence against T, both axes logarithmic (slope 1: time ∝ T; slope 2: time ∝ T²): the
    median of the repeats, the band from the fastest to the slowest, each repeat a faint line."""
    points = [
        {"variant": name, "seed": repeat, "x": t, "y": v, "order": i}
        for i, name in enumerate((GRU_ENCODER, SELF_ATTENTION))
        for t in timing.lengths
        for repeat, v in enumerate(timing.samples(name, t))
    ]
    threads = f"{timing.threads} thread{'s' if timing.threads > 1 else ''}"
    return curves_chart(
        points,
        y_title=f"ms per sequence (median of {len(timing.samples(GRU_ENCODER, timing.lengths[0]))})",
        x_title="sequence length T",
        title=f"Time per sequence, d = {timing.width}, {threads}",
        log_x=True,
        log_y=True,
        height=340,
        colors=RECURRENCE_COLORS,
        center="median",
    )


def recurrence_rows(timing: RecurrenceTiming) -> list[dict]:
    """One row per T: both layers' time (the median repeat, and the range of the repeats) and their sequential
    matrix products."""
    span = lambda name, t: f"{min(timing.samples(name, t)):.3f}–{max(timing.samples(name, t)):.3f}"  # noqa: E731
    return [
        {
            "T": t,
            "GRU ms": timing.median(GRU_ENCODER, t),
            "GRU range": span(GRU_ENCODER, t),
            "attention ms": timing.median(SELF_ATTENTION, t),
            "attention range": span(SELF_ATTENTION, t),
            "GRU steps": timing.steps[GRU_ENCODER][i],
            "attention steps": timing.steps[SELF_ATTENTION][i],
        }
        for i, t in enumerate(timing.lengths)
    ]


def _growth(values: tuple[float, ...], lengths: tuple[int, ...]) -> float:
    """The exponent p in value ∝ T^p over the last two lengths (the log-log slope)."""
    return math.log(values[-1] / values[-2]) / math.log(lengths[-1] / lengths[-2])


def _growth_range(timing: RecurrenceTiming, layer: str) -> tuple[float, float]:
    """The exponent over the last two lengths, repeat by repeat (the i-th repeat at one length against the i-th at
    the other): the lowest and the highest, the spread of :func:`_growth` on the medians."""
    a, b = timing.samples(layer, timing.lengths[-2]), timing.samples(layer, timing.lengths[-1])
    exponents = [_growth((x, y), timing.lengths) for x, y in zip(a, b, strict=True)]
    return min(exponents), max(exponents)


def recurrence_sentence(timing: RecurrenceTiming) -> str:
    """What the counts and the measurement show, computed: the steps, who was faster where, how time grew
    against how the arithmetic grew."""
    first, last, lengths = timing.lengths[0], timing.lengths[-1], timing.lengths
    gru_steps, att_steps = timing.steps[GRU_ENCODER], timing.steps[SELF_ATTENTION]
    counted = (
        f"self-attention's stays at {att_steps[0]} whatever T"
        if len(set(att_steps)) == 1
        else f"self-attention's goes from {att_steps[0]} to {att_steps[-1]}"
    )
    threads = f"{timing.threads} thread{'s' if timing.threads > 1 else ''}"
    side = {t: apart(timing.samples(SELF_ATTENTION, t), timing.samples(GRU_ENCODER, t)) for t in lengths}
    faster = [t for t in lengths if side[t] < 0]
    slower = [t for t in lengths if side[t] > 0]
    even = [t for t in lengths if side[t] == 0]
    at = lambda ts: "every length measured" if len(ts) == len(lengths) else f"T = {', '.join(map(str, ts))}"  # noqa: E731
    parts = [f"faster at {at(faster)}"] * bool(faster) + [f"slower at {at(slower)}"] * bool(slower)
    parts += [f"too close to tell at {at(even)} (the repeats' ranges overlap)"] * bool(even)
    who = (
        f"On this server, on {threads}, every repeat counted (the median of {len(timing.samples(GRU_ENCODER, first))} "
        f"stated), self-attention was {' and '.join(parts)}"
    )
    ratio = lambda t: timing.median(SELF_ATTENTION, t) / timing.median(GRU_ENCODER, t)  # noqa: E731
    times = {name: tuple(timing.median(name, t) for t in lengths) for name in (GRU_ENCODER, SELF_ATTENTION)}
    grew = {name: _growth(v, lengths) for name, v in times.items()}
    low, high = zip(*(_growth_range(timing, name) for name in times), strict=True)
    work = {name: _growth(tuple(float(w) for w in timing.work[name]), lengths) for name in times}
    a, b = lengths[-2], lengths[-1]
    more = timing.work[SELF_ATTENTION][-1] / timing.work[GRU_ENCODER][-1]
    if more > 1:
        arithmetic = (
            f"What self-attention buys at long T is not less arithmetic (at T = {last} it does {more:.1f}× the GRU's "
            "multiply-adds, its T × T scores growing with T², and one thread must do every one of them in turn)"
        )
    else:
        arithmetic = (
            f"Up to T = {last} self-attention even does less arithmetic ({more:.2f}× the GRU's multiply-adds), but "
            "its T × T scores grow with T² and will overtake the GRU's at longer T; what it buys for good is not "
            "arithmetic"
        )
    return (
        f"Counted in the graphs: the GRU needs {gru_steps[0]} matrix products one after another at T = {first} and "
        f"{gru_steps[-1]:,} at T = {last}; {counted}. {who} (its time was {ratio(first):.2f}× the GRU's at T = "
        f"{first}, {ratio(last):.2f}× at T = {last}). From T = {a} to {b} the GRU's median time grew as "
        f"T^{grew[GRU_ENCODER]:.1f} (repeat by repeat T^{low[0]:.1f} to T^{high[0]:.1f}) and self-attention's as "
        f"T^{grew[SELF_ATTENTION]:.1f} (T^{low[1]:.1f} to T^{high[1]:.1f}); their multiply-adds grew "
        f"as T^{work[GRU_ENCODER]:.1f} and T^{work[SELF_ATTENTION]:.1f}. {arithmetic}: it is {att_steps[-1]} steps "
        f"instead of {gru_steps[-1]:,}, and the products of those few steps can be spread over as many cores as the "
        "hardware has; the GRU's steps cannot. The counts are the graphs' and hold anywhere; the times and the "
        "exponents are this one measurement's, on this server as busy as it was: another run, or another machine, "
        f"moves them. Lesson {number('rnn_cells')} times other models (one plain RNN layer against self-attention "
        "without its projections) and may find the opposite at long T: which is faster depends on the models "
        "and the machine, the number of steps in a row does not."
    )


EXERCISE_BIDIRECTIONAL = 40  # T of the bidirectional-encoder exercise
EXERCISE_STACKED = 30  # T of the two-layer exercise


def _steps_choice_exercise(key: str, prompt: str, length: int, counted: int, why: str, **gru_options) -> Exercise:
    choices = tuple(sorted({1, 2, length, length + 1, 2 * length} | {counted}))
    labels = tuple(f"{c:,}" for c in choices)
    return Exercise(
        key=key,
        prompt=prompt,
        choices=labels,
        answer=choices.index(counted),
        explanation=f"Counted in the graph of the stepped GRU (this section's count): {counted:,}. {why}",
        hint="A step waits only for the states it reads, not for every step computed before it.",
    )


def exercises() -> list[Exercise]:
    """Count, then check: the longest chain of a bidirectional GRU and of two stacked GRU layers."""
    models = recurrence_models()
    T, S = EXERCISE_BIDIRECTIONAL, EXERCISE_STACKED
    bi = sequential_steps(models, T, bidirectional=True)[GRU_ENCODER]
    stacked = sequential_steps(models, S, layers=2)[GRU_ENCODER]
    both = sequential_steps(models, S, layers=2, bidirectional=True)[GRU_ENCODER]
    return [
        _steps_choice_exercise(
            "queries_keys_values.bidirectional",
            f"Predict: a bidirectional GRU encoder (lesson 2) reads T = {T} tokens, one pass left to right and one "
            "right to left. How many matrix products must run one after another (the longest chain)?",
            T,
            bi,
            f"Each pass is a chain of {T} steps, but neither pass reads the other: the right-to-left pass's first "
            f"step needs only the last token, so both chains can run side by side. The longest chain is {bi}, not "
            f"{2 * T}; the states are joined only after both passes end.",
            bidirectional=True,
        ),
        _steps_choice_exercise(
            "queries_keys_values.stacked",
            f"Predict: two GRU layers stacked, both left to right; the second reads the first's state at each "
            f"position. For T = {S} tokens, how many matrix products must run one after another (the longest chain)?",
            S,
            stacked,
            f"Layer 2's step t needs only layer 1's step t and its own step t − 1, so it can start as soon as layer 1 "
            f"has done step 1 and follow one step behind (a wavefront): layer 1's {S} products, then layer 2's last "
            f"input product, {stacked} in all, not {2 * S}. Make both layers bidirectional and layer 2 must wait for "
            f"all of layer 1 (its right-to-left pass starts at the last token): {both}.",
            layers=2,
        ),
    ]
