"""What every model in ``minimodels`` returns, and the decoding protocol they share.

Two families of models live next door: :class:`~minimodels.seq2seq.Seq2Seq` (an RNN encoder–decoder with
attention, Bahdanau et al. 2015 / Luong et al. 2015) and :class:`~minimodels.transformer.TinyTransformer`
(Vaswani et al. 2017). Both speak the same small language so that one decoder (``minimodels.decode``), one
trainer (``minimodels.train``) and every page can drive either:

* ``model(source, source_lengths, target_in) -> ModelOutput`` — the teacher-forced pass used in training;
* ``model.encode(source, source_lengths) -> memory`` — read the source once;
* ``model.initial_state(memory) -> state`` and
  ``model.step(prev_tokens, state, memory, attention_override=None) -> StepOutput`` — one decoder step,
  used by greedy and beam search;
* ``model.select_state(state, index)`` and ``memory.select(index)`` — pick rows (beam search reorders its
  hypotheses with these).

Attention maps are *returned*, in a dict whose keys name them, and never kept on the module (see STYLE.md:
a pretrained model is shared by every student on a class server).

Letters: B batch, S source positions, T target positions, V target vocabulary, h heads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["ModelOutput", "StepOutput", "select_rows"]


@dataclass
class ModelOutput:
    """A teacher-forced pass: next-token scores at every target position and every attention map, named.

    ``attention`` keys: ``"cross"`` ``(B, T, S)`` for a :class:`Seq2Seq` with attention (absent for
    ``attention="none"``: that model has no attention, only its fixed-size context vector);
    ``"encoder.{i}.self"`` ``(B, h, S, S)``, ``"decoder.{i}.self"`` ``(B, h, T, T)`` and
    ``"decoder.{i}.cross"`` ``(B, h, T, S)`` for layer ``i`` of a :class:`TinyTransformer`.
    Row ``t`` of a decoder map is the attention used to predict target token ``t``; each row sums to 1 and
    is exactly 0 on padded source positions.
    """

    logits: torch.Tensor  # (B, T, V) unnormalised next-token scores
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # name -> map, see the docstring


@dataclass
class StepOutput:
    """One decoder step: scores for the next token, the new decoder state and this step's attention rows.

    ``attention`` holds one query row per map: ``"cross"`` ``(B, S)`` for a :class:`Seq2Seq`;
    ``"decoder.{i}.cross"`` ``(B, h, S)`` and ``"decoder.{i}.self"`` ``(B, h, t)`` (``t`` = tokens fed so
    far, BOS included) for a :class:`TinyTransformer`.
    """

    logits: torch.Tensor  # (B, V) unnormalised scores for the next token
    state: Any  # the decoder state to pass to the next step (model-specific; reorder with select_state)
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # name -> this step's rows


def select_rows(value: Any, index: torch.Tensor) -> Any:
    """``value`` with only the batch rows ``index`` kept (in that order); tuples are handled item by item.

    Used for beam search, which keeps the best ``k`` hypotheses and forgets the rest at every step.
    """
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(select_rows(v, index) for v in value)
    return value.index_select(0, index)
