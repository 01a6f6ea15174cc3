"""Scoring a model by source length: greedy decoding of test strings, exact match and token accuracy per length.

The shipped runs (:mod:`.shipped`) are scored on the whole test split, a live run (:mod:`.live_training`) on the first
strings of each length; both read the same :class:`LengthAccuracy`.

Letters: B batch, T target positions (characters + EOS), W the wider of the prediction and the target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lessons.seq2seq_bottleneck.experiment import MAX_LEN, METRICS, lesson_task
from minimodels.decode import greedy
from minimodels.tasks import Batch, make_batch
from minimodels.tasks.core import Example
from minimodels.tokenizers import PAD_ID
from minimodels.train import exact_match


@dataclass(frozen=True)
class LengthAccuracy:
    """Scores of greedy decoding grouped by source length (characters, EOS not counted)."""

    lengths: tuple[int, ...]  # the source lengths present, ascending
    exact_match: tuple[float, ...]  # share of strings of that length decoded exactly right
    token_accuracy: tuple[float, ...]  # share of target positions (characters + EOS) predicted right
    counts: tuple[int, ...]  # strings of that length

    def metric(self, name: str) -> tuple[float, ...]:
        if name not in METRICS:
            raise ValueError(f"unknown metric {name!r}; choose from {', '.join(METRICS)}")
        return getattr(self, name)


def accuracy_by_length(
    predicted: torch.Tensor, target_out: torch.Tensor, source_lengths: torch.Tensor
) -> LengthAccuracy:
    """Exact match and token accuracy per source length.

    ``predicted (B, T')``: decoded tokens, EOS then PAD; ``target_out (B, T)``: target + EOS, PAD-padded;
    ``source_lengths (B,)``: source tokens *including* EOS (as in a :class:`~minimodels.tasks.Batch`). A
    target position counts as right when the prediction has the same token there; a prediction that stops
    early has PAD there, one that runs on past the target's EOS is wrong at that EOS.
    """
    width = max(predicted.size(1), target_out.size(1))
    predicted = F.pad(predicted, (0, width - predicted.size(1)), value=PAD_ID)  # (B, W)
    target = F.pad(target_out, (0, width - target_out.size(1)), value=PAD_ID)  # (B, W)
    real = target != PAD_ID  # (B, W): the target's characters and its EOS
    right = ((predicted == target) & real).sum(1).float()  # (B,)
    exact = exact_match(predicted, target).float()  # (B,)
    tokens = real.sum(1).float()  # (B,)
    lengths = source_lengths - 1  # (B,) characters, EOS not counted
    groups = sorted(set(lengths.tolist()))
    ex, tok, counts = [], [], []
    for n in groups:
        rows = lengths == n
        ex.append(float(exact[rows].mean()))
        tok.append(float(right[rows].sum() / tokens[rows].sum()))
        counts.append(int(rows.sum()))
    return LengthAccuracy(tuple(groups), tuple(ex), tuple(tok), tuple(counts))


@torch.inference_mode()
def evaluate_by_length(model: nn.Module, batch: Batch, batch_size: int = 500) -> LengthAccuracy:
    """Greedy-decode ``batch`` (``batch_size`` rows at a time) and score it by source length."""
    predicted = []
    for start in range(0, len(batch), batch_size):
        part = batch.select(torch.arange(start, min(start + batch_size, len(batch))))
        decoded = greedy(model, part.source, part.source_lengths, max_len=batch.target_out.size(1))
        predicted.append(F.pad(decoded.tokens, (0, batch.target_out.size(1) - decoded.tokens.size(1)), value=PAD_ID))
    return accuracy_by_length(torch.cat(predicted), batch.target_out, batch.source_lengths)


def scored_batch(per_length: int | None = None) -> Batch:
    """The test split (never trained on), or its first ``per_length`` strings of each length."""
    task = lesson_task()
    if per_length is None:
        return task.encoded("test")
    taken: dict[int, int] = {}
    chosen = []
    for ex in task.test:
        if taken.get(len(ex.source), 0) < per_length:
            taken[len(ex.source)] = taken.get(len(ex.source), 0) + 1
            chosen.append(ex)
    return make_batch(chosen, task)


@torch.inference_mode()
def copy_text(model: nn.Module, text: str) -> str:
    """What ``model`` writes for the (already clean) string ``text``."""
    task = lesson_task()
    batch = make_batch([Example(text, text)], task)
    decoded = greedy(model, batch.source, batch.source_lengths, max_len=2 * MAX_LEN + 2)
    return task.target_tokenizer.decode(decoded.sequences()[0])


def longest_length_above(accuracy: LengthAccuracy, metric: str = "exact_match", level: float = 0.5) -> int:
    """The longest source length up to which every length scores at least ``level`` (0 if even the first fails)."""
    best = 0
    for n, value in zip(accuracy.lengths, accuracy.metric(metric), strict=True):
        if value < level:
            break
        best = n
    return best


def mean_over(accuracy: LengthAccuracy, lengths: Sequence[int], metric: str = "exact_match") -> float:
    """The mean score over the given source lengths (those present)."""
    values = [v for n, v in zip(accuracy.lengths, accuracy.metric(metric), strict=True) if n in set(lengths)]
    if not values:
        raise ValueError("none of these lengths were scored")
    return float(np.mean(values))
