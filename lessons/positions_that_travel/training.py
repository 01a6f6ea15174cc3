"""What the measured comparison and the live run share: the task (lesson 8's previous letter, read under the causal
mask), the small model with each of the five position schemes, its training and its scores at every length.

The model is :class:`minimodels.positioned.PositionedDecoder`: one multi-head self-attention (8 heads, the number the
ALiBi paper's slopes are written for) under the causal mask, between a letter embedding and a linear read-out.
Training strings have TRAIN_MIN..TRAIN_MAX letters; the tests read strings of 1×, 2× and 4× TRAIN_MAX.

Letters: B strings, T positions, d d_model, H heads.
"""

from __future__ import annotations

import torch

from lessons.positional_encoding.models import LETTERS, fit_previous_letters, previous_letters, strings, tokenizer
from lessons.positional_encoding.models import scores as previous_letter_scores
from minimodels.positioned import SCHEMES, PositionedConfig, PositionedDecoder

__all__ = ["LETTERS", "previous_letters", "strings"]  # lesson 8's task, read here under the causal mask

LABELS = {
    "none": "none",
    "sinusoidal": "sinusoidal (added)",
    "learned": "learned (added)",
    "rope": "RoPE (rotated q, k)",
    "alibi": "ALiBi (distance penalty)",
}
COLORS = {"none": "#7f7f7f", "sinusoidal": "#1f77b4", "learned": "#ff7f0e", "rope": "#2ca02c", "alibi": "#d62728"}

TRAIN_MIN, TRAIN_MAX = 4, 16  # training strings' lengths
TIMES: tuple[int, ...] = (1, 2, 4)  # test lengths, as multiples of TRAIN_MAX
MAX_LEN = TRAIN_MAX * TIMES[-1]  # rows of the sinusoidal and learned tables: the longest test input
D_MODEL, HEADS = 32, 8
STEPS, BATCH, LR, REPORT_EVERY = 800, 64, 3e-3, 50
HELD_OUT, TEST = 200, 500  # strings scored during training (training lengths) and per length at the end
TEST_SEED = 30_000


def model_config(positional: str) -> PositionedConfig:
    if positional not in SCHEMES:
        raise ValueError(f"unknown position scheme {positional!r}; choose from {', '.join(SCHEMES)}")
    return PositionedConfig(tokenizer().vocab_size, D_MODEL, HEADS, positional, MAX_LEN)


def new_model(positional: str, seed: int) -> PositionedDecoder:
    torch.manual_seed(seed)
    return PositionedDecoder(model_config(positional))


@torch.inference_mode()
def scores(model: PositionedDecoder, tokens: torch.Tensor, lengths: torch.Tensor, beyond: int = TRAIN_MAX) -> dict:
    """Letters right over the scored positions (all but the first of each string), whole strings right, and the
    letters right at positions past ``beyond`` (None where no string reaches them): lesson 8's measure."""
    return previous_letter_scores(model, tokens, lengths, beyond)


def test_strings(length: int, n: int = TEST) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` fresh strings of ``length`` letters, the same for every model and seed."""
    return strings(n, length, torch.Generator().manual_seed(TEST_SEED + length))


def held_out() -> tuple[torch.Tensor, torch.Tensor]:
    return strings(HELD_OUT, (TRAIN_MIN, TRAIN_MAX), torch.Generator().manual_seed(TEST_SEED - 1))


def train_model(
    positional: str,
    seed: int,
    steps: int = STEPS,
    *,
    on_report=None,
    report_every: int = REPORT_EVERY,
    max_seconds: float | None = None,
) -> tuple[PositionedDecoder, list[dict]]:
    """A fresh model trained on strings of TRAIN_MIN..TRAIN_MAX letters drawn from ``seed``. ``on_report(point,
    model)`` at every report, ``point`` = {"step", "seconds", "loss", "accuracy", "exact_match"} (held-out strings
    of the training lengths); False stops. Returns the model and its reports."""
    model = new_model(positional, seed)
    curve = fit_previous_letters(
        model,
        seed,
        held_out(),
        steps=steps,
        lengths=(TRAIN_MIN, TRAIN_MAX),
        batch_size=BATCH,
        lr=LR,
        on_report=on_report,
        report_every=report_every,
        max_seconds=max_seconds,
    )
    return model, curve


@torch.inference_mode()
def attention_on(model: PositionedDecoder, text: str) -> tuple:
    """The heads' mean attention ``(T, T)`` on ``text`` (letters) and what the model writes under each letter."""
    tokens = torch.tensor([tokenizer().encode(text)])  # (1, T)
    output = model(tokens)
    weights = output.attention["self"][0].mean(0)  # (H, T, T) -> (T, T)
    written = "".join(tokenizer().decode([i]) or "?" for i in output.logits[0].argmax(-1).tolist())
    return weights.double().numpy(), written
