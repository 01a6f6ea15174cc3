"""The attention bridge's penalty study: ``assets/results/attention_bridge_penalty.json``.

    python scripts/attention_bridge_penalty.py --seeds 0 1 2 3 4 --steps 1200 --threads 1

The paper (Vázquez et al. 2019, section 6 and Table 3) trained its bilingual bridge models with and without the
penalty ‖AAᵀ − I‖²_F, found similar BLEU, and kept the penalty for less redundancy between the heads. Here the
same question on the toy languages, in miniature: one bridge model per setting trained on en → fr and fr → en (in
rotation, as the lesson's other models), with

- λ ∈ {0, 0.1, 1} at the lesson's k = 6 heads (λ multiplies the per-sentence penalty against the per-token
  cross-entropy, so λ = 1 weighs it about seven times more than the paper's sums over a batch did);
- λ ∈ {0, 1} at k ∈ {1, 6, 10} heads: the paper chose k = 10 for sentences of 13.2 tokens on average and argued
  that a much smaller k is a bottleneck; ours have 6–7 words, so k = 10 is more heads than most sentences have
  words (and the penalty can then not reach 0).

Each run is measured on the held-out test meanings: greedy exact match, token accuracy and corpus BLEU (both
directions), exact match of short (≤ 5 words) and long (≥ 8 words) sources, the penalty ‖AAᵀ − I‖²_F per sentence
and head overlap (the mean cosine between two heads' distributions) on the test sentences of both languages. Step
counts, not seconds, decide what is trained; the seconds are recorded with the machine's load. Each model trains
1200 steps of 64 sentences, so that the 21 runs fit in about 25 minutes on one thread.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from lessons.attention_bridge import experiments, penalty_study  # noqa: E402
from lessons.common.comparison import measure  # noqa: E402
from lessons.common.runs import Run  # noqa: E402
from minimodels.bridge import (  # noqa: E402
    BridgeTrainConfig,
    head_overlap,
    new_bridge,
    pair_name,
    redundancy,
    score_sentences,
    train_bridge,
)
from minimodels.tasks.multilingual import get_multilingual  # noqa: E402
from scripts.common import Measurement, parse, save_comparison, seeded_parser  # noqa: E402

BATCH_SIZE = 64
LEARNING_RATE = 1e-2
TEST_SENTENCES = 300
SETTINGS = {penalty_study.study_variant(k, w): (k, w) for k, w in penalty_study.study_settings()}


@functools.cache
def corpus():
    return get_multilingual(experiments.SEED, **penalty_study.STUDY_CORPUS)


def run_one(variant: str, seed: int, steps: int, threads: int) -> Run:
    heads, weight = SETTINGS[variant]
    data = corpus()
    torch.manual_seed(seed)
    model = new_bridge(data, **penalty_study.STUDY_MODEL, heads=heads, penalty_weight=weight)
    config = BridgeTrainConfig(
        pairs=penalty_study.STUDY_PAIRS,
        max_steps=steps,
        max_seconds=float("inf"),
        seed=seed,
        batch_size=BATCH_SIZE,
        learning_rate=LEARNING_RATE,
        report_every=max(1, steps // 6),
        eval_sentences=64,
        threads=threads,
    )
    start = time.monotonic()
    history = train_bridge(model, data, config)
    seconds = time.monotonic() - start
    scores = {
        pair_name(p): score_sentences(model, data, "test", *p, limit=TEST_SENTENCES) for p in penalty_study.STUDY_PAIRS
    }
    exact = torch.cat([s.exact for s in scores.values()]).float()
    words = torch.cat([s.source_words for s in scores.values()])
    short, long = words <= penalty_study.SHORT_WORDS, words >= penalty_study.LONG_WORDS
    with torch.no_grad():  # each language's test sentences once (the sources of the two directions)
        A = [s.A for s in scores.values()]
        penalty = torch.cat([redundancy(a) for a in A])
        overlap = torch.cat([head_overlap(a) for a in A])
    final = {
        "exact": float(exact.mean()),
        "tokens": float(sum(s.matches.sum() for s in scores.values()) / sum(s.lengths.sum() for s in scores.values())),
        "bleu": float(np.mean([s.bleu for s in scores.values()])),  # corpus BLEU of each direction, averaged
        "exact_short": float(exact[short].mean()),
        "exact_long": float(exact[long].mean()),
        "penalty": float(penalty.mean()),
        "overlap": None if heads == 1 else float(overlap.mean()),
    }
    final["length_gap"] = final["exact_short"] - final["exact_long"]
    by_length = {int(n): round(float(exact[words == n].mean()), 4) for n in sorted(set(words.tolist()))}
    curve = [
        {
            "step": r.step,
            "seconds": round(r.seconds, 2),
            "loss": round(r.loss, 4),
            "penalty": round(r.penalty, 4),
            "exact_match": round(r.exact_match, 4),
        }
        for r in history
    ]
    extra = {
        "seconds": round(seconds, 1),
        "steps": history[-1].step,
        "parameters": model.parameter_count(),
        "by_length": by_length,
        "short_sentences": int(short.sum()),
        "long_sentences": int(long.sum()),
        "directions": {n: round(float(s.exact.float().mean()), 4) for n, s in scores.items()},
    }
    return Run(variant, seed, {"heads": heads, "penalty_weight": weight}, tuple(curve), final, extra)


def main(argv: list[str] | None = None) -> int:
    parser = seeded_parser(__doc__.split("\n\n")[0], steps=1200, out=penalty_study.PENALTY_RESULTS, checkpoints=False)
    args = parse(parser, argv)
    measured = Measurement("attention_bridge_penalty.py", argv, args.threads)
    corpus()  # drawn before any run's clock

    def one(variant: str, seed: int) -> Run:
        return run_one(variant, seed, args.steps, args.threads)

    def progress(run: Run, done: int, total: int) -> None:
        shown = {k: (round(v, 3) if v is not None else None) for k, v in run.final.items()}
        print(f"[{done}/{total}] {run.variant} seed {run.seed} {run.extra['seconds']} s {shown}", flush=True)

    variants = list(SETTINGS)
    results = measure(variants, args.seeds, one, {"script": penalty_study.PENALTY_SCRIPT}, on_run=progress)
    per_run = round(float(np.mean([r.extra["seconds"] for r in results.runs])), 1)
    save_comparison(
        results,
        measured,
        args.out,
        penalty_study.load_penalty,
        seeds=args.seeds,
        steps=args.steps,
        batch_size=BATCH_SIZE,
        learning_rate=LEARNING_RATE,
        pairs=[list(p) for p in penalty_study.STUDY_PAIRS],
        corpus=penalty_study.STUDY_CORPUS,
        model=penalty_study.STUDY_MODEL,
        test_sentences=TEST_SENTENCES,
        short_words=penalty_study.SHORT_WORDS,
        long_words=penalty_study.LONG_WORDS,
        mean_seconds_per_run=per_run,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
