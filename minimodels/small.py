r"""The smallest attention models: one self-attention layer, one set of W^Q, W^K, W^V, nothing else.

Built for the lessons that come before multi-head attention and the full Transformer (masking, positional
encoding), so that they use only what the student has met: token embeddings, a position vector per position,
one scaled dot-product self-attention (the Q/K/V lesson's) and a linear read-out.

.. math:: X = E[\text{tokens}] + P, \qquad
          Z = \mathrm{softmax}\!\Big(\frac{(XW^Q)(XW^K)^\top}{\sqrt{d}} + M\Big)\,XW^V, \qquad
          \text{logits} = Z W^{out}

* :class:`TinyDecoder`: decoder-only, predicts the next token at every position; ``causal=True`` puts the causal
  mask in :math:`M` (position t reads positions ≤ t), ``causal=False`` is the masking lesson's *cheating decoder*.
* :class:`TinyEncoder`: encoder-only, one prediction per input position; :math:`M` is the padding mask.

No residual connection, layer norm or feed-forward block (the Transformer lesson's parts): the output at a position
is exactly the attention-weighted mix of the value vectors, read out linearly. Weights are returned, never kept.

Letters: B batch, T positions, d d_model, V vocabulary.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from .adam import Adam
from .attention import causal_mask, padding_mask, scaled_dot_product_attention
from .models import ModelOutput
from .positional import positional_layer
from .tokenizers import PAD_ID

__all__ = ["SmallConfig", "SelfAttention", "TinyDecoder", "TinyEncoder", "random_strings", "fit", "Report"]

POSITIONALS = ("none", "sinusoidal", "learned")


@dataclass(frozen=True)
class SmallConfig:
    """How a :class:`TinyDecoder` or :class:`TinyEncoder` is built. Tiny defaults: trains in seconds on a CPU."""

    vocab_size: int = 40  # token ids, specials included (input and output share them)
    d_model: int = 64  # d: the size of every vector (embeddings, positions, queries, keys, values)
    positional: str = "learned"  # "learned" (one trained vector per position) | "sinusoidal" (fixed) | "none"
    max_len: int = 64  # positions the position table has rows for
    causal: bool = True  # decoder only: the causal mask on (False: every position reads every other)

    def __post_init__(self):
        if self.positional not in POSITIONALS:
            raise ValueError(f"positional must be one of {', '.join(POSITIONALS)}; got {self.positional!r}")
        if self.d_model < 2 or self.vocab_size < 2 or self.max_len < 1:
            raise ValueError("d_model and vocab_size must be at least 2, max_len at least 1")


class SelfAttention(nn.Module):
    r"""One scaled dot-product self-attention: :math:`\mathrm{softmax}(QK^\top/\sqrt{d} + M)V` with
    :math:`Q = XW^Q`, :math:`K = XW^K`, :math:`V = XW^V` (the Q/K/V lesson's, learned)."""

    def __init__(self, d_model: int):
        super().__init__()
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, d_model, bias=False)
        self.W_v = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``, ``mask`` bool broadcastable to ``(B, T, T)``; returns ``(B, T, d)`` and ``(B, T, T)``."""
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x), mask)  # (B, T, d), (B, T, T)


def _positional(config: SmallConfig) -> nn.Module | None:
    return positional_layer(config.positional, config.d_model, config.max_len)


class _Small(nn.Module):
    """Embedding (+ position) -> one self-attention -> linear read-out; the two models differ in the mask only."""

    kind = "small"

    def __init__(self, config: SmallConfig):
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        nn.init.normal_(self.embedding.weight, std=1.0 / math.sqrt(config.d_model))
        self.position = _positional(config)
        self.attention = SelfAttention(config.d_model)
        self.out = nn.Linear(config.d_model, config.vocab_size)

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """``tokens (B, T)`` -> ``X (B, T, d)``: token embedding plus the position vector (if any)."""
        x = self.embedding(tokens)  # (B, T, d)
        return x if self.position is None else self.position(x)  # (B, T, d) + (T, d)

    def _run(self, tokens: torch.Tensor, mask: torch.Tensor | None) -> ModelOutput:
        z, weights = self.attention(self.embed(tokens), mask)  # (B, T, d), (B, T, T)
        return ModelOutput(self.out(z), {"self": weights})  # logits (B, T, V)


class TinyDecoder(_Small):
    """Decoder-only: at every position, scores for the *next* token. With ``causal=True`` position t reads
    positions ≤ t (the lower triangle); without it, every position (the cheating decoder)."""

    kind = "small-decoder"

    def forward(self, tokens: torch.Tensor) -> ModelOutput:
        """``tokens (B, T)``; logits ``(B, T, V)`` (row t predicts token t + 1), ``attention["self"] (B, T, T)``."""
        mask = causal_mask(tokens.size(1), device=tokens.device) if self.config.causal else None  # (T, T)
        return self._run(tokens, mask)

    @torch.inference_mode()
    def generate(self, prompt: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Greedy: feed ``prompt (B, P)``, append the most likely next token ``n`` times, each step reading only what
        is there (the whole prefix is run again: a model without the mask changes earlier rows when a token is
        added). Returns the ``(B, n)`` new tokens and the last step's ``(B, P + n - 1, P + n - 1)`` map."""
        tokens = prompt
        weights = None
        for _ in range(n):
            output = self(tokens)
            weights = output.attention["self"]
            tokens = torch.cat([tokens, output.logits[:, -1].argmax(-1, keepdim=True)], dim=1)  # (B, t + 1)
        return tokens[:, prompt.size(1) :], weights


