"""Measure the two shipped dates Transformers of the masking lesson: ``assets/results/masking.json``.

    python scripts/masking_results.py [--split test] [--limit N] [--out PATH]

``dates-transformer`` (decoder with the causal mask) and ``dates-transformer-no-causal`` (the "cheating
decoder", trained without it) are each measured twice on the same sentences (``lessons.masking.measure``):
fed the gold prefix (teacher forcing, what training optimises) and fed their own previous output (greedy
decoding, what using the model means), as token accuracy and as exact match of whole dates. The file is a
``lessons.common.comparison.Comparison`` of the two checkpoints, one run each (their training seed): it
describes these two models (n = 1). Accuracies do not depend on the machine's speed; the command, date,
machine and torch version are written with them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons import masking  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", default="test", choices=["valid", "test"])
    p.add_argument("--limit", type=int, default=None, help="only the split's first N sentences")
    p.add_argument("--out", default=str(masking.RESULTS))
    args = parse(p, argv)
    measured = Measurement("masking_results.py", argv, threads=1)
    results = masking.measure_shipped({}, args.split, args.limit)
    out = save_comparison(results, measured, args.out, masking.load_results, torch=torch.__version__)
    for row in masking.results_table(masking.load_results(out)):
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
