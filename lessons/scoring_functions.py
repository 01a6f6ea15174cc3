r"""Lesson: four scoring functions compared (Part 2).

Every attention in the course is the same three steps: score each key against the query, turn the scores into
a distribution with a softmax, read the weighted sum of the values. Only the score, ``sim(q, k)``, differs. The
NLP lecture lists four ("Similarity between query and key"):

.. math:: q^\top k \qquad \frac{q^\top k}{\sqrt{d}} \qquad q^\top W k \qquad w_2^\top \tanh(W_1[q; k] + b_1)

Two things are computed here, both by ``minimodels``' own score modules:

* one query against a handful of keys, scored all four ways: raw scores, softmax, context (keys = values, as
  in the lecture's "until I say otherwise, let's assume our keys and values are identical");
* a *race*: the same GRU encoder–decoder with each of the four scores, trained with the same seed on the same
  data (``dates``), one short segment each in turn, so their curves grow side by side on one core.

Letters: d query/key size, N keys, A the additive score's hidden size. This module never imports streamlit.
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
from lessons.common.comparison import Comparison, Run, curve_of, curves_chart, first_reached
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, check_budget
from minimodels.attention import (
    AdditiveAttention,
    BilinearAttention,
    DotProductAttention,
    ScaledDotProductAttention,
)
from minimodels.tasks import Task, get_task
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
    "scaled_dot": "No parameters. The dot product divided by √d keeps the scores' spread near 1 whatever d is "
    "(Vaswani et al. 2017).",
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
    titles = [safe_label(maps[s].get("title", LABELS[s]), max_chars=60) for s in present]
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
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
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


def sole_leader(c: Comparison, metric: str) -> str | None:
    """The one score with the lowest mean ``metric`` (steps, seconds), every seed of it there; None on a tie."""
    order = ranked(c, metric, lower_is_better=True)
    return order[0] if order and len(leaders(c, metric, order)) == 1 else None


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


# ------------------------------------------------------------------------------------------- exercises
HAND_QUERY = (2.0, 0.0, 1.0, 1.0)
HAND_KEY = (1.0, 1.0, 1.0, 1.0)


def exercises(results: Comparison | None) -> list[Exercise]:
    """Check-yourself questions; every answer is computed by the modules or read off the shipped results."""
    q, k = torch.tensor([[HAND_QUERY]]), torch.tensor([[HAND_KEY]])
    scaled = float(ScaledDotProductAttention().score(q, k))
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
    out = [
        Exercise(
            key="scoring_functions.ex1",
            prompt=(
                f"By hand: the query is q = {HAND_QUERY} and a key is k = {HAND_KEY} (d = 4). What is the "
                "**scaled dot** score q·k / √d?"
            ),
            answer=scaled,
            tolerance=0.01,
            explanation="q·k = 2 + 0 + 1 + 1 = 4 and √4 = 2.",
            hint="Add up the products of matching entries, then divide by the square root of d.",
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
            explanation="q·k needs two vectors of the same size; W (d × d′) or W₁ on [q; k] absorb the difference.",
            hint="Try writing q·k for vectors of different sizes.",
        ),
        Exercise(
            key="scoring_functions.ex3",
            prompt=f"How many parameters does the **bilinear** score qᵀWk have for that pair ({big_q} and {big_k})?",
            answer=bilinear,
            tolerance=0.5,
            explanation=f"W is {big_q} × {big_k} = {bilinear:,} numbers, and nothing else is learned.",
            hint="W has one row per query dimension and one column per key dimension.",
        ),
    ]
    # the highest level at which one score alone took the fewest steps on average (a tie has no one answer)
    fewest = {lv: sole_leader(results, level_metric("steps", lv)) for lv in LEVELS} if results is not None else {}
    level = next((lv for lv in reversed(LEVELS) if fewest.get(lv)), None)
    if level is not None:
        metric, best, order = level_metric("steps", level), fewest[level], tuple(LABELS[s] for s in SCORES)
        out.append(
            Exercise(
                key="scoring_functions.ex4",
                prompt=(
                    f"In the measured race above, which score reached {level:.0%} held-out exact match in the "
                    "**fewest training steps** (mean over the seeds)? Read it off the table."
                ),
                choices=order,
                answer=order.index(LABELS[best]),
                explanation=f"{LABELS[best]}: {results.spread(metric, best).text('.0f')} steps.",
                hint=f"Look at the column “{metric}”.",
            )
        )
    return out
