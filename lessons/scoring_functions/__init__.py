r"""Lesson: four scoring functions compared (Part 2).

Every attention in the course is the same three steps: score each key against the query, turn the scores into
a distribution with a softmax, read the weighted sum of the values. Only the score, ``sim(q, k)``, differs. The
NLP lecture lists four ("Similarity between query and key"):

.. math:: q^\top k \qquad \frac{q^\top k}{\sqrt{d}} \qquad q^\top W k \qquad w_2^\top \tanh(W_1[q; k] + b_1)

Two things are computed here, both by ``minimodels``' own score modules:

* one query against a handful of keys, scored all four ways: raw scores, softmax, context (keys = values, as
  in the lecture's "until I say otherwise, let's assume our keys and values are identical");
* a *race*: the same GRU encoder–decoder with each of the four scores, trained with the same seed on the same
  data (``dates``), one short segment each in turn, so their curves grow side by side on one core; and what its
  dot models' softmax sees (``race_score_stats``): why unscaled dot is not slowed by its size there;
* a *reduced race* at several d (``retrieval_run``): one attention layer on unit-variance vectors, where the
  spread √d of q·k does saturate the softmax, to show where scaling starts to matter.

Letters: d query/key size, N keys, A the additive score's hidden size, σ² the variance of one entry of q or k.
This module never imports streamlit.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.charts import attention_coloraxis, hover_pairs, safe_label, vega_lite_spec, with_values
from lessons.common.comparison import (
    Comparison,
    Run,
    Spread,
    Verdict,
    by_outcome,
    curve_of,
    curves_chart,
    first_reached,
)
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, check_budget
from minimodels.adam import Adam
from minimodels.attention import (
    AdditiveAttention,
    BilinearAttention,
    DotProductAttention,
    ScaledDotProductAttention,
    masked_softmax,
)
from minimodels.tasks import Task, get_task
from minimodels.train import (
    Progress,
    TrainConfig,
    alignment_accuracy,
    build_model,
    default_train_config,
    evaluate,
    model_config,
    stop_event,
    stop_requested,
    stop_when,
)
from minimodels.train import train as train_model

RESULTS = ROOT / "assets" / "results" / "scoring_functions.json"

SCORES: tuple[str, ...] = ("dot", "scaled_dot", "bilinear", "additive")
LABELS = {
    "dot": "dot",
    "scaled_dot": "scaled dot",
    "bilinear": "bilinear (general)",
    "additive": "additive (MLP)",
}
COLORS = {"dot": "#1f77b4", "scaled_dot": "#2ca02c", "bilinear": "#ff7f0e", "additive": "#d62728"}
EQUATIONS = {
    "dot": r"\mathrm{sim}(q, k) = q^\top k",
    "scaled_dot": r"\mathrm{sim}(q, k) = \frac{q^\top k}{\sqrt{d}}",
    "bilinear": r"\mathrm{sim}(q, k) = q^\top W k,\quad W \in \mathbb{R}^{d \times d'}",
    "additive": r"\begin{gathered}\mathrm{sim}(q, k) = w_2^\top \tanh(W_1 [q; k] + b_1) \\"
    r"W_1 \in \mathbb{R}^{d'' \times (d + d')},\ b_1, w_2 \in \mathbb{R}^{d''}\end{gathered}",
}
NOTES = {
    "dot": "No parameters. Needs queries and keys of the same size (d = d′). Luong et al. 2015, “dot”.",
    "scaled_dot": "No parameters. For unit-variance entries, dividing by √d keeps the scores' spread near 1 "
    "whatever d is (Vaswani et al. 2017).",
    "bilinear": "A learned d × d′ matrix decides which directions of q and k should match; q and k may differ "
    "in size. Luong et al. 2015, “general”.",
    "additive": "A one-hidden-layer MLP on q and k: the most flexible, and the only non-linear one. "
    "Bahdanau et al. 2015.",
}
# Where the seq2seq decoder attends from (minimodels.seq2seq, attention_query="auto")
QUERY = {
    "dot": "sₜ (Luong)",
    "scaled_dot": "sₜ (Luong)",
    "bilinear": "sₜ (Luong)",
    "additive": "sₜ₋₁ (Bahdanau)",
}

TASK = "dates"
LEVELS: tuple[float, ...] = (0.9, 0.95)  # held-out exact match levels whose first step/second the table shows
TARGET = 0.98  # a model stops racing once its held-out exact match reaches this
REPORT_EVERY = 10  # steps per turn: each model trains this many steps, then reports and passes the turn
MAX_KEYS = 12
D_CHOICES: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512)
SPACE = "␣"  # how a space character is labelled on a chart axis (a blank tick label would be invisible)

# ------------------------------------------------------------------------------------------------ the page's text
INTRO = (
    "Every attention you will meet does the same three things: **score** each key against the query, turn the "
    "scores into a distribution with a **softmax**, and read the **weighted sum** of the values. Only the first "
    "step changes from one paper to the next. The lecture lists four ways to measure how well a query q matches "
    "a key k; here you compute all four on one example, train the same translator four times, once with each, "
    "and then test the lecture's warning about the dot product: “scale of dot product increases as dimensions "
    "get larger”."
)
SCORES_NOTE = (
    "q has d entries and k has d′; the additive score's hidden layer has d″ units. The dot scores have nothing "
    "to learn; bilinear and additive learn *what* a good match is, which costs parameters (counted below on "
    "the modules themselves) and, for additive, a hidden layer per (query, key) pair."
)
EXAMPLE_INTRO = (
    "A query and a few keys drawn at random (the keys are the values too, as in the lecture). The bilinear "
    "and additive scores use *untrained* random weights here: their preferences are arbitrary until training "
    "shapes them. Make the query a copy of one key and see which scores notice."
)
RACE_INTRO = (
    "The same model, a {model}, trained on **dates** (“Sunday, November 22, 2026” → “2026-11-22”, "
    "character by character) four times from each seed: same data, same batches, only the score differs. One "
    "caveat from the model itself (`minimodels.seq2seq`): the **additive** model attends from the previous "
    "decoder state sₜ₋₁ and feeds the context into the RNN (Bahdanau et al., as published), while dot, "
    "scaled dot and bilinear attend from the current state sₜ after the RNN step (Luong et al.). So the race "
    "compares two published designs, not the score alone; Bahdanau's decoder must also run step by step in "
    "training, which is why its steps take longer."
)


def race_intro() -> str:
    """:data:`RACE_INTRO` with what the race's models are, read from their config (unidirectional or not, d)."""
    return RACE_INTRO.format(model=model_config(model_name("dot"), get_task(TASK)).describe().split(", ")[0])


