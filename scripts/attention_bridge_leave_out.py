"""The attention bridge's leave-one-pair-out study (the paper's Figure 1): ``attention_bridge_leave_out.json``.

    python scripts/attention_bridge_leave_out.py --seeds 0 1 2 3 4 --steps 2000 --threads 1

Seven models per seed, each many-to-many with monolingual pairs (the paper's best setting): ``all`` trains every
direction between the four toy languages; ``without a-b`` trains all of them but a→b and b→a, which it then
translates zero-shot. Steps, batch, learning rate, λ and corpus are the grid's
(``scripts/attention_bridge_results.py``), so ``all`` is the grid's ``m2m-mono`` trained again. Then, with the
weights rounded to float16 as shipped, greedy exact match, token accuracy and corpus BLEU (:mod:`minimodels.bleu`)
on 300 held-out test meanings in every direction. The paper's third bar, a bilingual model per pair, is not
trained here (six more models per seed).

Step counts decide what is trained, so the figures do not depend on the load; the seconds are recorded with it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from lessons.attention_bridge import experiments, leave_out  # noqa: E402
from lessons.common.comparison import Comparison  # noqa: E402
from lessons.common.runs import Run  # noqa: E402
from minimodels.bridge import new_bridge, pair_name, train_bridge  # noqa: E402
from minimodels.tasks.multilingual import get_multilingual  # noqa: E402
from scripts.attention_bridge_results import BATCH_SIZE, LEARNING_RATE, TEST_SENTENCES  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser  # noqa: E402

SCRIPT = "attention_bridge_leave_out.py"


def run_one(pair: tuple[str, str] | None, steps: int, seed: int, batch_size: int) -> Run:
    """Train one model from scratch (``pair`` left out, or none) and measure every direction."""
    corpus = get_multilingual(experiments.SEED, **experiments.CORPUS_SIZES)
    torch.manual_seed(seed)
    model = new_bridge(corpus, **experiments.MODEL_OPTIONS, penalty_weight=experiments.PENALTY_ON)
    config = leave_out.leave_out_config(
        pair, steps, seed, batch_size=batch_size, learning_rate=LEARNING_RATE, report_every=250, eval_sentences=64
    )
    variant = leave_out.ALL_PAIRS if pair is None else leave_out.leave_out_variant(pair)
    start = time.monotonic()
    history = train_bridge(model, corpus, config)
    seconds = time.monotonic() - start
    model.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})  # as shipped
    model.eval()
    test = experiments.direction_scores(model, corpus, TEST_SENTENCES)
    trained = [pair_name(p) for p in config.pairs if p[0] != p[1]]
    held = [pair_name(p) for p in config.held_out]

    def mean(names: list[str], key: str) -> float | None:
        return round(float(np.mean([test[n][key] for n in names])), 4) if names else None

    final = {
        **leave_out.pair_finals(test),
        "trained_bleu": mean(trained, "bleu"),
        "trained_exact": mean(trained, "exact_match"),
        "zero_shot_bleu": mean(held, "bleu"),
        "zero_shot_exact": mean(held, "exact_match"),
    }
    curve = [
        {
            "step": r.step,
            "seconds": round(r.seconds, 1),
            "loss": round(r.loss, 4),
            "exact_match": round(r.exact_match, 4),
            "zero_shot": round(float(np.mean(list(r.zero_shot.values()))), 4) if r.zero_shot else None,
        }
        for r in history
    ]
    extra = {
        "test": test,
        "pairs": [list(p) for p in config.pairs],
        "held_out": [list(p) for p in config.held_out],
        "steps": history[-1].step,
        "seconds": round(seconds, 1),
        "parameters": model.parameter_count(),
    }
    return Run(
        variant, seed, {"left_out": "" if pair is None else leave_out.pair_label(pair)}, tuple(curve), final, extra
    )


def main(argv: list[str] | None = None) -> int:
    parser = seeded_parser(__doc__.split("\n\n")[0], steps=2000, out=leave_out.LEAVE_OUT_RESULTS, checkpoints=False)
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    variants = leave_out.leave_out_variants()
    parser.add_argument(
        "--variants", nargs="+", choices=variants, default=list(variants), help="these models only (a quick rerun)"
    )
    args = parse(parser, argv)
    measured = Measurement(SCRIPT, argv, args.threads)
    runs = []
    for seed in args.seeds:  # seed by seed: a partial file after each holds whole seeds
        for pair in (None, *leave_out.LEAVE_OUT_PAIRS):
            if (leave_out.ALL_PAIRS if pair is None else leave_out.leave_out_variant(pair)) not in args.variants:
                continue
            run = run_one(pair, args.steps, seed, args.batch_size)
            runs.append(run)
            shown = {k: v for k, v in run.final.items() if " " not in k}
            print(
                f"[{len(runs)}/{len(args.variants) * len(args.seeds)}]",
                run.variant,
                seed,
                run.extra["seconds"],
                "s",
                json.dumps(shown),
                flush=True,
            )
        partial = Comparison(leave_out.leave_out_variants(), tuple(runs), {}, leave_out.leave_out_labels())
        partial.save(Path(args.out).with_suffix(".partial.json"))
    comparison = Comparison(leave_out.leave_out_variants(), tuple(runs), {}, leave_out.leave_out_labels())
    meta = {
        "script": f"scripts/{SCRIPT}",
        "seeds": args.seeds,
        "steps": args.steps,
        "batch_size": args.batch_size,
        "variants": args.variants,
        "learning_rate": LEARNING_RATE,
        "penalty_weight": experiments.PENALTY_ON,
        "corpus": experiments.CORPUS_SIZES,
        "model": experiments.MODEL_OPTIONS,
        "test_sentences": TEST_SENTENCES,
    }
    save_comparison(comparison, measured, args.out, leave_out.load_leave_out, **meta)
    Path(args.out).with_suffix(".partial.json").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
