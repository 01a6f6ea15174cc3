"""The small models of sections 4–6 and their task: one self-attention (:class:`minimodels.small.TinyEncoder`, one
W^Q, W^K, W^V and a linear read-out, nothing the course has not taught by lesson 8) that writes under each letter of
a string the letter before it, with no positions, the fixed sinusoids or a learned vector per position.

The task's strings and targets, the model, its training and scores (the results script's recipe and the live run's),
the shipped seed-0 checkpoints, and reading one string with a model.

Letters: B strings, T positions, d d_model.
"""

from __future__ import annotations

import string
from functools import cache

import numpy as np
import torch

from lessons.common.pretrained import load_pretrained
from minimodels.small import Report, SmallConfig, TinyEncoder, fit, random_strings
from minimodels.tasks import get_task
from minimodels.tokenizers import PAD_ID

ENCODINGS: tuple[str, ...] = ("none", "sinusoidal", "learned")
LABELS = {"none": "none (no positions)", "sinusoidal": "sinusoidal (fixed)", "learned": "learned (one vector each)"}
COLORS = {"none": "#7f7f7f", "sinusoidal": "#1f77b4", "learned": "#ff7f0e"}

# The task: under each letter of a string, the letter before it (the first letter has none and is not scored).
TASK = "copy"  # the course's character task whose tokenizer the models use (their checkpoints are checked on it)
LETTERS = string.ascii_lowercase
TRAIN_MIN, TRAIN_MAX = 4, 16  # training strings' lengths
MAX_LEN = 32  # positions the models' tables cover: the longest input they read
D_MODEL = 32
STEPS, BATCH, LR, REPORT_EVERY = 800, 64, 3e-3, 50
HELD_OUT, TEST = 200, 500  # strings scored during training (lengths TRAIN_MIN..TRAIN_MAX) and per length at the end
TEST_SEED = 20_000
PRETRAINED_KEYS = {name: (TASK, f"small-encoder-{name}") for name in ENCODINGS}  # encoding -> ui.pretrained's keys


@cache
def tokenizer():
    return get_task(TASK).source_tokenizer


@cache
def letter_ids() -> torch.Tensor:
    return torch.tensor(tokenizer().encode(LETTERS))


def previous_letters(tokens: torch.Tensor) -> torch.Tensor:
    """The task's targets: ``(B, T)`` ids -> the id before each one (PAD at the first position and at padding)."""
    targets = torch.full_like(tokens, PAD_ID)
    targets[:, 1:] = tokens[:, :-1]
    return targets.masked_fill(tokens == PAD_ID, PAD_ID)


