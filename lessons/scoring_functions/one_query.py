"""Section 2, one query, four scores: a random query against a few random keys (the keys are the values too),
scored the four ways with untrained weights; the table, the bars, the contexts, and what scaling does to the
dot scores' spread as d grows."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd
import torch

from lessons.common.vega import vega_lite_spec, with_values
from lessons.scoring_functions.four_scores import COLORS, LABELS, SCORES, parameter_count, score_modules
from minimodels.attention import DotProductAttention, ScaledDotProductAttention

TITLE = "2 · One query, four scores"
TEXT = (
    "A query and a few keys drawn at random (the keys are the values too, as in the lecture). The bilinear "
    "and additive scores use *untrained* random weights here: their preferences are arbitrary until training "
    "shapes them. Make the query a copy of one key and see which scores notice."
)
MAX_KEYS = 12
D_CHOICES: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512)


@dataclass(frozen=True)
class ScoreComparison:
    """One query against ``N`` keys, scored the four ways. Keys double as values."""

    query: np.ndarray  # (d,)
    keys: np.ndarray  # (N, d)
    copy_of: int | None  # the query is an exact copy of this key (0-based), or None when drawn at random
    scores: dict[str, np.ndarray]  # name -> (N,) raw scores e_i
    weights: dict[str, np.ndarray]  # name -> (N,) α_i = softmax(e)_i
    contexts: dict[str, np.ndarray]  # name -> (d,) c = Σ_i α_i k_i
    parameters: dict[str, int]  # name -> parameters of the score function at this d

    @property
    def d(self) -> int:
        return int(self.query.shape[0])

    @property
    def key_labels(self) -> list[str]:
        return [f"k{i + 1}" + (" = q" if i == self.copy_of else "") for i in range(len(self.keys))]


def check_example(d: int, n_keys: int, copy_of: int | None = None) -> str | None:
    """A message for the student when the example cannot be built, or None."""
    if not 1 <= d <= max(D_CHOICES):
        return f"The size d must be between 1 and {max(D_CHOICES)}; got {d}."
    if not 2 <= n_keys <= MAX_KEYS:
        return f"Use between 2 and {MAX_KEYS} keys; got {n_keys}."
    if copy_of is not None and not 0 <= copy_of < n_keys:
        return f"There is no key k{copy_of + 1} among {n_keys} keys; the query is drawn at random instead."
    return None


@torch.inference_mode()
def compare_scores(d: int, n_keys: int, seed: int = 0, copy_of: int | None = None) -> ScoreComparison:
    """Draw a query and ``n_keys`` keys from N(0, 1) with ``seed`` (the query a copy of key ``copy_of`` when
    given) and score them with the four modules (learned ones untrained, drawn from the same seed).

    Raises ``ValueError`` with a message for the student on sizes the lesson does not offer.
    """
    message = check_example(d, n_keys, copy_of)
    if message:
        raise ValueError(message)
    generator = torch.Generator().manual_seed(seed)
    keys = torch.randn(n_keys, d, generator=generator)  # (N, d)
    query = keys[copy_of].clone() if copy_of is not None else torch.randn(d, generator=generator)  # (d,)
    modules = score_modules(d, seed=seed)
    scores, weights, contexts = {}, {}, {}
    for name, module in modules.items():
        context, alpha = module(query[None], keys[None], keys[None])  # (1, d), (1, N): values = keys
        scores[name] = module.score(query[None, None], keys[None])[0, 0].numpy()  # (N,)
        weights[name] = alpha[0].numpy()
        contexts[name] = context[0].numpy()
    parameters = {name: parameter_count(m) for name, m in modules.items()}
    return ScoreComparison(query.numpy(), keys.numpy(), copy_of, scores, weights, contexts, parameters)


def entropy_bits(weights: np.ndarray) -> float:
    """Entropy of a distribution in bits: 0 when one key takes everything, log₂ N when uniform."""
    w = np.asarray(weights, dtype=float)
    w = w[w > 0]
    return float(-(w * np.log2(w)).sum())


def comparison_rows(c: ScoreComparison) -> list[dict]:
    """One table row per score function: its parameters and what its scores and softmax look like."""
    rows = []
    labels = c.key_labels
    for name in SCORES:
        e, a = c.scores[name], c.weights[name]
        top = np.argsort(-a)[:2]
        rows.append(
            {
                "score": LABELS[name],
                f"parameters (d = {c.d})": c.parameters[name],
                "scores from … to": f"{e.min():.2f} … {e.max():.2f}",
                "largest α": round(float(a.max()), 3),
                "on key": labels[int(top[0])],
                "entropy of α (bits)": round(entropy_bits(a), 2),
                "context c ≈": f"{a[top[0]]:.2f}·{labels[top[0]].split()[0]} + {a[top[1]]:.2f}·"
                f"{labels[top[1]].split()[0]} + …",
            }
        )
    return rows


def comparison_chart(c: ScoreComparison) -> dict:
    """Four columns, one per score function: raw scores on top (each on its own scale), softmax α below.

    A Vega-Lite spec (for ``st.vega_lite_chart``): the Altair chart is built once (:func:`_comparison_spec`) and
    each example only puts its numbers in. Vega-Lite, not Plotly: every move of the lesson's three controls
    redraws it, and a browser draws these eight panels as Plotly subplots about 200 ms slower than as this chart.
    Presenter mode enlarges it as every Vega-Lite chart (``lessons.common.vega.presenter_vega``).
    """
    labels = c.key_labels  # plain text: Vega-Lite draws labels as text, never as HTML
    values = [
        {"score": LABELS[name], "key": labels[i], "row": row, "value": float(v[i])}
        for name in SCORES
        for row, v in (("scores e", c.scores[name]), ("α = softmax(e)", c.weights[name]))
        for i in range(len(labels))
    ]
    return with_values(_comparison_spec(), values)


@functools.cache
def _comparison_spec() -> str:
    """The Altair chart of :func:`comparison_chart`, as Vega-Lite JSON without its data."""

    order = [LABELS[name] for name in SCORES]
    base = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("key:N", sort=None, title=None, axis=alt.Axis(labelAngle=0)),
            color=alt.Color("score:N", scale=alt.Scale(domain=order, range=[COLORS[n] for n in SCORES]), legend=None),
            tooltip=["score:N", "key:N", alt.Tooltip("value:Q", format=".4f", title="value")],
        )
        .properties(width=150, height=140)
    )
    scores = (
        base.transform_filter(alt.datum.row == "scores e")
        .encode(
            y=alt.Y("value:Q", title=None),
            column=alt.Column(
                "score:N", sort=order, title="raw scores e, each on its own scale", header=alt.Header(labelFontSize=13)
            ),
        )
        .resolve_scale(y="independent")
    )
    weights = (
        base.transform_filter(alt.datum.row == "α = softmax(e)")
        .encode(
            y=alt.Y("value:Q", title=None, scale=alt.Scale(domain=[0, 1])),
            column=alt.Column("score:N", sort=order, title="α = softmax(e)", header=alt.Header(labels=False)),
        )
        .resolve_scale(y="independent")  # an axis beside every panel, so the two rows line up
    )
    chart = alt.vconcat(scores, weights, data=alt.Data(name="scores"), spacing=10)
    return json.dumps(vega_lite_spec(chart))


def scaling_note(c: ScoreComparison) -> str:
    """What scaling does to this example's dot scores, with its own numbers."""
    dot, scaled = c.scores["dot"], c.scores["scaled_dot"]
    return (
        f"**What scaling does.** Here the dot scores have a standard deviation of **{dot.std():.2f}**; divided "
        f"by √d = {c.d**0.5:.2f} they have **{scaled.std():.2f}**. For random vectors with unit-variance entries a "
        "dot product is a sum of d random terms, so its spread grows like √d: at large d the softmax of raw dot "
        "scores puts nearly all its weight on one key. Scaling keeps the spread near 1 whatever d is (lesson 6 "
        "measures what that does to training). Averaged "
        "over 256 random queries with the same number of keys:"
    )


