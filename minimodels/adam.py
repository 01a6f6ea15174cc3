"""Adam as ``torch.optim.Adam`` computes it, without ``torch.optim``'s import of ``torch._dynamo``.

Every ``torch.optim`` optimizer imports ``torch._dynamo`` (the compiler) as it is built and again on each step
(torch 2.13: ``add_param_group`` and ``_use_grad_for_differentiable``), even in a program that never compiles:
~830 modules, 68 MB of a server's memory and 3–5 s that a server's first Train click waited for. The course never
compiles, so it trains with this class: Kingma and Ba's update with the bias corrections and no weight decay, in
the same operations as ``torch.optim.Adam``:

- ``fused=True`` (CPU and CUDA): the one kernel ``torch.optim.Adam(fused=True)`` calls, ``torch._fused_adam_``;
- ``fused=False``: the per-tensor steps of ``torch.optim.Adam``'s default on the CPU, in the same order.

``tests/minimodels/test_adam.py`` checks both against ``torch.optim.Adam``, step for step, to the last bit.

The learning rate is the attribute ``lr``: a schedule sets it before each step (``torch.optim.lr_scheduler.LambdaLR``
gives step ``k`` (from 0) ``base_lr * factor(k)``; :func:`scheduled` does the same).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch


class Adam:
    """``Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, fused=False)``; ``step()``,
    ``zero_grad()``. A parameter with no gradient at a step is skipped (its averages and step count unchanged)."""

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        fused: bool = False,
    ):
        self.params = [p for p in params if p.requires_grad]
        if not self.params:
            raise ValueError("Adam was given no parameter that requires a gradient")
        if not lr >= 0 or not 0 <= betas[0] < 1 or not 0 <= betas[1] < 1 or not eps >= 0:
            raise ValueError(f"Adam needs lr ≥ 0, 0 ≤ betas < 1 and eps ≥ 0 (got lr={lr}, betas={betas}, eps={eps})")
        self.lr, self.betas, self.eps, self.fused = float(lr), (float(betas[0]), float(betas[1])), float(eps), fused
        self.state: dict[torch.Tensor, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.detach_().zero_()

    def _state(self, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(step, average gradient, average squared gradient) of ``p``, zeros at its first step; the step count on
        the CPU as ``torch.optim.Adam`` keeps it (on the parameter's device for the fused kernel)."""
        if p not in self.state:
            step = torch.zeros((), dtype=torch.float32, device=p.device if self.fused else "cpu")
            zeros = torch.zeros_like(p, memory_format=torch.preserve_format)
            self.state[p] = (step, zeros, torch.zeros_like(p, memory_format=torch.preserve_format))
        return self.state[p]

    @torch.no_grad()
    def step(self) -> None:
        live = [p for p in self.params if p.grad is not None]
        if not live:
            return
        steps, averages, squares = zip(*(self._state(p) for p in live), strict=True)
        beta1, beta2 = self.betas
        if self.fused:
            torch._foreach_add_(list(steps), 1)
            torch._fused_adam_(
                live,
                [p.grad for p in live],
                list(averages),
                list(squares),
                [],
                list(steps),
                lr=self.lr,
                beta1=beta1,
                beta2=beta2,
                weight_decay=0.0,
                eps=self.eps,
                amsgrad=False,
                maximize=False,
                grad_scale=None,
                found_inf=None,
            )
            return
        for p, step_t, average, square in zip(live, steps, averages, squares, strict=True):
            grad = p.grad
            step_t += 1
            average.lerp_(grad, 1 - beta1)
            square.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            step = step_t.item()
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = self.lr / bias_correction1
            denominator = (square.sqrt() / bias_correction2**0.5).add_(self.eps)
            p.addcdiv_(average, denominator, value=-step_size)


def scheduled(optimizer: Adam, factor: Callable[[int], float]) -> Callable[[int], None]:
    """A setter of ``optimizer.lr`` for step ``k`` (from 0): ``base_lr * factor(k)``, as ``LambdaLR`` sets it.
    Call it before each ``optimizer.step()`` with the number of steps already taken."""
    base = optimizer.lr

    def at(k: int) -> None:
        optimizer.lr = base * factor(k)

    return at
