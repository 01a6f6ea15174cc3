"""The training loop: minibatches, Adam, a small held-out check, progress reports, and the stopping rules.

``train(model, task, config, on_progress)`` trains in the calling thread and reports every
``config.report_every`` steps with a :class:`~minimodels.train.snapshots.Progress` snapshot (step, seconds, loss,
held-out exact match, and the attention of the task's fixed probe sentence), so a page can redraw a heatmap while
the model learns. ``on_progress`` returning ``False`` stops training at once; the model stays usable, trained so
far. Inside ``with stop_when(event):``, setting ``event`` from another thread stops it after the current step.

Speed is what makes live training in class possible, so evaluation is kept small: greedy decoding, batched,
under ``torch.inference_mode``, of a fixed subset of the validation split, at reports, and between reports
(every ``check_every`` steps) only once the training batch itself, teacher forced, is at the target: the stop
then comes within a few steps of the target instead of up to ``report_every`` steps after it, at the price of
a few extra evaluations near the end. The stopping rule is always the held-out greedy exact match. Nothing here is
global: several trainings may run in several threads of one process (each with its own model), as a class
server's pages do. ``torch.set_num_threads`` is process-wide, so ``train`` calls it only when
``config.threads`` asks.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from ..adam import Adam, scheduled
from ..device import pick_device
from ..tasks import Batch, Task
from ..tokenizers import PAD_ID
from .batches import _length_slices, _minibatches
from .config import TrainConfig
from .metrics import _main_map, _teacher_forced_exact_match, evaluate, main_map_name
from .schedules import _lr_factor, _WeightAverage
from .snapshots import Progress, TrainResult, _Probe
from .stopping import stop_requested


def _backward(
    model: nn.Module, data: Batch, rows: torch.Tensor, lengths: torch.Tensor, slices: int = 1
) -> tuple[torch.Tensor, float]:
    """Backpropagate the mean cross-entropy per target token of minibatch ``rows`` of ``data``, in length slices.

    ``lengths`` are the source lengths of all of ``data`` (on the CPU); see :func:`_length_slices`. Gradients
    are added to the parameters' ``.grad``. Returns the loss (detached) and the share of the rows whose every
    token is right under teacher forcing (see :func:`_teacher_forced_exact_match`).
    """
    device = data.source.device
    tokens = (data.target_out[rows.to(device)] != PAD_ID).sum()  # the batch's target tokens, EOS included
    loss, right = torch.zeros((), device=device), 0.0
    for part in _length_slices(lengths[rows], slices):
        batch = data.select(rows[part].to(device))
        out = model(batch.source, batch.source_lengths, batch.target_in)
        part_loss = F.cross_entropy(
            out.logits.flatten(0, 1), batch.target_out.flatten(), ignore_index=PAD_ID, reduction="sum"
        )  # summed over the slice's tokens: / tokens makes every slice's share of the batch mean
        (part_loss / tokens).backward()  # gradients add up over the slices
        loss += part_loss.detach() / tokens
        right += _teacher_forced_exact_match(out.logits, batch.target_out) * len(part) / len(rows)
    return loss, right


def train(
    model: nn.Module,
    task: Task,
    config: TrainConfig | None = None,
    on_progress: Callable[[Progress], bool | None] | None = None,
) -> TrainResult:
    """Train ``model`` on ``task`` in place until a stopping rule fires; see the module docstring.

    Stops when held-out exact match (checked at reports, and every ``check_every`` steps between them once the
    training batch is at the target) reaches ``config.target_exact_match``, after
    ``max_steps`` or ``max_seconds``, or when ``on_progress`` returns ``False`` (``None`` continues). A last
    report is made on stopping if the last step was not one. Deterministic for a seed on the CPU unless
    ``max_seconds`` is what stops it.
    """
    config = config or TrainConfig()
    if config.report_every < 1:
        raise ValueError("report_every must be at least 1")
    if on_progress is None and config.max_steps is config.max_seconds is config.target_exact_match is None:
        raise ValueError("no stopping rule: set max_steps, max_seconds or target_exact_match")
    if config.threads:
        torch.set_num_threads(config.threads)
    device = torch.device(config.device) if config.device else pick_device()
    model.to(device).train()
    data = task.encoded("train").to(device)
    held_out = task.encoded("valid")
    held_out = held_out.select(torch.arange(min(config.eval_size, len(held_out)))).to(device)
    probe = _Probe(task, device)
    generator = torch.Generator().manual_seed(config.seed)
    # one fused kernel for the whole update where torch has it: ~1 ms less per step on a 2-core CPU
    fused = device.type in ("cpu", "cuda")
    optimizer = Adam(model.parameters(), lr=config.lr, betas=config.betas, fused=fused)
    schedule = scheduled(optimizer, lambda s: _lr_factor(s, config)) if config.warmup_steps else None
    averaged = _WeightAverage(model, config.average) if config.average else None

    def judged():  # the weights evaluated, reported and returned: the average, if the config keeps one
        return averaged.applied() if averaged else contextlib.nullcontext()

    map_name = main_map_name(model)
    target = config.target_exact_match
    history: list[Progress] = []
    running_loss = torch.zeros((), device=device)
    losses_since = 0
    step, stopped = 0, None
    start = time.perf_counter()

    evaluations = [0, 0.0]  # count, seconds

    def held_out_score() -> float:
        began = time.perf_counter()
        model.eval()
        with judged():
            score = evaluate(model, held_out)
        model.train()
        evaluations[0] += 1
        evaluations[1] += time.perf_counter() - began
        return score

    def report(score: float | None = None) -> bool | None:
        nonlocal running_loss, losses_since
        score = held_out_score() if score is None else score
        with judged():
            model.eval()
            maps, prediction = probe.look(model)
            model.train()
            snapshot = Progress(
                step=step,
                seconds=time.perf_counter() - start,
                loss=float(running_loss) / max(losses_since, 1),
                exact_match=score,
                attention=_main_map(maps, map_name),
                attention_name=map_name,
                attention_maps=maps,
                source_tokens=probe.source_tokens,
                target_tokens=probe.target_tokens,
                prediction=prediction,
            )
            history.append(snapshot)
            running_loss, losses_since = torch.zeros((), device=device), 0
            return on_progress(snapshot) if on_progress else None  # it sees the model as reported

    lengths = task.encoded("train").source_lengths  # on the CPU, where batches are drawn and sliced
    batches = _minibatches(lengths, config, generator)
    while stopped is None:
        if schedule:
            schedule(step)
        optimizer.zero_grad(set_to_none=True)
        loss, right = _backward(model, data, next(batches), lengths, config.length_slices)  # right: teacher forced
        if config.clip:
            nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimizer.step()
        step += 1
        if averaged:
            averaged.update(step)
        running_loss += loss
        losses_since += 1
        if step % config.report_every == 0:
            if report() is False:
                stopped = "callback"
            elif target is not None and history[-1].exact_match >= target:
                stopped = "target"
        elif target is not None and config.check_every and step % config.check_every == 0 and right >= target:
            # between reports the held-out check (greedy decoding) runs only once this batch, teacher forced,
            # was already at the target: a model that gets its own training batch wrong is not there yet
            score = held_out_score()
            if score >= target:
                stopped = "target"
                report(score)  # the held-out check that stopped it; its answer cannot un-stop it
        if stopped is None and stop_requested():
            stopped = "callback"
            if not history:
                report()  # stopped before its first report: one look at the model, so the run has a last state
        if stopped is None:
            if config.max_steps is not None and step >= config.max_steps:
                stopped = "max_steps"
            elif config.max_seconds is not None and time.perf_counter() - start >= config.max_seconds:
                stopped = "max_seconds"
            if stopped and step % config.report_every:
                report()  # a last look at the model as it ends; its answer cannot un-stop it
    if averaged:
        averaged.copy_back()  # the model trained in place is the one that was evaluated
    model.eval()
    last = history[-1]
    seconds = time.perf_counter() - start
    return TrainResult(step, seconds, last.loss, last.exact_match, stopped, str(device), history, *evaluations)
