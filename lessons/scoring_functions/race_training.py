"""The race of sections 3 and 5: the same GRU encoder–decoder with each of the four scores, trained from one seed
on the same data, taking turns of a few steps so that their curves grow side by side on one core; each model's
race kept as one ``Run`` of a ``Comparison``, with the figures the tables show."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common.comparison import Comparison
from lessons.common.live import THREADS_PER_RUN
from lessons.common.runs import Run, curve_of, first_reached
from lessons.scoring_functions.four_scores import LABELS, SCORES, parameter_count
from minimodels.tasks import Task
from minimodels.train import (
    Progress,
    TrainConfig,
    alignment_accuracy,
    build_model,
    default_train_config,
    evaluate,
    stop_event,
    stop_requested,
    stop_when,
)
from minimodels.train import train as train_model

TASK = "dates"
LEVELS: tuple[float, ...] = (0.9, 0.95)  # held-out exact match levels whose first step/second the table shows
TARGET = 0.98  # a model stops racing once its held-out exact match reaches this
REPORT_EVERY = 10  # steps per turn: each model trains this many steps, then reports and passes the turn
# Where the seq2seq decoder attends from (minimodels.seq2seq, attention_query="auto")
QUERY = {
    "dot": "sₜ (Luong)",
    "scaled_dot": "sₜ (Luong)",
    "bilinear": "sₜ (Luong)",
    "additive": "sₜ₋₁ (Bahdanau)",
}


def model_name(score: str) -> str:
    return f"gru-{score}"


# A model's race is one ``Run`` of a ``Comparison`` (``lessons.common.comparison``): variant = the score, its
# reports as its curve ({"step", "seconds", "loss", "exact_match"}: seconds of its own compute, the held-out
# checks included, waiting for its turn excluded), these final figures, and ``extra["stopped"]``: "target",
# "budget", "max_steps", "stopped" (by the student) or "running" (a live race's model still training).
def level_metric(what: str, level: float) -> str:
    """The final metric of the first report at or above a held-out exact match ``level``: "steps to 95%"."""
    return f"{what} to {level:.0%}"


TIMED = {  # the table's speed columns and their formats; "not reached" where a seed never got there
    **{level_metric(what, level): fmt for level in LEVELS for what, fmt in (("steps", ".0f"), ("seconds", ".1f"))},
    "seconds per 100 steps": ".1f",
}
CHECKED = {"test exact match": ".1%", "alignment accuracy": ".1%"}  # measured once a model finishes, else None
RUN_METRICS = (*TIMED, "steps", "seconds", "held-out exact match", *CHECKED)  # every seed's row, in this order


def run_of(
    score: str,
    seed: int,
    curve: Sequence[Mapping],
    stopped: str,
    test_exact_match: float | None = None,
    alignment: float | None = None,
    extra: Mapping | None = None,
) -> Run:
    """One model's race as a :class:`Run`: its reports, and the final figures the tables show, all read off the
    curve but the two final checks (the whole test split's exact match and the alignment accuracy, None when the
    model was stopped before them)."""
    last = curve[-1] if curve else {"step": 0, "seconds": 0.0, "exact_match": 0.0}
    final = {"steps": last["step"], "seconds": last["seconds"], "held-out exact match": last["exact_match"]}
    for level in LEVELS:
        final[level_metric("steps", level)] = first_reached(curve, "exact_match", level)
        final[level_metric("seconds", level)] = first_reached(curve, "exact_match", level, x="seconds")
    final["seconds per 100 steps"] = 100 * last["seconds"] / max(last["step"], 1)
    final |= {"test exact match": test_exact_match, "alignment accuracy": alignment}
    return Run(score, seed, curve=tuple(curve), final=final, extra={"stopped": stopped, **(extra or {})})


def summarize(
    score: str,
    seed: int,
    history: Sequence[Progress],
    stopped: str,
    test_exact_match: float | None = None,
    alignment: float | None = None,
) -> Run:
    return run_of(score, seed, curve_of(history), stopped, test_exact_match, alignment)


@dataclass(frozen=True)
class RaceReport:
    """One report of a race, after any model's turn. ``step``, ``seconds``, ``loss`` and ``exact_match`` are what
    a generic training panel reads: the furthest step, the compute seconds of all four together, and the mean
    loss and held-out exact match of the four (each at its latest report)."""

    step: int
    seconds: float
    loss: float
    exact_match: float
    histories: dict[str, tuple[Progress, ...]]  # score -> that model's reports so far (seconds: its own compute)
    summaries: dict[str, Run]  # score -> final figures, for the models that have finished
    turn: str  # the score whose report this is
    seed: int  # the seed every model of the race started from

    def comparison(self) -> Comparison:
        """The race so far as a comparison with one seed per score: each model's figures (final ones where it
        finished), for :func:`table_rows` and :func:`race_charts`."""
        runs = [
            self.summaries[score] if score in self.summaries else summarize(score, self.seed, history, "running")
            for score, history in self.histories.items()
            if score in self.summaries or history
        ]
        return Comparison(tuple(self.histories), tuple(runs), {"task": TASK, "seeds": [self.seed]}, LABELS)

    def maps(self) -> dict[str, dict]:
        """Each model's latest attention map of the probe, for :func:`attention_grid`."""
        return {
            score: {
                "attention": history[-1].attention,
                "source_tokens": history[-1].source_tokens,
                "target_tokens": history[-1].target_tokens,
                "title": f"{LABELS[score]} · step {history[-1].step} · “{history[-1].prediction}”",
            }
            for score, history in self.histories.items()
            if history and history[-1].attention is not None
        }


