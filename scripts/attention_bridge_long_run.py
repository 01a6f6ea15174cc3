"""One attention-bridge model with a pair left out, trained long enough to test "equal compute":
``attention_bridge_long_run.json``.

    python scripts/attention_bridge_long_run.py --seeds 0 --threads 1

The leave-one-pair-out study (``scripts/attention_bridge_leave_out.py``) trains each model the grid's 2000 steps, so
its 14 directions (12 minus the pair's two, plus 4 monolingual) get about 143 steps each where the bilingual model's
two get 1000. Here the same model without en ↔ fr (same corpus, batch, learning rate, λ, model) trains until each
direction has had the bilingual model's share (``--steps``, default 14 × 1000), its learning rate falling over the
longer run as the trainer does for any run. Every ``--checkpoint-every`` steps, greedy test BLEU, exact match and
token accuracy in every direction (300 test meanings), so the file shows whether zero-shot catches up with the
trained directions as the steps grow. The final scores are measured with the weights rounded to float16, as the
study's are. Step counts decide what is trained; the seconds and the load are recorded beside them.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from lessons.attention_bridge import experiments, leave_out, long_run  # noqa: E402
from lessons.common.comparison import Comparison  # noqa: E402
from lessons.common.runs import Run  # noqa: E402
from minimodels.bridge import new_bridge, pair_name, train_bridge  # noqa: E402
from minimodels.tasks.multilingual import get_multilingual  # noqa: E402
from scripts.attention_bridge_results import BATCH_SIZE, LEARNING_RATE, TEST_SENTENCES  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser  # noqa: E402

SCRIPT = "attention_bridge_long_run.py"
GRID_STEPS = 2000  # the grid's and the leave-one-out study's steps per model


def run_one(
    steps: int, seed: int, every: int, max_seconds: float, save: Callable[[Run], None], stop_at: int | None = None
) -> Run:
    """Train the model without :data:`long_run.LONG_RUN_PAIR` for ``steps`` (or until ``max_seconds`` of training,
    or the first checkpoint at or past step ``stop_at``, whichever comes first; the learning rate's schedule is
    ``steps``' in every case, so a run stopped early is the first part of the whole run), scoring every direction
    on the test set at each checkpoint; ``save`` gets the run so far after each checkpoint (its finals that
    checkpoint's, weights as trained) and the finished run at the end (its finals with the weights rounded to
    float16, as shipped)."""
    pair = long_run.LONG_RUN_PAIR
    corpus = get_multilingual(experiments.SEED, **experiments.CORPUS_SIZES)
    torch.manual_seed(seed)
    model = new_bridge(corpus, **experiments.MODEL_OPTIONS, penalty_weight=experiments.PENALTY_ON)
    config = leave_out.leave_out_config(
        pair, steps, seed, batch_size=BATCH_SIZE, learning_rate=LEARNING_RATE, report_every=every, eval_sentences=64
    )
    config = dataclasses.replace(config, max_seconds=max_seconds)
    trained = [pair_name(p) for p in config.pairs if p[0] != p[1]]
    held = [pair_name(p) for p in config.held_out]
    curve = []
    start = time.monotonic()

    def as_run(test: dict, stopped: str) -> Run:
        final = {**leave_out.pair_finals(test), **long_run.bleu_means(test, trained, held)}
        extra = {
            "test": test,
            "pairs": [list(p) for p in config.pairs],
            "held_out": [list(p) for p in config.held_out],
            "steps": curve[-1]["step"],
            "planned_steps": steps,
            "stopped": stopped,
            "seconds": round(time.monotonic() - start, 1),
            "parameters": model.parameter_count(),
        }
        return Run(
            leave_out.leave_out_variant(pair),
            seed,
            {"left_out": leave_out.pair_label(pair)},
            tuple(curve),
            final,
            extra,
        )

    def checkpoint(report) -> None:
        model.eval()
        test = experiments.direction_scores(model, corpus, TEST_SENTENCES)
        model.train()
        point = {
            "step": report.step,
            "seconds": round(report.seconds, 1),
            "loss": round(report.loss, 4),
            "exact_match": round(report.exact_match, 4),
            **long_run.bleu_means(test, trained, held),
        }
        curve.append(point)
        print(json.dumps(point), flush=True)
        save(as_run(test, "checkpoint"))
        return stop_at is None or report.step < stop_at

    train_bridge(model, corpus, config, on_progress=checkpoint)
    model.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})  # as shipped
    model.eval()
    stopped = "max_steps" if curve[-1]["step"] >= steps else "stop_at" if stop_at is not None else "max_seconds"
    run = as_run(experiments.direction_scores(model, corpus, TEST_SENTENCES), stopped)
    save(run)
    return run


def main(argv: list[str] | None = None) -> int:
    pairs = len(leave_out.leave_out_config(long_run.LONG_RUN_PAIR, 1).pairs)
    default_steps = long_run.steps_for_equal_share(GRID_STEPS, pairs)
    parser = seeded_parser(
        __doc__.split("\n\n")[0], steps=default_steps, out=long_run.LONG_RUN_RESULTS, checkpoints=False
    )
    parser.add_argument("--checkpoint-every", type=int, default=GRID_STEPS // 2)
    parser.add_argument(
        "--max-seconds", type=float, default=float("inf"), help="stop each seed after this much training (wall clock)"
    )
    parser.add_argument(
        "--stop-at", type=int, default=None, help="stop at the first checkpoint at or past this step (a quick rerun)"
    )
    args = parse(parser, argv)
    torch.set_num_threads(args.threads)
    measured = Measurement(SCRIPT, argv, args.threads)
    variant = leave_out.leave_out_variant(long_run.LONG_RUN_PAIR)
    labels = {variant: leave_out.leave_out_labels()[variant]}
    meta = {
        "script": f"scripts/{SCRIPT}",
        "seeds": args.seeds,
        "steps": args.steps,
        "grid_steps": GRID_STEPS,
        "checkpoint_every": args.checkpoint_every,
        "max_seconds": None if args.max_seconds == float("inf") else args.max_seconds,
        "stop_at": args.stop_at,
        "batch_size": BATCH_SIZE,
        "learning_rate": LEARNING_RATE,
        "penalty_weight": experiments.PENALTY_ON,
        "corpus": experiments.CORPUS_SIZES,
        "model": experiments.MODEL_OPTIONS,
        "test_sentences": TEST_SENTENCES,
    }
    runs: list[Run] = []

    def save(run: Run) -> None:  # the file after each checkpoint: a stopped run keeps what it measured
        done = {**meta, "seeds": [r.seed for r in runs] + [run.seed]}
        comparison = Comparison((variant,), (*runs, run), {}, labels)
        save_comparison(comparison, measured, args.out, long_run.load_long_run, **done)

    for seed in args.seeds:
        runs.append(run_one(args.steps, seed, args.checkpoint_every, args.max_seconds, save, args.stop_at))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
