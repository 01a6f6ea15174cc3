"""Make the shipped results of the KV-cache lesson: ``assets/results/kv_cache.json``.

Three measurements, one file (:mod:`lessons.kv_cache.results`):

* the sliding window: for every window of ``window_task.WINDOWS`` and every seed, a one-layer decoder trained to
  name the capital letter of 24 and scored on 2,000 held-out sequences;
* the length sweep: the bottleneck lesson's copy task with the GRU alone, softmax attention and linear attention,
  every seed, scored by length;
* one generated token's time at each length, three ways (recompute, cache, linear state), and the bytes each holds,
  with the machine: CPU model, ``torch.backends.cpu.get_cpu_capability()``, threads, torch version, load.

    nice -n 10 python scripts/kv_cache_results.py                       # seeds 0-4, the shipped file
    python scripts/kv_cache_results.py --quick --out /tmp/kv.json       # a slice: 2 seeds, few steps

Training is deterministic on the CPU for a seed; the timings are this machine's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lessons.common.comparison import measure  # noqa: E402
from lessons.kv_cache import length_sweep, results, timing, window_task  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = seeded_parser(__doc__.splitlines()[0], steps=length_sweep.STEPS, out=results.RESULTS, checkpoints=False)
    parser.set_defaults(seeds=[0, 1, 2, 3, 4])
    parser.add_argument("--window-steps", type=int, default=window_task.STEPS)
    parser.add_argument("--quick", action="store_true", help="2 seeds, 60 steps each, 10 strings per length")
    args = parse(parser, argv)
    if args.quick:
        args.seeds, args.steps, args.window_steps = args.seeds[:2], 60, 60
    per_length = 10 if args.quick else length_sweep.PER_LENGTH
    measured = Measurement("kv_cache_results.py", argv, args.threads)

    def run_one(variant: str, seed: int):
        if variant == window_task.VARIANT:
            for window in window_task.WINDOWS:
                yield window_task.measured_run(window, seed, args.window_steps)
        else:
            yield length_sweep.measured_run(variant, seed, args.steps, per_length)

    def progress(run, done: int, total: int) -> None:
        print(f"[{done}/{total}] {run.variant} seed {run.seed} {run.params} {run.final}", flush=True)

    comparison = measure(list(results.LABELS), args.seeds, run_one, {}, progress, results.LABELS)
    rows = timing.measure()
    print({w: round(timing.growth(rows, w), 2) for w in timing.WAYS}, flush=True)
    save_comparison(
        comparison,
        measured,
        args.out,
        results.load_results,
        script=results.SCRIPT,
        seeds=args.seeds,
        machine=timing.machine(),
        timing=rows,
        memory=timing.memory_rows(),
        window={"letters": window_task.LETTERS, "steps": args.window_steps, "test": window_task.TEST},
        sweep={"hidden_size": length_sweep.D, "steps": args.steps, "per_length": per_length},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