LIVE_INTRO = (
    f"One click trains four fresh models for you alone, from the seed you choose. They take turns, "
    f"{REPORT_EVERY} steps each, so their curves grow side by side on a single core; each stops "
    f"at {TARGET:.0%} held-out exact match or when its own time budget is spent. The bar and the "
    "first two curves follow the four together (their mean loss and exact match, their seconds added up); below "
    "them, each model's own curves, its steps to accuracy and its attention on the fixed example."
)

SWEEP_INTRO = (
    "Why divide by √d at all? If q and k have d independent entries of variance σ², q·k = Σⱼ qⱼkⱼ has variance "
    "d·σ⁴: its sd is √d·σ². For unit-variance vectors (lesson 10's layer norm keeps a Transformer's so), that is "
    "√d, and at large d the softmax puts almost all its weight on one key before anything is learned. To see where "
    "that starts to matter, a race small enough to run at several d over several seeds: **one attention layer**, "
    "nothing else, must learn projections W_q, W_k under which a query finds the key it is a noisy copy of. "
    "The values are the keys; the loss is the distance between the context c and the right key. The measure: "
    "the mean α on the right key, on held-out queries, early in training (how fast it learns where to look)."
)


def model_name(score: str) -> str:
    return f"gru-{score}"


# ---------------------------------------------------------------------------------------- score modules
def score_modules(query_size: int, key_size: int | None = None, hidden: int | None = None, seed: int = 0):
    """The four score modules for queries of ``query_size`` and keys of ``key_size`` (default: the same).

    Learned weights (bilinear ``W``, additive ``W_q``, ``W_k``, ``v``) are drawn from ``seed`` with PyTorch's
    default initialisation: an *untrained* score function. The dot scores need equal sizes: for unequal sizes
    they are left out.
    """
    key_size = key_size or query_size
    hidden = hidden or query_size
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        modules: dict[str, nn.Module] = {}
        if key_size == query_size:
            modules["dot"] = DotProductAttention()
            modules["scaled_dot"] = ScaledDotProductAttention()
        modules["bilinear"] = BilinearAttention(query_size, key_size)
        modules["additive"] = AdditiveAttention(query_size, key_size, hidden)
    return {name: m.eval() for name, m in modules.items()}


def parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def parameter_counts(query_size: int, key_size: int | None = None, hidden: int | None = None) -> dict[str, int]:
    """Parameters of each score function, counted on the modules themselves (dot: 0; bilinear: d·d′;
    additive: d·A + d′·A + A + A with ``W_k``'s bias). Scores that cannot compare the sizes are absent."""
    return {name: parameter_count(m) for name, m in score_modules(query_size, key_size, hidden).items()}


def accepts_sizes(score: str, query_size: int, key_size: int) -> bool:
    """Whether ``score``'s module can compare a query of ``query_size`` with keys of ``key_size``, found by
    trying it (the dot modules are built for matching sizes and fail on a mismatch)."""
    built = {
        "dot": DotProductAttention,
        "scaled_dot": ScaledDotProductAttention,
        "bilinear": lambda: BilinearAttention(query_size, key_size),
        "additive": lambda: AdditiveAttention(query_size, key_size, 8),
    }[score]()
    try:
        built.score(torch.zeros(1, 1, query_size), torch.zeros(1, 3, key_size))
    except RuntimeError:
        return False
    return True


# ------------------------------------------------------------------------------------ one query, N keys
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
    redraws it, and the browser drew the same eight panels as Plotly subplots in ~200 ms more than as this chart.
    Presenter mode enlarges it as every Vega-Lite chart (``lessons.common.charts.presenter_vega``).
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
    import altair as alt

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
        "scores puts nearly all its weight on one key. Scaling keeps the spread near 1 whatever d is. Averaged "
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
    import altair as alt
    import pandas as pd

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


# ------------------------------------------------------------------------------------------- run figures
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


def table_rows(c: Comparison) -> list[dict]:
    """One row per score: where it attends from, its score function's parameters (when the comparison records
    them), n, and mean ± sd over its seeds of the steps and seconds to each level, its speed and the final checks
    ("not measured" for a model stopped before them)."""
    timed = c.table(TIMED, variant_header="score")
    checked = c.table(CHECKED, variant_header="score", missing="not measured")
    models = c.meta.get("models", {})
    rows = []
    for score, speed, checks in zip([v for v in c.variants if c.runs_of(v)], timed, checked, strict=True):
        row = {"score": speed.pop("score"), "attends from": QUERY.get(score, "?")}
        if score in models:
            row["parameters"] = models[score]["parameters"]["score"]
        rows.append(row | speed | {k: v for k, v in checks.items() if k not in ("score", "n")})
    return rows