class TinyEncoder(_Small):
    """Encoder-only: one prediction per input position; padded positions are hidden by the padding mask."""

    kind = "small-encoder"

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor | None = None) -> ModelOutput:
        """``tokens (B, T)`` (PAD-padded), ``lengths (B,)``; logits ``(B, T, V)``, ``attention["self"] (B, T, T)``."""
        if lengths is None:
            lengths = (tokens != PAD_ID).sum(1)
        keys = padding_mask(lengths.to(tokens.device), tokens.size(1))[:, None, :]  # (B, 1, T): real keys only
        return self._run(tokens, keys)


def random_strings(n: int, lengths: torch.Tensor | int, ids: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """``(n, max length)`` token ids drawn uniformly from ``ids``, PAD after each row's length."""
    lengths = torch.full((n,), lengths) if isinstance(lengths, int) else lengths
    width = int(lengths.max())
    tokens = ids[torch.randint(len(ids), (n, width), generator=generator)]  # (n, width)
    return tokens.masked_fill(torch.arange(width)[None, :] >= lengths[:, None], PAD_ID)


@dataclass(frozen=True)
class Report:
    """One training report: the step, the seconds so far and the mean training loss since the last report."""

    step: int
    seconds: float
    loss: float


def fit(
    model: nn.Module,
    batch: Callable[[int], tuple[torch.Tensor, ...]],
    *,
    steps: int,
    lr: float = 3e-3,
    seed: int = 0,
    report_every: int = 25,
    on_report: Callable[[Report], bool | None] | None = None,
    max_seconds: float | None = None,
) -> list[Report]:
    """Adam on the cross-entropy of ``model(*inputs).logits`` against ``targets`` (PAD ignored).

    ``batch(step) -> (*inputs, targets)``. ``on_report`` returning False stops training (a live panel's Stop).
    Plain Adam with no weight decay: a position row that no training input reaches gets no gradient and stays
    exactly as initialised (the positional lesson shows it). Returns the reports.
    """

    torch.manual_seed(seed)
    optimizer = Adam(model.parameters(), lr=lr)
    start, total, count, reports = time.perf_counter(), 0.0, 0, []
    model.train()
    for step in range(1, steps + 1):
        *inputs, targets = batch(step)
        logits = model(*inputs).logits  # (B, T, V)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=PAD_ID)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        total, count = total + loss.item(), count + 1
        elapsed = time.perf_counter() - start
        over = max_seconds is not None and elapsed >= max_seconds
        if step % report_every == 0 or step == steps or over:
            report = Report(step, elapsed, total / count)
            reports.append(report)
            total, count = 0.0, 0
            if on_report is not None:
                model.eval()
                go_on = on_report(report)
                model.train()
                if go_on is False:
                    break
        if over:
            break
    model.eval()
    return reports
