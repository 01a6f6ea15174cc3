"""Train and measure the positional-encoding lesson's models: ``assets/results/positional_encoding.json`` and three
shipped checkpoints.

    python scripts/positional_encoding_results.py [--seeds 0 1 2] [--steps 800] [--threads 1] [--out PATH]
                                                  [--no-checkpoints]

One self-attention (``minimodels.small.TinyEncoder``: one W^Q, W^K, W^V and a linear read-out, d = 32) learns to
write under each letter the letter before it, on random strings of 4–16 letters, with no positions, the fixed
sinusoids or a learned vector per position (a table of 32 rows), once per seed. Each model is then measured on 500
fresh strings of every length in ``lessons.positional_encoding.longer_inputs.LENGTHS`` (up to 32: longer than any
training string): one ``Run`` per (encoding, seed, length), the training curve kept on the 16-letter run. The seed-0
models are saved as ``assets/checkpoints/copy-small-encoder-{none,sinusoidal,learned}`` (the page's live checks use
them). The command, date, machine, load and seconds are written with the numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessons.common.comparison import Comparison  # noqa: E402
from lessons.positional_encoding import longer_inputs, models  # noqa: E402
from minimodels.checkpoints import ASSETS, save_checkpoint  # noqa: E402
from minimodels.tasks import get_task  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser, sliced  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = parse(seeded_parser(__doc__.splitlines()[0], steps=models.STEPS, out=longer_inputs.RESULTS), argv)
    measured = Measurement("positional_encoding_results.py", argv, threads=args.threads)
    runs = []
    for encoding in models.ENCODINGS:
        for seed in args.seeds:
            made, model = longer_inputs.trained_runs(encoding, seed, args.steps)
            runs += made
            by_length = {r.params["length"]: round(r.final["accuracy"], 3) for r in made}
            print(encoding, seed, by_length, flush=True)
            if seed == 0 and not args.no_checkpoints:
                name = models.PRETRAINED_KEYS[encoding][1]
                training = {
                    "steps": args.steps,
                    "batch": models.BATCH,
                    "lr": models.LR,
                    "command": measured.command,
                    "lengths": [models.TRAIN_MIN, models.TRAIN_MAX],
                    "accuracy by length": by_length,
                }
                save_checkpoint(
                    ASSETS / f"{models.TASK}-{name}",
                    model,
                    model_name=name,
                    task=get_task(models.TASK),
                    seed=seed,
                    training=training,
                )
    meta = {
        "script": longer_inputs.SCRIPT,
        "seeds": args.seeds,
        "steps": args.steps,
        "task": "previous letter",
        "report_every": models.REPORT_EVERY,
    }
    results = Comparison(models.ENCODINGS, tuple(runs), meta, dict(models.LABELS))
    out = save_comparison(results, measured, args.out, longer_inputs.load_results, torch=torch.__version__)
    if sliced():
        return 0
    for line in longer_inputs.observations(longer_inputs.load_results(out)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