def seed_rows(c: Comparison) -> list[dict]:
    """Every run, one row: the table's figures before taking means, and why it stopped."""
    rows = c.run_rows(RUN_METRICS)
    return [{"score": row.pop("variant"), **row, "stopped by": run.extra.get("stopped")}
            for row, run in zip(rows, c.runs, strict=True)]  # fmt: skip


def race_charts(c: Comparison, x: str = "step", height: int = 240) -> tuple[dict, dict]:
    """Two Vega-Lite charts (``lessons.common.comparison.curves_chart``), loss and held-out exact match against
    ``x`` ("step" or "seconds"): per score its mean over seeds with a ± sd band and each seed faint (one seed: one
    line), in the scores' own colours."""
    if x not in ("step", "seconds"):
        raise ValueError(f"x must be 'step' or 'seconds', not {x!r}")
    x_title = "training step" if x == "step" else "seconds of its own training"
    loss = curves_chart(c.curve_points("loss", x=x), y_title="training loss", x_title=x_title, title="Loss",
                        height=height, colors=COLORS)  # fmt: skip
    accuracy = curves_chart(c.curve_points("exact_match", x=x), y_title="held-out exact match", x_title=x_title,
                            title="Exact match", height=height, percent=True, colors=COLORS)  # fmt: skip
    return loss, accuracy


def display_token(token: str) -> str:
    return SPACE if token == " " else token


def attention_grid(maps: Mapping[str, Mapping], *, height: int = 560) -> go.Figure:
    """The probe's attention for each score in a 2 × 2 grid: rows target tokens, columns source tokens.

    ``maps[score]`` holds ``attention`` (T × S), ``source_tokens``, ``target_tokens`` and optionally ``title``.
    """
    present = [s for s in SCORES if s in maps]
    if not present:
        raise ValueError("no attention maps to draw")
    # the score's name on one line, the run's details on the next: two long titles side by side overlap on a phone
    titles = ["<br>".join(safe_label(part, max_chars=40) for part in maps[s].get("title", LABELS[s]).split(" · ", 1))
              for s in present]  # fmt: skip
    cols = 2 if len(present) > 1 else 1
    rows = math.ceil(len(present) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.08, vertical_spacing=0.16)
    for i, score in enumerate(present):
        m = maps[score]
        z = np.asarray(m["attention"], dtype=float)
        xs = [safe_label(display_token(t)) for t in m["source_tokens"]]
        ys = [safe_label(display_token(t)) for t in m["target_tokens"]]
        if z.shape != (len(ys), len(xs)):
            raise ValueError(f"{score}: attention of shape {z.shape} does not match {len(ys)} × {len(xs)} tokens")
        row, col = i // cols + 1, i % cols + 1
        fig.add_trace(
            go.Heatmap(
                z=z, x=list(range(len(xs))), y=list(range(len(ys))), customdata=hover_pairs(ys, xs),
                coloraxis="coloraxis", hovertemplate="%{customdata}<br>α = %{z:.4f}<extra>" + LABELS[score]
                + "</extra>", xgap=1, ygap=1,
            ),
            row=row, col=col,
        )  # fmt: skip
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(xs))), ticktext=xs, tickangle=0, row=row, col=col)
        fig.update_yaxes(
            tickmode="array", tickvals=list(range(len(ys))), ticktext=ys, autorange="reversed", row=row, col=col
        )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},  # room for two-line titles
        coloraxis=attention_coloraxis(),
    )
    fig.update_annotations(font_size=13)
    return fig


# ------------------------------------------------------------------------------------------------ race
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
        runs = [self.summaries[score] if score in self.summaries else summarize(score, self.seed, history, "running")
                for score, history in self.histories.items() if score in self.summaries or history]  # fmt: skip
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

    threads = [threading.Thread(target=stoppable_work, args=(name,), name=f"race-{name}", daemon=True)
               for name in names]  # fmt: skip
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


def new_race(seed: int, budget_seconds: float):
    """Four fresh models for one student and the function that races them: ``(models, train_fn(on_progress))``."""
    check_budget(budget_seconds, " per model")
    task = get_task(TASK)
    models = new_models(task, seed)
    config = race_config(seed)

    def train_fn(on_progress):
        return race(models, task, config, budget_seconds=budget_seconds, on_progress=on_progress)

    return models, train_fn


def score_parameters(model: nn.Module) -> int:
    """Parameters of a seq2seq model's score function alone."""
    return parameter_count(model.attention) if getattr(model, "attention", None) is not None else 0


