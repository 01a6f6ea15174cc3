r"""The experiment every section of the lesson reads: the copy task, the models, their recipe.

The task is ``copy`` (``minimodels.tasks``): strings of 2 to 18 characters drawn from lower-case letters and the
space, written back unchanged. Copying is the hardest case for a fixed vector: the first output character is the
*oldest* input. The same task is trained without attention (``gru-none``) and with Bahdanau's additive attention
(``gru-additive``), for each context size D (``hidden_size``) in :data:`CONTEXT_SIZES`, with the same seed, data,
recipe and number of steps (:data:`STEPS`); then the test split (1,700 strings, 75 to 114 of each length, never
trained on) is decoded greedily and scored by source length (:mod:`.scoring`): exact match (the whole string right)
and token accuracy (characters and end mark right).

The recipe is Adam at :data:`LR` for every D: at the default 1e-2 the largest models (D = 128) trained unevenly
(with attention, seeds 0/1/2 copied 18-character strings 19%/75%/39% exactly; at 5e-3 seed 0 copies 99%), a training
artefact, not a bottleneck.

A third model, ``gru-mean`` (:class:`MeanPooledSeq2Seq`), is the model without attention whose context is the mean
of the states instead of the last one: the pooling section's idea, trained at D = :data:`POOL_D`.

Letters: B batch, S source positions (characters + EOS), D context (hidden) size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch
from torch import nn

from minimodels.seq2seq import Seq2Seq, Seq2SeqMemory
from minimodels.tasks import Task, get_task
from minimodels.train import Progress, TrainConfig, build_model, default_train_config, train

TASK = "copy"
TASK_SEED = 0
MIN_LEN, MAX_LEN = 2, 18
ALPHABET = " abcdefghijklmnopqrstuvwxyz"  # lower-case letters and the space: the student can type words
PER_LENGTH = 100  # test strings of each length (the test split is drawn first, so every length gets its share)
TASK_OPTIONS = {
    "min_len": MIN_LEN,
    "max_len": MAX_LEN,
    "alphabet": ALPHABET,
    "n_train": 10_000,
    "n_valid": 500,
    "n_test": PER_LENGTH * (MAX_LEN - MIN_LEN + 1),
}
MODELS: dict[str, str] = {"gru-none": "without attention", "gru-additive": "with attention"}
POOLED = "gru-mean"  # the model without attention whose context is the mean of the encoder states
LABELS: dict[str, str] = {**MODELS, POOLED: "mean-pooled context"}  # every variant of the shipped comparison
POOL_D = 64  # the context size at which the mean-pooled model is trained beside the other two
CONTEXT_SIZES: tuple[int, ...] = (16, 32, 64, 128)  # D, the encoder's (and decoder's) state size
STEPS = 800  # optimizer steps for every model: the same budget with and without attention
LR = 5e-3  # Adam's rate for every model and D (1e-2 trained D = 128 unevenly: see the module docstring)
SEED = 0  # initial weights and batch order
REPORT_EVERY = 50  # steps between the trainer's held-out checks in the shipped runs
EXAMPLES: tuple[str, ...] = ("jane", "jane visits", "jane visits africa")  # the lecture's sentence, growing
METRICS = {"exact_match": "exact match", "token_accuracy": "token accuracy"}
COLORS = {"gru-none": "#d62728", "gru-additive": "#1f77b4", POOLED: "#9467bd"}


def lesson_task() -> Task:
    """The copy task of the experiment (memoised by ``get_task``; read-only)."""
    return get_task(TASK, seed=TASK_SEED, **TASK_OPTIONS)


def shown(token: str) -> str:
    """A character as a chart label: the space made visible."""
    return "␣" if token == " " else token


def train_config(model_name: str, *, steps: int = STEPS, max_seconds: float | None = None) -> TrainConfig:
    """The Seq2Seq recipe (Adam at :data:`LR`, batch 128, clipping at 1), a fixed number of steps: the same for every
    model, so ``lr`` and ``average`` are spelt out (the ``gru-additive`` default learns faster at 1.25e-2, averaged;
    the shipped results were measured with this recipe). ``gru-mean`` trains as ``gru-none``."""
    return default_train_config(
        "gru-none" if model_name == POOLED else model_name,
        lr=LR,
        average=None,
        seed=SEED,
        max_steps=steps,
        max_seconds=max_seconds,
        target_exact_match=None,  # no early stop: both models get the same number of steps
        report_every=REPORT_EVERY,
        eval_size=100,
        device="cpu",
    )


class MeanPooledSeq2Seq(Seq2Seq):
    r"""The model without attention whose context is the *mean* of the encoder states, the NLP lecture's pooling
    :math:`Enc(x) = \frac{1}{|x|} \sum_{i=1}^{|x|} h_i` (over the real positions, EOS included), instead of the last
    state. The decoder is that of ``attention="none"``: the same vector at every step, and its :math:`s_0`.
    Attention is this sum with weights p(i | g) that change at every step; here they are fixed at 1/|x|."""

    def encode(self, source: torch.Tensor, source_lengths: torch.Tensor) -> Seq2SeqMemory:
        memory = super().encode(source, source_lengths)
        real = memory.mask.unsqueeze(-1).to(memory.states.dtype)  # (B, S, 1)
        mean = (memory.states * real).sum(1) / real.sum(1)  # (B, D)
        return dataclasses.replace(memory, final=mean)


def build(model_name: str, context_size: int, seed: int = SEED, *, bidirectional: bool = False) -> nn.Module:
    """A fresh, seeded model of the experiment with context size D = ``context_size``: a unidirectional encoder of
    D, or a bidirectional one of H = D / 2 per direction. ``gru-mean``: :class:`MeanPooledSeq2Seq` with the very
    initial weights of ``gru-none`` from the same seed."""
    if bidirectional and context_size % 2:
        raise ValueError(f"a bidirectional encoder needs an even D (H = D / 2 per direction), not {context_size}")
    hidden = context_size // 2 if bidirectional else context_size
    base = "gru-none" if model_name == POOLED else model_name
    model = build_model(base, lesson_task(), seed=seed, hidden_size=hidden, bidirectional=bidirectional)
    if model_name == POOLED:
        pooled = MeanPooledSeq2Seq(model.config)
        pooled.load_state_dict(model.state_dict())
        return pooled
    return model


def describe(model: nn.Module) -> str:
    """What ``model`` is, in the words every chart of the lesson labels it with (``Seq2SeqConfig.describe``)."""
    text = model.config.describe()
    if isinstance(model, MeanPooledSeq2Seq):
        text = text.replace("no attention (one context vector)", "no attention (context: the mean of the states)")
    return text


def train_model(
    model: nn.Module, config: TrainConfig, on_progress: Callable[[Progress], bool | None] | None = None
) -> object:
    """Train ``model`` on the lesson's task in place (``minimodels.train.train``); returns its TrainResult."""
    return train(model, lesson_task(), config, on_progress)
