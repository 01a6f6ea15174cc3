"""The two scores this lesson compares, the same dot product unscaled and divided by √d_k, their names and
colours on every chart, the sizes d_k every sweep runs through, and what a softmax does with rows of scores: how
spread out its weights are (entropy) and how much gradient gets through it (its Jacobian).

Letters: d_k the size of q and k, N keys, α the softmax's weights, e the scores it is given.
"""

from __future__ import annotations

import torch

from lessons.scoring_functions.four_scores import COLORS as SCORING_COLORS

SCORES: tuple[str, ...] = ("dot", "scaled_dot")  # unscaled and scaled: the two variants of every comparison here
LABELS = {"dot": "unscaled q·k", "scaled_dot": "scaled q·k / √d_k"}
COLORS = {"dot": SCORING_COLORS["dot"], "scaled_dot": SCORING_COLORS["scaled_dot"]}  # as in the scoring lesson
D_SWEEP: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)  # the d_k of every curve
SATURATED = 0.99  # a softmax row counts as saturated when its largest weight is above this


def softmax_jacobian(weights: torch.Tensor) -> torch.Tensor:
    r"""The softmax's Jacobian :math:`\partial\alpha_i/\partial e_j = \alpha_i(\delta_{ij} - \alpha_j)` for rows
    of weights ``(..., N)``: ``(..., N, N)``. Every gradient that reaches the scores is multiplied by it."""
    return torch.diag_embed(weights) - weights.unsqueeze(-1) * weights.unsqueeze(-2)  # (..., N, N)


def entropy_bits(weights: torch.Tensor) -> torch.Tensor:
    """Entropy in bits of each row ``(..., N)``: log₂ N when uniform, 0 when one key takes everything."""
    logs = torch.where(weights > 0, torch.log2(weights.clamp_min(1e-300)), torch.zeros_like(weights))
    return -(weights * logs).sum(-1)