class _Turns:
    """Token passing between the coordinator and the model threads: exactly one of them computes at a time."""

    def __init__(self, names: Sequence[str]):
        self.go = {name: threading.Semaphore(0) for name in names}
        self.back = threading.Semaphore(0)


def race(
    models: Mapping[str, nn.Module],
    task: Task,
    config: TrainConfig,
    *,
    budget_seconds: float | None,
    on_progress: Callable[[RaceReport], bool | None] | None = None,
    final_checks: bool = True,
) -> dict[str, Run]:
    """Train every model of ``models`` (score -> model) on ``task`` with ``config``, taking turns.

    Each model trains in its own thread with :func:`minimodels.train.train`; a turn is ``config.report_every``
    steps and one report, then the next model goes. Only one model computes at any moment (one core, one
    ``lessons.common.live`` slot), every model sees the same batches as it would alone (same seed, same data), and
    ``seconds`` count each model's own compute time, not the time it waited for its turn.

    A model stops at ``config.target_exact_match``, after ``budget_seconds`` of its own compute, after
    ``config.max_steps``, or when ``on_progress`` (called after every turn) returns False, which stops them
    all at their next turn. ``final_checks``: once a model finishes (not when stopped), measure its whole-test
    exact match and alignment accuracy. Returns each model's :class:`Run`.
    """
    if config.max_seconds is not None:
        raise ValueError("a race budgets compute seconds with budget_seconds; set config.max_seconds=None")
    names = [s for s in SCORES if s in models] + [s for s in models if s not in SCORES]
    turns = _Turns(names)
    stop = threading.Event()
    histories: dict[str, list[Progress]] = {name: [] for name in names}
    summaries: dict[str, Run] = {}
    errors: dict[str, BaseException] = {}
    done: set[str] = set()

    def work(name: str) -> None:
        waited = 0.0
        over_budget = False

        def on_report(p: Progress) -> bool:
            nonlocal waited, over_budget
            own = p.seconds - waited
            histories[name].append(dataclasses.replace(p, seconds=own))
            over_budget = budget_seconds is not None and own >= budget_seconds
            turns.back.release()  # this turn is over: hand back to the coordinator ...
            start = time.perf_counter()
            turns.go[name].acquire()  # ... and wait for the next one
            waited += time.perf_counter() - start
            return not (stop.is_set() or over_budget)

        turns.go[name].acquire()
        try:
            if stop.is_set():  # stopped before its first turn
                summaries[name] = summarize(name, config.seed, [], "stopped")
                return
            result = train_model(models[name], task, config, on_report)
            stopped = result.stopped
            if stopped == "callback":
                stopped = "stopped" if stop.is_set() or stop_requested() else "budget"
            test_em = alignment = None
            if final_checks and stopped != "stopped":
                with torch.inference_mode():
                    test_em = round(evaluate(models[name], task.encoded("test").to(result.device)), 4)
                found = alignment_accuracy(models[name], task, "test")
                alignment = round(found["accuracy"], 4) if found else None
            summaries[name] = summarize(name, config.seed, histories[name], stopped, test_em, alignment)
        except BaseException as error:  # handed to the coordinator, which raises it once every thread is done
            errors[name] = error
        finally:
            done.add(name)
            turns.back.release()

    outer = stop_event()  # the page's Stop (minimodels.train.stop_when) reaches every model's thread

    def stoppable_work(name: str) -> None:
        with stop_when(outer):
            work(name)

    threads = [
        threading.Thread(target=stoppable_work, args=(name,), name=f"race-{name}", daemon=True) for name in names
    ]
    for thread in threads:
        thread.start()
    active = list(names)
    try:
        while active:
            for name in list(active):
                turns.go[name].release()
                turns.back.acquire()
                if name in done:
                    active.remove(name)
                if errors:
                    stop.set()
                report = on_progress is not None and histories[name] and not stop.is_set()
                if report and on_progress(_report(histories, summaries, name, config.seed)) is False:
                    stop.set()
    finally:  # on any error here, let every thread run to its end (each stops at its next report)
        stop.set()
        for name in active:
            while name not in done:
                turns.go[name].release()
                turns.back.acquire()
        for thread in threads:
            thread.join()
    if errors:
        raise next(iter(errors.values()))
    return summaries


