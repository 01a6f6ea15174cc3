"""What the race's softmax sees (the end of section 3): the race's dot scores are small because a GRU's states
are, so unscaled dot is not slowed by its size there; the statistics the script measures on the race's models,
the paragraph written from them, and the prediction exercise about a wider GRU."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import torch
from torch import nn

from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.common.runs import Spread
from lessons.scoring_functions.race_training import TASK, model_name
from minimodels.attention import masked_softmax
from minimodels.tasks import Task, get_task
from minimodels.train import build_model


# The race's query is the decoder state sₜ and its keys are the encoder states hᵢ: both GRU outputs, each entry a
# tanh times a gate, and PyTorch draws a GRU's weights from U(−1/√d, 1/√d). Their entries are small (variance
# σ² ≈ 0.05 at d = 64), so q·k = Σ qⱼkⱼ has a standard deviation near √d·σ_q·σ_k, well under 1: the softmax is
# far from saturated, and dividing by √d only flattens α further.
@torch.inference_mode()
def race_score_stats(model: nn.Module, task: Task, sentences: int = 200) -> dict[str, float]:
    """What a race model's (Luong) attention sees on the first ``sentences`` held-out sentences, teacher-forced:
    ``d``, the variance of the query entries (decoder states sₜ) and of the key entries (encoder states hᵢ), the
    standard deviation of the raw scores e over real (query, key) pairs, the mean largest α and the mean α a
    uniform softmax would give (1/S). Only for models that attend from sₜ (dot, scaled dot, bilinear)."""
    if model.config.query != "current":
        raise ValueError(f"{model.config.attention} attends from sₜ₋₁; race_score_stats reads sₜ models only")
    batch = task.encoded("valid").select(torch.arange(min(sentences, len(task.encoded("valid")))))
    memory = model.encode(batch.source, batch.source_lengths)  # states (B, S, D)
    s, _ = model._fused(model.target_embedding(batch.target_in), memory.final)  # (B, T, D): every sₜ at once
    e = model.scores(s, memory)  # (B, T, S)
    real = (batch.target_out != 0).unsqueeze(2) & memory.mask.unsqueeze(1)  # (B, T, S): real query and key
    alpha = masked_softmax(e, memory.mask.unsqueeze(1))  # (B, T, S)
    rows = real.any(-1)  # (B, T): real queries
    return {
        "d": int(s.size(-1)),
        "query variance": float(s[rows].var()),
        "key variance": float(memory.states[memory.mask].var()),
        "score sd": float(e[real].std()),
        "largest α": float(alpha.amax(-1)[rows].mean()),
        "uniform α": float((1 / memory.mask.sum(-1, keepdim=True).float()).expand_as(rows)[rows].mean()),
    }


def predicted_sd(stats: Mapping[str, float], scaled: bool = False) -> float:
    """√d·σ_q·σ_k: the sd of q·k for independent entries of those variances (divided by √d when ``scaled``)."""
    sd = math.sqrt(stats["d"] * stats["query variance"] * stats["key variance"])
    return sd / math.sqrt(stats["d"]) if scaled else sd


@functools.cache
def fresh_stats(score: str, d: int, seed: int = 0) -> dict[str, float]:
    """:func:`race_score_stats` of a freshly initialised race model of ``score`` with states of size ``d``."""
    task = get_task(TASK)
    return race_score_stats(build_model(model_name(score), task, seed=seed, hidden_size=d).eval(), task)


STAT_SCORES = ("dot", "scaled_dot")  # the race models whose scores the script reads at the start and the end


def start_and_end(c: Comparison) -> dict[str, dict[str, Spread]]:
    """Per dot score, each statistic of :func:`race_score_stats` at the race's start and end over the seeds:
    ``{score: {"start score sd": Spread, ...}}`` (the script keeps them in each run's ``extra["scores"]``)."""
    out = {}
    for score in STAT_SCORES:
        runs = [r for r in c.runs_of(score) if "scores" in r.extra]
        if runs:
            out[score] = {
                f"{when} {k}": Spread(tuple(r.extra["scores"][when][k] for r in runs))
                for when in ("start", "end")
                for k in runs[0].extra["scores"][when]
            }
    return out


def why_dot_leads(c: Comparison) -> str:
    """Why unscaled dot is not slowed by its size here, in numbers the shipped race measured on its own models (at
    the start, before any training, and at the end): the query and key variances, √d·σ_q·σ_k against the measured
    sd of q·k, and how far from uniform each softmax is. Empty when the results lack the statistics."""
    stats = start_and_end(c)
    if set(stats) != set(STAT_SCORES):
        return ""
    dot, scaled = stats["dot"], stats["scaled_dot"]
    d = int(dot["start d"].mean)
    mean = {k: v.mean for k, v in dot.items()}
    start = {k.removeprefix("start "): v for k, v in mean.items() if k.startswith("start ")}
    n = dot["start score sd"].n
    narrow = dot["start score sd"].mean < math.sqrt(d) / 4
    below = "far below" if narrow else "against"
    saturated = "not saturated" if dot["start largest α"].mean < 0.5 else "already peaked"
    return (
        f"**What the race's softmax sees.** Before training (mean of {n} seeds), the race's decoder states sₜ "
        f"(the queries) have entries of variance σ_q² = {start['query variance']:.3f} and the encoder states hᵢ "
        f"(the keys) σ_k² = {start['key variance']:.3f}, because a GRU's state is a gated tanh with small initial "
        f"weights. So at d = {d} the dot products q·k spread with sd ≈ √d·σ_q·σ_k = "
        f"√{d}·√({start['query variance']:.3f}·{start['key variance']:.3f}) = {predicted_sd(start):.2f} "
        f"(measured {dot['start score sd'].text('.2f')}), {below} the √d = {math.sqrt(d):.0f} of unit-variance "
        f"vectors: the softmax is {saturated} (largest α {dot['start largest α'].text('.3f')}, where a uniform one "
        f"gives {start['uniform α']:.3f}). Dividing by √{d} = {math.sqrt(d):.0f} only flattens it further (largest α "
        f"{scaled['start largest α'].text('.3f')}): the scaled model starts out averaging all positions and has to "
        f"grow its states before it can look anywhere. At the end of the race the scores spread with sd "
        f"{dot['end score sd'].text('.1f')} (dot) and {scaled['end score sd'].text('.2f')} (scaled dot), the largest "
        f"α {dot['end largest α'].text('.2f')} and {scaled['end largest α'].text('.2f')}."
    )


PREDICT_D = 256  # the state size the race's GRU is imagined at in the prediction exercise
WIDER = ("about twice as wide, as √(256/64) = 2 says", "no wider: about as wide, or narrower")


def _spread_exercise() -> Exercise:
    """Predict, then see: how much wider a fresh race model's unscaled dot scores spread at a larger d."""
    small, large = fresh_stats("dot", 64), fresh_stats("dot", PREDICT_D)
    ratio = large["score sd"] / small["score sd"]
    return Exercise(
        key="scoring_functions.ex4",
        prompt=(
            f"Predict, then see: the race's GRU has states of size d = 64. Build the same untrained model with "
            f"d = {PREDICT_D}. Compared with d = 64, how wide is the spread (sd) of its **unscaled** dot scores "
            "q·k, before any training?"
        ),
        choices=WIDER,
        answer=0 if ratio > 1.5 else 1,
        explanation=(
            f"Measured on seed 0's fresh models (200 held-out sentences): sd {small['score sd']:.2f} at d = 64, "
            f"{large['score sd']:.2f} at d = {PREDICT_D} ({ratio:.2f}×). √d grows, but a GRU starts its weights at "
            f"U(−1/√d, 1/√d), so its states' entries shrink as d grows: variance {small['query variance']:.3f} "
            f"(queries) and {small['key variance']:.3f} (keys) at d = 64, {large['query variance']:.3f} and "
            f"{large['key variance']:.3f} at d = {PREDICT_D}. The sd of q·k is about √d·σ_q·σ_k: it depends on "
            "the size of the entries as much as on d, and √d alone is the rule only for unit-variance entries."
        ),
        hint="√d·σ² is the spread for entries of variance σ², and σ² is not the same at every d.",
    )
