"""Make the shipped results of the bottleneck lesson: ``assets/results/seq2seq_bottleneck.json``.

For every context size D in ``lessons.seq2seq_bottleneck.experiment.CONTEXT_SIZES`` and every seed it trains the
copy task without attention (``gru-none``) and with additive attention (``gru-additive``), and at D = ``POOL_D`` the
model whose context is the mean of the encoder states (``gru-mean``), each from the same seed for the same number of
steps, then decodes the whole test split greedily and scores it by source length (exact match and token
accuracy), and records what each model writes for the lecture's growing sentence and what model it is (every
encoder here is unidirectional). Written with
``Comparison.save``: the two models as variants, one run per seed and D (``params={"hidden_size": D}``), each
with its score by length as its curve; and how it was made: the command, the seeds, the task options, the
training recipe, the date, torch's version, the threads and the machine's load.

    python scripts/seq2seq_bottleneck_results.py --threads 1            # seeds 0 1 2: about 8 minutes on 2 busy cores
    python scripts/seq2seq_bottleneck_results.py --sizes 16 --steps 20 --out /tmp/s.json   # a quick check

Run it on a calm machine: the wall times it records are measured, not estimated. The scores depend only on
the seeds (training is deterministic on the CPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import sys
import time
from collections import Counter
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lessons.common import verdicts  # noqa: E402
from lessons.common.comparison import measure  # noqa: E402
from lessons.seq2seq_bottleneck import experiment, scoring, shipped  # noqa: E402
from scripts.common import machine  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--steps", type=int, default=experiment.STEPS, help="training steps per model")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=list(experiment.CONTEXT_SIZES), help="context sizes D to train"
    )
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=list(range(verdicts.MIN_SEEDS)), help="initial weights, batch order"
    )
    parser.add_argument("--out", type=Path, default=shipped.RESULTS_PATH, help="where to write the JSON")
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    started = time.perf_counter()
    task = experiment.lesson_task()
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before any clock starts
    test = scoring.scored_batch()

    def config(model_name: str):
        return experiment.train_config(model_name, steps=args.steps)

    def run_one(model_name: str, seed: int):
        pooled = [experiment.POOL_D] if experiment.POOL_D in args.sizes else []
        sizes = args.sizes if model_name != experiment.POOLED else pooled
        for hidden in sizes:
            model = experiment.build(model_name, hidden, seed)
            result = experiment.train_model(model, dataclasses.replace(config(model_name), seed=seed))
            model.eval()
            accuracy = scoring.evaluate_by_length(model, test)
            outputs = {text: scoring.copy_text(model, text) for text in experiment.EXAMPLES}
            yield shipped.measured_run(model_name, model, result, accuracy, outputs, seed)

    def progress(run, done: int, total: int) -> None:
        exact = [p["exact_match"] for p in run.curve]
        print(
            f"[{done}/{total}] {run.variant:13s} seed {run.seed} D={run.params['hidden_size']:4d} "
            f"{run.final['steps']:.0f} steps {run.final['seconds']:6.1f} s loss {run.final['loss']:.3f} "
            f"exact match by length {exact}",
            flush=True,
        )

    lengths = Counter(n - 1 for n in test.source_lengths.tolist())  # characters, EOS not counted
    command = "python scripts/seq2seq_bottleneck_results.py " + " ".join(sys.argv[1:] if argv is None else argv)
    meta = {
        "script": shipped.SCRIPT,
        "what": (
            "Copy task, trained without attention (gru-none) and with additive attention (gru-additive) for each "
            "context size D, and with the mean of the encoder states as context (gru-mean) at D = "
            f"{experiment.POOL_D}; unidirectional GRU encoders; greedy decoding of the test split scored "
            "by source length."
        ),
        "command": command.strip(),
        "seeds": args.seeds,
        "task": {
            "name": experiment.TASK,
            "seed": experiment.TASK_SEED,
            "options": experiment.TASK_OPTIONS,
        },
        "evaluation": {
            "split": "test",
            "strings": len(test),
            "strings_by_length": {str(n): lengths[n] for n in sorted(lengths)},
            "decoding": "greedy",
        },
        "train_config": {name: dataclasses.asdict(config(name)) for name in experiment.LABELS},
        "examples": list(experiment.EXAMPLES),
        "vocabulary_size": task.source_tokenizer.vocab_size,
    }
    variants = list(experiment.LABELS)
    results = measure(variants, args.seeds, run_one, meta, progress, experiment.LABELS)
    results = dataclasses.replace(
        results,
        meta={
            **results.meta,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(args.threads),
            "load_average_before": [round(v, 2) for v in load_before],
            "load_average_after": [round(v, 2) for v in os.getloadavg()],
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
    out = results.save(args.out)
    shipped.load_results(out)  # what was written must read back
    print(f"wrote {out} in {results.meta['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
