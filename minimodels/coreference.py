r"""A stack of multi-head self-attention layers that says which noun "it" means (the multi-head lesson's model).

The lecture's *The animal didn't cross the street because it was too tired*: the layer's output at "it" should
carry its referent. :class:`ItResolver` is nothing but what lessons 5–9 taught: word embeddings plus sinusoidal
positions, ``n_layers`` :class:`~minimodels.attention.MultiHeadAttention` self-attention layers one after the other
(each reads the previous one's output, padding masked), and one linear layer that reads the last layer's vector
at "it" and scores every word of the vocabulary as the referent. No residual connection, layer norm or
feed-forward block: those are the Transformer lesson's.

Why two layers: in the first layer the query of "it" is computed from "it" and its position only, so it cannot
depend on the adjective that follows; changing "tired" to "wide" changes one key (the adjective's), and the
ratio of the weights on the two nouns, :math:`e^{q\cdot k_1/\sqrt{d_k}} / e^{q\cdot k_2/\sqrt{d_k}}`, stays
exactly the same. A second layer's query at "it" is a mix of what the first layer read, the adjective included.

Letters: B sentences, T tokens, h heads, d = d_model, V vocabulary size.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from minimodels.adam import Adam
from minimodels.attention import MultiHeadAttention, padding_mask
from minimodels.positional import SinusoidalPositionalEncoding
from minimodels.tasks.coreference import PRONOUNS, VOCAB, ItTask, encode


@dataclass(frozen=True)
class ItConfig:
    vocab_size: int = len(VOCAB)  # every word of the grammar, <pad> first
    d_model: int = 32  # width of every word's vector
    n_heads: int = 4  # heads per layer (d_k = d_model / n_heads)
    n_layers: int = 2  # self-attention layers, one after the other
    max_len: int = 16  # longest sentence the positions cover


@dataclass(frozen=True)
class ItOutput:
    logits: torch.Tensor  # (B, V) the readout's score of every word as the referent of "it"
    attention: dict[str, torch.Tensor]  # "layer 1" … -> (B, h, T, T) each head's weights


class ItResolver(nn.Module):
    """Embeddings + positions, ``n_layers`` multi-head self-attention layers, a linear readout at "it"."""

    def __init__(self, config: ItConfig = ItConfig()):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, padding_idx=0)
        self.positions = SinusoidalPositionalEncoding(config.d_model, config.max_len)
        self.layers = nn.ModuleList(MultiHeadAttention(config.d_model, config.n_heads) for _ in range(config.n_layers))
        self.readout = nn.Linear(config.d_model, len(PRONOUNS))

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor, it: torch.Tensor) -> ItOutput:
        """``tokens (B, T)``, ``lengths (B,)``, ``it (B,)`` the position of "it" in each sentence."""
        B, T = tokens.shape
        words = self.positions(self.embed(tokens))  # (B, T, d) each word's vector, its position added
        mask = padding_mask(lengths, T)[:, None, None, :]  # (B, 1, 1, T): no head reads the padding
        x, attention = words, {}
        for i, layer in enumerate(self.layers):
            x, weights = layer(x, words, words, mask)  # queries: the previous layer's output; keys, values: the words
            attention[f"layer {i + 1}"] = weights  # (B, h, T, T)
        at_it = x[torch.arange(B), it]  # (B, d) the last layer's vector at "it"
        return ItOutput(self.readout(at_it), attention)  # (B, 2): il, elle


@dataclass(frozen=True)
class ItTraining:
    steps: int
    seconds: float
    cpu_seconds: float
    curve: tuple[dict, ...]  # {"step", "seconds", "loss", "accuracy"} at every check (valid split)


def accuracy(model: ItResolver, batch: dict[str, torch.Tensor]) -> float:
    """Share of sentences whose top-scored word is the referent noun."""
    with torch.inference_mode():
        out = model(batch["tokens"], batch["lengths"], batch["it"])
    right = out.logits.argmax(-1) == batch["pronoun"]  # (B,)
    return float(right[batch["ambiguous"]].float().mean())


def train(
    model: ItResolver,
    task: ItTask,
    *,
    seed: int,
    steps: int,
    batch_size: int = 64,
    lr: float = 3e-3,
    check_every: int = 50,
    on_check: Callable[[dict], None] | None = None,
) -> ItTraining:
    """Adam on the cross-entropy of the referent word, ``steps`` minibatches drawn with ``seed``; the valid split's
    accuracy and the mean training loss at every check."""
    data, valid = encode(task.split("train")), encode(task.split("valid"))
    gen = torch.Generator().manual_seed(seed)
    optimizer = Adam(model.parameters(), lr=lr)
    gold = data["pronoun"]  # (N,) 0 il, 1 elle
    curve, losses, start, cpu = [], [], time.perf_counter(), time.process_time()
    for step in range(1, steps + 1):
        model.train()
        rows = torch.randint(len(gold), (batch_size,), generator=gen)
        out = model(data["tokens"][rows], data["lengths"][rows], data["it"][rows])
        loss = nn.functional.cross_entropy(out.logits, gold[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
        if step % check_every == 0 or step == steps:
            model.eval()
            point = {
                "step": step,
                "seconds": round(time.perf_counter() - start, 3),
                "loss": round(sum(losses) / len(losses), 5),
                "accuracy": accuracy(model, valid),
            }
            curve.append(point)
            losses = []
            if on_check is not None:
                on_check(point)
    model.eval()
    return ItTraining(steps, time.perf_counter() - start, time.process_time() - cpu, tuple(curve))


def save(model: ItResolver, directory: str | Path, info: dict) -> Path:
    """``weights.pt`` (the state_dict, read back with ``weights_only=True``) and ``config.json`` (config, vocabulary,
    ``info``: how it was trained)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, directory / "weights.pt")
    meta = {"config": dataclasses.asdict(model.config), "vocab": list(VOCAB), "info": info}
    (directory / "config.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return directory


def load(directory: str | Path) -> tuple[ItResolver, dict]:
    """``(model in eval mode, meta)``; ``ValueError`` when the checkpoint's vocabulary is not the grammar's."""
    directory = Path(directory)
    meta = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    if tuple(meta["vocab"]) != VOCAB:
        raise ValueError(f"{directory}: the checkpoint's vocabulary is not the grammar's: retrain it")
    model = ItResolver(ItConfig(**meta["config"]))
    model.load_state_dict(torch.load(directory / "weights.pt", map_location="cpu", weights_only=True))
    return model.eval(), meta
