r"""Hands on one attention head, and two ways to score how much each input token matters to a prediction.

Does a head's weight on a token say how much that token matters? Jain & Wallace (*Attention is not Explanation*,
NAACL 2019) asked it of recurrent classifiers in two ways: change the weights (permute them, or search for other
weights) and see whether the output moves; and set the weights beside importance measured otherwise (the gradient,
leaving one token out) and see whether the rankings agree. Serrano & Smith (*Is Attention Interpretable?*, ACL
2019) zeroed the highest weights; Wiegreffe & Pinter (*Attention is not not Explanation*, EMNLP 2019) argued that
such tests need baselines (uniform weights, and a model trained to do without). This module gives those tools for
:class:`~minimodels.attention_only.AttentionOnlyDecoder`, in plain PyTorch, through its ``override`` argument:

* :func:`intervention` — an ``override`` that changes one head's weights and leaves every other head's alone:
  ``"zero"`` (every weight 0: the head writes nothing, the same as a knock-out), ``"permute"`` (each query's
  weights shuffled over the keys it may read), ``"uniform"`` (:math:`\alpha_{ij} = 1/n_i`, n_i the keys query i
  may read), ``"force"`` (weights given by the caller, such as all weight on one key);
* :func:`leave_one_out` — :math:`I_{ij} = \log p(y_i \mid x) - \log p(y_i \mid x \text{ with token } j
  \text{ replaced})`: how much the log-probability of the right next token at i falls when token j is changed;
* :func:`gradient_times_input` — :math:`G_{ij} = \lvert \nabla_{e_j} \log p(y_i \mid x) \cdot e_j \rvert`, e_j the
  token vector at j: a first-order estimate of the same thing from one backward pass;
* :func:`kendall_tau` — the rank agreement of two scorings over each query's readable keys (τ-b: ties allowed).

Letters: B batch, T positions, h heads per layer, i a query's position, j a key's, α a head's weights, V the
vocabulary.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["KINDS", "intervention", "permuted", "leave_one_out", "gradient_times_input", "kendall_tau"]

KINDS = ("zero", "permute", "uniform", "force")


def permuted(weights: torch.Tensor, allowed: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """``weights (B, h, T, T)`` with each query's weights shuffled over the keys it may read (``allowed (T, T)``);
    the masked keys stay 0, so each row still sums to 1 and reads only what the mask allows."""
    B, h, T, _ = weights.shape
    allowed = allowed.expand(B, h, T, T)
    noise = torch.rand(B, h, T, T, generator=generator)  # (B, h, T, T)
    position = torch.arange(T, dtype=noise.dtype).expand(B, h, T, T) / T  # (B, h, T, T): keys in order, in [0, 1)
    source = noise.masked_fill(~allowed, 2.0).argsort(dim=-1)  # (B, h, T, T): readable keys first, shuffled
    target = position.masked_fill(~allowed, 2.0).argsort(dim=-1, stable=True)  # (B, h, T, T): readable, in order
    return torch.zeros_like(weights).scatter(-1, target, weights.gather(-1, source))  # (B, h, T, T)


def intervention(layer: int, head: int, kind: str, *, forced: torch.Tensor | None = None, seed: int = 0):
    """An ``override`` for :class:`~minimodels.attention_only.AttentionOnlyDecoder` that changes head ``head`` of
    layer ``layer`` (both from 0) by ``kind`` (one of :data:`KINDS`) and returns every other head's weights as they
    were. ``forced (B, T, T)`` or ``(T, T)``: the weights ``"force"`` puts in; ``seed``: the permutation's draw."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if (kind == "force") != (forced is not None):
        raise ValueError("forced weights go with kind 'force', and only with it")

    def override(index: int, weights: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        if index != layer:
            return weights
        mine = weights[:, head]  # (B, T, T)
        if kind == "zero":
            new = torch.zeros_like(mine)
        elif kind == "uniform":
            new = allowed.to(mine.dtype) / allowed.sum(-1, keepdim=True)  # (T, T): 1 / n_i on each readable key
        elif kind == "permute":
            new = permuted(weights[:, head : head + 1], allowed, torch.Generator().manual_seed(seed))[:, 0]
        else:
            new = forced.to(mine.dtype)
        out = weights.clone()
        out[:, head] = new.expand_as(mine)  # (B, T, T)
        return out

    return override


def _log_prob(model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor, **kwargs) -> torch.Tensor:
    """``log p(target_i | tokens)`` at every position: ``(B, T)`` (targets < 0 read as token 0; callers skip them)."""
    logits = model(tokens, **kwargs).logits  # (B, T, V)
    return logits.log_softmax(-1).gather(-1, targets.clamp(min=0)[..., None])[..., 0]  # (B, T)


@torch.no_grad()
def leave_one_out(model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor, shift: int = 1) -> torch.Tensor:
    """``(B, T_i, T_j)``: how much ``log p(target_i)`` falls when token j is replaced by token ``(t_j + shift) mod
    V`` (another token; the sequence keeps its length). Entry [b, i, j] for every i and j, readable or not (a
    causal model's unread j gives 0)."""
    B, T = tokens.shape
    V = model.config.vocab_size
    base = _log_prob(model, tokens, targets)  # (B, T)
    out = torch.empty(B, T, T)
    for j in range(T):
        changed = tokens.clone()
        changed[:, j] = (changed[:, j] + shift) % V  # (B, T): token j replaced
        out[:, :, j] = base - _log_prob(model, changed, targets)  # (B, T)
    return out


def gradient_times_input(model: nn.Module, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """``(B, T_i, T_j)``: ``|∇_{e_j} log p(target_i) · e_j|``, e_j the token vector at j (one backward pass per
    query position i; the model's parameters get no gradient)."""
    B, T = tokens.shape
    embedded = model.embedding(tokens).detach().requires_grad_(True)  # (B, T, d)
    log_p = _log_prob(model, tokens, targets, embedded=embedded)  # (B, T)
    out = torch.empty(B, T, T)
    for i in range(T):
        (grad,) = torch.autograd.grad(log_p[:, i].sum(), embedded, retain_graph=i < T - 1)  # (B, T, d)
        out[:, i] = (grad * embedded).sum(-1).abs().detach()  # (B, T)
    return out


def kendall_tau(a: torch.Tensor, b: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    r"""Kendall's τ-b between ``a`` and ``b`` (``(..., n)``) over the entries ``allowed`` marks (``(..., n)`` bool):
    :math:`\tau_b = (C - D) / \sqrt{(P - T_a)(P - T_b)}`, C and D the concordant and discordant pairs, P all pairs,
    T_a and T_b the pairs tied in a or b. ``(...)``; NaN where a row has fewer than two entries or is all ties."""
    pair = allowed[..., :, None] & allowed[..., None, :]  # (..., n, n)
    pair = pair & torch.ones(pair.shape[-2:], dtype=torch.bool).triu(1)  # each pair once
    sa = torch.sign(a[..., :, None] - a[..., None, :])  # (..., n, n)
    sb = torch.sign(b[..., :, None] - b[..., None, :])  # (..., n, n)
    concord = (sa * sb * pair).sum((-1, -2))  # (...): C − D
    untied_a = ((sa != 0) & pair).sum((-1, -2)).to(a.dtype)  # (...): P − T_a
    untied_b = ((sb != 0) & pair).sum((-1, -2)).to(a.dtype)  # (...): P − T_b
    return concord / (untied_a * untied_b).sqrt()