# --------------------------------------------------------------------------------------- shipped results
SCRIPT = "scripts/scoring_functions_results.py"


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped race (``RESULTS`` by default): the four scores over seeds, checked; ``FileNotFoundError`` or
    ``ValueError`` naming the file and the script that makes it when it is unusable."""
    path = Path(path) if path is not None else RESULTS
    results = Comparison.load(path, script=SCRIPT)
    problem = results_problem(results)
    if problem:
        raise ValueError(f"{path.name}: {problem}: run `python {SCRIPT}` again")
    return results


def results_problem(c: Comparison) -> str | None:
    """What makes a measured race unfit for the page (its scores, seeds, figures, probes), or None."""
    if set(c.variants) != set(SCORES):
        return f"it must compare the scores {', '.join(SCORES)}, not {', '.join(c.variants)}"
    seeds = list(c.meta.get("seeds", ()))
    for score in SCORES:
        runs = c.runs_of(score)
        if [r.seed for r in runs] != seeds:
            return f"{score} has runs for seeds {[r.seed for r in runs]}, expected {seeds}"
        for r in runs:
            missing = [m for m in RUN_METRICS if m not in r.final]
            if missing:
                return f"{score} seed {r.seed} lacks {', '.join(missing)}"
        probes = [r.extra["probe"] for r in runs if "probe" in r.extra]
        if len(probes) != 1:
            return f"{score} must keep one probe map, not {len(probes)}"
        z = np.asarray(probes[0].get("attention", []), dtype=float)
        if z.shape != (len(probes[0].get("target_tokens", ())), len(probes[0].get("source_tokens", ()))):
            return f"{score}: the probe's attention does not match its tokens"
    return None


def shipped_maps(c: Comparison) -> dict[str, dict]:
    """Each score's attention on the probe sentence at the end of the run that kept it, for :func:`attention_grid`."""
    maps = {}
    for score in c.variants:
        for run in c.runs_of(score):
            if "probe" in run.extra:
                p = run.extra["probe"]
                maps[score] = {**p, "seed": run.seed,
                               "title": f"{LABELS[score]} · seed {run.seed} · step {p.get('step', '?')}"}  # fmt: skip
    return maps


def provenance_note(meta: Mapping) -> str:
    """What the page adds to ``ui.provenance``'s caption of the shipped race: the machine and how busy it was."""
    machine = meta.get("machine", {})
    return (
        f"Processor {machine.get('processor', '?')}, torch {machine.get('torch', '?')}; 1-minute load average "
        f"{meta.get('load_1min_before', '?')} before and {meta.get('load_1min_after', '?')} after (the machine was "
        "shared). Your laptop's seconds will differ; the steps hardly at all."
    )


def ranked(c: Comparison, metric: str, *, lower_is_better: bool) -> list[str]:
    """The scores every run of which has ``metric`` (every seed reached the level), best mean first."""
    spreads = {v: s for v, s in c.spreads(metric).items() if s.n and not s.missing}
    return sorted(spreads, key=lambda v: spreads[v].mean, reverse=not lower_is_better)


def leaders(c: Comparison, metric: str, order: Sequence[str]) -> list[str]:
    """The scores of ``order`` (:func:`ranked`) whose mean equals the best one's: a tie lists them all."""
    spreads = c.spreads(metric)
    return [v for v in order if math.isclose(spreads[v].mean, spreads[order[0]].mean, rel_tol=1e-9)]


def observations(c: Comparison) -> list[str]:
    """What the measured table says, in sentences computed from it (a re-measured file rewrites them): which score
    is best on average, and whether it is clearly ahead (``Comparison.compare``: the gap larger than the spread over
    seeds, never on one seed) or too close to call."""
    lines = []
    for what, fmt in (("steps", ".0f"), ("seconds", ".1f")):
        metric = level_metric(what, LEVELS[-1])
        order = ranked(c, metric, lower_is_better=True)
        if len(order) >= 2:
            tied = leaders(c, metric, order)
            best = " and ".join(f"**{c.label(v)}**" for v in tied) + (", tied" if len(tied) > 1 else "")
            verdict = c.compare(order[0], order[1], metric, higher_is_better=False)
            claim = verdict.sentence(fmt, f"{metric} (fewer is better)")
            lines.append(f"Fewest {metric}, on average: {best}. {claim}")
    speed = "seconds per 100 steps"
    order = ranked(c, speed, lower_is_better=True)
    if len(order) >= 2:
        fast, slow = order[0], order[-1]
        spreads = c.spreads(speed)
        lines.append(
            f"Slowest step: **{c.label(slow)}**, {spreads[slow].mean / spreads[fast].mean:.1f}× the time of "
            f"{c.label(fast)}'s on average. "
            + c.compare(fast, slow, speed, higher_is_better=False).sentence(".1f", f"{speed} (fewer is better)")
        )
    align = "alignment accuracy"
    order = ranked(c, align, lower_is_better=False)
    if len(order) >= 2:
        hi, lo = order[0], order[-1]
        spreads = c.spreads(align)
        lines.append(
            f"Sharpest alignment with the gold one, on average: **{c.label(hi)}** ({spreads[hi].mean:.0%} of output "
            f"characters look most at a source character they come from), against {spreads[lo].mean:.0%} for "
            f"{c.label(lo)}. " + c.compare(hi, lo, align).sentence(".0%")
        )
    return lines


# ------------------------------------------------------------------------- why the race's dot scores are small
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
            out[score] = {f"{when} {k}": Spread(tuple(r.extra["scores"][when][k] for r in runs))
                          for when in ("start", "end") for k in runs[0].extra["scores"][when]}  # fmt: skip
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


# ------------------------------------------------------------------------ where scaling matters: a reduced race
# One attention layer, nothing else, on random vectors: the query is a noisy copy of one of N keys, and the layer
# must learn projections W_q, W_k under which that key scores highest. Its vectors have unit-variance entries, as
# a Transformer's have after LayerNorm and variance-preserving projections, so q·k spreads like √d at the start.
# Cheap enough to train at several d, over several seeds, in seconds.
SWEEP_DS: tuple[int, ...] = (4, 16, 64, 256)
SWEEP_SCORES: tuple[str, ...] = ("dot", "scaled_dot")
SMALL_SIGMA = math.sqrt(0.05)  # entries of variance 0.05, like the race's GRU states at the start


