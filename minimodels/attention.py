"""Attention, written out the way the course teaches it.

Every function and module here *returns* its attention weights and keeps none of them on ``self``: a
pretrained model is shared read-only by every student on a class server, so a weight stored on a module
would leak one student's heatmap into another's.

Mask convention (the same as ``torch.nn.functional.scaled_dot_product_attention``): a bool tensor
broadcastable to ``(..., Tq, Tk)``, **True where attention is allowed**. A query row with no allowed key
gets all-zero weights and a zero output rather than NaN.

Letters used in shape comments:
    B batch, Tq query positions, Tk key positions, d query/key size, dv value size,
    h heads, d_k = d_model / h per-head size.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = [
    "masked_softmax",
    "scaled_dot_product_attention",
    "DotProductAttention",
    "ScaledDotProductAttention",
    "BilinearAttention",
    "AdditiveAttention",
    "MultiHeadAttention",
    "padding_mask",
    "causal_mask",
]


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    r"""Softmax over the last axis, with disallowed positions set to exactly 0.

    Disallowed scores are set to :math:`-\infty` before the softmax (the lecture's "set future attention
    to −inf"). A row whose every position is disallowed would be ``0/0``; it is returned as zeros.
    """
    if mask is None:
        return torch.softmax(scores, dim=-1)
    mask = mask.to(torch.bool)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # exp(-inf) = 0: disallowed keys get exactly 0 already
    if mask.device.type == "cpu" and bool(mask.any(dim=-1).all()):
        return weights  # every row has an allowed key (the usual case); checking costs no GPU sync on the CPU
    return weights.masked_fill(~mask, 0.0)  # rows with no allowed key are NaN (0/0) before this


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    scale: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V  (Vaswani et al. 2017, eq. 1).

    .. math:: \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V

    Args:
        q: queries ``(..., Tq, d)``.
        k: keys ``(..., Tk, d)``.
        v: values ``(..., Tk, dv)``.
        mask: bool, broadcastable to ``(..., Tq, Tk)``, True where attention is allowed.
        scale: divide the scores by √d (True) or use plain dot products (False).

    Returns:
        ``(out, weights)``: ``out`` is ``(..., Tq, dv)``, ``weights`` is ``(..., Tq, Tk)`` and each row sums
        to 1 (or is all zeros when the mask allows no key).
    """
    scores = q @ k.transpose(-2, -1)  # (..., Tq, Tk)
    if scale:
        scores = scores / math.sqrt(q.size(-1))
    weights = masked_softmax(scores, mask)  # (..., Tq, Tk)
    return weights @ v, weights  # (..., Tq, dv), (..., Tq, Tk)


class _ScoreAttention(nn.Module):
    """Shared shape of the score modules: score every key against the query, softmax, weighted sum.

    ``forward(query, keys, values, mask=None) -> (context, weights)`` where ``query`` is ``(B, d_q)`` for a
    single decoder step or ``(B, Tq, d_q)`` for many, ``keys`` ``(B, Tk, d_k)``, ``values`` ``(B, Tk, d_v)``
    and ``mask`` broadcastable to ``(B, Tq, Tk)`` (or ``(B, Tk)`` for a single query).
    """

    def score(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        """Raw scores ``(B, Tq, Tk)`` for queries ``(B, Tq, d_q)`` and keys ``(B, Tk, d_k)``."""
        raise NotImplementedError

    def forward(
        self,
        query: torch.Tensor,
        keys: torch.Tensor,
        values: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        single = query.dim() == 2
        if single:
            query = query.unsqueeze(1)  # (B, 1, d_q)
            if mask is not None and mask.dim() == 2:
                mask = mask.unsqueeze(1)  # (B, 1, Tk)
        weights = masked_softmax(self.score(query, keys), mask)  # (B, Tq, Tk)
        context = weights @ values  # (B, Tq, d_v)
        if single:
            return context.squeeze(1), weights.squeeze(1)  # (B, d_v), (B, Tk)
        return context, weights


class DotProductAttention(_ScoreAttention):
    r"""Dot-product score (Luong et al. 2015): :math:`e_i = q^\top k_i`. No parameters; needs d_q = d_k."""

    def score(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return query @ keys.transpose(-2, -1)  # (B, Tq, Tk)


class ScaledDotProductAttention(_ScoreAttention):
    r"""Scaled dot-product score (Vaswani et al. 2017): :math:`e_i = q^\top k_i / \sqrt{d_k}`."""

    def score(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return query @ keys.transpose(-2, -1) / math.sqrt(keys.size(-1))  # (B, Tq, Tk)


class BilinearAttention(_ScoreAttention):
    r"""Bilinear score, Luong's "general": :math:`e_i = q^\top W k_i`, with a learned ``W`` (d_q × d_k)."""

    def __init__(self, query_size: int, key_size: int):
        super().__init__()
        self.W = nn.Linear(key_size, query_size, bias=False)  # W k_i, (d_k -> d_q)

    def score(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return query @ self.W(keys).transpose(-2, -1)  # (B, Tq, d_q) @ (B, d_q, Tk) -> (B, Tq, Tk)


class AdditiveAttention(_ScoreAttention):
    r"""Additive (MLP) score of Bahdanau et al. 2015: :math:`e_i = v^\top \tanh(W_q q + W_k k_i)`.

    Bahdanau writes it as :math:`v^\top \tanh(W[s_{t-1}; h_i])`; splitting ``W`` into a query half and a key
    half is the same function, and lets the key half be computed once per source sentence.
    """

    def __init__(self, query_size: int, key_size: int, hidden_size: int):
        super().__init__()
        self.W_q = nn.Linear(query_size, hidden_size, bias=False)
        self.W_k = nn.Linear(key_size, hidden_size, bias=True)
        self.v = nn.Linear(hidden_size, 1, bias=False)

    def score(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        hidden = torch.tanh(self.W_q(query).unsqueeze(2) + self.W_k(keys).unsqueeze(1))  # (B, Tq, Tk, H)
        return self.v(hidden).squeeze(-1)  # (B, Tq, Tk)


class MultiHeadAttention(nn.Module):
    r"""Multi-head attention (Vaswani et al. 2017, §3.2.2).

    .. math:: \mathrm{MultiHead}(Q,K,V) = \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O,\quad
              \mathrm{head}_i = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)

    d_model is split into ``h`` heads of ``d_k = d_model / h``: each head attends in its own
    "representation subspace", then the heads are concatenated and mixed by ``W^O``.
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_k).transpose(1, 2)  # (B, T, d_model) -> (B, h, T, d_k)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Inputs ``(B, Tq, d_model)``, ``(B, Tk, d_model)``, ``(B, Tk, d_model)``.

        ``mask`` is bool, broadcastable to ``(B, h, Tq, Tk)`` (a ``(Tq, Tk)`` causal mask or a
        ``(B, 1, 1, Tk)`` padding mask both work), True where attention is allowed.

        Returns ``out (B, Tq, d_model)`` and ``weights (B, h, Tq, Tk)``.
        """
        B, Tq, _ = query.shape
        q = self._split(self.W_q(query))  # (B, h, Tq, d_k)
        k = self._split(self.W_k(key))  # (B, h, Tk, d_k)
        v = self._split(self.W_v(value))  # (B, h, Tk, d_k)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, h, Tq, d_k), (B, h, Tq, Tk)
        concat = heads.transpose(1, 2).reshape(B, Tq, self.d_model)  # (B, Tq, h * d_k)
        return self.W_o(concat), weights

    @classmethod
    def from_torch(cls, m: nn.MultiheadAttention) -> MultiHeadAttention:
        """A copy of a ``torch.nn.MultiheadAttention``'s weights (same d_model for q, k and v)."""
        if not m._qkv_same_embed_dim:
            raise ValueError("only nn.MultiheadAttention with kdim == vdim == embed_dim is supported")
        if m.bias_k is not None or m.add_zero_attn:
            raise ValueError("add_bias_kv and add_zero_attn are not supported")
        if m.dropout:
            raise ValueError("nn.MultiheadAttention with dropout > 0 has no deterministic twin here")
        has_bias = m.in_proj_bias is not None
        ours = cls(m.embed_dim, m.num_heads, bias=has_bias)
        w_q, w_k, w_v = m.in_proj_weight.detach().chunk(3, dim=0)
        with torch.no_grad():
            for lin, w in zip((ours.W_q, ours.W_k, ours.W_v), (w_q, w_k, w_v), strict=True):
                lin.weight.copy_(w)
            ours.W_o.weight.copy_(m.out_proj.weight)
            if has_bias:
                b_q, b_k, b_v = m.in_proj_bias.detach().chunk(3)
                for lin, b in zip((ours.W_q, ours.W_k, ours.W_v), (b_q, b_k, b_v), strict=True):
                    lin.bias.copy_(b)
                ours.W_o.bias.copy_(m.out_proj.bias)
        return ours.to(m.in_proj_weight.device)


def padding_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """``(B, max_len)`` bool, True at real tokens (position < length), False at padding.

    Broadcast it to keys with ``mask[:, None, :]`` (``(B, 1, Tk)``) or ``mask[:, None, None, :]`` for heads.
    """
    lengths = torch.as_tensor(lengths)
    positions = torch.arange(max_len, device=lengths.device)  # (max_len,)
    return positions.unsqueeze(0) < lengths.unsqueeze(1)  # (B, max_len)


def causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """``(T, T)`` bool, True on and below the diagonal: position i may attend to positions ≤ i."""
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()
