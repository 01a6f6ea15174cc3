"""What the lesson measures on a trained model, shared by its sections and its results script.

The model is the induction-heads lesson's (:mod:`lessons.induction_heads.training`: two layers of two causal heads,
attention only, trained on R random tokens and their copy); the readings use the same held-out probe sequences. On
the rows whose next token the context gives away (the copy's, as the in-context accuracy reads them):

* each head's *role*, read from the model's own scores (a seed does not fix which head becomes what): the
  previous-token head (layer 1, highest previous-token score), the other layer-1 head, the induction head (layer 2,
  highest prefix-matching score), the other layer-2 head;
* :func:`effects` — each head's weights zeroed, permuted over the keys each query may read, or made uniform
  (:mod:`minimodels.head_interventions`): the in-context accuracy left, and how far the output distribution moved
  from the intact model's (KL(intact ‖ changed) in nats, the mean over rows);
* :func:`agreement` — each head's weights beside two measures of how much each token matters to the prediction
  (leave one token out; gradient × input): Kendall's τ between the rankings, and how often the key the head weighs
  most is the token whose change costs the most.

Letters: V the vocabulary, R the random part's length, T = 2R positions, i a query's position, j a key's, L layers,
h heads per layer, α a head's weights.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import torch

from lessons.induction_heads import training
from lessons.induction_heads.training import CONFIG, HEADS, Reading, head_name
from minimodels import head_interventions as hands
from minimodels.attention_only import AttentionOnlyDecoder

KINDS = ("zero", "permute", "uniform")  # the interventions each head gets
KIND_WORDS = {"zero": "zeroed", "permute": "permuted", "uniform": "made uniform"}
ROLES = ("previous-token head", "other layer-1 head", "induction head", "other layer-2 head")
IMPORTANCE_N = 32  # probe sequences the importance measures read (leave-one-out costs T passes each)
BUGS = {
    "none": CONFIG,
    "no 1/√d_k": dataclasses.replace(CONFIG, scaled=False),
    "wrong-side mask": dataclasses.replace(CONFIG, future=True),
}


def new_model(seed: int, bug: str = "none") -> AttentionOnlyDecoder:
    """A fresh model of the recipe, with one planted bug or none (``BUGS``)."""
    torch.manual_seed(seed)
    return AttentionOnlyDecoder(BUGS[bug])


def roles(reading: Reading) -> dict[str, tuple[int, int]]:
    """Each role's (layer, head), from the intact model's own scores."""
    previous = int(np.argmax(reading.previous_token[0]))
    induction = int(np.argmax(reading.prefix_matching[-1]))
    last = CONFIG.n_layers - 1
    return {
        ROLES[0]: (0, previous),
        ROLES[1]: (0, 1 - previous),
        ROLES[2]: (last, induction),
        ROLES[3]: (last, 1 - induction),
    }


def _rows(inputs: torch.Tensor) -> torch.Tensor:
    """The query positions whose next token the context gives away: the copy's first R − 1."""
    R = inputs.size(1) // 2
    return torch.arange(R, 2 * R - 1)


@dataclass(frozen=True)
class Effect:
    """One head changed one way, on the probe's copy rows."""

    accuracy: float  # in-context accuracy left
    kl: float  # mean KL(intact ‖ changed), nats


@torch.inference_mode()
def effects(model: AttentionOnlyDecoder, sequences=None) -> dict[tuple[int, int], dict[str, Effect]]:
    """Every head, each intervention of :data:`KINDS`: ``{(layer, head): {kind: Effect}}``."""
    inputs, targets = training.probe() if sequences is None else sequences
    q = _rows(inputs)
    intact = model(inputs).logits[:, q].log_softmax(-1)  # (N, R − 1, V)
    out = {}
    for layer, head in HEADS:
        out[layer, head] = {}
        for kind in KINDS:
            changed = model(inputs, override=hands.intervention(layer, head, kind)).logits[:, q].log_softmax(-1)
            accuracy = float((changed.argmax(-1) == targets[:, q]).float().mean())
            kl = float((intact.exp() * (intact - changed)).sum(-1).mean())  # KL(intact ‖ changed)
            out[layer, head][kind] = Effect(accuracy, kl)
    return out


@dataclass(frozen=True)
class Agreement:
    """One head's weights against the two importance measures, over the copy rows of the sequences read."""

    tau_leave_one_out: float  # mean Kendall τ-b, weights vs leave-one-out, over rows
    tau_gradient: float  # mean Kendall τ-b, weights vs gradient × input
    top_agrees: float  # how often the most-weighted key is the token whose change costs most


@dataclass(frozen=True)
class Importance:
    """The importance measures on some sequences: ``(N, T, T)`` each, and the sequences."""

    inputs: torch.Tensor
    targets: torch.Tensor
    leave_one_out: torch.Tensor
    gradient: torch.Tensor


def importance(model: AttentionOnlyDecoder, n: int = IMPORTANCE_N) -> Importance:
    inputs, targets = training.probe()
    inputs, targets = inputs[:n], targets[:n]
    with torch.no_grad():
        loo = hands.leave_one_out(model, inputs, targets)
    return Importance(inputs, targets, loo, hands.gradient_times_input(model, inputs, targets))


def agreement(model: AttentionOnlyDecoder, found: Importance | None = None) -> dict[tuple[int, int], Agreement]:
    """Every head's weights against both importance measures, on the copy rows: ``{(layer, head): Agreement}``."""
    found = importance(model) if found is None else found  # the gradient needs autograd: no inference mode here
    q = _rows(found.inputs)
    with torch.no_grad():
        out = model(found.inputs)
    allowed = model.layers[0].allowed(found.inputs.size(1))[q]  # (R − 1, T)
    loo, grad = found.leave_one_out[:, q], found.gradient[:, q]  # (N, R − 1, T)
    result = {}
    for layer, head in HEADS:
        weights = out.attention[f"layer{layer + 1}"][:, head][:, q]  # (N, R − 1, T)
        mask = allowed.expand_as(weights)
        result[layer, head] = Agreement(
            float(hands.kendall_tau(weights, loo, mask).nanmean()),
            float(hands.kendall_tau(weights, grad, mask).nanmean()),
            float((weights.argmax(-1) == loo.masked_fill(~mask, -math.inf).argmax(-1)).float().mean()),
        )
    return result


def head_label(layer: int, head: int, found: dict[str, tuple[int, int]]) -> str:
    """ "L2H1 (induction head)": a head's name and its role in this model."""
    role = next((r for r, where in found.items() if where == (layer, head)), None)
    return head_name(layer, head) + (f" ({role})" if role else "")