@dataclass(frozen=True)
class RetrievalConfig:
    """The reduced race: find the key that the query is a noisy copy of."""

    d: int  # size of every vector (query, keys, and the projections' output)
    keys: int = 16  # N keys per query; the values are the keys themselves
    noise: float = 0.5  # the query is key j plus noise of this sd (times sigma)
    sigma: float = 1.0  # sd of the vectors' entries: 1 as after a Transformer's LayerNorm
    batch: int = 64  # queries per training step
    lr: float = 2e-3  # Adam's learning rate
    steps: int = 150  # training steps
    every: int = 10  # steps between two held-out checks
    held_out: int = 500  # queries in the held-out check, drawn once per (d, sigma)
    early: int = 50  # the step whose check the sweep compares ("after 50 steps")


EARLY_ALPHA = "α on the right key after {early} steps"


def early_metric(config: RetrievalConfig | None = None) -> str:
    return EARLY_ALPHA.format(early=(config or RetrievalConfig(d=1)).early)


class Retriever(nn.Module):
    r"""One attention layer: :math:`\alpha = \mathrm{softmax}(\mathrm{sim}(W_q x_0, W_k x_i))`,
    :math:`c = \sum_i \alpha_i x_i`. ``W_q``, ``W_k`` start at N(0, 1/d), which keeps unit-variance entries at unit
    variance (q and k have the inputs' σ² at the start); ``sim`` is a ``minimodels`` score module."""

    def __init__(self, d: int, score: str):
        super().__init__()
        self.W_q = nn.Linear(d, d, bias=False)
        self.W_k = nn.Linear(d, d, bias=False)
        for w in (self.W_q.weight, self.W_k.weight):
            nn.init.normal_(w, std=1 / math.sqrt(d))
        self.attention = {"dot": DotProductAttention, "scaled_dot": ScaledDotProductAttention}[score]()

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``query (B, d)``, ``keys (B, N, d)`` → context ``(B, d)``, weights ``(B, N)``, scores ``(B, N)``."""
        q, k = self.W_q(query), self.W_k(keys)  # (B, d), (B, N, d)
        scores = self.attention.score(q.unsqueeze(1), k).squeeze(1)  # (B, 1, d) @ (B, d, N) -> (B, N)
        weights = torch.softmax(scores, dim=-1)  # (B, N)
        return (weights.unsqueeze(1) @ keys).squeeze(1), weights, scores  # (B, 1, N) @ (B, N, d) -> (B, d)


def retrieval_batch(config: RetrievalConfig, n: int, generator: torch.Generator):
    """``n`` problems: keys ``(n, N, d)``, queries ``(n, d)`` (a noisy copy of key ``target``), targets ``(n,)``."""
    keys = config.sigma * torch.randn(n, config.keys, config.d, generator=generator)  # (n, N, d)
    target = torch.randint(config.keys, (n,), generator=generator)  # (n,)
    noise = config.sigma * config.noise * torch.randn(n, config.d, generator=generator)  # (n, d)
    return keys, keys[torch.arange(n), target] + noise, target


def retrieval_run(score: str, config: RetrievalConfig, seed: int) -> Run:
    """Train a :class:`Retriever` from ``seed`` (weights and batches; the held-out queries are the same for every
    seed) with Adam on the squared distance between the context and the right key. Curve: every ``config.every``
    steps, the held-out loss, accuracy (argmax α on the right key) and mean α on the right key. Final: those at the
    end and at ``config.early``, and at step 0 the sd of the scores, the mean largest α and the gradient's norm."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Retriever(config.d, score)
    optimizer = Adam(model.parameters(), lr=config.lr)
    batches = torch.Generator().manual_seed(1000 + seed)
    held_keys, held_query, held_target = retrieval_batch(config, config.held_out, torch.Generator().manual_seed(99))
    rows = torch.arange(config.held_out)

    def loss_of(keys, query, target):
        context, weights, scores = model(query, keys)
        right = keys[torch.arange(len(target)), target]  # (B, d)
        return ((context - right) ** 2).mean() / config.sigma**2, weights, scores

    curve, start = [], {}
    for step in range(config.steps + 1):
        if step % config.every == 0:
            with torch.no_grad():
                loss, weights, scores = loss_of(held_keys, held_query, held_target)
            curve.append({"step": step, "loss": float(loss), "accuracy": float((weights.argmax(-1) == held_target)
                          .float().mean()), "alpha": float(weights[rows, held_target].mean())})  # fmt: skip
            if step == 0:
                start = {
                    "score sd at step 0": float(scores.std()),
                    "largest α at step 0": float(weights.amax(-1).mean()),
                }
        if step == config.steps:
            break
        loss, _, _ = loss_of(*retrieval_batch(config, config.batch, batches))
        optimizer.zero_grad()
        loss.backward()
        if step == 0:
            start["gradient at step 0"] = float(torch.cat([p.grad.flatten() for p in model.parameters()]).norm())
        optimizer.step()
    early = next(p for p in curve if p["step"] >= config.early)
    final = {**start, early_metric(config): early["alpha"], f"accuracy after {config.early} steps": early["accuracy"],
             "α on the right key": curve[-1]["alpha"], "accuracy": curve[-1]["accuracy"]}  # fmt: skip
    return Run(score, seed, params={"d": config.d, "sigma": round(config.sigma, 4)}, curve=tuple(curve), final=final)


