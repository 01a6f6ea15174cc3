"""Make the shipped results of the bottleneck lesson: ``assets/results/seq2seq_bottleneck.json``.

For every context size D in ``lessons.seq2seq_bottleneck.CONTEXT_SIZES`` it trains the copy task without attention
(``gru-none``) and with additive attention (``gru-additive``), each from the same seed for the same number of
steps, then decodes the whole test split greedily and scores it by source length (exact match and token
accuracy), and records what each model writes for the lecture's growing sentence. The JSON also records how
it was made: the command, the seeds, the task options, the training recipe, the date, torch's version, the
threads and the machine's load.

    python scripts/seq2seq_bottleneck_results.py --threads 1            # about 4 to 8 minutes on a 2-core laptop

Run it on a calm machine: the wall times it records are measured, not estimated. The scores depend only on
the seeds (training is deterministic on the CPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lessons import seq2seq_bottleneck as bottleneck  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--steps", type=int, default=bottleneck.STEPS, help="training steps per model")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=list(bottleneck.CONTEXT_SIZES), help="context sizes D to train"
    )
    parser.add_argument("--out", type=Path, default=bottleneck.RESULTS_PATH, help="where to write the JSON")
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    started = time.perf_counter()
    task = bottleneck.lesson_task()
    for split in ("train", "valid", "test"):
        task.encoded(split)  # tokenize before any clock starts
    test = bottleneck.scored_batch()
    runs = []
    for hidden in args.sizes:
        for model_name in bottleneck.MODELS:
            model = bottleneck.build(model_name, hidden)
            config = bottleneck.train_config(model_name, steps=args.steps)
            result = bottleneck.train_model(model, config)
            model.eval()
            accuracy = bottleneck.evaluate_by_length(model, test)
            outputs = {text: bottleneck.copy_text(model, text) for text in bottleneck.EXAMPLES}
            record = bottleneck.run_record(model_name, model, result, accuracy, outputs)
            runs.append(record)
            print(
                f"{model_name:13s} D={hidden:4d} {result.steps} steps {result.seconds:6.1f} s "
                f"loss {result.loss:.3f} exact match by length {record['accuracy']['exact_match']}",
                flush=True,
            )
    command = "python scripts/seq2seq_bottleneck_results.py " + " ".join(sys.argv[1:] if argv is None else argv)
    data = {
        "what": (
            "Copy task, trained without attention (gru-none) and with additive attention (gru-additive) for each "
            "context size D; greedy decoding of the test split scored by source length."
        ),
        "command": command.strip(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "threads": args.threads,
        "cpus": os.cpu_count(),
        "load_average_before": [round(v, 2) for v in load_before],
        "load_average_after": [round(v, 2) for v in os.getloadavg()],
        "total_seconds": round(time.perf_counter() - started, 1),
        "task": {"name": bottleneck.TASK, "seed": bottleneck.TASK_SEED, "options": bottleneck.TASK_OPTIONS},
        "evaluation": {
            "split": "test",
            "strings": len(test),
            "strings_by_length": dict(zip(runs[0]["accuracy"]["lengths"], runs[0]["accuracy"]["counts"], strict=True)),
            "decoding": "greedy",
        },
        "train_config": {
            model_name: dataclasses.asdict(bottleneck.train_config(model_name, steps=args.steps))
            for model_name in bottleneck.MODELS
        },
        "examples": list(bottleneck.EXAMPLES),
        "vocabulary_size": task.source_tokenizer.vocab_size,
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out} in {data['total_seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
