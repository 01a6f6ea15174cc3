"""Section 6, what attention costs: a decoder with additive attention and one without, timed on this server for
growing sentence lengths, with the bytes of the weights each keeps and reads; the sentence that says which grew
faster, from the measurement; and the exercise that counts the weights of one sentence."""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import torch

from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import Spread
from lessons.common.timing import apart, median
from minimodels.seq2seq import Seq2Seq, Seq2SeqConfig
from minimodels.tokenizers import BOS_ID

TITLE = "6 · What attention costs"
TEXT = (
    "At every output step attention reads all T_x encoder states, so one sentence costs T_x · T_y scores and "
    "keeps a T_y × T_x table of weights; a decoder without attention reads one vector per step. Both decoders "
    "below are timed on this server, with source and output of the same length T, a batch of "
    "{batch} sentences at a time, {repeats} repeats."
)
COST_LENGTHS = (16, 32, 64, 128, 256)
COST_BATCH = 16
COST_REPEATS = 3
COST_VARIANTS = {"additive": "with attention", "none": "without attention (one context vector)"}


@dataclass(frozen=True)
class Cost:
    """Decoding time and memory vs sentence length, with and without attention, measured on this machine."""

    rows: tuple[dict, ...]  # {"variant", "repeat", "length", "ms" per sentence, "alpha_bytes", "read_bytes"}
    threads: int  # torch threads it ran with
    batch: int
    repeats: int
    models: dict  # variant -> config.describe()

    def values(self, variant: str, length: int, field: str = "ms") -> list[float]:
        return [r[field] for r in self.rows if r["variant"] == variant and r["length"] == length]

    @property
    def lengths(self) -> list[int]:
        return sorted({r["length"] for r in self.rows})


@torch.inference_mode()
def _decode_fixed(model: Seq2Seq, source: torch.Tensor, steps: int) -> tuple[float, int, int]:
    """Greedy decoding of ``source (B, S)`` for exactly ``steps`` steps (no early stop): seconds, the bytes of the
    attention weights it produced, and the bytes of what the decoder reads at every step.

    Seconds of CPU time of this thread (torch computes in the calling thread at one thread), not wall time:
    on a shared server another process's work would otherwise be counted as the decoder's."""
    B, S = source.shape
    start = time.thread_time()
    memory = model.encode(source, torch.full((B,), S))
    state = model.initial_state(memory)
    prev = torch.full((B,), BOS_ID)
    alpha_bytes = 0
    for _ in range(steps):
        out = model.step(prev, state, memory)
        state, prev = out.state, out.logits.argmax(-1)  # (B,)
        alpha_bytes += sum(w.nelement() * w.element_size() for w in out.attention.values())  # (B, S) per step
    seconds = time.thread_time() - start
    read = [memory.states, memory.keys] if model.config.attention != "none" else [memory.context]
    return seconds, alpha_bytes, sum(x.nelement() * x.element_size() for x in read)


def measure_cost(
    config: Seq2SeqConfig, lengths=COST_LENGTHS, batch: int = COST_BATCH, repeats: int = COST_REPEATS
) -> Cost:
    """Time a greedy decoder with additive attention and one without (``config`` otherwise), source and output of
    the same length T, ``batch`` sentences at a time, ``repeats`` times in alternation (the weights are random:
    time does not depend on them). Per sentence: milliseconds, the attention weights' bytes (T_y·T_x floats) and
    the bytes the decoder reads at each step (encoder states and keys with attention, one vector without)."""
    models = {v: Seq2Seq(dataclasses.replace(config, attention=v)).eval() for v in COST_VARIANTS}
    generator = torch.Generator().manual_seed(0)
    sources = {T: torch.randint(4, config.source_vocab_size, (batch, T), generator=generator) for T in lengths}
    for model in models.values():  # warm up: the first call of each shape pays for allocation
        _decode_fixed(model, sources[min(lengths)], min(lengths))
    rows = []
    for repeat in range(repeats):
        for T in lengths:
            for variant, model in models.items():
                seconds, alpha, read = _decode_fixed(model, sources[T], T)
                rows.append(
                    {
                        "variant": variant,
                        "repeat": repeat,
                        "length": T,
                        "ms": 1000 * seconds / batch,
                        "alpha_bytes": alpha / batch,
                        "read_bytes": read / batch,
                    }
                )
    described = {v: m.config.describe() for v, m in models.items()}
    return Cost(tuple(rows), torch.get_num_threads(), batch, repeats, described)


def cost_charts(cost: Cost) -> tuple[dict, dict]:
    """Time per sentence (the median of the repeats, the band from the fastest to the slowest) and memory per
    sentence vs length, both on log–log axes."""
    order = list(COST_VARIANTS)
    timed = [
        {
            "variant": r["variant"],
            "label": COST_VARIANTS[r["variant"]],
            "order": order.index(r["variant"]),
            "seed": r["repeat"],
            "x": r["length"],
            "y": r["ms"],
        }
        for r in cost.rows
    ]
    first = [r for r in cost.rows if r["repeat"] == 0]
    memory = [
        {
            "variant": "alpha",
            "label": "α weights (attention): T_y·T_x",
            "order": 0,
            "seed": 0,
            "x": r["length"],
            "y": r["alpha_bytes"],
        }
        for r in first
        if r["variant"] == "additive"
    ] + [
        {
            "variant": f"read-{r['variant']}",
            "order": 1 + order.index(r["variant"]),
            "seed": 0,
            "x": r["length"],
            "y": r["read_bytes"],
            "label": "read every step: " + ("states + keys" if r["variant"] == "additive" else "one context vector"),
        }
        for r in first
    ]
    x_title = "sentence length T (T_x = T_y)"
    x_axis = {"type": "log", "domain": [min(cost.lengths), max(cost.lengths)], "nice": False}
    time_chart = curves_chart(
        timed,
        y_title="ms per sentence",
        x_title=x_title,
        title="Decoding time",
        log_x=True,
        log_y=True,
        center="median",
    )
    memory_chart = curves_chart(
        memory, y_title="bytes per sentence", x_title=x_title, title="Memory", log_x=True, log_y=True
    )
    for chart in (time_chart, memory_chart):  # the measured lengths, not a decade either side
        chart["encoding"]["x"] |= {"scale": x_axis, "axis": {"values": cost.lengths}}
    return time_chart, memory_chart