def sweep_configs(ds: Sequence[int] = SWEEP_DS) -> list[RetrievalConfig]:
    """The shipped sweep: unit-variance vectors at every d, and one arm at the largest d with small vectors (σ² =
    0.05, as the race's GRU states), which the prediction exercise asks about."""
    return [RetrievalConfig(d=d) for d in ds] + [RetrievalConfig(d=max(ds), sigma=SMALL_SIGMA)]


def sweep_problem(c: Comparison) -> str | None:
    """What makes a measured sweep unfit for the page, or None."""
    if set(c.variants) != set(SWEEP_SCORES):
        return f"the d sweep must compare {', '.join(SWEEP_SCORES)}, not {', '.join(c.variants)}"
    for score in SWEEP_SCORES:
        for config in sweep_configs(c.param_values("d") or SWEEP_DS):
            runs = c.runs_of(score, {"d": config.d, "sigma": round(config.sigma, 4)})
            if len(runs) < 2:
                return f"the d sweep has {len(runs)} seed(s) of {score} at d = {config.d}, σ = {config.sigma:.2f}"
    return None


def load_sweep(results: Comparison | None) -> Comparison | None:
    """The reduced race at several d that the shipped race keeps in ``meta["d_sweep"]``; None when absent.
    ``ValueError`` naming the script when it is there but unusable."""
    data = (results.meta if results is not None else {}).get("d_sweep")
    if data is None:
        return None
    sweep = Comparison.from_dict(data, "the d sweep")
    problem = sweep_problem(sweep)
    if problem:
        raise ValueError(f"{problem}: run `python {SCRIPT}` again")
    return sweep


def _unit(d: int) -> dict:
    """The unit-variance arm of the sweep at ``d``."""
    return {"d": d, "sigma": 1.0}


def sweep_verdicts(sweep: Comparison) -> dict[int, Verdict]:
    """At every d of the unit-variance sweep: does scaled dot put more weight on the right key after the early
    step than unscaled dot, by more than the spread over seeds?"""
    metric = early_metric()
    return {d: sweep.compare("scaled_dot", "dot", metric, where=_unit(d))
            for d in sweep.param_values("d") if sweep.runs_of("dot", _unit(d))}  # fmt: skip


def _ds(ds: Sequence[int]) -> str:
    return ", ".join(str(d) for d in ds)


def sweep_summary(sweep: Comparison) -> str:
    """Where scaling matters in the reduced race, and where it does not, from :func:`sweep_verdicts`."""
    verdicts = sweep_verdicts(sweep)
    ahead, close, behind = by_outcome(verdicts).values()  # scaled dot against dot
    parts = []
    if ahead:
        parts.append(f"scaling clearly helps at d = {_ds(ahead)}")
    if close:
        parts.append(f"it makes no difference larger than the spread over seeds at d = {_ds(close)}")
    if behind:
        parts.append(f"unscaled dot is clearly ahead at d = {_ds(behind)}")
    return "; ".join(parts)


def headline(results: Comparison | None, sweep: Comparison | None) -> str:
    """The lesson's claim about scaling, computed from its two measurements: the reduced race at several d (where
    scaling helps, where it does not) and the GRU race (dot against scaled dot, steps to the first level, with how
    wide its scores start). Empty without results."""
    if results is None:
        return ""
    parts = []
    if sweep is not None:
        parts.append(f"In a one-layer race on unit-variance vectors (section 4), {sweep_summary(sweep)}.")
    metric = level_metric("steps", LEVELS[0])
    race = results.compare("dot", "scaled_dot", metric, higher_is_better=False)
    numbers = f"{race.a_spread.text('.0f')} against {race.b_spread.text('.0f')} steps to {LEVELS[0]:.0%}"
    stats = start_and_end(results).get("dot")
    size = f" (d = {stats['start d'].mean:.0f})" if stats else ""
    if race.winner == "dot":
        gru = f"In the GRU race of section 3{size}, unscaled dot learns faster than scaled dot ({numbers})"
    elif race.winner == "scaled_dot":
        gru = f"In the GRU race of section 3{size}, scaled dot learns faster than unscaled dot ({numbers})"
    else:
        gru = f"In the GRU race of section 3{size}, unscaled and scaled dot are too close to call ({numbers})"
    if stats:
        d = int(stats["start d"].mean)
        gru += (f": there q·k starts with sd {stats['start score sd'].mean:.2f} (largest α "
                f"{stats['start largest α'].mean:.2f})")  # fmt: skip
        unit = sweep.runs_of("dot", _unit(d)) if sweep is not None else ()
        if unit:
            wide = sweep.spread("score sd at step 0", "dot", _unit(d)).mean
            peak = sweep.spread("largest α at step 0", "dot", _unit(d)).mean
            gru += f", where unit-variance vectors at d = {d} start at sd {wide:.1f} (largest α {peak:.2f})"
    parts.append(gru + ".")
    return "**What the measurements say about scaling by √d.** " + " ".join(parts)


def sweep_lines(sweep: Comparison) -> list[str]:
    """One sentence per d of the unit-variance sweep, the verdict with its numbers."""
    metric = early_metric()
    return [f"d = {d}: " + v.sentence(".2f", f"{metric} (mean over held-out queries)")
            for d, v in sweep_verdicts(sweep).items()]  # fmt: skip


SWEEP_COLUMNS = {"score sd at step 0": ".1f", "largest α at step 0": ".2f",
                 EARLY_ALPHA.format(early=RetrievalConfig(d=1).early): ".2f", "accuracy": ".0%"}  # fmt: skip


