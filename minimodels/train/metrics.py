"""What the trainer measures: greedy exact match, its teacher-forced upper bound, and attention's alignment.

Held-out greedy exact match (:func:`evaluate`) is the stopping rule and the number every lesson reports; the
teacher-forced exact match of a training batch costs no decoding, so the loop uses it to decide when a held-out
check between reports is worth its time. :func:`main_map_name` picks the attention map a page draws first, which
both the reports and :func:`alignment_accuracy` read.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..decode import greedy
from ..tasks import Batch, Task
from ..tokenizers import PAD_ID
from ..transformer import TinyTransformer


def exact_match(predicted: torch.Tensor, target_out: torch.Tensor) -> torch.Tensor:
    """``(B,)`` bool: rows whose prediction (EOS then PAD) equals ``target_out`` (target + EOS, PAD) exactly."""
    width = max(predicted.size(1), target_out.size(1))
    predicted = F.pad(predicted, (0, width - predicted.size(1)), value=PAD_ID)  # (B, W)
    target_out = F.pad(target_out, (0, width - target_out.size(1)), value=PAD_ID)  # (B, W)
    return (predicted == target_out).all(dim=1)


@torch.inference_mode()
def evaluate(model: nn.Module, batch: Batch, batch_size: int = 500) -> float:
    """Greedy exact match over ``batch`` (decoded ``batch_size`` rows at a time, in the model's current mode)."""
    correct = 0
    for start in range(0, len(batch), batch_size):
        part = batch.select(torch.arange(start, min(start + batch_size, len(batch))))
        decoded = greedy(model, part.source, part.source_lengths, max_len=part.target_out.size(1))
        correct += int(exact_match(decoded.tokens, part.target_out).sum())
    return correct / max(len(batch), 1)


def _teacher_forced_exact_match(logits: torch.Tensor, target_out: torch.Tensor) -> float:
    """Share of rows whose every target token is the argmax of ``logits (B, T, V)`` (gold previous tokens fed).

    An upper bound, sentence by sentence, of greedy exact match: a sentence decoded greedily and exactly right
    fed the gold prefix at every step, so its teacher-forced argmaxes are right too. Costs no decoding.
    """
    right = (logits.detach().argmax(-1) == target_out) | (target_out == PAD_ID)  # (B, T)
    return float(right.all(dim=1).float().mean())


def main_map_name(model: nn.Module) -> str | None:
    """The map a page draws first: ``"cross"``, or the last decoder layer's cross-attention."""
    if hasattr(model, "main_map"):  # a model that names its own (minimodels.chains.ChainModel)
        return model.main_map
    if isinstance(model, TinyTransformer):
        return f"decoder.{model.config.decoder_layers - 1}.cross"
    return None if model.config.attention == "none" else "cross"


def _main_map(maps: dict[str, np.ndarray], name: str | None) -> np.ndarray | None:
    """The probe's main map ``(T, S)`` from its maps (batch axis removed): heads averaged if it has them."""
    if name is None:
        return None
    m = maps[name]
    return m.mean(axis=0) if m.ndim == 3 else m  # (h, T, S) -> (T, S)


@torch.inference_mode()
def alignment_accuracy(model: nn.Module, task: Task, split: str = "test", limit: int | None = None) -> dict:
    """How often the attention's argmax falls on a gold source token, per target token (teacher forced).

    Target tokens with an empty gold alignment (a date's "-") are skipped. Returns
    ``{"accuracy": main map's, "tokens": count, "maps": {name: accuracy}}``, where ``maps`` has every
    cross map (a Transformer's are averaged over heads, plus each head as ``"decoder.i.cross.h{j}"``).
    Empty dict when the task has no gold alignment or the model has no attention.
    """
    name = main_map_name(model)
    examples = task.split(split)[:limit]
    golds = [task.gold_alignment(ex) for ex in examples]
    if name is None or not examples or any(g is None for g in golds):
        return {}
    device = next(model.parameters()).device
    batch = task.encoded(split).select(torch.arange(len(examples))).to(device)
    out = model(batch.source, batch.source_lengths, batch.target_in)
    maps = {}
    for key, m in out.attention.items():
        if not key.endswith("cross"):
            continue
        if m.dim() == 4:  # (B, h, T, S)
            maps[key] = m.mean(1)
            maps.update({f"{key}.h{j}": m[:, j] for j in range(m.size(1))})
        else:
            maps[key] = m
    hits = dict.fromkeys(maps, 0)
    total = 0
    argmaxes = {key: m.argmax(-1).tolist() for key, m in maps.items()}  # (B, T)
    for b, gold in enumerate(golds):
        for t, sources in enumerate(gold):
            if not sources:
                continue
            total += 1
            for key in maps:
                hits[key] += argmaxes[key][b][t] in sources
    accuracies = {key: hits[key] / max(total, 1) for key in maps}
    return {"accuracy": accuracies[name], "tokens": total, "maps": accuracies}
