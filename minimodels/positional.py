"""Positional encodings: self-attention alone cannot tell word order, so position is given to it.

Three add a vector to each input (none, the fixed sinusoids, a learned table); two put position into the attention
score itself, as a function of the distance between query and key: rotary embeddings (RoPE) turn queries and keys
by an angle proportional to their position, ALiBi adds a penalty proportional to their distance.

Letters: T positions, d d_model (or a head's size d_k, for RoPE), h a head, H heads, m and n positions.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = [
    "sinusoidal_encoding",
    "SinusoidalPositionalEncoding",
    "LearnedPositionalEmbedding",
    "positional_layer",
    "rotary_frequencies",
    "rotate_pairs",
    "RotaryPositionalEmbedding",
    "alibi_slopes",
    "alibi_bias",
    "ALiBi",
]


def sinusoidal_encoding(n_positions: int, d_model: int) -> torch.Tensor:
    r"""The fixed sinusoids of Vaswani et al. 2017, §3.5, as a ``(n_positions, d_model)`` tensor.

    .. math:: PE_{(pos, 2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right), \quad
              PE_{(pos, 2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)

    Each pair of dimensions is one frequency, so for any fixed offset k, PE_{pos+k} is a rotation (a linear
    function) of PE_pos. An odd ``d_model`` keeps the last sine column and drops its cosine.
    """
    if n_positions < 0 or d_model < 1:
        raise ValueError("n_positions must be >= 0 and d_model >= 1")
    pos = torch.arange(n_positions, dtype=torch.float64).unsqueeze(1)  # (T, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(d/2),)
    angle = pos / torch.pow(10000.0, two_i / d_model)  # (T, ceil(d/2))
    pe = torch.zeros(n_positions, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.to(torch.get_default_dtype())


class SinusoidalPositionalEncoding(nn.Module):
    """Adds :func:`sinusoidal_encoding` to ``(B, T, d)`` inputs. No parameters; the table is a buffer."""

    def __init__(self, d_model: int, max_len: int = 512):
        super().__init__()
        self.register_buffer("table", sinusoidal_encoding(max_len, d_model), persistent=False)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        T = x.size(1)
        if offset + T > self.table.size(0):
            raise ValueError(f"sequence of {offset + T} positions exceeds max_len {self.table.size(0)}")
        return x + self.table[offset : offset + T]  # (B, T, d) + (T, d)


class LearnedPositionalEmbedding(nn.Module):
    """A learned vector per position (as in BERT/GPT), added to ``(B, T, d)`` inputs."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.embedding.weight, std=1.0 / math.sqrt(d_model))

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        T = x.size(1)
        if offset + T > self.embedding.num_embeddings:
            raise ValueError(f"sequence of {offset + T} positions exceeds max_len {self.embedding.num_embeddings}")
        positions = torch.arange(offset, offset + T, device=x.device)  # (T,)
        return x + self.embedding(positions)  # (B, T, d) + (T, d)


def positional_layer(kind: str, d_model: int, max_len: int) -> nn.Module | None:
    """The layer that adds position vectors for a model's ``positional`` setting: ``"sinusoidal"`` (fixed),
    ``"learned"`` (one trained vector per position), or None (``"none"``: no position information)."""
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(d_model, max_len)
    if kind == "learned":
        return LearnedPositionalEmbedding(max_len, d_model)
    return None


def rotary_frequencies(d: int, base: float = 10000.0) -> torch.Tensor:
    r"""RoPE's angle per position for each pair of dimensions, ``(d/2,)``: :math:`\theta_i = 10000^{-2i/d}`
    (Su et al., *RoFormer*, 2021; the sinusoids' frequencies). ``d`` must be even: dimensions go in pairs."""
    if d < 2 or d % 2:
        raise ValueError(f"rotary embeddings turn pairs of dimensions: d must be even and >= 2, got {d}")
    two_i = torch.arange(0, d, 2, dtype=torch.float64)  # (d/2,)
    return torch.pow(base, -two_i / d)


def rotate_pairs(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    r"""Turn each pair :math:`(x_{2i}, x_{2i+1})` of ``x (..., T, d)`` by the angle :math:`m\,\theta_i`, m the
    position of its row (``positions (T,)``): the element-wise form RoFormer gives for its block-diagonal rotation
    matrix.

    .. math:: \begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} =
              \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}
              \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}

    A rotation keeps lengths, and two rotations compose by adding angles, so
    :math:`(R_m q)\cdot(R_n k) = q^\top R_{n-m}\, k`: the score depends on the positions through n − m alone.
    """
    angle = positions.to(torch.float64)[:, None] * rotary_frequencies(x.size(-1), base)  # (T, d/2)
    cos, sin = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)  # (T, d/2) each
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., T, d/2) each
    turned = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)  # (..., T, d/2, 2)
    return turned.flatten(-2)  # (..., T, d): pairs back in place


class RotaryPositionalEmbedding(nn.Module):
    """RoPE (Su et al. 2021): turns a head's queries and keys ``(B, h, T, d_k)`` by :func:`rotate_pairs` before
    their dot product. No parameters and no table: any position has its angle, so any length can be read."""

    def __init__(self, d_k: int, base: float = 10000.0):
        super().__init__()
        rotary_frequencies(d_k, base)  # refuses an odd size here, not at the first forward
        self.base = base

    def forward(self, q: torch.Tensor, k: torch.Tensor, offset: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(offset, offset + q.size(-2), device=q.device)  # (T,)
        return rotate_pairs(q, positions, self.base), rotate_pairs(k, positions, self.base)


def alibi_slopes(n_heads: int) -> torch.Tensor:
    r"""ALiBi's slope per head, ``(H,)``: the geometric sequence :math:`m_h = 2^{-8h/H}`, h = 1 … H (Press, Smith &
    Lewis, *Train Short, Test Long*, ICLR 2022, §3: for 8 heads 1/2, 1/4, …, 1/256). The paper states it for H a
    power of two; the same formula is used for any H here."""
    if n_heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {n_heads}")
    h = torch.arange(1, n_heads + 1, dtype=torch.float64)  # (H,)
    return torch.pow(2.0, -8.0 * h / n_heads)


def alibi_bias(n_heads: int, T: int) -> torch.Tensor:
    r"""ALiBi's penalty added to the scores, ``(H, T, T)``: :math:`-m_h\,(i - j)` for query i and key j.

    Keys before the query (j < i) lose more the further back they are; the diagonal gets 0. ALiBi is made for a
    causal model: the keys after the query (j > i, where the value is positive) are hidden by the causal mask.
    """
    i = torch.arange(T, dtype=torch.float64)[:, None]  # (T, 1) query positions
    j = torch.arange(T, dtype=torch.float64)[None, :]  # (1, T) key positions
    return -alibi_slopes(n_heads)[:, None, None] * (i - j)  # (H, 1, 1) * (T, T) -> (H, T, T)


class ALiBi(nn.Module):
    """ALiBi (Press et al. 2022): :func:`alibi_bias` for ``n_heads``, in the scores' dtype. No parameters and no
    table: the penalty of any distance is its slope times the distance, so any length can be read."""

    def __init__(self, n_heads: int):
        super().__init__()
        alibi_slopes(n_heads)  # refuses zero heads here
        self.n_heads = n_heads

    def forward(self, T: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return alibi_bias(self.n_heads, T).to(dtype)  # (H, T, T)