def _report(histories: dict[str, list[Progress]], summaries: dict[str, Run], turn: str, seed: int) -> RaceReport:
    latest = [h[-1] for h in histories.values() if h]
    return RaceReport(
        step=max(p.step for p in latest),
        seconds=sum(p.seconds for p in latest),
        loss=float(np.mean([p.loss for p in latest])),
        exact_match=float(np.mean([p.exact_match for p in latest])),
        histories={name: tuple(h) for name, h in histories.items()},
        summaries=dict(summaries),
        turn=turn,
        seed=seed,
    )


def race_config(seed: int = 0, **overrides) -> TrainConfig:
    """The course's recipe for the race: the seq2seq default (Adam 1e-2, batch 128, batches grouped by length),
    a turn of ``REPORT_EVERY`` steps, stop at ``TARGET``; the time budget is the race's, not train's. Each model's
    thread computes on ``THREADS_PER_RUN`` torch threads (set per thread by ``train``), so a class server's
    races do not fight for cores."""
    options = {
        "seed": seed,
        "threads": THREADS_PER_RUN,
        "report_every": REPORT_EVERY,
        "target_exact_match": TARGET,
        "max_seconds": None,
        "max_steps": 5000,
        **overrides,
    }
    return default_train_config(model_name("dot"), **options)


def new_models(task: Task, seed: int = 0) -> dict[str, nn.Module]:
    """A fresh GRU encoder–decoder for each score, all initialised from ``seed`` (their own, untouched by others)."""
    return {score: build_model(model_name(score), task, seed=seed) for score in SCORES}


def score_parameters(model: nn.Module) -> int:
    """Parameters of a seq2seq model's score function alone."""
    return parameter_count(model.attention) if getattr(model, "attention", None) is not None else 0
