"""How the two decoders are trained and scored, and the measured comparison that ``scripts/masking_results.py``
writes (the two variants × the seeds) read back.

A decoder is scored two ways on words it never trained on: teacher forced (fed the gold sequence, the cipher
letters predicted right) and free-running (after "word=", each letter generated from its own output, greedily).
Trained without the mask, it reads the next token from its own input: its training loss falls below what any honest
decoder can reach, and it fails once it must generate.

Letters: W = ``WORD`` letters per word, B words in a batch, V the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.masking.decoders import D_MODEL, new_model
from lessons.masking.word_cipher import WORD, random_words, sequences
from minimodels.small import Report, TinyDecoder, fit

RESULTS = ROOT / "assets" / "results" / "masking.json"
SCRIPT = "scripts/masking_results.py"
STEPS, BATCH, LR, REPORT_EVERY = 1000, 64, 3e-3, 50
HELD_OUT, TEST = 200, 1000  # words scored during training and at the end
TEST_SEED = 10_000  # the test words' generator (training words come from the run's seed)
VARIANT = {True: "causal mask", False: "no mask"}  # causal -> the comparison's variant key


@dataclass(frozen=True)
class Scores:
    """One decoder on a set of words: fed the whole sequence (teacher forced) and generating the cipher itself."""

    loss: float  # mean next-token cross-entropy over the whole sequence (what training minimises)
    teacher_forced_accuracy: float  # cipher letters right when fed the gold sequence
    free_running_accuracy: float  # cipher letters right when it generates them after "word="
    free_running_exact: float  # words whose whole cipher it generates right


@torch.inference_mode()
def score(model: TinyDecoder, seqs: torch.Tensor) -> Scores:
    logits = model(seqs[:, :-1]).logits  # (B, 2W, V): row t predicts token t + 1
    loss = float(nn.functional.cross_entropy(logits.flatten(0, 1), seqs[:, 1:].flatten()))
    gold = seqs[:, WORD + 1 :]  # (B, W) the cipher
    forced = (logits[:, WORD:].argmax(-1) == gold).float()  # rows WORD.. predict the cipher
    generated, _ = model.generate(seqs[:, : WORD + 1], WORD)  # (B, W)
    hits = (generated == gold).float()
    return Scores(loss, float(forced.mean()), float(hits.mean()), float(hits.all(1).float().mean()))


def held_out() -> torch.Tensor:
    return sequences(random_words(HELD_OUT, torch.Generator().manual_seed(TEST_SEED + 1)))


def test_set() -> torch.Tensor:
    return sequences(random_words(TEST, torch.Generator().manual_seed(TEST_SEED)))


def train_decoder(
    causal: bool,
    seed: int,
    steps: int = STEPS,
    *,
    on_report=None,
    report_every: int = REPORT_EVERY,
    max_seconds: float | None = None,
) -> tuple[TinyDecoder, list[dict]]:
    """Train a fresh decoder on random words (drawn from ``seed``); ``on_report(point, model)`` at every report,
    ``point`` = {"step", "seconds", "loss", "teacher_forced_accuracy", "exact_match"} (held-out), False stops."""
    model, words, check = new_model(causal, seed), torch.Generator().manual_seed(seed), held_out()
    curve = []

    def report(r: Report) -> bool | None:
        s = score(model, check)
        point = {
            "step": r.step,
            "seconds": round(r.seconds, 3),
            "loss": r.loss,
            "teacher_forced_accuracy": s.teacher_forced_accuracy,
            "exact_match": s.free_running_exact,
        }
        curve.append(point)
        return on_report(point, model) if on_report is not None else None

    def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        seqs = sequences(random_words(BATCH, words))
        return seqs[:, :-1], seqs[:, 1:]

    fit(
        model,
        batch,
        steps=steps,
        lr=LR,
        seed=seed,
        report_every=report_every,
        on_report=report,
        max_seconds=max_seconds,
    )
    return model, curve


METRICS = {  # the final metrics, as the table heads them -> format
    "final training loss": ".3f",
    "teacher-forced accuracy": ".1%",
    "free-running accuracy": ".1%",
    "free-running exact match": ".1%",
}


def trained_run(causal: bool, seed: int, steps: int = STEPS) -> tuple[Run, TinyDecoder]:
    """One decoder trained and measured on the test words: its Run (curve and final metrics) and the model."""
    model, curve = train_decoder(causal, seed, steps)
    s = score(model, test_set())
    final = {
        "final training loss": curve[-1]["loss"],
        "teacher-forced accuracy": s.teacher_forced_accuracy,
        "free-running accuracy": s.free_running_accuracy,
        "free-running exact match": s.free_running_exact,
    }
    params = {"causal": causal, "steps": curve[-1]["step"], "d_model": D_MODEL}
    return Run(VARIANT[causal], seed, params, curve, final, {"test words": TEST, "test loss": s.loss}), model


def load_results(path: Path | str = RESULTS) -> Comparison:
    """The comparison written by ``scripts/masking_results.py``; ``ValueError`` when it is not usable."""
    path = Path(path)
    results = Comparison.load(path, script=SCRIPT)
    lacking = [
        v
        for v in VARIANT.values()
        if v not in results.variants
        or len(results.runs_of(v)) < 3
        or any(m not in run.final or not run.curve for run in results.runs_of(v) for m in METRICS)
    ]
    if lacking:
        raise ValueError(f"{path.name} lacks three seeds of {', '.join(lacking)}: re-run {SCRIPT}")
    return results
