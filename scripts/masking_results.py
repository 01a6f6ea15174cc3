"""Train and measure the masking lesson's decoders: ``assets/results/masking.json`` and two shipped checkpoints.

    python scripts/masking_results.py [--seeds 0 1 2] [--steps 1000] [--threads 1] [--out PATH] [--no-checkpoints]

One self-attention decoder (``minimodels.small.TinyDecoder``: one W^Q, W^K, W^V, learned positions, a linear
read-out) predicts the next character of "word=cipher" sequences (a random 8-letter word, "=", the word in Caesar's
cipher), trained with the causal mask and without it, once per seed (``lessons.masking.training.trained_run``). Each run
keeps its curve (training loss, held-out teacher-forced accuracy and free-running exact match every 50 steps) and
its final scores on 1000 test words. The file is a ``lessons.common.comparison.Comparison`` of the two variants ×
the seeds. The seed-0 models are saved as ``assets/checkpoints/copy-small-decoder-causal`` and
``copy-small-decoder-no-mask`` (what the page's maps use). Accuracies do not depend on the machine's speed; the
command, date, machine, load and seconds are written with them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402
from lessons.masking import cheating, decoders, training, word_cipher  # noqa: E402
from minimodels.checkpoints import ASSETS, save_checkpoint  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser, sliced  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = parse(seeded_parser(__doc__.splitlines()[0], steps=training.STEPS, out=training.RESULTS), argv)
    measured = Measurement("masking_results.py", argv, threads=args.threads)
    runs = []
    for causal in (True, False):
        for seed in args.seeds:
            run, model = training.trained_run(causal, seed, args.steps)
            runs.append(run)
            print(training.VARIANT[causal], seed, {k: round(v, 4) for k, v in run.final.items()}, flush=True)
            if seed == 0 and not args.no_checkpoints:
                name = decoders.MODELS[causal]
                recipe = {
                    "steps": args.steps,
                    "batch": training.BATCH,
                    "lr": training.LR,
                    "command": measured.command,
                    **run.final,
                }
                save_checkpoint(
                    ASSETS / f"{word_cipher.TASK}-{name}",
                    model,
                    model_name=name,
                    task=get_task(word_cipher.TASK),
                    seed=seed,
                    training=recipe,
                )
    variants = tuple(training.VARIANT[c] for c in (True, False))
    meta = {"script": training.SCRIPT, "seeds": args.seeds, "steps": args.steps, "task": "word=cipher"}
    results = Comparison(variants, tuple(runs), meta, {training.VARIANT[c]: decoders.LABELS[c] for c in (True, False)})
    out = save_comparison(results, measured, args.out, training.load_results, torch=torch.__version__)
    if sliced():
        return 0
    for line in cheating.results_sentences(training.load_results(out)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
