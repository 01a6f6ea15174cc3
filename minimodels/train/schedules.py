"""How the weights move besides Adam's own step: the learning rate's warm-up and decay, and a weight average.

Both are off in a bare :class:`~minimodels.train.config.TrainConfig` (``warmup_steps=0``, ``average=None``);
:func:`~minimodels.train.config.default_train_config` turns them on for the models they were measured to help.
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn

from .config import TrainConfig


def _lr_factor(step: int, config: TrainConfig) -> float:
    r"""Multiplier of ``config.lr`` at ``step``: linear warm-up, then flat or (``decay``) Vaswani et al.'s

    .. math:: \mathrm{lr}(s) = \mathrm{lr} \cdot \min\left(\frac{s}{w}, \left(\frac{w}{s}\right)^p\right)

    (their schedule, :math:`p = 1/2`, scaled so that its peak, at the end of the warm-up ``w``, is ``config.lr``;
    ``config.decay_power`` is :math:`p`).
    """
    s, w = step + 1, config.warmup_steps
    if s < w:
        return s / w
    return (w / s) ** config.decay_power if config.decay else 1.0


class _WeightAverage:
    r"""An exponential moving average of a model's weights (Polyak & Juditsky 1992; "EMA" in many toolkits).

    .. math:: \bar\theta_s = \beta_s \bar\theta_{s-1} + (1 - \beta_s)\, \theta_s,
              \qquad \beta_s = \min\left(\beta, \frac{1 + s}{10 + s}\right)

    Near the end of a run, Adam's steps make the weights jitter around a good point, and the held-out exact
    match with them; their average sits nearer that point. The ramp :math:`\beta_s` keeps the average from
    dragging the random initial weights along in the first steps. Updated in place, one fused operation per
    step. :meth:`applied` lends the average to the model itself (so that whatever looks at the model during a
    report, ``on_progress`` included, sees the weights the report is about).
    """

    def __init__(self, model: nn.Module, decay: float):
        self.decay = decay
        self.weights = list(model.parameters())
        self.averages = [p.detach().clone() for p in self.weights]
        self.kept = [torch.empty_like(p) for p in self.weights]  # the model's own weights while it holds the average

    @torch.no_grad()
    def update(self, step: int) -> None:
        """Move the average towards the current weights after optimizer step number ``step`` (1, 2, ...)."""
        decay = min(self.decay, (1 + step) / (10 + step))
        torch._foreach_lerp_(self.averages, self.weights, 1 - decay)

    @contextlib.contextmanager
    def applied(self):
        """Within this block the model's weights are the average; its own are put back, bit for bit, after it."""
        with torch.no_grad():
            torch._foreach_copy_(self.kept, self.weights)
            torch._foreach_copy_(self.weights, self.averages)
        try:
            yield
        finally:
            with torch.no_grad():
                torch._foreach_copy_(self.weights, self.kept)

    @torch.no_grad()
    def copy_back(self) -> None:
        """Write the average into the model's weights for good."""
        torch._foreach_copy_(self.weights, self.averages)
