"""The RNN-cells lesson's sequential bottleneck, measured: forward time per sequence of an RNN (T steps in a row)
against a two-layer feed-forward network and self-attention (one operation over all T positions).

    python -m bench.rnn_sequential [--threads 1] [--lengths 8 32 128 512] [--batch 8] [--size 64]

Prints the machine's load, one row per length (milliseconds per sequence, the median of five averages) and the
sentence the page writes from the same numbers (lessons.rnn_cells.sequential).
"""

from __future__ import annotations

import argparse
import os

import torch

from lessons.rnn_cells import sequential


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--lengths", type=int, nargs="+", default=list(sequential.LENGTHS))
    p.add_argument("--batch", type=int, default=sequential.BATCH)
    p.add_argument("--size", type=int, default=sequential.SIZE)
    p.add_argument(
        "--budget", type=float, default=0.05, help="seconds per average (the median of five averages per figure)"
    )
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    before = os.getloadavg()[0]
    result = sequential.measure_sequential(args.lengths, batch=args.batch, size=args.size, budget=args.budget)
    print(
        f"load (1 min) before {before:.2f}, after {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; "
        f"torch {torch.__version__}, {result.threads} thread(s); B = {result.batch}, H = {result.size}"
    )
    print("T".rjust(6) + "".join(name[:28].rjust(30) for name in sequential.LAYERS) + "   (ms per sequence)")
    for t in result.lengths:
        print(f"{t:6d}" + "".join(f"{result.at(name, t):30.4f}" for name in sequential.LAYERS))
    print(sequential.timing_summary(result).replace("**", ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
