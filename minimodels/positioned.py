r"""A small causal model whose only position information comes from one of five schemes, for comparing them.

One multi-head self-attention (the multi-head lesson's) under the causal mask, between a token embedding and a
linear read-out; no residual, layer norm or feed-forward block, so what a position reads is exactly its attention's
mix of values. Position enters in one of five ways (:data:`SCHEMES`):

* ``none``: nothing; the causal mask is the only hint of order.
* ``sinusoidal`` / ``learned``: a vector added to each input (Vaswani et al. 2017, §3.5; BERT/GPT's table), from a
  table of ``max_len`` rows.
* ``rope``: queries and keys turned by their position before the dot product (Su et al., *RoFormer*, 2021).
* ``alibi``: a penalty of ``slope × distance`` added to each head's scores (Press et al., ICLR 2022).

.. math:: s^{(h)}_{ij} = \frac{q^{(h)}_i \cdot k^{(h)}_j}{\sqrt{d_k}} + b^{(h)}_{ij}, \qquad
          \alpha^{(h)}_{ij} = \mathrm{softmax}_{j \le i}\big(s^{(h)}_{ij}\big)

with :math:`q, k` rotated for ``rope`` and :math:`b^{(h)}_{ij} = -m_h (i-j)` for ``alibi`` (0 otherwise).

Letters: B batch, T positions, d d_model, H heads, d_k = d / H, V vocabulary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .attention import causal_mask, masked_softmax
from .models import ModelOutput
from .positional import ALiBi, RotaryPositionalEmbedding, positional_layer

__all__ = ["SCHEMES", "PositionedConfig", "PositionedAttention", "PositionedDecoder"]

SCHEMES: tuple[str, ...] = ("none", "sinusoidal", "learned", "rope", "alibi")


@dataclass(frozen=True)
class PositionedConfig:
    """How a :class:`PositionedDecoder` is built. Tiny defaults: trains in seconds on one CPU core."""

    vocab_size: int = 40  # token ids, specials included (input and output share them)
    d_model: int = 32  # d: embeddings, and the heads' queries, keys and values side by side
    n_heads: int = 4  # H: each head has d_k = d / H dimensions (RoPE turns them in pairs) and ALiBi its own slope
    positional: str = "rope"  # one of SCHEMES
    max_len: int = 64  # rows of the sinusoidal and learned tables: the longest input those two can read

    def __post_init__(self):
        if self.positional not in SCHEMES:
            raise ValueError(f"positional must be one of {', '.join(SCHEMES)}; got {self.positional!r}")
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model ({self.d_model}) must split into {self.n_heads} heads of an even size")
        if self.vocab_size < 2 or self.max_len < 1:
            raise ValueError("vocab_size must be at least 2, max_len at least 1")


class PositionedAttention(nn.Module):
    """Causal multi-head self-attention, with queries and keys rotated (``rope``) or an ALiBi bias (``alibi``)."""

    def __init__(self, config: PositionedConfig):
        super().__init__()
        d, self.n_heads, self.d_k = config.d_model, config.n_heads, config.d_model // config.n_heads
        self.W_q = nn.Linear(d, d, bias=False)
        self.W_k = nn.Linear(d, d, bias=False)
        self.W_v = nn.Linear(d, d, bias=False)
        self.W_o = nn.Linear(d, d, bias=False)
        self.rotary = RotaryPositionalEmbedding(self.d_k) if config.positional == "rope" else None
        self.alibi = ALiBi(config.n_heads) if config.positional == "alibi" else None

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_k).transpose(1, 2)  # (B, T, d) -> (B, H, T, d_k)

    def scores(self, x: torch.Tensor) -> torch.Tensor:
        """The scores before the mask and the softmax, ``(B, H, T, T)``, for inputs ``x (B, T, d)``."""
        q, k = self._split(self.W_q(x)), self._split(self.W_k(x))  # (B, H, T, d_k) each
        if self.rotary is not None:
            q, k = self.rotary(q, k)  # each turned by its own position
        s = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)  # (B, H, T, T)
        if self.alibi is not None:
            s = s + self.alibi(x.size(1), s.dtype)  # + (H, T, T)
        return s

    def forward(self, x: torch.Tensor, lengths: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``; returns ``(B, T, d)`` and the weights ``(B, H, T, T)`` (query i reads keys j ≤ i).
        Padding sits after each row's tokens, so the causal mask alone keeps every real query off it."""
        B, T, _ = x.shape
        weights = masked_softmax(self.scores(x), causal_mask(T, device=x.device))  # (B, H, T, T)
        heads = weights @ self._split(self.W_v(x))  # (B, H, T, d_k)
        return self.W_o(heads.transpose(1, 2).reshape(B, T, -1)), weights  # (B, T, d), (B, H, T, T)


class PositionedDecoder(nn.Module):
    """Embedding (+ a position vector for ``sinusoidal``/``learned``) -> :class:`PositionedAttention` -> read-out:
    one prediction per position, each reading only the positions up to its own."""

    kind = "positioned-decoder"

    def __init__(self, config: PositionedConfig):
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        nn.init.normal_(self.embedding.weight, std=1.0 / math.sqrt(config.d_model))
        self.position = positional_layer(config.positional, config.d_model, config.max_len)  # None for three
        self.attention = PositionedAttention(config)
        self.out = nn.Linear(config.d_model, config.vocab_size)

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """``tokens (B, T)`` -> ``(B, T, d)``; ``ValueError`` past a table's ``max_len`` (rope and alibi have none)."""
        x = self.embedding(tokens)  # (B, T, d)
        return x if self.position is None else self.position(x)  # (B, T, d) + (T, d)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor | None = None) -> ModelOutput:
        """``tokens (B, T)``; logits ``(B, T, V)`` and ``attention["self"] (B, H, T, T)``."""
        z, weights = self.attention(self.embed(tokens), lengths)  # (B, T, d), (B, H, T, T)
        return ModelOutput(self.out(z), {"self": weights})