def sweep_rows(sweep: Comparison) -> list[dict]:
    """The unit-variance sweep's table: per score and d, mean ± sd over seeds of the start and of the learning."""
    rows = sweep.table(SWEEP_COLUMNS, by="d", where={"sigma": 1.0}, variant_header="score")
    return sorted(rows, key=lambda r: (r["d"], r["score"]))


def sweep_charts(sweep: Comparison, d: int) -> tuple[dict, dict]:
    """Two Vega-Lite charts with every seed faint, the mean and a ± sd band: the early α on the right key against d
    (log scale), and the held-out α on the right key against the training step at ``d``."""
    colors = {s: COLORS[s] for s in SWEEP_SCORES}
    metric = early_metric()
    against_d = curves_chart(sweep.sweep_points(metric, "d", where={"sigma": 1.0}), y_title=metric,
                             x_title="d (log scale)", title="After the first steps, at every d", log_x=True,
                             percent=True, colors=colors)  # fmt: skip
    curves = curves_chart(sweep.curve_points("alpha", where=_unit(d)), y_title="α on the right key",
                          x_title="training step", title=f"Learning, at d = {d}", percent=True,
                          colors=colors)  # fmt: skip
    return against_d, curves


def sweep_caption(sweep: Comparison) -> str:
    config = RetrievalConfig(d=1)
    seeds = ", ".join(str(s) for s in sweep.seeds)
    return (
        f"Shipped, measured by the lesson's script: one attention layer (W_q, W_k learned, values = keys), N = "
        f"{config.keys} keys of unit-variance entries, the query a copy of one key plus noise of sd {config.noise}; "
        f"Adam {config.lr:g}, batches of {config.batch}, {config.steps} steps; seeds {seeds} (faint: each seed; line: "
        f"the mean; band: ± sd). Held-out: {config.held_out} fixed queries; “accuracy”: how often the largest α falls "
        f"on the right key after the {config.steps} steps. Here {sweep_summary(sweep)}."
    )


# ------------------------------------------------------------------------------------------- exercises
HAND_QUERY = (2.0, 0.0, 1.0, 1.0)
HAND_KEY = (1.0, 1.0, 1.0, 1.0)


PREDICT_D = 256  # the state size the race's GRU is imagined at in the prediction exercise
WIDER = ("about twice as wide, as √(256/64) = 2 says", "no wider: about as wide, or narrower")
VERDICT_CHOICES = ("scaled dot, clearly", "unscaled dot, clearly", "too close to call over the seeds")


def verdict_choice(v: Verdict) -> int:
    """The index in :data:`VERDICT_CHOICES` of a verdict of scaled dot against unscaled dot."""
    return {"scaled_dot": 0, "dot": 1}.get(v.winner, 2)


