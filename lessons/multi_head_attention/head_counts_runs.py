"""Section 3's recipe: 1, 2, 4 and 8 heads trained with the same budget, one run per head count and seed.

What ``scripts/multi_head_attention_results.py`` runs to write ``assets/results/multi_head_attention.json``: the
training recipe (:func:`results_config`), the model (:func:`new_model`), and one measured run
(:func:`measure_heads`, :func:`head_run`) with its final metrics named as the page's table columns. The page reads
the results through :mod:`lessons.multi_head_attention.head_counts`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.runs import Run, curve_of, first_reached
from lessons.multi_head_attention.transformer_maps import MODEL, head_alignment, parameter_count, sublayers
from minimodels.tasks import Task
from minimodels.train import TrainConfig, build_model, default_train_config, evaluate
from minimodels.train import train as train_model

RESULTS = ROOT / "assets" / "results" / "multi_head_attention.json"

RESULT_TASK = "toy-translation"
RESULT_HEADS: tuple[int, ...] = (1, 2, 4, 8)
RESULT_D_MODEL = 64
LEVELS: tuple[float, ...] = (0.9, 0.95)
REPORT_EVERY = 25


def results_config(seed: int, steps: int, threads: int | None = 1, **overrides) -> TrainConfig:
    """The shipped comparison's recipe: the Transformer's measured one, a fixed step budget, no early stop."""
    return default_train_config(
        MODEL,
        seed=seed,
        max_steps=steps,
        max_seconds=None,
        target_exact_match=None,
        report_every=REPORT_EVERY,
        threads=threads,
        **overrides,
    )


def new_model(task: Task, heads: int, seed: int) -> nn.Module:
    """The TinyTransformer of this lesson (d_model 64) with ``heads`` heads, initial weights from ``seed``."""
    return build_model(MODEL, task, seed=seed, d_model=RESULT_D_MODEL, n_heads=heads)


# The shipped comparison is a :class:`~lessons.common.comparison.Comparison`: one variant per head count
# ("h = 1" … "h = 8"), one run per seed, each run's final metrics named as the table's columns.
RESULT_SCRIPT = "scripts/multi_head_attention_results.py"
STEPS_TO = {level: f"steps to {level:.0%}" for level in LEVELS}  # level -> final metric
WORST, AVERAGED = "alignment, worst head", "alignment, heads averaged"


def variant(heads: int) -> str:
    """The comparison's name (and label) of ``heads`` heads: ``"h = 4"``."""
    return f"h = {heads}"


def head_run(
    heads: int,
    seed: int,
    *,
    steps: int,
    seconds: float,
    cpu_seconds: float,
    exact_match: float,
    test_exact_match: float,
    head_alignment: Sequence[float],
    alignment: float,
    parameters: int,
    curve: Sequence[Mapping],
    probe: Mapping | None = None,
) -> Run:
    """One run of the comparison, from what one training measured (the script's and the shipped file's figures)."""
    final = {
        **{name: first_reached(curve, "exact_match", level) for level, name in STEPS_TO.items()},
        "CPU s": cpu_seconds,
        "wall s": seconds,
        "held-out exact": exact_match,
        "test exact": test_exact_match,
        AVERAGED: alignment,
        "alignment, best head": max(head_alignment),
        WORST: min(head_alignment),
        "steps": steps,
        "parameters": parameters,
    }
    extra = {"head_alignment": list(head_alignment), **({"probe": dict(probe)} if probe else {})}
    return Run(variant(heads), seed, {"heads": heads, "d_k": RESULT_D_MODEL // heads}, tuple(curve), final, extra)


def measure_heads(task: Task, heads: int, seed: int, steps: int, threads: int = 1) -> Run:
    """Train one model of the comparison and check it (test split, alignment): its run, probe maps in ``extra``."""
    model = new_model(task, heads, seed)
    cpu = time.process_time()
    result = train_model(model, task, results_config(seed, steps, threads))
    cpu = time.process_time() - cpu
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test"))
    alignment = head_alignment(model, task)
    last = sublayers(list(alignment))[-1]
    final = result.history[-1]
    probe = {
        "seed": seed,
        "step": final.step,
        "source": list(final.source_tokens),
        "target": list(final.target_tokens),
        "prediction": final.prediction,
        "maps": {name: np.round(m, 4).tolist() for name, m in final.attention_maps.items() if name.endswith("cross")},
    }
    return head_run(
        heads,
        seed,
        steps=result.steps,
        seconds=round(result.seconds, 3),
        cpu_seconds=round(cpu, 3),
        exact_match=result.exact_match,
        test_exact_match=test,
        alignment=round(alignment[last][-1], 4),
        head_alignment=[round(v, 4) for v in alignment[last][:-1]],
        parameters=parameter_count(model),
        curve=curve_of(result.history),
        probe=probe,
    )
