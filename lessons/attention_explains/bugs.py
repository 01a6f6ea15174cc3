"""Section 5 of the attention-explains lesson: find a planted bug from what the model does.

Two bugs that attention code is known for, planted through the config of
:class:`~minimodels.attention_only.AttentionOnlyDecoder`: scores not divided by √d_k, and the mask on the wrong side
(each position reads itself and the *later* tokens). The student meets them as mysteries and diagnoses them from
measured behaviour:

* two single attention layers, X and Y, one without the scaling, fed random unit-variance queries and keys of
  growing d_k (:func:`layer_sharpness`): the mean largest weight a query gives;
* mystery model A (trainable in section 2; five shipped seeds): its accuracy on each half of the sequences;
* then the recipe trained without the scaling at this model's d_k = 16, against the recipe, through the verdict rule.

Letters: d_k a head's width, V the vocabulary, R the random part's length, i a query's position, j a key's.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots
from torch import nn

from lessons.attention_explains import live
from lessons.attention_explains import results as shipped
from lessons.common.colorscales import ATTENTION_COLORSCALE
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.common.verdicts import Verdict
from lessons.induction_heads.sequences import VOCAB
from lessons.induction_heads.training import CONFIG
from minimodels.attention_only import CausalSelfAttention

TITLE = "5 · Find the planted bug"
TEXT = (
    "Attention code has two classic bugs that raise no error: scores not divided by √d_k, and the mask on the wrong "
    "side. Both train, and both give attention maps that look plausible. Find each from what the model does."
)
WIDTHS = (4, 16, 64, 256)  # d_k for the two mystery layers
LAYERS = ("layer X", "layer Y")
_UNSCALED = "layer Y"  # read by the answer only
SHARP_T, SHARP_FROM, SHARP_N = 16, 8, 256  # positions, first query read, sequences
BUG_CHOICES = ("no bug", "scores not divided by √d_k", "the mask on the wrong side")
BUG_KEYS = ("none", "no 1/√d_k", "wrong-side mask")
SPEED_CHOICES = ("sooner", "later", "too close to call by the course's rule")
NOTE = (
    "Each verdict is the course's one rule for comparisons (lessons.common.verdicts) on the seeds' figures; where "
    "it cannot separate two models it says too close to call."
)


def _mystery(scaled: bool, d_k: int, seed: int) -> tuple[CausalSelfAttention, torch.Tensor]:
    """One head of width ``d_k`` (scaled or not) whose random projections give queries and keys of variance about
    1, and the random unit-variance inputs it reads ``(N, T, d_k)``."""
    generator = torch.Generator().manual_seed(seed)
    layer = CausalSelfAttention(d_k, 1, scaled=scaled)
    with torch.no_grad():
        layer.W_qkv.weight.copy_(torch.randn(3 * d_k, d_k, generator=generator) / math.sqrt(d_k))
        nn.init.zeros_(layer.W_qkv.bias)
    return layer, torch.randn(SHARP_N, SHARP_T, d_k, generator=generator)


@torch.no_grad()
def layer_sharpness(scaled: bool, d_k: int, seed: int = 0) -> float:
    """A mystery layer (:func:`_mystery`) on its inputs: the mean largest weight a query gives one key (queries at
    positions ``SHARP_FROM`` on, each reading at least ``SHARP_FROM + 1`` keys)."""
    layer, x = _mystery(scaled, d_k, seed)
    _, weights = layer(x)  # (N, 1, T, T)
    return float(weights[:, 0, SHARP_FROM:].max(-1).values.mean())


@torch.no_grad()
def layer_weights(scaled: bool, d_k: int, seed: int = 0) -> torch.Tensor:
    """The same layer's ``(T, T)`` weights on its first input sequence."""
    layer, x = _mystery(scaled, d_k, seed)
    return layer(x[:1])[1][0, 0]  # (T, T)


