"""A student's own run (section 5): both models trained one after the other, with a report the page draws.

The same seed, data, D and recipe as the shipped results but a faster Adam rate (:data:`LIVE_LR`), the model with
attention first, then the one without for exactly as many steps, within one time budget for both
(:func:`new_training`). Every report carries each model's accuracy by length on a few test strings of each length,
and what the model with attention writes for the probe by itself, with its attention (:func:`probe_decode`).

Letters: S source positions (characters + EOS), T' the tokens a model wrote, D context size.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.seq2seq_bottleneck.experiment import (
    CONTEXT_SIZES,
    SEED,
    build,
    describe,
    lesson_task,
    shown,
    train_config,
    train_model,
)
from lessons.seq2seq_bottleneck.one_vector import DEFAULT_TEXT
from lessons.seq2seq_bottleneck.scoring import LengthAccuracy, evaluate_by_length, scored_batch
from minimodels.decode import greedy
from minimodels.tasks import make_batch
from minimodels.tasks.core import Example
from minimodels.tokenizers import EOS_ID
from minimodels.train import Progress, TrainConfig

LIVE_STEPS = 150  # a live run trains each model this many steps: enough for the gap to show (see new_training)
LIVE_LR = 1e-2  # a live run's Adam rate: in 150 steps it learns more than LR (with attention, D = 32, seed 0, exact
# match at length 7 on 20 strings: 55% at 1e-2 against 30% at 5e-3)
LIVE_BUDGET_SECONDS = 30.0  # ... unless both together would take longer than this
LIVE_ORDER = ("gru-additive", "gru-none")  # the order a live run trains them in; the second gets the first's steps
FIRST_SHARE = 2 / 3  # of the budget, for the first: with attention a step takes about twice as long (150 steps with
# their reports at D = 32 on one thread: 16.8 s against 7.9 s)
LIVE_REPORT_EVERY = 25  # a live run reports (and the page redraws) this often: every 1-2 s; a report costs ~0.5 s
LIVE_PER_LENGTH = 20  # test strings of each length scored at every live report (the first of each length)
PROBE_TEXT = DEFAULT_TEXT  # the fixed example a live run copies at every report (and draws the attention of)


@dataclass
class LiveReport:
    """One report of one model of a student's run: its scores by length, its copy of the lecture's growing
    sentence and, with attention, where it looks while copying it."""

    model: str
    hidden_size: int
    step: int
    seconds: float  # since this model started training
    loss: float
    exact_match: float  # held-out exact match (the trainer's own check)
    accuracy: LengthAccuracy  # on LIVE_PER_LENGTH test strings of each length
    prediction: str  # the model's copy of PROBE_TEXT now
    attention: np.ndarray | None  # (T', S) its α while it writes its own copy of PROBE_TEXT; None without attention
    written: tuple[str, ...] = ()  # the T' tokens it wrote (greedy, its own output), the heatmap's rows
    label: str = ""  # what the model is (``describe``)


@dataclass(frozen=True)
class PairReport:
    """One report of a student's run of both models, one after the other (:data:`LIVE_ORDER`).

    ``step``, ``seconds``, ``loss`` and ``exact_match`` are what ``ui.training_panel`` reads, for the pair as one
    timeline: the steps and seconds of both models added up, and the loss and held-out exact match of the model
    that is training now (they jump back up when the second one starts from scratch). ``reports`` holds each
    model's own reports so far.
    """

    step: int
    seconds: float
    loss: float
    exact_match: float
    turn: str  # the model that made this report
    reports: dict[str, tuple[LiveReport, ...]]  # model -> its reports so far (empty until it starts)
    hidden_size: int  # D of both
    seed: int  # the seed both started from
    bidirectional: bool = False  # the encoders of both

    def latest(self, model: str) -> LiveReport | None:
        return self.reports[model][-1] if self.reports.get(model) else None

    @property
    def attention(self) -> np.ndarray | None:
        """The model with attention's latest α on the probe (a replay frame), or None before it starts."""
        latest = self.latest("gru-additive")
        return None if latest is None else latest.attention


@dataclass(frozen=True)
class Probe:
    """What a model writes for the probe *by itself* (greedy decoding, no teacher forcing) and where it looks."""

    prediction: str  # the text it wrote
    written: tuple[str, ...]  # the tokens it wrote, the end mark included if it wrote one
    attention: np.ndarray | None  # (T', S): row t, its α while writing token t; None without attention


@torch.inference_mode()
def probe_decode(model: nn.Module, text: str = PROBE_TEXT) -> Probe:
    """Greedy-decode ``text`` (at most its length + 4 tokens) and keep the attention of every step it took: the
    model's own output, each row the weights it used to write that token, not a teacher-forced pass."""
    task = lesson_task()
    batch = make_batch([Example(text, text)], task)
    decoded = greedy(model, batch.source, batch.source_lengths, max_len=len(text) + 4)
    T = int(decoded.lengths[0])
    ids = decoded.tokens[0, :T].tolist()
    written = tuple("</s>" if i == EOS_ID else shown(task.target_tokenizer.id_to_piece(i)) for i in ids)
    prediction = task.target_tokenizer.decode(decoded.sequences()[0])
    maps = decoded.attention
    attention = maps["cross"][0, :T].float().numpy() if "cross" in maps else None  # (T', S)
    return Probe(prediction, written, attention)


