"""The reduced race of section 4, its training recipe. One attention layer, nothing else, on random vectors: the
query is a noisy copy of one of N keys, and the layer must learn projections W_q, W_k under which that key scores
highest. Its vectors have unit-variance entries, as a Transformer's have after LayerNorm and variance-preserving
projections, so q·k spreads like √d at the start. Cheap enough to train at several d, over several seeds, in
seconds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lessons.common.runs import Run
from minimodels.adam import Adam
from minimodels.attention import DotProductAttention, ScaledDotProductAttention

SWEEP_DS: tuple[int, ...] = (4, 16, 64, 256)
SWEEP_SCORES: tuple[str, ...] = ("dot", "scaled_dot")
SMALL_SIGMA = math.sqrt(0.05)  # entries of variance 0.05, like the race's GRU states at the start


@dataclass(frozen=True)
class RetrievalConfig:
    """The reduced race: find the key that the query is a noisy copy of."""

    d: int  # size of every vector (query, keys, and the projections' output)
    keys: int = 16  # N keys per query; the values are the keys themselves
    noise: float = 0.5  # the query is key j plus noise of this sd (times sigma)
    sigma: float = 1.0  # sd of the vectors' entries: 1 as after a Transformer's LayerNorm
    batch: int = 64  # queries per training step
    lr: float = 2e-3  # Adam's learning rate
    steps: int = 150  # training steps
    every: int = 10  # steps between two held-out checks
    held_out: int = 500  # queries in the held-out check, drawn once per (d, sigma)
    early: int = 50  # the step whose check the sweep compares ("after 50 steps")


EARLY_ALPHA = "α on the right key after {early} steps"


def early_metric(config: RetrievalConfig | None = None) -> str:
    return EARLY_ALPHA.format(early=(config or RetrievalConfig(d=1)).early)


class Retriever(nn.Module):
    r"""One attention layer: :math:`\alpha = \mathrm{softmax}(\mathrm{sim}(W_q x_0, W_k x_i))`,
    :math:`c = \sum_i \alpha_i x_i`. ``W_q``, ``W_k`` start at N(0, 1/d), which keeps unit-variance entries at unit
    variance (q and k have the inputs' σ² at the start); ``sim`` is a ``minimodels`` score module."""

    def __init__(self, d: int, score: str):
        super().__init__()
        self.W_q = nn.Linear(d, d, bias=False)
        self.W_k = nn.Linear(d, d, bias=False)
        for w in (self.W_q.weight, self.W_k.weight):
            nn.init.normal_(w, std=1 / math.sqrt(d))
        self.attention = {"dot": DotProductAttention, "scaled_dot": ScaledDotProductAttention}[score]()

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``query (B, d)``, ``keys (B, N, d)`` → context ``(B, d)``, weights ``(B, N)``, scores ``(B, N)``."""
        q, k = self.W_q(query), self.W_k(keys)  # (B, d), (B, N, d)
        scores = self.attention.score(q.unsqueeze(1), k).squeeze(1)  # (B, 1, d) @ (B, d, N) -> (B, N)
        weights = torch.softmax(scores, dim=-1)  # (B, N)
        return (weights.unsqueeze(1) @ keys).squeeze(1), weights, scores  # (B, 1, N) @ (B, N, d) -> (B, d)


def retrieval_batch(config: RetrievalConfig, n: int, generator: torch.Generator):
    """``n`` problems: keys ``(n, N, d)``, queries ``(n, d)`` (a noisy copy of key ``target``), targets ``(n,)``."""
    keys = config.sigma * torch.randn(n, config.keys, config.d, generator=generator)  # (n, N, d)
    target = torch.randint(config.keys, (n,), generator=generator)  # (n,)
    noise = config.sigma * config.noise * torch.randn(n, config.d, generator=generator)  # (n, d)
    return keys, keys[torch.arange(n), target] + noise, target


def retrieval_run(score: str, config: RetrievalConfig, seed: int) -> Run:
    """Train a :class:`Retriever` from ``seed`` (weights and batches; the held-out queries are the same for every
    seed) with Adam on the squared distance between the context and the right key. Curve: every ``config.every``
    steps, the held-out loss, accuracy (argmax α on the right key) and mean α on the right key. Final: those at the
    end and at ``config.early``, and at step 0 the sd of the scores, the mean largest α and the gradient's norm."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Retriever(config.d, score)
    optimizer = Adam(model.parameters(), lr=config.lr)
    batches = torch.Generator().manual_seed(1000 + seed)
    held_keys, held_query, held_target = retrieval_batch(config, config.held_out, torch.Generator().manual_seed(99))
    rows = torch.arange(config.held_out)

    def loss_of(keys, query, target):
        context, weights, scores = model(query, keys)
        right = keys[torch.arange(len(target)), target]  # (B, d)
        return ((context - right) ** 2).mean() / config.sigma**2, weights, scores

    curve, start = [], {}
    for step in range(config.steps + 1):
        if step % config.every == 0:
            with torch.no_grad():
                loss, weights, scores = loss_of(held_keys, held_query, held_target)
            curve.append(
                {
                    "step": step,
                    "loss": float(loss),
                    "accuracy": float((weights.argmax(-1) == held_target).float().mean()),
                    "alpha": float(weights[rows, held_target].mean()),
                }
            )
            if step == 0:
                start = {
                    "score sd at step 0": float(scores.std()),
                    "largest α at step 0": float(weights.amax(-1).mean()),
                }
        if step == config.steps:
            break
        loss, _, _ = loss_of(*retrieval_batch(config, config.batch, batches))
        optimizer.zero_grad()
        loss.backward()
        if step == 0:
            start["gradient at step 0"] = float(torch.cat([p.grad.flatten() for p in model.parameters()]).norm())
        optimizer.step()
    early = next(p for p in curve if p["step"] >= config.early)
    final = {
        **start,
        early_metric(config): early["alpha"],
        f"accuracy after {config.early} steps": early["accuracy"],
        "α on the right key": curve[-1]["alpha"],
        "accuracy": curve[-1]["accuracy"],
    }
    return Run(score, seed, params={"d": config.d, "sigma": round(config.sigma, 4)}, curve=tuple(curve), final=final)


def sweep_configs(ds: Sequence[int] = SWEEP_DS) -> list[RetrievalConfig]:
    """The shipped sweep: unit-variance vectors at every d, and one arm at the largest d with small vectors (σ² =
    0.05, as the race's GRU states), which the prediction exercise asks about."""
    return [RetrievalConfig(d=d) for d in ds] + [RetrievalConfig(d=max(ds), sigma=SMALL_SIGMA)]