def context_rows(c: ScoreComparison) -> tuple[np.ndarray, list[str]]:
    """The query, the four contexts and the keys as rows of one matrix, with their labels."""
    rows = [c.query, *(c.contexts[n] for n in SCORES)]
    labels = ["query q", *(f"c, {LABELS[n]}" for n in SCORES)]
    return np.stack(rows), labels


@torch.inference_mode()
def scaling_scores(
    ds: Sequence[int] = D_CHOICES, samples: int = 256, seed: int = 0
) -> dict[int, dict[str, torch.Tensor]]:
    """The dot and scaled dot scores of ``samples`` random N(0, 1) queries against ``MAX_KEYS`` random keys at
    each ``d``: ``{d: {score: (B, 1, MAX_KEYS)}}``. A curve with N keys reads the first N, so every N sees the
    same queries and keys, drawn once."""
    generator = torch.Generator().manual_seed(seed)
    scores = {}
    for d in ds:
        q = torch.randn(samples, 1, d, generator=generator)  # (B, 1, d)
        k = torch.randn(samples, MAX_KEYS, d, generator=generator)  # (B, MAX_KEYS, d)
        scores[d] = {"dot": DotProductAttention().score(q, k), "scaled_dot": ScaledDotProductAttention().score(q, k)}
    return scores


