"""The lesson's three cells with seeded random weights, never trained: what section 1 steps through a sentence and
section 3 differentiates (the cells themselves are :mod:`minimodels.cells`).

Letters: B batch, I input (embedding) size, H hidden size.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from minimodels.cells import GRUCell, LSTMCell, RNNCell

CELLS: dict[str, type[nn.Module]] = {"RNN": RNNCell, "GRU": GRUCell, "LSTM": LSTMCell}
INPUT_SIZE = 16  # every token is a fixed random vector of this size (lessons.common.sentences.word_embedding)


def make_cell(
    kind: str,
    hidden_size: int,
    seed: int,
    *,
    input_size: int = INPUT_SIZE,
    gate_bias: float = 0.0,
    recurrent_scale: float = 1.0,
    dtype: torch.dtype = torch.float32,
) -> nn.Module:
    """A cell with seeded random weights (PyTorch's own uniform ±1/√H initialisation), never trained.

    ``gate_bias`` is added to the bias of the gate that decides how much memory is *kept*: the LSTM's forget
    gate Γ_f, and the GRU's 1 − Γ_u (PyTorch's z gate); both sit in rows H:2H of the stacked weights.
    ``recurrent_scale`` multiplies the recurrent weights (W_aa for the RNN). A private generator leaves the
    global random state, which every student's session shares, untouched.
    """
    if kind not in CELLS:
        raise ValueError(f"unknown cell {kind!r}; choose one of {list(CELLS)}")
    g = torch.Generator().manual_seed(seed)
    with torch.device("meta"):  # shapes only: the cell's own initialisation would draw from the global generator
        cell = CELLS[kind](input_size, hidden_size)
    cell = cell.to_empty(device="cpu").to(dtype)
    bound = 1.0 / math.sqrt(hidden_size)
    with torch.no_grad():
        for p in cell.parameters():
            nn.init.uniform_(p, -bound, bound, generator=g)
        cell.weight_hh.mul_(recurrent_scale)
        if kind != "RNN":
            cell.bias_ih[hidden_size : 2 * hidden_size] += gate_bias
    return cell


def zero_state(kind: str, batch_size: int, hidden_size: int, dtype: torch.dtype = torch.float32):
    """a⟨0⟩ = 0 (and c⟨0⟩ = 0 for the LSTM), in the cell's dtype."""
    a0 = torch.zeros(batch_size, hidden_size, dtype=dtype)
    return (a0, a0.clone()) if kind == "LSTM" else a0


def sigmoid(x: float) -> float:
    """σ, the squashing of every gate: between 0 (shut) and 1 (open)."""
    return 1.0 / (1.0 + math.exp(-x))
