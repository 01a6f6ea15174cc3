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

Two more hands on a head, for the lessons that question what its weights mean: ``override(layer, weights, allowed)``
replaces a layer's weights before they mix the values (zeroed, permuted, forced; :mod:`minimodels.head_interventions`
builds them), and two switches of the config plant a known bug (scores not divided by :math:`\sqrt{d_k}`; the mask
on the wrong side, so that each position sees itself and the future instead of the past).

Letters: B batch, T positions, d = d_model, h heads per layer, d_k = d / h, L layers, V vocabulary.
"""

from __future__ import annotations

import functools
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
    scaled: bool = True  # False plants a bug: scores are not divided by sqrt(d_k)
    future: bool = False  # True plants a bug: the mask is on the wrong side (position i sees j >= i, not j <= i)

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

    def __init__(self, d_model: int, n_heads: int, *, scaled: bool = True, future: bool = False):
        super().__init__()
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.scaled = scaled  # False: the planted bug of a missing 1/sqrt(d_k)
        self.future = future  # True: the planted bug of a mask on the wrong side
        self.W_qkv = nn.Linear(d_model, 3 * d_model)  # W^Q, W^K, W^V of every head, stacked
        self.W_o = nn.Linear(d_model, d_model)

    def allowed(self, T: int, device=None) -> torch.Tensor:
        """``(T, T)`` bool, the keys each query may read: j <= i, or j >= i with the planted wrong-side mask."""
        mask = causal_mask(T, device=device)
        return mask.mT if self.future else mask

    def forward(
        self, x: torch.Tensor, keep: torch.Tensor | None = None, override=None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, T, d)``, ``keep (h,)`` (None: every head), ``override(weights, allowed) -> weights`` (None: the
        weights as computed). Returns ``(B, T, d)`` and the weights that mixed the values ``(B, h, T, T)``."""
        B, T, d = x.shape
        q, k, v = self.W_qkv(x).split(d, dim=-1)  # each (B, T, d)
        q, k, v = (t.view(B, T, self.n_heads, self.d_k).transpose(1, 2) for t in (q, k, v))  # (B, h, T, d_k)
        if not self.scaled:
            q = q * math.sqrt(self.d_k)  # (B, h, T, d_k): cancels the 1/sqrt(d_k) below, the planted bug
        allowed = self.allowed(T, x.device)
        heads, weights = scaled_dot_product_attention(q, k, v, allowed)  # (B, h, T, d_k), (B, h, T, T)
        if override is not None:
            weights = override(weights, allowed)  # (B, h, T, T)
            heads = weights @ v  # (B, h, T, d_k)
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

    ``forward(tokens, keep=None, override=None)`` returns :class:`~minimodels.models.ModelOutput` with ``logits (B, T,
    V)`` (row t predicts token t + 1) and ``attention["layer{l}"] (B, h, T, T)`` for l = 1 … L, the weights that
    mixed the values. ``keep (L, h)`` switches heads off (0) for a knock-out; None keeps them all. ``override(layer,
    weights, allowed)`` (layer counted from 0) returns the weights a layer uses instead of its own; None changes
    nothing. ``embedded (B, T, d)``: the token vectors to use instead of looking ``tokens`` up (for gradients with
    respect to them)."""

    kind = "attention-only"

    def __init__(self, config: AttentionOnlyConfig):
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position = nn.Parameter(torch.randn(config.max_len, config.d_model) / math.sqrt(config.d_model))
        nn.init.normal_(self.embedding.weight, std=1.0 / math.sqrt(config.d_model))
        self.layers = nn.ModuleList(
            CausalSelfAttention(config.d_model, config.n_heads, scaled=config.scaled, future=config.future)
            for _ in range(config.n_layers)
        )
        self.unembed = nn.Linear(config.d_model, config.vocab_size)

    def forward(
        self, tokens: torch.Tensor, keep: torch.Tensor | None = None, override=None, embedded=None
    ) -> ModelOutput:
        if tokens.size(1) > self.config.max_len:
            raise ValueError(f"{tokens.size(1)} positions; the position table has {self.config.max_len}")
        T = tokens.size(1)
        x = (self.embedding(tokens) if embedded is None else embedded) + self.position[:T]  # (B, T, d)
        attention = {}
        for index, layer in enumerate(self.layers):
            mine = None if override is None else functools.partial(override, index)
            out, weights = layer(x, None if keep is None else keep[index], mine)  # (B, T, d), (B, h, T, T)
            x = x + out  # the residual stream: each layer adds what it read
            attention[f"layer{index + 1}"] = weights
        return ModelOutput(self.unembed(x), attention)  # logits (B, T, V)
