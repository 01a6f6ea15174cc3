"""Measure the attention-bridge lesson's experiments: ``assets/results/attention_bridge.json`` and the shipped model.

    python scripts/attention_bridge_results.py --steps 2000 --batch-size 64 --seeds 0 1 2 3 4 --jobs 2

Seven models per seed, the same seeds, data and batches, the paper's Table 1 in miniature, with the French-like
language as the hub (the paper's English):

- ``bilingual``: en↔fr only (the bilingual baseline, with the bridge);
- ``bilingual-nobridge``: en↔fr only, with no bridge: the decoder attends over the encoder's states, as the paper's
  bilingual baselines (plain attention models) do;
- ``hub``: only the directions into and out of the hub (en↔fr, it↔fr, vf↔fr);
- ``hub-mono``: the same plus monolingual pairs (en→en, fr→fr, it→it, vf→vf), the paper's fix for zero-shot;
- ``hub-mono-nopenalty``: ``hub-mono`` trained without the ‖AAᵀ − I‖² penalty;
- ``m2m``, ``m2m-mono``: every direction between the four languages, without and with monolingual pairs.

Every model trains the same number of steps, so the more directions it has, the fewer steps each gets (the paper
trained each to its best on the development set). The paper's leave-one-pair-out study (Figure 1) is
``scripts/attention_bridge_leave_out.py``.

Each trains for ``--steps`` steps (one direction per minibatch, in rotation; each on one torch thread in its own
process, ``--jobs`` at a time; ``--threads`` gives each more, as ``bench.drift`` does). Then, with the weights
rounded to float16 as shipped: greedy exact match, token accuracy and corpus BLEU (``minimodels.bleu``) on 300
held-out test meanings in every direction, the six that avoid the hub being zero-shot (never trained); head
redundancy ‖AAᵀ − I‖_F over the test sentences; how often a head's top word means the same thing in every
language. The first seed's ``hub-mono`` is saved to ``assets/attention_bridge/hub-mono/`` for the page
(``--model-dir``; ``--no-model`` for a rerun that must leave the shipped model alone, as ``bench.drift``'s slice
does).

Step counts, not seconds, decide what is trained, so the figures do not depend on how busy the machine was;
the seconds are recorded with the machine's load. The file is a ``lessons.common.comparison.Comparison``: the
experiments × ``--seeds``, each run with its reports, its test figures and its probe maps.

``--variants NAME ...`` trains only those experiments and merges them into the existing ``--out`` file, replacing
only their own runs; the file's ``meta`` keeps the record of the command that made the rest, names the variants
it ran (``command_variants``), and lists each later ``--variants`` command in ``added`` (its variants, date,
seconds, load).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from lessons.attention_bridge import experiments, one_meaning  # noqa: E402
from lessons.common.comparison import Comparison, measure  # noqa: E402
from lessons.common.runs import Run  # noqa: E402
from minimodels.bridge import (  # noqa: E402
    bridge_maps,
    new_bridge,
    pair_name,
    redundancy,
    save_bridge,
    train_bridge,
)
from minimodels.tasks.multilingual import get_multilingual  # noqa: E402
from scripts.common import machine, sliced  # noqa: E402

TEST_SENTENCES = 300
BATCH_SIZE = 64  # sentences per step
LEARNING_RATE = 1e-2
SCRIPT = "scripts/attention_bridge_results.py"


def run_experiment(
    name: str, steps: int, seed: int, out_dir: str | None, batch_size: int = BATCH_SIZE, threads: int = 1
) -> Run:
    """Train one experiment from scratch and measure it (runs in a worker process, on ``threads`` torch threads)."""
    torch.set_num_threads(threads)
    experiment = next(e for e in experiments.EXPERIMENTS if e.name == name)
    corpus = get_multilingual(experiments.SEED, **experiments.CORPUS_SIZES)
    torch.manual_seed(seed)
    model = new_bridge(
        corpus,
        **experiments.MODEL_OPTIONS,
        penalty_weight=experiment.penalty_weight,
        **({} if experiment.bridge else {"bridge": False}),
    )
    options = {"batch_size": batch_size, "learning_rate": LEARNING_RATE, "report_every": 250, "eval_sentences": 64}
    config = experiments.train_config(experiment, steps, seed, **options)
    start = time.monotonic()
    history = train_bridge(
        model, corpus, config, lambda report: print(name, report.step, f"{report.loss:.3f}", flush=True)
    )
    seconds = time.monotonic() - start
    # measure the weights as they are shipped (float16)
    model.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})
    model.eval()
    test = experiments.direction_scores(model, corpus, TEST_SENTENCES)  # exact match, tokens, BLEU
    trained = [pair_name(p) for p in config.pairs if p[0] != p[1]]
    held = [pair_name(p) for p in config.held_out]
    frobenius = []  # stays empty without a bridge: no A, no redundancy
    with torch.no_grad():
        for lang in sorted({a for a, _ in config.pairs}) if experiment.bridge else ():  # the encoders it trained
            batch = corpus.pair_batch("test", lang, lang, torch.arange(TEST_SENTENCES))
            _, A = model.encode(lang, batch.source, batch.source_lengths)
            frobenius += redundancy(A).sqrt().tolist()
    maps = bridge_maps(model, corpus.probe.sentences, corpus.tokenizers) if experiment.bridge else {}
    if out_dir is not None:
        save_bridge(
            model,
            corpus.tokenizers,
            out_dir,
            experiment=name,
            steps=steps,
            seed=seed,
            pairs=[list(p) for p in config.pairs],
            held_out=[list(p) for p in config.held_out],
        )
    history = [
        {
            "step": r.step,
            "seconds": round(r.seconds, 1),
            "loss": round(r.loss, 4),
            "penalty": round(r.penalty, 4),
            "exact_match": round(r.exact_match, 4),
            "zero_shot": round(float(np.mean(list(r.zero_shot.values()))), 4) if r.zero_shot else None,
        }
        for r in history
    ]

    def mean(names: list[str], measure: str) -> float | None:  # None: no such direction (no zero-shot in m2m)
        return round(float(np.mean([test[n][measure] for n in names])), 4) if names else None

    four = experiment.kind != "bilingual"  # head agreement across the four languages needs all four encoders
    summary = {
        "trained_exact": mean(trained, "exact_match"),
        "trained_tokens": mean(trained, "token_accuracy"),
        "zero_shot_exact": mean(held, "exact_match"),
        "zero_shot_tokens": mean(held, "token_accuracy"),
        "en_fr_exact": mean([pair_name(p) for p in experiments.BILINGUAL_PAIRS], "exact_match"),
        "trained_bleu": mean(trained, "bleu"),
        "zero_shot_bleu": mean(held, "bleu"),
        "en_fr_bleu": mean([pair_name(p) for p in experiments.BILINGUAL_PAIRS], "bleu"),
        "redundancy": round(float(np.mean(frobenius)), 4) if frobenius else None,
        "agreement": round(one_meaning.mean_agreement(model, corpus, n=one_meaning.AGREEMENT_MEANINGS), 4)
        if four
        else None,
    }
    probe = {
        lang: {"A": [[round(float(v), 4) for v in row] for row in A], "tokens": tokens}
        for lang, (A, tokens) in maps.items()
    }
    return experiments.experiment_run(
        experiment,
        seed,
        history,
        test,
        summary,
        pairs=[list(p) for p in config.pairs],
        held_out=[list(p) for p in config.held_out],
        steps=history[-1]["step"],
        seconds=round(seconds, 1),
        parameters=model.parameter_count(),
        probe=probe,
    )


def load_average() -> float | None:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def merge_into(old: Comparison, new: Comparison) -> Comparison:
    """``old`` with ``new``'s variants' runs in place of its own runs of them (the others untouched), in the
    EXPERIMENTS' order; ``old.meta`` keeps its record, and ``new``'s is appended to ``meta["added"]``."""
    replaced = set(new.variants)
    order = [e.name for e in experiments.EXPERIMENTS if e.name in replaced or e.name in old.variants]
    runs = [r for r in old.runs if r.variant not in replaced] + list(new.runs)
    runs.sort(key=lambda r: order.index(r.variant))  # stable: seeds stay in the order measured
    meta = dict(old.meta)
    meta.setdefault("command_variants", [v for v in old.variants if v not in replaced])
    keep = (
        "variants",
        "command",
        "date",
        "seeds",
        "steps",
        "batch_size",
        "learning_rate",
        "jobs",
        "seconds",
        "load_1min_before",
        "load_1min_after",
    )
    added = [a for a in meta.get("added", []) if not set(a.get("variants", ())) <= replaced]
    meta["added"] = [*added, {k: new.meta[k] for k in keep if k in new.meta}]
    labels = {**old.labels, **new.labels}
    return Comparison(tuple(order), tuple(runs), meta, {v: labels[v] for v in order if v in labels})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=2000, help="training steps per experiment")
    p.add_argument(
        "--seeds",
        "--seed",
        type=int,
        nargs="+",
        default=[experiments.SEED],
        help="initial weights and batch order; the first seed's hub-mono is the shipped model",
    )
    p.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="sentences per training step")
    p.add_argument("--jobs", type=int, default=1, help="experiments trained at once (each in its own process)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per experiment")
    p.add_argument("--out", default=str(experiments.RESULTS), help="where to write the JSON")
    p.add_argument(
        "--variants",
        nargs="+",
        choices=[e.name for e in experiments.EXPERIMENTS],
        help="train only these and merge them into --out, leaving the other variants' runs as they are",
    )
    p.add_argument("--model-dir", default=str(one_meaning.SHIPPED_MODEL), help="where to save the hub-mono model")
    p.add_argument("--no-model", action="store_true", help="save no model (a rerun: the shipped one stays)")
    args = p.parse_args(argv)
    started = datetime.datetime.now(datetime.UTC)
    load_before = load_average()
    begin = time.monotonic()
    names = [e.name for e in experiments.EXPERIMENTS if not args.variants or e.name in args.variants]
    shipped = None if args.no_model else ("hub-mono", args.seeds[0])  # the run whose model the page loads
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=get_context("spawn")) as pool:
        futures = {
            (name, seed): pool.submit(
                run_experiment,
                name,
                args.steps,
                seed,
                args.model_dir if (name, seed) == shipped else None,
                args.batch_size,
                args.threads,
            )
            for name in names
            for seed in args.seeds
        }
        meta = {
            "script": SCRIPT,
            "command": f"python {SCRIPT} " + " ".join(argv if argv is not None else sys.argv[1:]),
            "date": started.isoformat(timespec="seconds"),
            "seeds": args.seeds,
            "steps": args.steps,
            "batch_size": args.batch_size,
            "learning_rate": LEARNING_RATE,
            "corpus": experiments.CORPUS_SIZES,
            "model": experiments.MODEL_OPTIONS,
            "hub": experiments.HUB,
            "test_sentences": TEST_SENTENCES,
            "jobs": args.jobs,
            "load_1min_before": load_before,
            "machine": machine(args.threads),
        }
        if args.variants:
            meta["variants"] = names
        labels = {e.name: e.label for e in experiments.EXPERIMENTS if e.name in names}
        results = measure(
            names,
            args.seeds,
            lambda name, seed: futures[name, seed].result(),
            meta,
            labels=labels,
            on_run=lambda run, done, total: print(
                f"[{done}/{total}]", run.variant, run.seed, json.dumps(run.final), flush=True
            ),
        )
    results.meta.update(seconds=round(time.monotonic() - begin, 1), load_1min_after=load_average())
    if args.variants and Path(args.out).exists():  # a part of the grid, trained again, replaces its runs in the file
        results = merge_into(Comparison.load(args.out, script=SCRIPT), results)
    else:
        results.meta["command_variants"] = names
    results.save(args.out)
    # the page's loader reads it back (a rerun slice for scripts.reproduce, a part of the grid alone: as a comparison)
    (Comparison.load if sliced() else experiments.load_results)(args.out)
    print(f"wrote {args.out}", flush=True)
    if shipped is None or shipped[0] not in names:
        return 0  # the shipped model and its README are as they were (--no-model, or no hub-mono trained)
    run = results.runs_of("hub-mono", {"monolingual": True})[0]
    readme = Path(args.model_dir).parent / "README.md"
    readme.write_text(
        "# The attention bridge lesson's shipped model\n\n"
        f"`hub-mono/`: made by `{results.meta['command']}` on {results.meta['date'][:10]} (seed {run.seed}, "
        f"{run.extra['steps']} steps of batch {args.batch_size}, {run.extra['seconds']} s on {args.threads} torch "
        f"thread{'s' if args.threads > 1 else ''}, "
        f"{run.extra['parameters']} parameters stored in float16; 1-minute load average "
        f"{results.meta['load_1min_before']} before and {results.meta['load_1min_after']} after, on a shared "
        f"{results.meta['machine']['cpu_count']}-core machine).\n\n"
        "Trained on the directions into and out of the French-like hub plus monolingual pairs "
        "(`lessons.attention_bridge.experiments.EXPERIMENTS`, `hub-mono`); test exact match of the trained directions "
        f"{run.final['trained_exact']:.1%}, of the six zero-shot directions {run.final['zero_shot_exact']:.1%}. Every "
        "figure is in `assets/results/attention_bridge.json`.\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
