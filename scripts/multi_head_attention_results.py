"""Measure 1, 2, 4 and 8 heads with the same budget for the multi-head lesson:
``assets/results/multi_head_attention.json``.

    python scripts/multi_head_attention_results.py --threads 1 --seeds 0 1 2 3 4 --steps 300

For each seed and head count, a TinyTransformer with d_model 64 (so d_k = 64, 32, 16, 8) is trained on
``toy-translation`` for the same number of steps, with the same batches and the same recipe
(``lessons.multi_head_attention.head_counts_runs.results_config``); every model has the same number of parameters.
Then, untimed: exact match on the whole test split, and how often each head of the last decoder layer's
cross-attention puts its largest weight on a source token the output token comes from (gold alignment, test split).
Each run's final cross-attention maps on the task's probe sentence are kept with it (``Run.extra["probe"]``) for the
page. The runs make one ``lessons.common.comparison.Comparison`` (variants "h = 1" … "h = 8", one run per seed).

Figures are only what was measured: the command, date, machine, torch threads and the load average before and
after are written with them. Run it on a calm machine (a busy one makes every "seconds" figure larger).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import measure  # noqa: E402
from lessons.multi_head_attention import head_counts, head_counts_runs  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser, tokenized  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = seeded_parser(__doc__.split("\n\n")[0], steps=300, out=head_counts_runs.RESULTS, checkpoints=False)
    p.add_argument("--heads", type=int, nargs="+", default=list(head_counts_runs.RESULT_HEADS))
    args = parse(p, argv)
    task = tokenized(head_counts_runs.RESULT_TASK)
    measured = Measurement("multi_head_attention_results.py", argv, args.threads)
    heads = {head_counts_runs.variant(h): h for h in args.heads}

    def run_one(variant: str, seed: int):
        return head_counts_runs.measure_heads(task, heads[variant], seed, args.steps, args.threads)

    def progress(run, done: int, total: int) -> None:
        f = run.final
        print(
            f"[{done}/{total}] seed {run.seed} {run.variant}: {f['steps']:.0f} steps, {f['wall s']:.1f} s, held-out "
            f"{f['held-out exact']:.1%}, test {f['test exact']:.1%}, alignment {f['alignment, heads averaged']:.1%} "
            f"(heads {run.extra['head_alignment']})",
            flush=True,
        )

    config = head_counts_runs.results_config(args.seeds[0], args.steps, args.threads)
    meta = {
        "lesson": "multi_head_attention",
        "script": head_counts_runs.RESULT_SCRIPT,
        "task": head_counts_runs.RESULT_TASK,
        "task_seed": 0,
        "d_model": head_counts_runs.RESULT_D_MODEL,
        "heads": args.heads,
        "seeds": args.seeds,
        "steps": args.steps,
        "train_config": dataclasses.asdict(config),
    }
    comparison = measure(list(heads), args.seeds, run_one, meta, on_run=progress)
    save_comparison(comparison, measured, args.out, head_counts.load_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