def strings(n: int, lengths: tuple[int, int] | int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` random strings of letters, of one length or lengths drawn from ``(lo, hi)``: ``(tokens, lengths)``."""
    if isinstance(lengths, int):
        sizes = torch.full((n,), lengths)
    else:
        sizes = torch.randint(lengths[0], lengths[1] + 1, (n,), generator=generator)
    return random_strings(n, sizes, letter_ids(), generator), sizes


def model_config(positional: str) -> SmallConfig:
    if positional not in ENCODINGS:
        raise ValueError(f"unknown encoding {positional!r}; choose from {', '.join(ENCODINGS)}")
    return SmallConfig(tokenizer().vocab_size, D_MODEL, positional, max_len=MAX_LEN)


def new_model(positional: str, seed: int) -> TinyEncoder:
    torch.manual_seed(seed)
    return TinyEncoder(model_config(positional))


@torch.inference_mode()
def scores(model: TinyEncoder, tokens: torch.Tensor, lengths: torch.Tensor, beyond: int = TRAIN_MAX) -> dict:
    """Accuracy over the scored positions (all but the first), whole strings right, and the accuracy at positions
    ``beyond`` and later (None where no string reaches them)."""
    predicted = model(tokens, lengths).logits.argmax(-1)  # (B, T)
    gold = previous_letters(tokens)
    scored = gold != PAD_ID
    hits = (predicted == gold) & scored
    far = scored.clone()
    far[:, :beyond] = False
    exact = (hits | ~scored).all(1)
    return {
        "accuracy": float(hits.sum() / scored.sum()),
        "exact": float(exact.float().mean()),
        "beyond": float(hits[far].float().mean()) if far.any() else None,
    }


def held_out() -> tuple[torch.Tensor, torch.Tensor]:
    return strings(HELD_OUT, (TRAIN_MIN, TRAIN_MAX), torch.Generator().manual_seed(TEST_SEED + 1))


def train_encoder(
    positional: str,
    seed: int,
    steps: int = STEPS,
    *,
    on_report=None,
    report_every: int = REPORT_EVERY,
    max_seconds: float | None = None,
) -> tuple[TinyEncoder, list]:
    """A fresh model trained on strings of TRAIN_MIN..TRAIN_MAX letters (drawn from ``seed``);
    ``on_report(point, model)`` at every report, ``point`` = {"step", "seconds", "loss", "accuracy", "exact_match"}
    (held-out); False stops."""
    model = new_model(positional, seed)
    curve = fit_previous_letters(
        model,
        seed,
        held_out(),
        steps=steps,
        on_report=on_report,
        report_every=report_every,
        max_seconds=max_seconds,
    )
    return model, curve


def fit_previous_letters(
    model,
    seed: int,
    check: tuple[torch.Tensor, torch.Tensor],
    *,
    steps: int,
    lengths: tuple[int, int] = (TRAIN_MIN, TRAIN_MAX),
    batch_size: int = BATCH,
    lr: float = LR,
    on_report=None,
    report_every: int = REPORT_EVERY,
    max_seconds: float | None = None,
) -> list[dict]:
    """Train ``model`` (any model of ``(tokens, lengths)`` with ``.logits``) on the task: strings of ``lengths``
    letters drawn from ``seed``, Adam at ``lr``. At every report it is scored on the held-out strings ``check``
    (:func:`scores`) and ``on_report(point, model)`` is called; False stops. Returns the reports' points, each
    {"step", "seconds", "loss", "accuracy", "exact_match"}. Lesson 8's encoders and the Part 4 positions lesson's
    decoders train this same way."""
    draws = torch.Generator().manual_seed(seed)
    curve: list[dict] = []

    def report(r: Report) -> bool | None:
        s = scores(model, *check)
        point = {
            "step": r.step,
            "seconds": round(r.seconds, 3),
            "loss": r.loss,
            "accuracy": s["accuracy"],
            "exact_match": s["exact"],
        }
        curve.append(point)
        return on_report(point, model) if on_report is not None else None

    def batch(step: int) -> tuple[torch.Tensor, ...]:
        tokens, sizes = strings(batch_size, lengths, draws)
        return tokens, sizes, previous_letters(tokens)

    fit(
        model,
        batch,
        steps=steps,
        lr=lr,
        seed=seed,
        report_every=report_every,
        on_report=report,
        max_seconds=max_seconds,
    )
    return curve


def untrained_rows(model: TinyEncoder, seed: int) -> list[int]:
    """The rows of a learned position table still exactly as initialised (no training input reached them)."""
    if model.config.positional != "learned":
        return []
    initial = new_model("learned", seed).position.embedding.weight
    same = (model.position.embedding.weight == initial).all(1)  # (MAX_LEN,)
    return [int(i) for i in torch.nonzero(same).flatten()]


def load_model(positional: str) -> tuple[TinyEncoder, dict]:
    """The shipped seed-0 model with encoding ``positional`` (eval mode, CPU): the one copy ``load_pretrained``
    keeps per process, shared read-only."""
    if positional not in ENCODINGS:
        raise ValueError(f"unknown encoding {positional!r}; choose from {', '.join(ENCODINGS)}")
    shipped = load_pretrained(*PRETRAINED_KEYS[positional])
    if shipped[0].config.positional != positional:
        raise ValueError(f"checkpoint {PRETRAINED_KEYS[positional]} has positional {shipped[0].config.positional!r}")
    return shipped


@torch.inference_mode()
def read(model: TinyEncoder, text: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The attention's output ``(T, d)``, its map ``(T, T)`` and the letters the model writes under ``text``, one
    under every letter (the first has no letter before it: what it writes there is not scored)."""
    tokens = torch.tensor([tokenizer().encode(text)])  # (1, T)
    z, weights = model.attention(model.embed(tokens))  # (1, T, d), (1, T, T)
    letters = model.out(z)[0].argmax(-1).tolist()
    written = "".join(tokenizer().decode([i]) or "?" for i in letters)
    return z[0].double().numpy(), weights[0].double().numpy(), written


def is_right(written: str, text: str) -> bool:
    """Whether ``written`` has the letter before under every letter of ``text`` but the first (not scored)."""
    return written[1:] == text[:-1]
