"""The bottleneck lesson's length sweep, run again with linear attention beside softmax attention and the GRU.

The task, data and recipe are the bottleneck lesson's (:mod:`lessons.seq2seq_bottleneck.experiment`): copy strings
of 2 to 18 characters, GRU encoder and decoder of D = ``D`` units, Adam at its rate, no early stop, the same steps
for every model; greedy decoding of held-out strings scored by length (:mod:`lessons.seq2seq_bottleneck.scoring`).
Three readers of the source (``MODELS``):

* ``gru-none``, the GRU alone: the decoder reads one vector of D numbers, the encoder's last state;
* ``gru-softmax``: softmax attention (scaled dot product, the decoder's current state as the query) over every
  encoder state: what it reads grows with the string;
* ``gru-linear``: the same query, keys and values with linear attention
  (:class:`minimodels.linear_attention.LinearAttentionSeq2Seq`): everything it reads is the running sums
  :math:`(S, u)`, D·D + D numbers, whatever the length.

``STEPS`` and ``PER_LENGTH`` are smaller than the bottleneck lesson's (800 steps, 100 strings per length) so that the
shipped results fit in minutes; the page says so.

Letters: D the state size, S source positions.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn

from lessons.common.runs import Run
from lessons.seq2seq_bottleneck import experiment, scoring
from lessons.seq2seq_bottleneck.shipped import lengths_text
from lessons.seq2seq_bottleneck.shipped import measured_run as bottleneck_run
from minimodels.linear_attention import LinearAttentionSeq2Seq, state_size
from minimodels.train import build_model

D = experiment.POOL_D  # 64, the bottleneck lesson's middle context size
STEPS = 500
PER_LENGTH = 40  # held-out strings of each length scored
MODELS = {"gru-none": "GRU alone (one vector)", "gru-softmax": "softmax attention", "gru-linear": "linear attention"}
BASE = {"gru-none": "gru-none", "gru-softmax": "gru-scaled_dot", "gru-linear": "gru-scaled_dot"}  # how each is built
LONG = (14, 18)  # the longest strings: where the comparison is drawn
SHORT = (2, 6)
LONG_METRIC = f"exact match on {lengths_text(LONG)}"  # the figure the comparison is drawn on


def build(model: str, seed: int) -> nn.Module:
    """A fresh, seeded model; ``gru-linear`` starts from the very weights of ``gru-softmax`` of the same seed."""
    base = build_model(BASE[model], experiment.lesson_task(), seed=seed, hidden_size=D)
    if model != "gru-linear":
        return base
    linear = LinearAttentionSeq2Seq(base.config)
    linear.load_state_dict(base.state_dict())
    return linear


def train_config(model: str, seed: int, steps: int = STEPS):
    """The bottleneck lesson's recipe for ``model`` (``experiment.train_config``) from ``seed``, ``steps`` long."""
    return dataclasses.replace(experiment.train_config(BASE[model], steps=steps), seed=seed)


def what_it_reads(model: str, source_length: int) -> int:
    """How many numbers the decoder can read of a source of ``source_length`` positions (EOS included)."""
    if model == "gru-none":
        return D
    if model == "gru-softmax":
        return source_length * D
    return state_size(D)


def measured_run(model: str, seed: int, steps: int = STEPS, per_length: int = PER_LENGTH) -> Run:
    """``model`` trained from ``seed`` and scored by length (the bottleneck lesson's run format, curve by length)."""
    torch.manual_seed(seed)
    net = build(model, seed)
    result = experiment.train_model(net, train_config(model, seed, steps))
    net.eval()
    accuracy = scoring.evaluate_by_length(net, scoring.scored_batch(per_length))
    outputs = {text: scoring.copy_text(net, text) for text in experiment.EXAMPLES}
    run = bottleneck_run(model, net, result, accuracy, outputs, seed)
    return dataclasses.replace(run, params={**run.params, "steps": steps})
