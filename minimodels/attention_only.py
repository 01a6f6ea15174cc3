r"""A decoder made of attention alone: token and position vectors, causal multi-head self-attention layers
added to a residual stream, a linear read-out. No feed-forward block, no layer norm.

Elhage et al., *A Mathematical Framework for Transformer Circuits* (2021), study exactly this kind of model: with
nothing but attention between the embedding and the read-out, everything a layer writes stays in the residual
stream for later layers to read, and a two-layer model can learn a circuit that a one-layer model cannot, the
*induction head* (a head in layer 2 that finds the earlier occurrence of the current token and copies the token
that followed it, helped by a layer-1 head that writes "the previous token was …" into each position).

.. math:: x_0 = E[\text{tokens}] + P, \qquad
          x_{\ell} = x_{\ell-1} + \sum_{i=1}^{h} \kappa_{\ell,i}\,
          \mathrm{softmax}\!\Big(\frac{Q_{\ell,i} K_{\ell,i}^\top}{\sqrt{d_k}} + M\Big) V_{\ell,i}\, W^O_{\ell,i},
          \qquad \text{logits} = x_L W^{U}

with :math:`Q_{\ell,i} = x_{\ell-1} W^Q_{\ell,i}` (and K, V alike), :math:`M` the causal mask, and
:math:`\kappa_{\ell,i} \in \{0, 1\}` a head's *keep* switch: 1 in training, 0 to knock the head out (its output is
zeroed before :math:`W^O`, so the rest of the model runs unchanged). Weights are returned, never kept on the
module.

Letters: B batch, T positions, d = d_model, h heads per layer, d_k = d / h, L layers, V vocabulary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .attention import causal_mask, scaled_dot_product_attention
from .models import ModelOutput

__all__ = ["AttentionOnlyConfig", "CausalSelfAttention", "AttentionOnlyDecoder"]


@dataclass(frozen=True)
class AttentionOnlyConfig:
    """How an :class:`AttentionOnlyDecoder` is built. Tiny defaults: it trains in seconds on a CPU."""

    vocab_size: int = 32  # V: token ids
    d_model: int = 32  # d: the residual stream's width
    n_heads: int = 2  # h: heads per layer
    n_layers: int = 2  # L: attention layers
    max_len: int = 64  # positions the learned position table has rows for

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        if min(self.vocab_size, self.d_model, self.n_heads, self.n_layers, self.max_len) < 1:
            raise ValueError("every size must be at least 1")


class CausalSelfAttention(nn.Module):
    r"""Multi-head causal self-attention whose heads can be switched off one by one.

    Each head :math:`i` reads the whole stream: :math:`\mathrm{head}_i = \mathrm{softmax}(Q_iK_i^\top/\sqrt{d_k} +
    M)V_i`; the heads are concatenated and mixed by :math:`W^O`. ``keep`` multiplies each head's output before the
    mix: 1 keeps it, 0 knocks it out."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.W_qkv = nn.Linear(d_model, 3 * d_model)  # W^Q, W^K, W^V of every head, stacked
        self.W_o = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor, keep: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``, ``keep (h,)`` (None: every head). Returns ``(B, T, d)`` and the weights ``(B, h, T, T)``."""
        B, T, d = x.shape
        q, k, v = self.W_qkv(x).split(d, dim=-1)  # each (B, T, d)
        q, k, v = (t.view(B, T, self.n_heads, self.d_k).transpose(1, 2) for t in (q, k, v))  # (B, h, T, d_k)
        heads, weights = scaled_dot_product_attention(q, k, v, causal_mask(T, device=x.device))  # (B, h, T, d_k)
        if keep is not None:
            heads = heads * keep.view(1, self.n_heads, 1, 1).to(heads.dtype)  # (B, h, T, d_k): a 0 zeroes a head
        concat = heads.transpose(1, 2).reshape(B, T, d)  # (B, T, h * d_k)
        return self.W_o(concat), weights

    @classmethod
    def from_torch(cls, m: nn.MultiheadAttention) -> CausalSelfAttention:
        """A copy of a ``torch.nn.MultiheadAttention``'s weights (batch-first use, biases on, no dropout)."""
        if not m._qkv_same_embed_dim or m.in_proj_bias is None or m.bias_k is not None or m.dropout:
            raise ValueError("only nn.MultiheadAttention with one embed_dim, biases and no dropout is supported")
        ours = cls(m.embed_dim, m.num_heads)
        with torch.no_grad():
            ours.W_qkv.weight.copy_(m.in_proj_weight)  # torch stacks W^Q, W^K, W^V the same way
            ours.W_qkv.bias.copy_(m.in_proj_bias)
            ours.W_o.weight.copy_(m.out_proj.weight)
            ours.W_o.bias.copy_(m.out_proj.bias)
        return ours.to(m.in_proj_weight.device)


class AttentionOnlyDecoder(nn.Module):
    """Decoder-only, attention only: at every position, scores for the next token.

    ``forward(tokens, keep=None)`` returns :class:`~minimodels.models.ModelOutput` with ``logits (B, T, V)`` (row t
    predicts token t + 1) and ``attention["layer{l}"] (B, h, T, T)`` for l = 1 … L. ``keep (L, h)`` switches heads
    off (0) for a knock-out; None keeps them all."""

    kind = "attention-only"

    def __init__(self, config: AttentionOnlyConfig):
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position = nn.Parameter(torch.randn(config.max_len, config.d_model) / math.sqrt(config.d_model))
        nn.init.normal_(self.embedding.weight, std=1.0 / math.sqrt(config.d_model))
        self.layers = nn.ModuleList(CausalSelfAttention(config.d_model, config.n_heads) for _ in range(config.n_layers))
        self.unembed = nn.Linear(config.d_model, config.vocab_size)

    def forward(self, tokens: torch.Tensor, keep: torch.Tensor | None = None) -> ModelOutput:
        if tokens.size(1) > self.config.max_len:
            raise ValueError(f"{tokens.size(1)} positions; the position table has {self.config.max_len}")
        T = tokens.size(1)
        x = self.embedding(tokens) + self.position[:T]  # (B, T, d)
        attention = {}
        for index, layer in enumerate(self.layers):
            out, weights = layer(x, None if keep is None else keep[index])  # (B, T, d), (B, h, T, T)
            x = x + out  # the residual stream: each layer adds what it read
            attention[f"layer{index + 1}"] = weights
        return ModelOutput(self.unembed(x), attention)  # logits (B, T, V)
