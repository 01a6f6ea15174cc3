"""How the lesson's model is built, trained and read: the recipe the page trains live, the bench times and the
results script repeats over seeds.

Every ``REPORT_EVERY`` steps the model is read on the same ``PROBE_N`` held-out sequences (R = 16 random tokens and
their copy): its loss on each half, its accuracy on each half, and for every head its previous-token score and its
prefix-matching score (Olsson et al. 2022):

* previous-token score: the mean weight a query at i puts on key i − 1;
* prefix-matching score: in the copy, the mean weight a query at i puts on key i − R + 1, the token that followed the
  earlier occurrence of the current token (the one to copy).

Letters: V the vocabulary, R the random part's length, T = 2R positions, L layers, h heads per layer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.induction_heads.sequences import IGNORE, POSITIONS, PROBE_REPEAT, VOCAB, repeated
from minimodels.adam import Adam
from minimodels.attention_only import AttentionOnlyConfig, AttentionOnlyDecoder
from minimodels.train.stopping import stop_requested

CONFIG = AttentionOnlyConfig(vocab_size=VOCAB, d_model=32, n_heads=2, n_layers=2, max_len=POSITIONS)
BATCH, LR = 32, 3e-3
STEPS = 1200  # about twice the step at which the measured seeds formed an induction head (bench/induction_heads.md)
REPORT_EVERY = 25
PROBE_N, PROBE_SEED = 128, 10_000  # the held-out sequences every report reads (not the training stream)
INDUCTION_LEVEL = 0.3  # a head whose prefix-matching score reaches this is called an induction head
MODEL_TEXT = (
    f"The model is the smallest that can: token vectors plus learned position vectors (d = {CONFIG.d_model}), then "
    f"**{CONFIG.n_layers} layers of causal self-attention with {CONFIG.n_heads} heads each**, each layer adding its "
    "output to the vectors it read (the residual connection of the Transformer lesson), then a linear read-out. No "
    "feed-forward block and no layer norm: whatever it predicts, attention found."
)
HEADS = tuple((layer, head) for layer in range(CONFIG.n_layers) for head in range(CONFIG.n_heads))


def head_name(layer: int, head: int) -> str:
    """ "L2H1": layer and head, counted from 1 as the page shows them."""
    return f"L{layer + 1}H{head + 1}"


@dataclass(frozen=True)
class Reading:
    """What one look at the probe sequences measures (``per-head`` arrays are ``(L, h)``)."""

    loss_random: float  # cross-entropy on the random half's next tokens (floor: ln V)
    loss_copy: float  # cross-entropy on the copy's predictable next tokens
    accuracy_random: float  # next token right in the random half (chance 1/V)
    accuracy_copy: float  # next token right in the copy: the in-context accuracy
    previous_token: np.ndarray  # (L, h) mean weight on key i − 1
    prefix_matching: np.ndarray  # (L, h) mean weight on key i − R + 1 in the copy
    attention: np.ndarray  # (L, h, T, T) the first probe sequence's maps

    @property
    def strongest(self) -> tuple[int, int]:
        """(layer, head) with the highest prefix-matching score."""
        return tuple(int(i) for i in np.unravel_index(np.argmax(self.prefix_matching), self.prefix_matching.shape))

    @property
    def previous_head(self) -> tuple[int, int]:
        """(layer, head) of layer 1 with the highest previous-token score."""
        return 0, int(np.argmax(self.previous_token[0]))


def probe() -> tuple[torch.Tensor, torch.Tensor]:
    return repeated(PROBE_N, torch.Generator().manual_seed(PROBE_SEED), PROBE_REPEAT)


@torch.inference_mode()
def read(model: AttentionOnlyDecoder, keep: torch.Tensor | None = None, sequences=None) -> Reading:
    """The model on the probe sequences (``keep (L, h)``: heads switched off with 0)."""
    inputs, targets = probe() if sequences is None else sequences
    out = model(inputs, keep)
    R = inputs.size(1) // 2
    logits = out.logits  # (N, T, V)
    random_rows, copy_rows = slice(0, R - 1), slice(R, 2 * R - 1)  # rows predicting random / predictable tokens

    def loss(rows: slice) -> float:
        return float(nn.functional.cross_entropy(logits[:, rows].flatten(0, 1), targets[:, rows].flatten()))

    def accuracy(rows: slice) -> float:
        return float((logits[:, rows].argmax(-1) == targets[:, rows]).float().mean())

    maps = torch.stack([out.attention[f"layer{layer + 1}"] for layer in range(len(model.layers))])  # (L, N, h, T, T)
    i = torch.arange(1, 2 * R)
    previous = maps[..., i, i - 1].mean(dim=(1, 3))  # (L, h)
    q = torch.arange(R, 2 * R)
    prefix = maps[..., q, q - R + 1].mean(dim=(1, 3))  # (L, h)
    return Reading(
        loss(random_rows),
        loss(copy_rows),
        accuracy(random_rows),
        accuracy(copy_rows),
        previous.numpy(),
        prefix.numpy(),
        maps[:, 0].numpy(),
    )


def knocked_out(layer: int, head: int) -> torch.Tensor:
    """The ``keep (L, h)`` switches with one head off."""
    keep = torch.ones(CONFIG.n_layers, CONFIG.n_heads)
    keep[layer, head] = 0.0
    return keep


@dataclass(frozen=True)
class Progress:
    """One live report, as the training panel reads it (``step``, ``seconds``, ``loss``, ``exact_match``)."""

    step: int
    seconds: float
    loss: float  # mean training loss since the last report
    reading: Reading

    @property
    def exact_match(self) -> float:
        """The panel's accuracy curve: the in-context accuracy on the probe's copy."""
        return self.reading.accuracy_copy

    @property
    def attention(self) -> np.ndarray:
        """The replay's map: the strongest induction head's weights on the first probe sequence."""
        layer, head = self.reading.strongest
        return self.reading.attention[layer, head]

    def point(self) -> dict:
        """This report as a run's curve keeps it: numbers only, one key per head and score."""
        r = self.reading
        point = {
            "step": self.step,
            "seconds": round(self.seconds, 3),
            "loss": self.loss,
            "loss_random": r.loss_random,
            "loss_copy": r.loss_copy,
            "accuracy_random": r.accuracy_random,
            "accuracy_copy": r.accuracy_copy,
        }
        point["induction score"] = float(r.prefix_matching[-1].max())  # the strongest layer-2 head's
        point["previous-token score"] = float(r.previous_token[0].max())  # the strongest layer-1 head's
        for layer, head in HEADS:
            point[f"previous {head_name(layer, head)}"] = float(r.previous_token[layer, head])
            point[f"prefix {head_name(layer, head)}"] = float(r.prefix_matching[layer, head])
        return point


