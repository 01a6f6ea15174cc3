"""What attention costs: decoding time and memory per sentence vs length, with and without attention.

    python -m bench.attention_cost [--threads 1] [--repeats 3] [--batch 16] [--lengths 16 32 64 128 256] [--write]

The Bahdanau lesson's section 6 measures the same thing (``lessons.bahdanau_attention.attention_cost.measure_cost``)
when a server first shows it; this prints the figures with the machine they were measured on and its load: the shipped
toy-translation model's size (bidirectional GRU encoder, D = 128, A = 64), once with additive attention and
once without, random weights, source and output of the same length T, greedy decoding for exactly T steps.
Time is the CPU time of the decoding thread (not wall time, which a busy machine inflates), per sentence.
``--write`` also stores what it printed as ``bench/sections/attention_cost.md``, which ``python -m bench.run_all
--render`` appends to ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from bench import sections
from lessons.bahdanau_attention import attention_cost, decoding
from lessons.common.pretrained import load_pretrained


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=attention_cost.COST_REPEATS)
    p.add_argument("--batch", type=int, default=attention_cost.COST_BATCH)
    p.add_argument("--lengths", type=int, nargs="+", default=list(attention_cost.COST_LENGTHS))
    p.add_argument("--write", action="store_true", help="store the section in bench/sections/attention_cost.md")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    model, _ = load_pretrained("toy-translation", decoding.MODEL)
    load, started = os.getloadavg()[0], time.perf_counter()
    cost = attention_cost.measure_cost(model.config, tuple(args.lengths), args.batch, args.repeats)
    seconds = time.perf_counter() - started
    lines = [
        "## What attention costs: decoding time and memory vs length",
        "",
        sections.measured_by("attention_cost", argv, seconds, load)
        + f" {cost.threads} thread(s). Greedy decoding of T tokens from a source of T tokens, batches of {cost.batch}, "
        f"{cost.repeats} repeats (mean ± sd), CPU time of the decoding thread per sentence, random weights. "
        f"With: {cost.models['additive']}. Without: {cost.models['none']}. Bytes: the attention weights one "
        "sentence produces, and what the decoder reads at every step.",
        "",
        "| T | ms with attention | ms without | ratio | α bytes | read per step, with | without |",
        "|---|---|---|---|---|---|---|",
    ]
    for T in cost.lengths:
        a, n = cost.values("additive", T), cost.values("none", T)
        bytes_of = {
            (v, f): f"{cost.values(v, T, f)[0]:.0f}"
            for v in ("additive", "none")
            for f in ("alpha_bytes", "read_bytes")
        }
        ratio = f"{statistics.mean(a) / statistics.mean(n):.2f}"
        lines.append(
            sections.row(
                T,
                sections.mean_sd(a),
                sections.mean_sd(n),
                ratio,
                bytes_of["additive", "alpha_bytes"],
                bytes_of["additive", "read_bytes"],
                bytes_of["none", "read_bytes"],
            )
        )
    lines += ["", attention_cost.cost_sentence(cost)]
    print("\n".join(lines))
    if args.write:
        sections.write("attention_cost", lines)


if __name__ == "__main__":
    main()
