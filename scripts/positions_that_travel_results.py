"""Train and measure the positions-that-travel lesson's models: ``assets/results/positions_that_travel.json``.

    python scripts/positions_that_travel_results.py [--seeds 0 1 2 3 4] [--steps 800] [--threads 1] [--out PATH]

One causal multi-head self-attention (``minimodels.positioned.PositionedDecoder``: 8 heads, d = 32, a linear
read-out) learns to write under each letter the letter before it, on random strings of 4–16 letters, with each of
five position schemes (none, sinusoidal, learned, RoPE, ALiBi), once per seed. Each model is then measured on 500
fresh strings of every length in ``lessons.positions_that_travel.longer_inputs.LENGTHS`` (up to 64: 4× the longest
training string): one ``Run`` per (scheme, seed, length), the training curve kept on the 16-letter run. The command,
date, machine (CPU model, torch's CPU capability, threads, torch version), load and seconds go with the numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402
from lessons.positions_that_travel import longer_inputs, training  # noqa: E402
from minimodels.positioned import SCHEMES  # noqa: E402
from scripts.common import Measurement, cpu_model, parse, save_comparison, seeded_parser, sliced  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = seeded_parser(__doc__.splitlines()[0], steps=training.STEPS, out=longer_inputs.RESULTS, checkpoints=False)
    args = parse(parser, argv)
    measured = Measurement("positions_that_travel_results.py", argv, threads=args.threads)
    runs = []
    for scheme in SCHEMES:
        for seed in args.seeds:
            made, _ = longer_inputs.trained_runs(scheme, seed, args.steps)
            runs += made
            print(scheme, seed, {r.params["length"]: round(r.final["accuracy"], 3) for r in made}, flush=True)
    meta = {
        "script": longer_inputs.SCRIPT,
        "seeds": args.seeds,
        "steps": args.steps,
        "task": "previous letter, causal",
        "report_every": training.REPORT_EVERY,
        "cpu": {
            "model": cpu_model(),
            "capability": torch.backends.cpu.get_cpu_capability(),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
        },
    }
    results = Comparison(SCHEMES, tuple(runs), meta, dict(training.LABELS))
    out = save_comparison(results, measured, args.out, longer_inputs.load_results, torch=torch.__version__)
    if sliced():
        return 0
    for line in longer_inputs.observations(longer_inputs.load_results(out)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
