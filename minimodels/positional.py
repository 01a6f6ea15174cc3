"""Positional encodings: self-attention alone cannot tell word order, so position is added to each input.

Letters: T positions, d d_model.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["sinusoidal_encoding", "SinusoidalPositionalEncoding", "LearnedPositionalEmbedding", "positional_layer"]


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
