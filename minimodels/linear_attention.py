r"""Linear attention (Katharopoulos, Vyas, Pappas & Fleuret, *Transformers are RNNs*, ICML 2020), in its two
forms, and a Seq2Seq whose attention is linear.

Softmax attention weighs key j by :math:`\exp(q^\top k_j/\sqrt{d})`. Replace that similarity by a dot product of
features, :math:`\phi(q)^\top \phi(k_j)` with :math:`\phi(x) = \mathrm{elu}(x) + 1` (positive, as a weight must
be), and the sum over keys can be taken *before* the query comes:

.. math:: z_i = \frac{\sum_{j} \phi(q_i)^\top \phi(k_j)\, v_j}{\sum_{j} \phi(q_i)^\top \phi(k_j)}
              = \frac{\phi(q_i)^\top S}{\phi(q_i)^\top u},\qquad S = \sum_j \phi(k_j) v_j^\top,\quad
              u = \sum_j \phi(k_j)

* the **parallel** form (:func:`linear_attention`) builds the ``(T, T)`` matrix of :math:`\phi(q_i)^\top\phi(k_j)`,
  masked like any attention, and normalises its rows: what a model trains with;
* the **recurrent** form (:func:`linear_attention_recurrent`), causal: running sums
  :math:`S_t = S_{t-1} + \phi(k_t) v_t^\top` and :math:`u_t = u_{t-1} + \phi(k_t)`, read by each query as it
  comes. The state :math:`(S, u)` has :math:`d^2 + d` numbers whatever the length: an RNN, where the key–value
  cache of softmax attention grows by :math:`2d` numbers per token.

:class:`LinearAttentionSeq2Seq` is :class:`~minimodels.seq2seq.Seq2Seq` with ``attention="scaled_dot"`` (the
decoder's current state is the query, the encoder's states the keys and values) whose softmax is replaced by the
linear similarity: everything the decoder can read of the source is the fixed-size :math:`(S, u)`.

Letters: B batch, T (or Tq, S) positions, d the size of a query, key and value.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

from .seq2seq import Seq2Seq, Seq2SeqMemory

__all__ = [
    "feature_map",
    "linear_attention",
    "linear_attention_recurrent",
    "linear_step",
    "state_size",
    "LinearAttentionSeq2Seq",
]


def feature_map(x: torch.Tensor) -> torch.Tensor:
    r""":math:`\phi(x) = \mathrm{elu}(x) + 1`, elementwise: positive everywhere, so every weight is positive."""
    return F.elu(x) + 1.0


def linear_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The parallel form: ``q (..., Tq, d)``, ``k (..., Tk, d)``, ``v (..., Tk, d_v)``, ``mask`` bool broadcastable
    to ``(..., Tq, Tk)`` (True where allowed). Returns ``(out (..., Tq, d_v), weights (..., Tq, Tk))``; each row of
    weights is :math:`\\phi(q_i)^\\top\\phi(k_j)` over the allowed keys, normalised to sum to 1."""
    similarity = feature_map(q) @ feature_map(k).transpose(-2, -1)  # (..., Tq, d) @ (..., d, Tk) -> (..., Tq, Tk)
    if mask is not None:
        similarity = similarity.masked_fill(~mask.to(torch.bool), 0.0)
    total = similarity.sum(-1, keepdim=True)  # (..., Tq, 1)
    weights = similarity / total.clamp_min(torch.finfo(similarity.dtype).tiny)  # a row with no key: zeros
    return weights @ v, weights  # (..., Tq, Tk) @ (..., Tk, d_v) -> (..., Tq, d_v)


def linear_attention_recurrent(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, tuple]:
    """The recurrent, causal form: ``q, k (B, T, d)``, ``v (B, T, d_v)`` read one position at a time into the running
    sums ``S (B, d, d_v)`` and ``u (B, d)``. Returns ``out (B, T, d_v)`` and the last state ``(S, u)``."""
    B, T, d = k.shape
    state = (k.new_zeros(B, d, v.size(-1)), k.new_zeros(B, d))  # S (B, d, d_v), u (B, d): nothing read yet
    outs = []
    for t in range(T):
        out, state = linear_step(q[:, t], k[:, t], v[:, t], state)  # (B, d_v)
        outs.append(out)
    S, u = state
    return torch.stack(outs, dim=1), (S, u)  # (B, T, d_v)


def state_size(d: int, d_v: int | None = None) -> int:
    """Numbers in the recurrent state :math:`(S, u)`: :math:`d \\cdot d_v + d`, whatever the length."""
    return d * (d if d_v is None else d_v) + d


class LinearAttentionSeq2Seq(Seq2Seq):
    """A Seq2Seq (GRU encoder and decoder, the decoder's current state as the query) whose attention over the
    encoder's states is linear: the same keys and values as ``scaled_dot``, weighed by
    :math:`\\phi(s_t)^\\top\\phi(h_j)` instead of :math:`\\exp(s_t^\\top h_j/\\sqrt{D})`. Build it from a
    ``Seq2SeqConfig`` with ``attention="scaled_dot"``."""

    kind = "seq2seq-linear"

    def __init__(self, config):
        if config.attention != "scaled_dot":
            raise ValueError("build the linear-attention Seq2Seq from a scaled_dot config (its query and keys)")
        super().__init__(config)

    def attend(
        self, query: torch.Tensor, memory: Seq2SeqMemory, attention_override: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Context ``(B, Tq, D)`` and weights ``(B, Tq, S)`` for queries ``(B, Tq, D)``; padding gets no weight."""
        context, weights = linear_attention(query, memory.states, memory.states, memory.mask.unsqueeze(1))
        if attention_override is not None:
            weights = attention_override.to(weights).expand_as(weights)  # (B, Tq, S)
            context = weights @ memory.states  # (B, Tq, S) @ (B, S, D) -> (B, Tq, D)
        return context, weights


def linear_step(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """One step of the recurrent form for one new position: ``q, k (B, d)``, ``v (B, d_v)``, ``state = (S (B, d,
    d_v), u (B, d))`` -> ``(out (B, d_v), new state)``. Its cost does not depend on how many positions came before."""
    S, u = state
    phi_k, phi_q = feature_map(k), feature_map(q)  # (B, d)
    S = S + phi_k[:, :, None] * v[:, None, :]  # (B, d, d_v)
    u = u + phi_k  # (B, d)
    out = (phi_q[:, None, :] @ S)[:, 0] / (phi_q * u).sum(-1, keepdim=True)  # (B, d_v)
    return out, (S, u)
