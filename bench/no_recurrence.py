"""Why no recurrence, measured: wall time per sequence of a GRU encoder and a self-attention layer of the same width
against T, and each one's count of matrix products that must run one after another.

    python -m bench.no_recurrence [--threads 1] [--lengths 8 16 32 64 128 256 512] [--batch 8] [--width 64]
                                  [--budget 0.05] [--write]

The Q/K/V lesson's section 7 measures the same thing (``lessons.queries_keys_values.no_recurrence``) when a
server first shows it; this prints the figures with the machine and its load, one row per T (the median of five
averages, and all five), the counts, the multiply-adds and the sentence the page writes from the same numbers.
``--write`` also stores what it printed as ``bench/sections/no_recurrence.md``, which ``python -m bench.run_all
--render`` appends to ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import os

import torch

from bench import sections
from lessons.queries_keys_values.no_recurrence import (
    GRU_ENCODER,
    RECURRENCE_BATCH,
    RECURRENCE_LENGTHS,
    RECURRENCE_WIDTH,
    SELF_ATTENTION,
    measure_recurrence,
    recurrence_sentence,
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--lengths", type=int, nargs="+", default=list(RECURRENCE_LENGTHS))
    p.add_argument("--batch", type=int, default=RECURRENCE_BATCH)
    p.add_argument("--width", type=int, default=RECURRENCE_WIDTH)
    p.add_argument(
        "--budget", type=float, default=0.05, help="seconds per average (the median of five averages per figure)"
    )
    p.add_argument("--write", action="store_true", help="store the section in bench/sections/no_recurrence.md")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    before = os.getloadavg()[0]
    timing = measure_recurrence(args.lengths, batch=args.batch, width=args.width, budget=args.budget)
    after = os.getloadavg()[0]
    lines = [
        "## Why no recurrence: a GRU encoder against self-attention, time and sequential steps vs length",
        "",
        sections.measured_by("no_recurrence", argv, timing.seconds, before)
        + f" {timing.threads} thread(s), 1-minute load {after:.2f} after. {GRU_ENCODER}: the lessons' "
        f"`Seq2Seq` encoder (E = H = {timing.width}); {SELF_ATTENTION}: softmax(QKᵀ/√d)V with "
        f"d = {timing.width}, on the same embeddings; random weights, batches of {timing.batch}, wall time per "
        "sequence, the median of the repeated averages (every one in brackets). Products in a row: the longest "
        "chain of matrix products in each model's autograd graph (the GRU written as steps with the encoder's "
        "weights).",
        "",
        "| T | GRU ms | attention ms | ratio | GRU products in a row | attention | GRU multiply-adds | attention |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, t in enumerate(timing.lengths):
        g, a = timing.median(GRU_ENCODER, t), timing.median(SELF_ATTENTION, t)
        reps = {name: ", ".join(f"{v:.3f}" for v in timing.ms[name][i]) for name in timing.ms}
        lines.append(
            f"| {t} | {g:.3f} ({reps[GRU_ENCODER]}) | {a:.3f} ({reps[SELF_ATTENTION]}) | {a / g:.2f} "
            f"| {timing.steps[GRU_ENCODER][i]} | {timing.steps[SELF_ATTENTION][i]} "
            f"| {timing.work[GRU_ENCODER][i]:,} | {timing.work[SELF_ATTENTION][i]:,} |"
        )
    lines += ["", recurrence_sentence(timing).replace("**", "")]
    print("\n".join(lines))
    if args.write:
        sections.write("no_recurrence", lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
