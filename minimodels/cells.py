"""Recurrent cells written out gate by gate, with the lecture's equations.

Each cell's ``forward(x, state)`` returns ``(new_state, gates)``: the new state and a dict of every gate
activation, so the RNN-cells lesson can draw each gate as a heatmap over time. The weights are laid out
exactly like ``torch.nn.RNNCell`` / ``GRUCell`` / ``LSTMCell`` (``weight_ih``, ``weight_hh``, ``bias_ih``,
``bias_hh`` with the gates stacked in PyTorch's order), so ``from_torch`` is a plain copy and the parity
tests compare our gate-by-gate arithmetic with PyTorch's fused kernels.

Letters: B batch, I input size, H hidden size.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]


class _Cell(nn.Module):
    """Parameters in ``torch.nn.RNNCellBase``'s layout: ``n_gates`` blocks of H rows, stacked."""

    n_gates = 1
    torch_cell: type[nn.RNNCellBase] = nn.RNNCell

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        rows = self.n_gates * hidden_size
        self.weight_ih = nn.Parameter(torch.empty(rows, input_size))  # (G*H, I)
        self.weight_hh = nn.Parameter(torch.empty(rows, hidden_size))  # (G*H, H)
        self.bias_ih = nn.Parameter(torch.empty(rows)) if bias else None
        self.bias_hh = nn.Parameter(torch.empty(rows)) if bias else None
        bound = 1.0 / math.sqrt(hidden_size)  # PyTorch's own initialisation
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def _linear(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The input and hidden projections, each ``(B, G*H)``, biases included."""
        gi = x @ self.weight_ih.T  # (B, G*H)
        gh = h @ self.weight_hh.T  # (B, G*H)
        if self.bias_ih is not None:
            gi = gi + self.bias_ih
            gh = gh + self.bias_hh
        return gi, gh

    def initial_state(self, batch_size: int, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.zeros(batch_size, self.hidden_size, device=device)

    @classmethod
    def from_torch(cls, cell: nn.RNNCellBase):
        """A copy of a ``torch.nn`` cell of the same kind, weight for weight."""
        if not isinstance(cell, cls.torch_cell):
            raise TypeError(f"{cls.__name__}.from_torch expects a torch.nn.{cls.torch_cell.__name__}")
        ours = cls(cell.input_size, cell.hidden_size, bias=cell.bias)
        if isinstance(cell, nn.RNNCell) and cell.nonlinearity != "tanh":
            raise ValueError("only the tanh RNNCell is taught here")
        ours.load_state_dict(cell.state_dict())
        return ours.to(cell.weight_ih.device)


class RNNCell(_Cell):
    r"""The plain (Elman) RNN cell.

    .. math:: a^{\langle t\rangle} = \tanh(W_{aa} a^{\langle t-1\rangle} + W_{ax} x^{\langle t\rangle} + b_a)

    Gates returned: ``{"hidden": a_t}`` (it has none; the hidden activation is shown instead).
    """

    n_gates = 1
    torch_cell = nn.RNNCell

    def forward(self, x: torch.Tensor, h: torch.Tensor | None = None):
        if h is None:
            h = self.initial_state(x.size(0), x.device)
        gi, gh = self._linear(x, h)  # (B, H) each
        h_new = torch.tanh(gi + gh)
        return h_new, {"hidden": h_new}


class GRUCell(_Cell):
    r"""The gated recurrent unit (Cho et al. 2014), in the lecture's notation.

    .. math::
        \Gamma_r &= \sigma(W_r[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_r) \\
        \Gamma_u &= \sigma(W_u[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u) \\
        \tilde c^{\langle t\rangle} &= \tanh(W_{cx} x^{\langle t\rangle}
            + \Gamma_r * (W_{cc} c^{\langle t-1\rangle}) + b_c) \\
        c^{\langle t\rangle} &= \Gamma_u * \tilde c^{\langle t\rangle}
            + (1 - \Gamma_u) * c^{\langle t-1\rangle}

    Two details, both chosen to match ``torch.nn.GRUCell`` exactly:
    the reset gate multiplies the *projected* previous state (the lecture multiplies it before the
    projection), and PyTorch's ``z`` gate is the fraction of the old state *kept*, so the lecture's update
    gate is :math:`\Gamma_u = 1 - z`. Gates returned: ``reset`` Γ_r, ``update`` Γ_u, ``candidate`` c̃.
    """

    n_gates = 3  # PyTorch's order: r, z, n
    torch_cell = nn.GRUCell

    def forward(self, x: torch.Tensor, h: torch.Tensor | None = None):
        if h is None:
            h = self.initial_state(x.size(0), x.device)
        gi, gh = self._linear(x, h)  # (B, 3H) each
        i_r, i_z, i_n = gi.chunk(3, dim=1)  # (B, H) each
        h_r, h_z, h_n = gh.chunk(3, dim=1)
        reset = torch.sigmoid(i_r + h_r)
        keep = torch.sigmoid(i_z + h_z)  # PyTorch's z
        candidate = torch.tanh(i_n + reset * h_n)
        update = 1.0 - keep  # the lecture's Γ_u
        h_new = update * candidate + keep * h
        return h_new, {"update": update, "reset": reset, "candidate": candidate}


class LSTMCell(_Cell):
    r"""Long short-term memory (Hochreiter & Schmidhuber 1997), in the lecture's notation.

    .. math::
        \tilde c^{\langle t\rangle} &= \tanh(W_c[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_c) \\
        \Gamma_u &= \sigma(W_u[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u) \\
        \Gamma_f &= \sigma(W_f[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_f) \\
        \Gamma_o &= \sigma(W_o[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_o) \\
        c^{\langle t\rangle} &= \Gamma_u * \tilde c^{\langle t\rangle} + \Gamma_f * c^{\langle t-1\rangle} \\
        a^{\langle t\rangle} &= \Gamma_o * \tanh(c^{\langle t\rangle})

    The state is the pair ``(a, c)``. Gates returned: ``input`` Γ_u, ``forget`` Γ_f, ``output`` Γ_o,
    ``candidate`` c̃ (PyTorch stacks them as i, f, g, o).
    """

    n_gates = 4
    torch_cell = nn.LSTMCell

    def initial_state(self, batch_size: int, device: torch.device | str | None = None):
        zeros = torch.zeros(batch_size, self.hidden_size, device=device)
        return zeros, zeros.clone()

    def forward(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor] | None = None):
        h, c = state if state is not None else self.initial_state(x.size(0), x.device)
        gi, gh = self._linear(x, h)  # (B, 4H) each
        i, f, g, o = (gi + gh).chunk(4, dim=1)  # (B, H) each
        input_gate = torch.sigmoid(i)
        forget = torch.sigmoid(f)
        candidate = torch.tanh(g)
        output = torch.sigmoid(o)
        c_new = input_gate * candidate + forget * c
        h_new = output * torch.tanh(c_new)
        gates = {"input": input_gate, "forget": forget, "output": output, "candidate": candidate}
        return (h_new, c_new), gates
