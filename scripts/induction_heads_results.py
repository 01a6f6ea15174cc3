"""Train the induction-heads lesson's model over seeds and knock its heads out: ``assets/results/induction_heads.json``.

    nice -n 10 python scripts/induction_heads_results.py [--seeds 0 1 2 3 4] [--steps 1200] [--threads 1]

Each seed trains the page's recipe (``lessons.induction_heads.training.train``: a two-layer attention-only decoder,
two heads a layer, on R random tokens and their copy) and reads it on 128 held-out sequences, intact and with each
knock-out (``lessons.induction_heads.results.measured_runs``). The file is a ``lessons.common.comparison.Comparison``
of the five readings × the seeds; the intact runs keep every report (loss on each half, accuracy on each half, each
head's previous-token and prefix-matching scores). Accuracies and steps do not depend on the machine; the seconds
do, so the machine (CPU model, torch's CPU capability, threads, torch version) and the load are written with them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402
from lessons.induction_heads import results, training  # noqa: E402
from scripts.common import Measurement, cpu_model, parse, save_comparison, seeded_parser, sliced  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = seeded_parser(__doc__.splitlines()[0], steps=training.STEPS, out=results.RESULTS, checkpoints=False)
    args = parse(parser, argv)
    measured = Measurement("induction_heads_results.py", argv, threads=args.threads)
    runs = []
    for seed in args.seeds:
        made = results.measured_runs(seed, args.steps)
        runs += made
        print(seed, {r.variant: round(r.final[results.ACCURACY], 3) for r in made}, made[0].final, flush=True)
    meta = {
        "script": results.SCRIPT,
        "seeds": args.seeds,
        "steps": args.steps,
        "task": "R random tokens, then the same R tokens again",
        "cpu_model": cpu_model(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
    }
    comparison = Comparison(results.VARIANTS, tuple(runs), meta, results.LABELS)
    out = save_comparison(comparison, measured, args.out, results.load_results, torch=torch.__version__)
    if sliced():
        return 0
    shipped = results.load_results(out)
    print(results.formation(shipped).sentence())
    for v in results.knockout_verdicts(shipped).values():
        print(v.sentence())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
