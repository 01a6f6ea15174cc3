"""Which head resolves "it"? For the multi-head lesson: ``assets/results/multi_head_attention_it.json`` and the
shipped model ``assets/multi_head_attention/it-resolver/``.

    python scripts/multi_head_attention_coreference.py --threads 1 --seeds 0 1 2 3 4 --steps 800

For each seed and depth (1 and 2 layers of 4 heads, ``lessons.multi_head_attention.resolving_it_runs.measure_it``),
an ``minimodels.coreference.ItResolver`` learns to translate "it" as il or elle in the grammar of
``minimodels.tasks.coreference`` ("the animal didn't cross the street because it was too tired" -> il, "…too
wide" -> elle), the same number of steps and the same batches per seed. Then, untimed, on the test split (noun
pairs never seen together): il/elle accuracy, and per head how often it gives the referent more weight from "it"
than the other noun, puts its largest weight on it, and moves from one noun to the other when the ending changes.
The runs make one ``lessons.common.comparison.Comparison`` (variants "1 layer", "2 layers").

The shipped model is the 2-layer run of the median seed by its best layer-2 head (``median_seed``): a typical model,
not the luckiest. Figures are only what was measured; the command, machine, threads and load are written with them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import measure  # noqa: E402
from lessons.multi_head_attention import resolving_it, resolving_it_runs  # noqa: E402
from minimodels.coreference import save  # noqa: E402
from scripts.common import Measurement, parse, save_comparison  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="one training per seed and depth")
    p.add_argument("--steps", type=int, default=resolving_it_runs.IT_STEPS, help="training steps of every model")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 on a shared machine)")
    p.add_argument("--out", default=str(resolving_it_runs.IT_RESULTS), help="where to write the JSON")
    p.add_argument(
        "--checkpoint", default=str(resolving_it_runs.IT_CHECKPOINT), help="where to write the shipped model"
    )
    args = parse(p, argv)
    measured = Measurement("multi_head_attention_coreference.py", argv, args.threads)
    depth = {resolving_it_runs.it_variant(n): n for n in resolving_it_runs.IT_LAYERS}
    models = {}

    def run_one(variant: str, seed: int):
        run, model = resolving_it_runs.measure_it(depth[variant], seed, args.steps)
        models[variant, seed] = model
        return run

    def progress(run, done: int, total: int) -> None:
        f = run.final
        heads = {name: values[resolving_it_runs.PREFERS] for name, values in run.extra["heads"].items()}
        right = f["test " + resolving_it_runs.ACCURACY]
        print(
            f"[{done}/{total}] seed {run.seed} {run.variant}: {f['wall s']:.1f} s, test {right:.1%}, prefers the "
            f"referent per head {heads}",
            flush=True,
        )

    meta = {
        "lesson": "multi_head_attention",
        "script": resolving_it_runs.IT_SCRIPT,
        "task": "coreference (it -> il / elle)",
        "layers": list(resolving_it_runs.IT_LAYERS),
        "heads": resolving_it_runs.IT_HEADS,
        "seeds": args.seeds,
        "steps": args.steps,
    }
    comparison = measure(list(depth), args.seeds, run_one, meta, on_run=progress)
    deepest = max(resolving_it_runs.IT_LAYERS)
    seed = resolving_it_runs.median_seed(comparison, deepest)
    out = save_comparison(comparison, measured, args.out, resolving_it_runs.load_it_results, shipped_seed=seed)
    run = next(r for r in comparison.runs_of(resolving_it_runs.it_variant(deepest)) if r.seed == seed)
    info = {
        "seed": seed,
        "steps": args.steps,
        "command": measured.command.strip(),
        "results": str(Path(out).name),
        "test_accuracy": run.final["test " + resolving_it_runs.ACCURACY],
        "cpu_seconds": run.final["CPU s"],
    }
    where = save(models[resolving_it_runs.it_variant(deepest), seed], args.checkpoint, info)
    resolving_it.load_it_model(where)
    print(f"wrote {where} (seed {seed}, the median by its best layer-{deepest} head)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