def exercises(results: Comparison | None, sweep: Comparison | None = None) -> list[Exercise]:
    """Check-yourself questions, each a computation by hand or a prediction of something the page does not show;
    every answer is computed by the modules, a fresh model or the shipped (unshown) measurement."""
    q, k = torch.tensor([[HAND_QUERY]]), torch.tensor([[HAND_KEY]])
    dot = float(DotProductAttention().score(q, k))
    scaled = float(ScaledDotProductAttention().score(q, k))
    products = " + ".join(f"{a:g}·{b:g}" for a, b in zip(HAND_QUERY, HAND_KEY, strict=True))
    big_q, big_k = 64, 128
    bilinear = parameter_count(BilinearAttention(big_q, big_k))
    fits = tuple(s for s in SCORES if accepts_sizes(s, big_q, big_k))
    choices = ("all four", "only the dot and scaled dot scores", "only bilinear and additive", "only additive")
    by_choice = {
        "all four": set(SCORES),
        "only the dot and scaled dot scores": {"dot", "scaled_dot"},
        "only bilinear and additive": {"bilinear", "additive"},
        "only additive": {"additive"},
    }
    answer = next(i for i, c in enumerate(choices) if by_choice[c] == set(fits))
    d = len(HAND_QUERY)
    out = [
        Exercise(
            key="scoring_functions.ex1",
            prompt=(
                f"By hand: the query is q = {HAND_QUERY} and a key is k = {HAND_KEY} (d = {d}). What is the "
                "**scaled dot** score q·k / √d?"
            ),
            answer=scaled,
            tolerance=0.01,
            explanation=(
                f"q·k = {products} = {dot:g} (the unscaled dot score), and √d = √{d} = {math.sqrt(d):g}, so "
                f"q·k / √d = {dot:g} / {math.sqrt(d):g} = {scaled:g}."
            ),
            hint="The usual slip is to stop at q·k, or to divide by d instead of √d.",
        ),
        Exercise(
            key="scoring_functions.ex2",
            prompt=(
                f"A decoder state of size {big_q} attends over the states of a bidirectional encoder, of size "
                f"{big_k}. Which score functions can compare them as they are, without projecting one to the "
                "other's size?"
            ),
            choices=choices,
            answer=answer,
            explanation=(
                f"q·k = Σⱼ qⱼkⱼ pairs entry j of q with entry j of k, so it needs d = d′; {big_q} ≠ {big_k}. The "
                f"bilinear W ({big_q} × {big_k}) maps k to q's size before the dot product, and the additive W₁ "
                f"reads [q; k] ({big_q} + {big_k} = {big_q + big_k} entries) whatever the two sizes are."
            ),
            hint="Try writing q·k for vectors of different sizes.",
        ),
        Exercise(
            key="scoring_functions.ex3",
            prompt=f"By hand: how many parameters does the **bilinear** score qᵀWk have for that pair ({big_q} and "
            f"{big_k})?",
            answer=bilinear,
            tolerance=0.5,
            explanation=(
                f"qᵀWk is a number only if W has one row per entry of q and one column per entry of k: W is {big_q} × "
                f"{big_k} = {bilinear:,} numbers, and nothing else is learned (counted on the module itself)."
            ),
            hint="W has one row per query dimension and one column per key dimension.",
        ),
    ]
    small, large = fresh_stats("dot", 64), fresh_stats("dot", PREDICT_D)
    ratio = large["score sd"] / small["score sd"]
    out.append(
        Exercise(
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
    )
    largest = max(sweep.param_values("d")) if sweep is not None else 0
    small_arm = {"d": largest, "sigma": round(SMALL_SIGMA, 4)}
    if sweep is not None and all(sweep.runs_of(s, small_arm) for s in SWEEP_SCORES):
        metric, config = early_metric(), RetrievalConfig(d=largest, sigma=SMALL_SIGMA)
        v = sweep.compare("scaled_dot", "dot", metric, where=small_arm)
        sd = {s: sweep.spread("score sd at step 0", s, small_arm).mean for s in SWEEP_SCORES}
        peak = {s: sweep.spread("largest α at step 0", s, small_arm).mean for s in SWEEP_SCORES}
        out.append(
            Exercise(
                key="scoring_functions.ex5",
                prompt=(
                    f"Predict: section 4's one-layer race at d = {config.d}, but with vectors whose entries have "
                    f"variance {config.sigma**2:.2f} (like the GRU's states) instead of 1. After {config.early} steps, "
                    "which puts more weight on the right key? (This run is not drawn on the page.)"
                ),
                choices=VERDICT_CHOICES,
                answer=verdict_choice(v),
                explanation=(
                    f"Measured by the lesson's script over seeds {', '.join(map(str, sweep.seeds))}: "
                    f"{v.sentence('.2f', metric)} At the start the unscaled scores spread with sd {sd['dot']:.2f} "
                    f"(√{config.d}·{config.sigma**2:.2f} = {math.sqrt(config.d) * config.sigma**2:.2f}), not "
                    f"{math.sqrt(config.d):.0f}, so its softmax is not saturated (largest α {peak['dot']:.2f}); the "
                    f"scaled scores spread with sd {sd['scaled_dot']:.2f} and start almost uniform (largest α "
                    f"{peak['scaled_dot']:.2f}, uniform 1/{config.keys} = {1 / config.keys:.2f}). Large d makes "
                    "scaling matter only when the entries are not small."
                ),
                hint="What matters is how wide the scores spread at the start: √d·σ², not d alone.",
            )
        )
    return out


# ------------------------------------------------------------------------------------------------------------------
# 5. A trained model's scores on a sentence: the additive score of a Bahdanau model (the shipped one, or the
# student's own GRU + attention from Your own data), raw and after the softmax.
TRAINED_TEXT = (
    "The scores above came from random vectors. Here is the additive score of a **trained** model: at every step t "
    "of its translation, the decoder's state scores every source word, e_{t,i} = vᵀ tanh(W s_{t−1} + U hᵢ). The "
    "raw scores are any real numbers; the softmax over each row turns them into the weights α that the model "
    "reads with. Choose the shipped translator, or your own GRU + attention trained on Your own data, and type a "
    "sentence in its language."
)


TRAINED_PROBE = "Jane visits Africa in September"  # the lecture's sentence, in the shipped translator's language


def trained_scores(model: nn.Module, task, text: str):
    """The model's raw scores e and weights α at each step of its greedy translation of ``text``
    (:func:`lessons.bahdanau_attention.walk`, which follows the model's own parts), or a message for the page."""
    from lessons import bahdanau_attention

    return bahdanau_attention.walk(model, task, text)


def trained_scores_figure(steps) -> go.Figure:
    """Two maps side by side: the raw scores e_{t,i} (signed: the diverging scale, centred on 0) and the weights
    α_{t,i} = softmax_i(e_{t,i}) (0 to 1), rows the output tokens, columns the source tokens."""
    from lessons.common import charts

    outputs = [*steps.previous[1:], "</s>"][: len(steps.scores)]
    raw = charts.attention_heatmap(steps.scores, steps.source, outputs, title="raw scores e", zmax=None,
                                   x_title="source token", y_title="output token", value_name="e")  # fmt: skip
    raw.update_traces(colorscale=charts.DIVERGING_COLORSCALE, zmid=0.0, zmin=None, zmax=None)
    weights = charts.attention_heatmap(steps.weights, steps.source, outputs, title="weights α = softmax(e)",
                                       x_title="source token", y_title="output token", value_name="α")  # fmt: skip
    return raw, weights


def trained_scores_sentence(steps) -> str:
    """What the two maps show, computed from them: the range of the raw scores, how far apart a row's scores
    lie, and how peaked the softmax makes each row."""
    e, a = np.asarray(steps.scores), np.asarray(steps.weights)
    spread = e.max(axis=1) - e.min(axis=1)
    peak = a.max(axis=1)
    return (
        f"The raw scores run from {e.min():+.2f} to {e.max():+.2f}; within one step they lie "
        f"{np.median(spread):.2f} apart (median over the {len(e)} steps). After the softmax the largest weight of a "
        f"step is {np.median(peak):.0%} (median; from {peak.min():.0%} to {peak.max():.0%}): each row sums to 1 "
        f"({np.abs(a.sum(axis=1) - 1).max():.1e} off at most), whatever the scale of its scores."
    )
