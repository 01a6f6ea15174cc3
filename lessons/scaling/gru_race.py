"""Section 5 of the scaling lesson: why lesson 4's GRU race showed no stall.

Lesson 4 raced two GRU encoder–decoders on dates that differ only in the scale. Whether the unscaled one stalled is
read from that race (the scoring lesson's shipped results), and why it did not is measured on an untrained model:
its GRU's states are small, so its first raw scores spread little and its softmax starts far from saturated.

Letters: d_k the GRU's hidden size (the size of q and k), B sentences, S source and T target positions, D = d_k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from lessons.common.comparison import Comparison
from lessons.scaling.scores import SATURATED, SCORES, entropy_bits
from lessons.scoring_functions.race_training import model_name
from lessons.scoring_functions.shipped_race import load_results as load_scoring_results
from minimodels.attention import masked_softmax
from minimodels.tasks import Task, get_task, make_batch
from minimodels.tokenizers import PAD_ID
from minimodels.train import build_model

TITLE = "5 · Why lesson 4's GRU race showed no stall"
TASK = "dates"
MODEL_NAMES = {score: model_name(score) for score in SCORES}
SPREAD_SENTENCES = 200  # held-out dates the trained models' score spreads are measured on


def _decoder_queries(model: nn.Module, memory, target_in: torch.Tensor) -> torch.Tensor:
    """The decoder states sₜ ``(B, T, D)`` a Luong-style model (attending after its step) scores the keys with,
    fed ``target_in`` (BOS and the previous tokens): as in ``Seq2Seq.forward``."""
    if model.config.query != "current":
        raise ValueError(f"the {model.config.attention} model attends before its step; this lesson reads sₜ")
    queries, _ = model._fused(model.target_embedding(target_in), memory.final)  # (B, T, D)
    return queries


@dataclass(frozen=True)
class ScoreSpread:
    """What a trained model's attention scores look like over held-out sentences (teacher forced)."""

    score: str  # "dot" | "scaled_dot"
    d_k: int  # the size of q and k (the GRU's hidden size)
    q_std: float  # std of the query components (decoder states sₜ)
    k_std: float  # std of the key components (encoder states hᵢ)
    raw_std: float  # std of q·k within a row (around the row's mean), averaged over rows
    raw_range: tuple[float, float]  # the smallest and largest q·k seen
    seen_std: float  # the same for the scores the softmax sees (q·k, or q·k/√d_k)
    largest: float  # mean largest α
    saturated: float  # share of rows whose largest α is above SATURATED
    entropy: float  # mean entropy of α, bits
    rows: int  # softmax rows measured

    @property
    def predicted_raw_std(self) -> float:
        """√d_k · σ_q · σ_k: the spread q·k would have if its components were independent random numbers."""
        return math.sqrt(self.d_k) * self.q_std * self.k_std


@torch.inference_mode()
def score_spread(
    model: nn.Module, task: Task, score: str, split: str = "valid", limit: int = SPREAD_SENTENCES
) -> ScoreSpread:
    """The raw q·k of a trained Luong-style model (query sₜ after the decoder step) on ``limit`` sentences of
    ``split``, fed the gold previous characters. Padding positions are left out everywhere."""
    batch = make_batch(list(getattr(task, split))[:limit], task).to(next(model.parameters()).device)
    memory = model.encode(batch.source, batch.source_lengths)
    queries = _decoder_queries(model, memory, batch.target_in)  # (B, T, D)
    raw = queries @ memory.states.transpose(1, 2)  # (B, T, D) @ (B, D, S) -> (B, T, S)
    seen = model.scores(queries, memory)  # (B, T, S): what the softmax sees
    weights = masked_softmax(seen, memory.mask.unsqueeze(1))  # (B, T, S)
    live = batch.target_in != PAD_ID  # (B, T)
    row_keys = memory.mask.unsqueeze(1).expand_as(raw)[live]  # (R, S)

    def row_std(e: torch.Tensor) -> float:
        e = e[live]  # (R, S)
        n = row_keys.sum(-1, keepdim=True)
        mean = (e * row_keys).sum(-1, keepdim=True) / n
        return float((((e - mean) ** 2 * row_keys).sum(-1) / n).sqrt().mean())

    alpha = weights[live]  # (R, S)
    largest = alpha.amax(-1)
    raw_values = raw[live][row_keys]
    return ScoreSpread(
        score=score,
        d_k=int(queries.size(-1)),
        q_std=float(queries[live].std()),
        k_std=float(memory.states[memory.mask].std()),
        raw_std=row_std(raw),
        raw_range=(float(raw_values.min()), float(raw_values.max())),
        seen_std=row_std(seen),
        largest=float(largest.mean()),
        saturated=float((largest > SATURATED).float().mean()),
        entropy=float(entropy_bits(alpha.double()).mean()),
        rows=int(live.sum()),
    )


def fresh_spread(score: str, seed: int = 0) -> ScoreSpread:
    """The same figures for an untrained model (weights drawn from ``seed``): where training starts."""
    task = get_task(TASK)
    return score_spread(build_model(MODEL_NAMES[score], task, seed=seed).eval(), task, score)


def race_verdict(results: Comparison) -> str:
    """Whether the unscaled model stalled in the shipped race, computed from it: steps to 90% (fewer is better)
    and test exact match, each by the course's verdict rule."""
    pace = results.compare("dot", "scaled_dot", "steps to 90%", higher_is_better=False)
    end = results.compare("dot", "scaled_dot", "test exact match")
    if pace.a_spread.n == 0:  # what the runs did, said as it is; whether it is a finding, by the rule
        lead = "did stall: it never reached 90% held-out exact match" + (
            "" if pace.clear else f", though that is too close to call as a finding ({pace.why('.0f')})"
        )
    else:
        lead = (
            "did not stall: "
            + {
                "better": "it reached 90% in fewer steps",
                "worse": "it reached 90%, later",
                "too close": f"it reached 90%; how fast against scaled dot is too close to call ({pace.why('.0f')})",
            }[pace.outcome]
        )
    return (
        f"In its shipped race, the unscaled model {lead} ({pace.a_spread.text('.0f')} steps against "
        f"{pace.b_spread.text('.0f')} scaled); {end.sentence('.1%', 'test exact match')}"
    )


def untrained_note(start: ScoreSpread, results: Comparison | None = None) -> str:
    """Why the unscaled model did (or did not) stall here: the race's verdict (:func:`race_verdict`, when the
    results are loaded) and the untrained model's figures (:func:`fresh_spread`)."""
    race = f"{race_verdict(results)} " if results is not None else ""
    return (
        f"Lesson 4 raced two GRU encoder–decoders on dates that differ only in the scale (d_k = {start.d_k}, the "
        f"GRU's state). {race}Before training, its GRU's states are small (components with standard deviations of "
        f"{start.q_std:.2f} and {start.k_std:.2f}), so its first raw scores spread by only {start.raw_std:.2f} and its "
        f"softmax starts far from saturated (mean largest α {start.largest:.2f}). The stall needs q and k with "
        "unit-variance components at a large d_k, as in section 4's self-attention, whose queries and keys are "
        "projections of unit-variance vectors."
    )


def load_gru_race(path: Path | str | None = None) -> Comparison:
    """The scoring lesson's shipped race (``assets/results/scoring_functions.json``), its two dot-product models
    only: the same runs, seeds and meta (``ValueError``/``FileNotFoundError`` as
    :func:`lessons.scoring_functions.load_results`)."""
    race = load_scoring_results(path)
    return Comparison(SCORES, tuple(r for r in race.runs if r.variant in SCORES), race.meta, race.labels)
