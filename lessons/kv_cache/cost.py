"""Section 2 of the KV-cache lesson: what one more token costs, in time and in memory.

The timings (:mod:`lessons.kv_cache.timing`) are shipped in the results file with the machine that measured them,
and the page measures them again on its own server when the student asks. Memory is computed from the shapes and
read from the buffers torch allocated.

Letters: t the length, d d_model.
"""

from __future__ import annotations

import plotly.graph_objects as go

from lessons.common.charts import figure
from lessons.common.exercises import Exercise
from lessons.kv_cache.timing import BYTES, D_MODEL, WAYS, growth

TITLE = "2 · What one more token costs"
TEXT = (
    "Recomputing, step t runs the decoder over all t tokens: t queries, keys and values (t·d² multiplications "
    "each) and a t × t table of scores (t²·d). Double the length and the table quadruples. With the cache, step t "
    "computes one query, key and value (d² each) and one row of t scores (t·d): double the length and only the "
    "row doubles. Added up over a whole generation of n tokens, that is about n³ against n² work. The price is "
    "memory: the cache keeps 2·d numbers per token (its keys and values), for every layer, for every sequence "
    "being generated, and never lets go of any until the sequence ends."
)
COLORS = {"recompute": "#d62728", "cache": "#1f77b4", "linear": "#2ca02c"}
DOUBLING_CHOICES = (
    "about the same (under 1.5×)",
    "about 2× (1.5× to 3×)",
    "about 4× (3× to 6×)",
    "more than 6×",
)
DOUBLING_BOUNDS = (1.5, 3.0, 6.0)  # the ratios between the choices


def timing_figure(rows: list[dict], title: str) -> go.Figure:
    """One step's time against the length, log–log: the median of the repeats, bars from the fastest to the
    slowest."""
    data = []
    for way, label in WAYS.items():
        mine = sorted((r for r in rows if r["way"] == way), key=lambda r: r["length"])
        if not mine:
            continue
        median = [r["median_s"] * 1e3 for r in mine]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "x": [r["length"] for r in mine],
                "y": median,
                "line": {"color": COLORS[way]},
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [r["high_s"] * 1e3 - m for r, m in zip(mine, median, strict=True)],
                    "arrayminus": [m - r["low_s"] * 1e3 for r, m in zip(mine, median, strict=True)],
                },
                "hovertemplate": "t = %{x}: %{y:.3f} ms<extra>" + label + "</extra>",
            }
        )
    layout = {
        "title": {"text": title},
        "xaxis": {"title": {"text": "length t (tokens so far)"}, "type": "log"},
        "yaxis": {"title": {"text": "one step (ms)"}, "type": "log"},
        "legend": {"orientation": "h", "y": -0.25},
        "height": 380,
        "margin": {"l": 60, "r": 10, "t": 50, "b": 40},
    }
    return figure(data, layout)


def growth_sentences(rows: list[dict]) -> list[str]:
    """How each way's step time grows between the two longest lengths, from the medians (tᵃ: a = 1 linear, 2
    quadratic)."""
    lengths = sorted({r["length"] for r in rows})
    out = []
    for way, label in WAYS.items():
        a = growth(rows, way)
        out.append(
            f"{label.capitalize()}: from t = {lengths[-2]:,} to {lengths[-1]:,} one step took {2**a:.1f}× as long "
            f"(time ∝ t^{a:.2f})."
        )
    a_cache = growth(rows, "cache")
    if a_cache < 0.8:
        out.append(
            "The cache's step grows less than linearly here: at these lengths its t·d scores cost less than the fixed "
            "work of a step (three d × d products, the read-out, Python's own overhead), which does not grow."
        )
    return out


def timing_rows_table(rows: list[dict]) -> list[dict]:
    return [
        {
            "way": WAYS[r["way"]],
            "t": r["length"],
            "median (ms)": f"{r['median_s'] * 1e3:.3f}",
            "fastest–slowest (ms)": f"{r['low_s'] * 1e3:.3f}–{r['high_s'] * 1e3:.3f}",
        }
        for r in rows
    ]


def machine_text(machine: dict, repeats: int | None = None) -> str:
    """The machine a timing is this machine's: CPU, vector instructions, threads, torch, load."""
    bits = [
        f"{machine.get('cpu_model', 'an unnamed CPU')} ({machine.get('cpu_capability', '?')} instructions as torch "
        f"uses them), {machine.get('torch_threads', '?')} torch thread(s) of {machine.get('cpu_count', '?')} cores, "
        f"torch {machine.get('torch', '?')}"
    ]
    if machine.get("load_1min") is not None:
        bits.append(f"load {machine['load_1min']:.1f} (1-minute average)")
    if repeats:
        bits.append(f"median of {repeats} repeats after a warm-up")
    return "; ".join(bits) + "."


def memory_table(rows: list[dict]) -> list[dict]:
    """The memory rows, in kilobytes for reading."""
    return [
        {
            "t": row["length"],
            **{k.replace(" (bytes)", ""): f"{v / 1000:,.1f} kB" for k, v in row.items() if k != "length"},
        }
        for row in rows
    ]


def doubling_prediction(rows: list[dict]) -> Exercise:
    """Predict, before the reveal: how much longer one recomputing step takes when the length doubles (the answer
    from the shipped timings' two longest lengths)."""
    lengths = sorted({r["length"] for r in rows})
    ratio = 2 ** growth(rows, "recompute")
    answer = sum(ratio >= bound for bound in DOUBLING_BOUNDS)
    return Exercise(
        key="kv_cache.ex3",
        prompt=(
            f"**Predict before you reveal.** Recomputing the prefix, one step at t = {lengths[-2]:,} tokens takes "
            f"some time. At t = {lengths[-1]:,}, how long does one step take, measured (d = {D_MODEL})?"
        ),
        choices=DOUBLING_CHOICES,
        answer=answer,
        explanation=(
            f"Measured: {ratio:.1f}× (medians of the shipped timings). The t × t scores (t²·d) outgrow the t "
            f"projections (t·d², with d = {D_MODEL}) once t is well above d, so the step tends to 4× per doubling; "
            "below that, the projections and fixed costs make it closer to 2×. A measured step also moves with the "
            "machine's other work and with whether the t × t table still fits the processor's caches."
        ),
        hint="Which part of a recomputing step grows as t², and is it the larger part at these lengths?",
    )


def cache_size_exercise() -> Exercise:
    """By hand: the bytes of one layer's cache for 1,000 tokens of d = 64 in float32."""
    t, d = 1000, D_MODEL
    answer = 2 * t * d * BYTES / 1000
    return Exercise(
        key="kv_cache.ex4",
        prompt=(
            f"One layer, d = {d}, numbers of {BYTES} bytes (float32), one sequence of {t:,} tokens. How many "
            "kilobytes (1 kB = 1,000 bytes) does its key–value cache hold?"
        ),
        answer=answer,
        tolerance=0.5,
        explanation=(
            f"2 (a key and a value) × {t:,} tokens × {d} numbers × {BYTES} bytes = {2 * t * d * BYTES:,} bytes = "
            f"{answer:g} kB. A model of many layers and heads, many sequences at once and long contexts multiplies "
            "it: that is why the cache, not the weights, often fills a server's memory."
        ),
        hint="Count both the keys and the values.",
    )
