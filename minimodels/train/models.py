"""The models the trainer knows by name, and how one is built: sized for a task, its weights drawn from a seed.

A name is ``"{cell}-{attention}"`` for every :class:`~minimodels.seq2seq.Seq2Seq` choice, or ``"transformer"``
(:class:`~minimodels.transformer.TinyTransformer`). The command line, the lessons and the checkpoints all speak
these names, so they are defined once, here; :func:`build_model` is what makes "same seed, same weights" hold
even when several pages build models at once.
"""

from __future__ import annotations

import dataclasses
import threading

import torch
from torch import nn

from ..seq2seq import ATTENTIONS, CELLS, Seq2Seq, Seq2SeqConfig
from ..tasks import Task
from ..transformer import TinyTransformer, TransformerConfig

MODEL_NAMES: tuple[str, ...] = (*(f"{c}-{a}" for c in CELLS for a in ATTENTIONS), "transformer")

_INIT_LOCK = threading.Lock()  # building a seeded model borrows torch's global RNG; one thread at a time


def model_config(name: str, task: Task, **overrides) -> Seq2SeqConfig | TransformerConfig:
    """The config of model ``name`` (see :data:`MODEL_NAMES`) sized for ``task``'s vocabularies.

    ``overrides`` replace config fields, e.g. ``hidden_size=128`` or ``bidirectional=True``.
    """
    if name not in MODEL_NAMES:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODEL_NAMES)}")
    vocab = {
        "source_vocab_size": task.source_tokenizer.vocab_size,
        "target_vocab_size": task.target_tokenizer.vocab_size,
    }
    if name == "transformer":
        cls, fields = TransformerConfig, {}
        longest = max(task.max_source_len, 2 * task.max_target_len) + 2  # room for EOS and long outputs
        fields["max_len"] = max(TransformerConfig.max_len, longest)
    else:
        cell, attention = name.split("-", 1)
        cls, fields = Seq2SeqConfig, {"cell": cell, "attention": attention}
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {', '.join(unknown)}; fields: {', '.join(sorted(known))}")
    return cls(**{**vocab, **fields, **overrides})


def model_from_config(config: Seq2SeqConfig | TransformerConfig) -> nn.Module:
    """A freshly initialised model for ``config`` (initialised from torch's global RNG)."""
    return TinyTransformer(config) if isinstance(config, TransformerConfig) else Seq2Seq(config)


def build_model(name: str, task: Task, seed: int = 0, **overrides) -> nn.Module:
    """Model ``name`` for ``task``, its initial weights drawn from ``seed`` (same seed, same weights).

    Safe to call from several threads: torch's global RNG is borrowed under a lock and restored.
    """
    config = model_config(name, task, **overrides)
    with _INIT_LOCK, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return model_from_config(config)
