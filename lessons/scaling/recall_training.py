"""Section 4's model, its training and the measured comparison read back: one self-attention layer with one head
(d_k = d_model) trained on a recall task with and without the scale, at d_k = 8 … 512, over several seeds
(``scripts/scaling_results.py`` writes ``assets/results/scaling.json``).

Each run records, before training, the softmax's mean largest weight and entropy and the gradient reaching W^Q and
W^K, then held-out accuracy, loss and the question's largest α every ``RECALL_REPORT`` steps.

Letters: B examples in a batch, n items per example, d = d_k = d_model, V the values an answer can be.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import NamedTuple

import torch
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run, first_reached
from lessons.scaling.scores import SCORES, entropy_bits
from minimodels.adam import Adam
from minimodels.attention import DotProductAttention, ScaledDotProductAttention

# The GRU race of lesson 4 cannot show the stall: its states are small and bounded. Here queries and keys are what
# the √d_k argument assumes, projections of unit-variance vectors whose components have variance about 1.
RECALL_KEYS = 16  # key words an item can have
RECALL_VALUES = 16  # value words an item can have: the answer is one of them
RECALL_ITEMS = 8  # items per example, each with a different key
RECALL_D_K: tuple[int, ...] = (8, 32, 128, 512)  # d_k = d_model: one head
RECALL_STEPS = 400  # Adam steps per run
RECALL_BATCH = 64  # examples per step
RECALL_LR = 3e-3  # Adam's learning rate, the same for every d_k and both scores
RECALL_REPORT = 25  # steps between two measurements on the held-out examples
RECALL_TEST = 512  # held-out examples (the same for every run: seed RECALL_TEST_SEED)
RECALL_TEST_SEED = 12345
RECALL_LEVEL = 0.9  # "steps to 90%"
RECALL_SEEDS: tuple[int, ...] = (0, 1, 2)
INIT_METRICS = {  # final metric -> what the page calls it (measured on the untrained model)
    "initial largest α": "largest α at step 0",
    "initial entropy (bits)": "entropy of α at step 0 (bits)",
    "initial ‖∂L/∂W^Q‖": "‖∂L/∂W^Q‖ at step 0",
    "initial ‖∂L/∂W^K‖": "‖∂L/∂W^K‖ at step 0",
}


class RecallBatch(NamedTuple):
    """Examples of the recall task: ``RECALL_ITEMS`` (key, value) items and a question naming one key."""

    keys: torch.Tensor  # (B, n) distinct key ids
    values: torch.Tensor  # (B, n) value ids
    question: torch.Tensor  # (B,) one of the example's keys
    answer: torch.Tensor  # (B,) the value paired with it


def recall_batch(size: int, generator: torch.Generator, items: int = RECALL_ITEMS) -> RecallBatch:
    """``size`` random examples: ``items`` distinct keys with random values, and a question about one of them."""
    keys = torch.rand(size, RECALL_KEYS, generator=generator).argsort(-1)[:, :items]  # (B, n)
    values = torch.randint(0, RECALL_VALUES, (size, items), generator=generator)  # (B, n)
    pick = torch.randint(0, items, (size,), generator=generator)  # (B,)
    rows = torch.arange(size)
    return RecallBatch(keys, values, keys[rows, pick], values[rows, pick])


class RecallAttention(nn.Module):
    r"""One self-attention layer with one head (lesson 5's W^Q, W^K, W^V), d_k = d_model, and a linear read-out.

    Its input is ``RECALL_ITEMS + 1`` vectors: each item is the embedding of its key plus that of its value
    (divided by √2, so that its components keep variance 1), then the question, a third embedding. Every vector
    attends to every vector; the question's output :math:`z = \sum_j \alpha_j v_j` is read by a linear layer that
    names the answer. Nothing tells the positions apart, and none is needed: the question must find the item with
    its key by content. The projections are drawn with Glorot's uniform initialisation (variance 1/d_model), so
    q and k have components of variance about 1, as the √d_k argument assumes; the only difference between the
    two models is the attention module, minimodels' :class:`ScaledDotProductAttention` or
    :class:`DotProductAttention`.
    """

    def __init__(self, d_k: int, scaled: bool):
        super().__init__()
        self.d_k, self.scaled = d_k, scaled
        self.key_embedding = nn.Embedding(RECALL_KEYS, d_k)  # N(0, 1) components
        self.value_embedding = nn.Embedding(RECALL_VALUES, d_k)
        self.question_embedding = nn.Embedding(RECALL_KEYS, d_k)
        self.W_q = nn.Linear(d_k, d_k, bias=False)
        self.W_k = nn.Linear(d_k, d_k, bias=False)
        self.W_v = nn.Linear(d_k, d_k, bias=False)
        for linear in (self.W_q, self.W_k, self.W_v):
            nn.init.xavier_uniform_(linear.weight)
        self.attention = ScaledDotProductAttention() if scaled else DotProductAttention()
        self.out = nn.Linear(d_k, RECALL_VALUES)

    def forward(self, batch: RecallBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits over the values ``(B, V)`` and the attention weights ``(B, n + 1, n + 1)`` (last row: the
        question's)."""
        items = (self.key_embedding(batch.keys) + self.value_embedding(batch.values)) / math.sqrt(2)  # (B, n, d)
        x = torch.cat([items, self.question_embedding(batch.question).unsqueeze(1)], dim=1)  # (B, n + 1, d)
        z, weights = self.attention(self.W_q(x), self.W_k(x), self.W_v(x))  # (B, n + 1, d), (B, n + 1, n + 1)
        return self.out(z[:, -1]), weights  # (B, V)


def recall_model(d_k: int, scale: str, seed: int) -> RecallAttention:
    """A fresh model, its weights drawn from ``seed`` (the scaled and unscaled models of a seed start equal)."""
    if scale not in SCORES:
        raise ValueError(f"scale must be one of {', '.join(SCORES)}, not {scale!r}")
    if d_k not in RECALL_D_K:
        raise ValueError(f"d_k must be one of {', '.join(map(str, RECALL_D_K))}, not {d_k!r}")
    with torch.random.fork_rng():  # the seed picks these weights only; torch's global generator is left as it was
        torch.manual_seed(seed)
        return RecallAttention(d_k, scaled=scale == "scaled_dot")


def recall_test() -> RecallBatch:
    """The held-out examples every run is measured on."""
    return recall_batch(RECALL_TEST, torch.Generator().manual_seed(RECALL_TEST_SEED))


def initial_state(model: RecallAttention, batch: RecallBatch) -> dict[str, float]:
    """The untrained model on ``batch``: mean largest α and entropy over every softmax row, and the size (Frobenius
    norm) of the loss's gradient reaching W^Q and W^K. The model's gradients are left as they were."""
    logits, weights = model(batch)
    loss = nn.functional.cross_entropy(logits, batch.answer)
    grad_q, grad_k = torch.autograd.grad(loss, (model.W_q.weight, model.W_k.weight))
    alpha = weights.detach().double()  # (B, n + 1, n + 1)
    return {
        "initial largest α": float(alpha.amax(-1).mean()),
        "initial entropy (bits)": float(entropy_bits(alpha).mean()),
        "initial ‖∂L/∂W^Q‖": float(grad_q.norm()),
        "initial ‖∂L/∂W^K‖": float(grad_k.norm()),
    }


@torch.no_grad()
def _evaluate(model: RecallAttention, test: RecallBatch) -> dict[str, float]:
    logits, weights = model(test)
    return {
        "loss": float(nn.functional.cross_entropy(logits, test.answer)),
        "accuracy": float((logits.argmax(-1) == test.answer).double().mean()),
        "largest α": float(weights[:, -1].amax(-1).mean()),  # the question's row
    }


def train_recall(d_k: int, scale: str, seed: int, steps: int = RECALL_STEPS, on_report=None) -> Run:
    """Train one model from ``seed`` for ``steps`` Adam steps (the batches drawn from ``seed`` too, the same for
    both scores), measuring it on the held-out examples every :data:`RECALL_REPORT` steps. ``on_report(point)``
    after each measurement; training stops when it returns False. Time: this thread's CPU seconds."""
    model = recall_model(d_k, scale, seed)
    test = recall_test()
    start = initial_state(model, test)
    generator = torch.Generator().manual_seed(10_000 + seed)
    optimizer = Adam(model.parameters(), lr=RECALL_LR)
    curve, clock, seconds = [], time.thread_time(), 0.0
    for step in range(steps + 1):
        if step % RECALL_REPORT == 0 or step == steps:
            seconds += time.thread_time() - clock
            curve.append({"step": step, "seconds": round(seconds, 3), **_evaluate(model, test)})
            clock = time.thread_time()
            if on_report is not None and on_report(curve[-1]) is False:
                break
        if step == steps:
            break
        batch = recall_batch(RECALL_BATCH, generator)
        loss = nn.functional.cross_entropy(model(batch)[0], batch.answer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    final = {
        "test accuracy": curve[-1]["accuracy"],
        "test loss": curve[-1]["loss"],
        f"steps to {RECALL_LEVEL:.0%}": first_reached(curve, "accuracy", RECALL_LEVEL),
        "trained largest α": curve[-1]["largest α"],
        **start,
    }
    return Run(scale, seed, {"d_k": d_k}, tuple(curve), final, {"steps": curve[-1]["step"]})


def recall_config(steps: int = RECALL_STEPS) -> dict:
    """How every run of the recall comparison is trained, for the results file (and the page's text)."""
    return {
        "keys": RECALL_KEYS,
        "values": RECALL_VALUES,
        "items": RECALL_ITEMS,
        "steps": steps,
        "batch": RECALL_BATCH,
        "optimizer": "Adam",
        "lr": RECALL_LR,
        "report_every": RECALL_REPORT,
        "test_examples": RECALL_TEST,
        "init": "Glorot uniform W^Q, W^K, W^V; N(0, 1) embeddings",
    }


RECALL_RESULTS = ROOT / "assets" / "results" / "scaling.json"


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped recall comparison (``scripts/scaling_results.py``), checked: both scores, a d_k on every run,
    the metrics the page reads (``ValueError``/``FileNotFoundError`` naming the script otherwise)."""
    results = Comparison.load(path if path is not None else RECALL_RESULTS, script="scripts/scaling_results.py")
    if set(results.variants) != set(SCORES):
        raise ValueError(f"scaling.json compares {list(results.variants)}, not {list(SCORES)}: run the script again")
    needed = {"test accuracy", *INIT_METRICS}
    for run in results.runs:
        if "d_k" not in run.params or not needed <= set(run.final):
            missing = sorted(needed - set(run.final))
            raise ValueError(
                f"scaling.json: {run.variant} seed {run.seed} lacks d_k or {missing}: run the script again"
            )
    return results