def finished_model(models: dict[str, nn.Module] | None, report: PairReport | None, name: str) -> nn.Module | None:
    """The model ``name`` of a student's finished run (``models``, its last ``report``), or None: no run, or it
    was stopped before that model started."""
    if models is None or report is None or report.latest(name) is None:
        return None
    return models[name]


def replay_frame(report: PairReport) -> np.ndarray | None:
    """A replay's frame: the attention on the probe while the model with attention trains (the frames it learns),
    None during the other model's turn."""
    return report.attention if report.turn == "gru-additive" else None


def new_run(hidden_size: int, seed: int = SEED, bidirectional: bool = False) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s pair and its trainer, with the live settings as they are
    now (read at each call, not frozen into defaults)."""
    if hidden_size not in CONTEXT_SIZES:  # refused here, in the page, not in the worker
        raise ValueError(f"D = {hidden_size} is not one of {', '.join(map(str, CONTEXT_SIZES))}")
    recipe = functools.partial(
        new_training,
        hidden_size,
        seed=seed,
        steps=LIVE_STEPS,
        budget_seconds=LIVE_BUDGET_SECONDS,
        per_length=LIVE_PER_LENGTH,
        report_every=LIVE_REPORT_EVERY,
        bidirectional=bidirectional,
    )
    return TrainingRun(recipe, name="bottleneck-pair")


def new_training(
    hidden_size: int,
    *,
    seed: int = SEED,
    steps: int = LIVE_STEPS,
    budget_seconds: float = LIVE_BUDGET_SECONDS,
    per_length: int = LIVE_PER_LENGTH,
    report_every: int = LIVE_REPORT_EVERY,
    bidirectional: bool = False,
):
    """Both fresh models for one student and the function that trains them: ``(models, train_fn(on_progress))``.

    The same seed, data, D and recipe as the shipped results but Adam at :data:`LIVE_LR` (the shipped ``LR``
    learns too little in a live run's few steps), one model after the other (:data:`LIVE_ORDER`), both with a
    unidirectional or both with a ``bidirectional`` encoder (H = D / 2 per direction, so D is the same):
    the model with attention first, until ``steps`` or :data:`FIRST_SHARE` of ``budget_seconds``; then the one
    without, for exactly as many steps as the first had (or until the budget is spent). So a busy server that
    cuts the run short never compares models trained for different numbers of steps. Every report (a
    :class:`PairReport`) carries each model's accuracy by length on ``per_length`` test strings of each length.
    Returning False from ``on_progress`` stops the run: the model training then keeps what it learnt, and one
    that has not started stays untrained.
    """
    if hidden_size not in CONTEXT_SIZES:
        raise ValueError(f"D = {hidden_size} is not one of {', '.join(map(str, CONTEXT_SIZES))}")
    if not 0 < budget_seconds <= 120:
        raise ValueError(f"a budget of {budget_seconds} s for both models is outside 0–120 s")
    models = {name: build(name, hidden_size, seed, bidirectional=bidirectional) for name in LIVE_ORDER}
    scored = scored_batch(per_length)

    def config(name: str, max_steps: int, max_seconds: float) -> TrainConfig:
        return dataclasses.replace(
            train_config(name, steps=max_steps, max_seconds=max(max_seconds, 1.0)),
            lr=LIVE_LR,
            seed=seed,
            report_every=report_every,
            threads=THREADS_PER_RUN,  # one torch thread per run: a class server's runs must not fight for cores
        )

    def train_fn(on_progress: Callable[[PairReport], bool]) -> dict[str, object]:
        reports: dict[str, list[LiveReport]] = {name: [] for name in LIVE_ORDER}
        results = {}  # model -> its TrainResult, once it has finished

        for name, model in models.items():

            def report(p: Progress, name: str = name, model: nn.Module = model) -> bool:
                model.eval()
                probe = probe_decode(model)
                live = LiveReport(
                    name,
                    hidden_size,
                    p.step,
                    p.seconds,
                    p.loss,
                    p.exact_match,
                    accuracy=evaluate_by_length(model, scored),
                    prediction=probe.prediction,
                    attention=probe.attention,
                    written=probe.written,
                    label=describe(model),
                )
                model.train()
                reports[name].append(live)
                return on_progress(
                    PairReport(
                        step=sum(r.steps for r in results.values()) + p.step,
                        seconds=sum(r.seconds for r in results.values()) + p.seconds,
                        loss=p.loss,
                        exact_match=p.exact_match,
                        turn=name,
                        reports={n: tuple(r) for n, r in reports.items()},
                        hidden_size=hidden_size,
                        seed=seed,
                        bidirectional=bidirectional,
                    )
                )

            if not results:  # the first: the slower per step, so the larger share of the time
                limits = config(name, steps, FIRST_SHARE * budget_seconds)
            else:  # the next: the first one's steps, in whatever time it left
                first = next(iter(results.values()))
                limits = config(name, first.steps, budget_seconds - sum(r.seconds for r in results.values()))
            results[name] = result = train_model(model, limits, report)
            if result.stopped == "callback":  # the student pressed Stop: the next model does not start
                break
        return results

    return models, train_fn
