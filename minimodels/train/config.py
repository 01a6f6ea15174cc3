"""How a run is set up: :class:`TrainConfig`, every knob of :func:`~minimodels.train.train`, and the recipes.

:func:`default_train_config` holds each model's measured recipe; bench/training_recipes.md keeps the measurements,
so a default changes with figures, not by taste.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainConfig:
    """How :func:`train` runs. Defaults: the measured recipe for a GRU with attention on ``dates``."""

    seed: int = 0  # order of the minibatches (build_model takes its own seed for the initial weights)
    batch_size: int = 128  # examples per step
    length_grouping: int = 1  # draw this many batches at once and sort them by source length (1: off)
    length_slices: int = 1  # compute each batch in up to this many slices of similar source length (1: whole);
    #                         the same batch and gradient, less padding: see _length_slices
    lr: float = 1e-2  # Adam's learning rate (1e-2 for Seq2Seq; see default_train_config for Transformers)
    betas: tuple[float, float] = (0.9, 0.999)  # Adam's decay rates of its gradient and squared-gradient averages
    warmup_steps: int = 0  # linear learning-rate warm-up from 0 over this many steps (0: none)
    decay: bool = False  # after warm-up, lr × (warmup / step) ** decay_power: the Transformer paper's schedule
    decay_power: float = 0.5  # 0.5: the paper's inverse square root (§5.3); 1: faster, lr ∝ 1 / step
    clip: float | None = 1.0  # clip the gradients' global norm to this (None: no clipping)
    average: float | None = None  # keep an exponential moving average of the weights with this decay (e.g. 0.9)
    #                               and evaluate, report and return it instead of the last step's (None: off)
    max_steps: int | None = 5000  # stop after this many steps (None: no limit)
    max_seconds: float | None = 120.0  # stop after this much wall time (None: no limit)
    target_exact_match: float | None = 0.98  # stop once held-out exact match reaches this (None: never)
    report_every: int = 25  # steps between reports; each one evaluates and calls on_progress
    check_every: int | None = 5  # between reports, check the target this often, but only while the training
    #                              batch is already at the target (teacher forced); None: at reports only
    eval_size: int = 200  # validation examples (the split's first ones) decoded at each report
    device: str | None = None  # "cpu", "cuda", "mps"; None picks the fastest available
    threads: int | None = None  # torch.set_num_threads(threads) (process-wide!) before training; None: leave

    def __post_init__(self):
        if self.decay and self.warmup_steps < 1:
            raise ValueError("decay=True needs warmup_steps >= 1: the decay lr × sqrt(warmup / step) is 0 without one")
        if self.check_every is not None and self.check_every < 1:
            raise ValueError("check_every must be at least 1 (or None)")
        if self.length_slices < 1:
            raise ValueError("length_slices must be at least 1")
        if self.average is not None and not 0 < self.average < 1:
            raise ValueError("average must be a decay between 0 and 1 (or None)")


def default_train_config(model_name: str, **overrides) -> TrainConfig:
    """The recipe measured for ``model_name`` (figures in bench/training_recipes.md), with ``overrides`` on top.

    Seq2Seq: Adam at lr 1e-2, batches grouped by length. Transformer: peak lr 1e-2 after a 50-step warm-up, then the
    paper's inverse-square-root decay (a faster one slowed the variants that learn more slowly), plain random batches
    (length grouping slowed it down), each computed in two slices of similar length (the same gradient, fewer padded
    positions). The Transformer is judged and returned as an average of its weights (``average=0.9``): its held-out
    exact match jitters near the end by several points from report to report, the average's much less.
    ``gru-additive`` (Bahdanau's model) learns at lr 1.25e-2, also averaged: fewer steps to 98% on ``dates``, at the
    price of a slightly less sharp alignment on ``toy-translation``. The other Seq2Seq models keep lr 1e-2
    unaveraged (not measured; a lesson that compares one with ``gru-additive`` may want to pass ``lr`` and
    ``average`` so that both train alike).
    """
    if model_name == "transformer":
        base = {"lr": 1e-2, "warmup_steps": 50, "decay": True, "length_grouping": 1, "length_slices": 2, "average": 0.9}
    elif model_name == "gru-additive":
        base = {"length_grouping": 4, "lr": 1.25e-2, "average": 0.9}
    else:
        base = {"length_grouping": 4}
    return TrainConfig(**{**base, **overrides})
