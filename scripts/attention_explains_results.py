"""Train the attention-explains lesson's model over seeds, change its heads, rank its tokens, plant its bugs:
``assets/results/attention_explains.json``.

    nice -n 10 python scripts/attention_explains_results.py [--seeds 0 1 2 3 4] [--steps 1200] [--threads 1]

Each seed trains the induction-heads recipe (a two-layer attention-only decoder on R random tokens and their copy)
and reads it on the held-out probe sequences: intact; each head (by its role in that model) zeroed, permuted and made
uniform; each head's weights against leave-one-out and gradient × input importance
(``lessons.attention_explains.results.measured_runs``). It then trains the recipe with each planted bug (no 1/√d_k;
the mask on the wrong side, for fewer steps). Accuracies, τ and steps do not depend on the machine's speed; the
seconds do, so the machine (CPU model, torch's CPU capability, threads, torch version) and the load are written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.attention_explains import results  # noqa: E402
from lessons.common.comparison import Comparison  # noqa: E402
from scripts.common import Measurement, cpu_model, parse, save_comparison, seeded_parser  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = seeded_parser(__doc__.splitlines()[0], steps=results.STEPS, out=results.RESULTS, checkpoints=False)
    parser.add_argument("--leak-steps", type=int, default=results.LEAK_STEPS)
    parser.set_defaults(seeds=list(range(5)))  # one torch thread: the live panel trains on one
    args = parse(parser, argv)
    measured = Measurement("attention_explains_results.py", argv, threads=args.threads)
    runs = []
    for seed in args.seeds:
        made = results.measured_runs(seed, args.steps, args.leak_steps)
        runs += made
        print(
            seed, {r.variant: {k: round(v, 3) for k, v in r.final.items() if v is not None} for r in made}, flush=True
        )
    meta = {
        "script": results.SCRIPT,
        "seeds": args.seeds,
        "steps": args.steps,
        "leak_steps": args.leak_steps,
        "task": "R random tokens, then the same R tokens again",
        "cpu_model": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
    }
    comparison = Comparison(results.VARIANTS, tuple(runs), meta, results.LABELS)
    save_comparison(comparison, measured, args.out, results.load_results, torch=torch.__version__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