def _growth(cost: Cost, variant: str) -> Spread:
    """Per repeat: time at the longest length over time at the shortest."""
    short, long = cost.values(variant, min(cost.lengths)), cost.values(variant, max(cost.lengths))
    return Spread(tuple(b / a for a, b in zip(short, long, strict=True)))


def cost_sentence(cost: Cost) -> str:
    """The measured growth of both decoders' time and of the attention weights, said from the numbers."""
    lo, hi = min(cost.lengths), max(cost.lengths)
    with_attention, without = _growth(cost, "additive"), _growth(cost, "none")
    ranges = (
        f"with attention {with_attention.min:.1f}–{with_attention.max:.1f}×, without {without.min:.1f}–"
        f"{without.max:.1f}×"
    )
    said = {
        1: "the attention decoder's time grew clearly faster (every repeat's growth above every one without: "
        f"{ranges}): its T_x · T_y scores weigh more the longer the sentence, on top of the T steps both decoders take",
        0: f"the two grew by about as much (their repeats overlap: {ranges})",
        -1: f"the decoder without attention grew faster (every repeat: {ranges}), against what T_x · T_y predicts",
    }[apart(with_attention.present, without.present)]
    alpha = cost.values("additive", hi, "alpha_bytes")[0] / cost.values("additive", lo, "alpha_bytes")[0]
    ratio = {
        T: Spread(tuple(a / b for a, b in zip(cost.values("additive", T), cost.values("none", T), strict=True)))
        for T in (lo, hi)
    }
    growth = {"with": median(with_attention.present), "without": median(without.present)}
    power = {name: math.log(g) / math.log(hi / lo) for name, g in growth.items()}
    return (
        f"From T = {lo} to T = {hi} ({hi // lo}× longer), one sentence took {growth['with']:.0f}× longer to "
        f"decode with attention (time ∝ T^{power['with']:.2f}) and {growth['without']:.0f}× longer without "
        f"(∝ T^{power['without']:.2f}; T^1 is in proportion to the length, T^2 to T_x · T_y), the median of "
        f"{cost.repeats} repeats on this server: {said}. Attention costs {median(ratio[lo].present):.1f}× the time "
        f"at T = {lo} and {median(ratio[hi].present):.1f}× at T = {hi}. Its weights grew {alpha:.0f}× "
        f"({_size(cost.values('additive', hi, 'alpha_bytes')[0])} per sentence at T = {hi}); the decoder without "
        f"attention reads {_size(cost.values('none', hi, 'read_bytes')[0])} at every step, whatever the length."
    )


def _size(n: float) -> str:
    units = ("B", "KiB", "MiB", "GiB")
    power = min(int(math.log(max(n, 1), 1024)), len(units) - 1)
    return f"{n / 1024**power:.0f} {units[power]}" if power else f"{n:.0f} B"


def cost_caption(cost: Cost) -> str:
    """What was timed: the two models (from their configs), batch, repeats and threads."""
    return (
        f"Measured on this server when the page was first opened: CPU time of the decoding thread "
        f"({cost.threads} torch thread{'s' if cost.threads != 1 else ''}, batches of {cost.batch}, "
        f"{cost.repeats} repeats: the line their median, the band fastest to slowest; random weights). "
        f"With: {cost.models['additive']}. Without: {cost.models['none']}."
    )


COST_EXERCISE = {"source": 20, "output": 25}  # T_x and T_y: lengths the cost chart does not show


def _cost_exercise() -> Exercise:
    """By hand: how many attention weights one sentence costs; the answer counted by running a real decoder."""
    T_x, T_y = COST_EXERCISE.values()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = Seq2Seq(Seq2SeqConfig(hidden_size=8, embedding_size=8, attention_size=8)).eval()
        source = torch.randint(4, model.config.source_vocab_size, (1, T_x))
    _, alpha_bytes, _ = _decode_fixed(model, source, T_y)
    weights = alpha_bytes // torch.empty(0).element_size()  # bytes of float32 weights -> how many
    return Exercise(
        key="bahdanau_attention.ex7",
        prompt=(
            f"Compute by hand. A decoder with attention translates a sentence of Tₓ = {T_x} source tokens into "
            f"T_y = {T_y} output tokens. How many attention weights α does it compute for this sentence?"
        ),
        answer=weights,
        explanation=(
            f"At each of the T_y = {T_y} output steps it scores all Tₓ = {T_x} source tokens and softmaxes them: "
            f"{T_y} × {T_x} = {T_y * T_x} weights (counted here by running a real decoder for {T_y} steps on "
            f"{T_x} tokens). The cost is O(Tₓ · T_y): double both lengths and it quadruples, while a decoder "
            "without attention reads one fixed vector at every step."
        ),
        hint="One softmax over the source at every output step.",
    )
