"""What an additive score and a dot-product score cost: time and memory vs d and length.

    python -m bench.score_cost [--repeats 5] [--d 16 64 256] [--lengths 8 32 128 512] [--write]

The lecture says "dot product attention is much faster and space-efficient". The scaling lesson's section 6 measures it
when a server first shows it (``lessons.scaling.score_cost.measure_score_cost``); this prints the figures on a larger
grid with the machine they were measured on and its load: minimodels' ``AdditiveAttention`` (hidden layer of d, its own
W_q and W_k) and ``ScaledDotProductAttention`` (q and k already projected), one sentence of T random tokens attending to
itself. Time: the CPU time of the measuring thread at one torch thread, per forward pass (mean ± sd over repeats).
Memory: the bytes autograd keeps for the backward pass. ``--write`` also stores the section as
``bench/sections/score_cost.md``, which ``python -m bench.run_all --render`` appends to ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from bench import sections
from lessons.scaling import score_cost


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=score_cost.COST_REPEATS)
    p.add_argument("--d", type=int, nargs="+", default=list(score_cost.COST_D))
    p.add_argument("--lengths", type=int, nargs="+", default=[*score_cost.COST_LENGTHS, 512])
    p.add_argument("--write", action="store_true", help="store the section in bench/sections/score_cost.md")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    load, started = os.getloadavg()[0], time.perf_counter()
    cost = score_cost.measure_score_cost(tuple(args.d), tuple(args.lengths), args.repeats)
    seconds = time.perf_counter() - started
    lines = [
        "## Additive or dot product: time and memory vs d and length",
        "",
        sections.measured_by("score_cost", argv, seconds, load)
        + f" {cost.threads} thread. One sentence of T tokens attending to itself, CPU time of the measuring thread per "
        f"forward pass, {cost.repeats} repeats (mean ± sd), random weights. Memory: bytes autograd keeps for the "
        "backward pass.",
        "",
        "| d | T | ms additive | ms dot | time ratio | bytes additive | bytes dot | memory ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in cost.ds:
        for T in cost.lengths:
            a, b = cost.values("additive", d, T), cost.values("scaled_dot", d, T)
            ma, mb = cost.values("additive", d, T, "saved_bytes")[0], cost.values("scaled_dot", d, T, "saved_bytes")[0]
            times = f"{statistics.mean(a) / statistics.mean(b):.1f}"
            cells = (sections.mean_sd(a), sections.mean_sd(b), times, f"{ma:.0f}", f"{mb:.0f}", f"{ma / mb:.1f}")
            lines.append(sections.row(d, T, *cells))
    lines += ["", score_cost.cost_sentence(cost)]
    print("\n".join(lines))
    if args.write:
        sections.write("score_cost", lines)


if __name__ == "__main__":
    main()