def layers_figure(d_k: int = WIDTHS[-1]) -> go.Figure:
    """Both mystery layers' weights on one random sequence at width ``d_k``, side by side."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=LAYERS, horizontal_spacing=0.08)
    for col, name in enumerate(LAYERS, 1):
        z = layer_weights(name != _UNSCALED, d_k).numpy()
        fig.add_trace(
            go.Heatmap(
                z=z,
                zmin=0,
                zmax=1,
                colorscale=ATTENTION_COLORSCALE,
                showscale=col == 2,
                hovertemplate="query %{y}, key %{x}: %{z:.2f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text="key j", row=1, col=col)
        fig.update_yaxes(title_text="query i", autorange="reversed", row=1, col=col)
    fig.update_layout(
        title=f"One random sequence, d_k = {d_k}",
        height=360,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return fig


def sharpness_rows() -> list[dict]:
    """The two mystery layers, one row each: the mean largest weight at every width."""
    return [
        {"layer": name, **{f"d_k = {d}": f"{layer_sharpness(name != _UNSCALED, d):.2f}" for d in WIDTHS}}
        for name in LAYERS
    ]


SHARPNESS_TEXT = (
    f"Two mystery layers, one head each, read {SHARP_N} random sequences of {SHARP_T} vectors whose queries and keys "
    "have entries of variance about 1. The table gives the mean **largest weight** a query puts on one key (1 would "
    f"be all weight on one token; a query at position {SHARP_FROM} or later reads at least {SHARP_FROM + 1} keys), "
    "at four head widths d_k."
)


def layer_exercise() -> Exercise:
    return Exercise(
        key="attention_explains.layer_bug",
        prompt="Which mystery layer does **not** divide its scores by √d_k?",
        choices=LAYERS,
        answer=LAYERS.index(_UNSCALED),
        explanation=(
            "A score q·k is a sum of d_k products of variance about 1, so its spread grows like √d_k. Divided by "
            "√d_k it stays about 1 at every width, and the largest weight stays put. Undivided, the scores spread "
            "wider as d_k grows, the softmax puts nearly everything on the largest one, and its gradient for every "
            f"other key nearly vanishes. {_UNSCALED}'s largest weight climbs towards 1 with d_k: it is the one "
            "without the scaling."
        ),
    )


def mystery_rows(results: Comparison) -> list[dict]:
    """The recipe and mystery model A over the shipped seeds, without naming A's bug."""
    names = {"none": live.RECIPE, live.planted(live.MYSTERY): live.MYSTERY}
    return [
        {
            "model": name,
            shipped.RANDOM_ACCURACY: results.spread(shipped.RANDOM_ACCURACY, _variant(bug)).text(".1%"),
            shipped.ACCURACY: results.spread(shipped.ACCURACY, _variant(bug)).text(".1%"),
            "training steps": f"{results.runs_of(_variant(bug))[0].params['steps']}",
        }
        for bug, name in names.items()
    ]


def _variant(bug: str) -> str:
    return shipped.INTACT if bug == "none" else bug


def mystery_caption() -> str:
    return (
        f"Shipped seeds, mean ± sd (n). Both read on the same held-out sequences; chance on the random half is "
        f"1/V = {1 / VOCAB:.1%}. Train mystery model A yourself in section 2 to watch it."
    )


def mystery_exercise() -> Exercise:
    bug = live.planted(live.MYSTERY)
    return Exercise(
        key="attention_explains.mystery",
        prompt="Which bug is planted in **mystery model A**?",
        choices=BUG_CHOICES,
        answer=BUG_KEYS.index(bug),
        explanation=(
            "Its accuracy on the **random half** is far above 1/V. Each of those tokens is drawn independently of "
            "everything before it, so no model that reads only the past can beat a guess there. A model that does "
            "must be reading the token it is asked to predict: its mask lets position i see position i + 1. A "
            "loss that is too good to be true on a causal task is the signature of a future leak."
        ),
    )


def speed_verdict(results: Comparison) -> Verdict:
    """The recipe without 1/√d_k against the recipe, on the step at which an induction head formed (fewer is
    better; the shared rule)."""
    return results.compare("no 1/√d_k", shipped.INTACT, shipped.FORMED, higher_is_better=False)


def speed_exercise(results: Comparison) -> Exercise:
    """Predict, then reveal: does the recipe without the scaling form its induction head sooner or later?"""
    v = speed_verdict(results)
    answer = {"better": 0, "worse": 1}.get(v.outcome, 2)
    return Exercise(
        key="attention_explains.speed",
        prompt=(
            f"**Predict before you reveal.** The recipe (d_k = {CONFIG.d_model // CONFIG.n_heads}) is trained again "
            "without dividing its scores by √d_k, over the same five seeds. Does it form its induction head "
            "(a layer-2 head with a prefix-matching score of 30% or more) sooner or later than the recipe?"
        ),
        choices=SPEED_CHOICES,
        answer=answer,
        explanation=(
            f"{v.sentence('.0f', 'the step an induction head formed at')} Vaswani et al. (2017) divide by √d_k "
            f"because at large d_k undivided scores saturate the softmax, as the mystery layers' table shows. At d_k = "
            f"{CONFIG.d_model // CONFIG.n_heads} the factor is only {math.sqrt(CONFIG.d_model // CONFIG.n_heads):g} "
            "and the trained projections can absorb it: whichever way the rule comes down here, a missing scale "
            "does not break a small model's training, which is why the mystery layers' table, at growing d_k, is "
            "the better test."
        ),
    )


def bug_rows(results: Comparison) -> list[dict]:
    """The recipe and each planted bug, named, over the shipped seeds."""
    variants = (shipped.INTACT, *shipped.BUG_VARIANTS)
    columns = {shipped.ACCURACY: ".1%", shipped.RANDOM_ACCURACY: ".1%", shipped.FORMED: ".0f"}
    return shipped.table_of(results, columns, variants, "model")