@torch.inference_mode()
def scaling_curve(
    n_keys: int,
    ds: Sequence[int] = D_CHOICES,
    samples: int = 256,
    seed: int = 0,
    scores: dict[int, dict[str, torch.Tensor]] | None = None,
) -> list[dict[str, float | int | str]]:
    """Why scale: for random N(0, 1) queries and keys, the spread of the dot scores grows as √d, and the softmax
    of unscaled dot scores puts almost everything on one key. Rows: ``d``, score, std of the scores, mean
    largest α (averaged over ``samples`` random queries). ``scores``: :func:`scaling_scores` of the same
    ``ds``, ``samples`` and ``seed``, when they are at hand already."""
    if not 2 <= n_keys <= MAX_KEYS:
        raise ValueError(f"use between 2 and {MAX_KEYS} keys; got {n_keys}")
    scores = scaling_scores(ds, samples, seed) if scores is None else scores
    rows = []
    for d in ds:
        for name in ("dot", "scaled_dot"):
            e = scores[d][name][..., :n_keys]  # (B, 1, N)
            rows.append(
                {
                    "d": d,
                    "score": LABELS[name],
                    "std of scores": float(e.std()),
                    "mean largest α": float(torch.softmax(e, -1).amax(-1).mean()),
                }
            )
    return rows


def scaling_charts(rows: list[dict]):
    """Two Altair line charts over d (log scale): the scores' spread and the softmax's largest weight."""

    frame = pd.DataFrame(rows)
    color = alt.Color(
        "score:N",
        scale=alt.Scale(domain=[LABELS["dot"], LABELS["scaled_dot"]], range=[COLORS["dot"], COLORS["scaled_dot"]]),
        legend=alt.Legend(orient="bottom", title=None),
    )
    x = alt.X("d:Q", scale=alt.Scale(type="log", base=2), title="d (log scale)")
    base = alt.Chart(frame).encode(x=x, color=color, tooltip=list(frame.columns))
    spread = base.mark_line(point=True).encode(y=alt.Y("std of scores:Q", title="std of the scores"))
    peak = base.mark_line(point=True).encode(
        y=alt.Y("mean largest α:Q", title="mean largest α", scale=alt.Scale(domain=[0, 1]))
    )
    return spread.properties(height=220, title="Spread of the scores"), peak.properties(
        height=220, title="How peaked the softmax is"
    )


@functools.cache
def _shared_scaling_scores() -> dict[int, dict[str, torch.Tensor]]:
    return scaling_scores()


def scaling_specs(n_keys: int) -> list[dict]:
    """The two scaling charts as Vega-Lite specs, over one draw of random queries and keys shared by every N: building
    and validating the Altair charts costs more than the rest of the section, and moving d does not change them."""
    return [vega_lite_spec(chart) for chart in scaling_charts(scaling_curve(n_keys, scores=_shared_scaling_scores()))]