def new_model(seed: int) -> AttentionOnlyDecoder:
    torch.manual_seed(seed)
    return AttentionOnlyDecoder(CONFIG)


def train(
    seed: int,
    steps: int = STEPS,
    *,
    on_report=None,
    report_every: int = REPORT_EVERY,
    max_seconds: float | None = None,
    model: AttentionOnlyDecoder | None = None,
) -> tuple[AttentionOnlyDecoder, list[Progress]]:
    """A fresh model trained on repeated sequences drawn from ``seed`` (Adam, cross-entropy on every next token the
    copy's end leaves; targets past it are not read). ``on_report(progress, model)`` at every report; False stops.
    Stops also at ``max_seconds`` and after the step during which a live panel's Stop was pressed. ``model``: the
    fresh :func:`new_model` of ``seed`` when a live panel made it already (it keeps a handle on what it trains)."""
    model = new_model(seed) if model is None else model
    stream, sequences = torch.Generator().manual_seed(seed), probe()
    optimizer = Adam(model.parameters(), lr=LR)
    reports: list[Progress] = []
    start, total, count = time.perf_counter(), 0.0, 0
    for step in range(1, steps + 1):
        inputs, targets = repeated(BATCH, stream)
        logits = model(inputs).logits  # (B, T, V)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        total, count = total + loss.item(), count + 1
        seconds = time.perf_counter() - start
        over = (max_seconds is not None and seconds >= max_seconds) or stop_requested()
        if step % report_every == 0 or step == steps or over:
            progress = Progress(step, seconds, total / count, read(model, sequences=sequences))
            reports.append(progress)
            total, count = 0.0, 0
            if on_report is not None and on_report(progress, model) is False:
                break
        if over:
            break
    return model, reports


def formed_at(curve, level: float = INDUCTION_LEVEL) -> float | None:
    """The first reported step at which some layer-2 head's prefix-matching score reaches ``level``; None if none
    does. (A layer-1 head cannot be an induction head: it reads tokens only, not what came before them.)"""
    for point in curve:
        if point["induction score"] >= level:
            return float(point["step"])
    return None
