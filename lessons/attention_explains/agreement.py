"""Section 4 of the attention-explains lesson: each head's weights beside two measures of which tokens matter.

For a prediction at a copy position i, every token j ≤ i gets two importance scores
(:mod:`minimodels.head_interventions`): leave-one-out (the log-probability of the right next token lost when token
j is changed) and gradient × input. Each head's weights on the same tokens are ranked against both (Kendall's τ),
and the page counts how often the token a head weighs most is the token whose change costs most
(:func:`~lessons.attention_explains.measure.agreement`). Over the shipped seeds, heads are compared by role through
the course's verdict rule.

Letters: i a query's position, j a key's, R the random part's length, T = 2R positions, α a head's weights.
"""

from __future__ import annotations

import plotly.graph_objects as go
import torch

from lessons.attention_explains import results as shipped
from lessons.attention_explains.measure import ROLES, Importance, agreement, head_label, roles
from lessons.common.colorscales import ATTENTION_COLORSCALE
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from lessons.common.verdicts import Verdict
from lessons.induction_heads import training
from lessons.induction_heads.sequences import NAMES, PROBE_REPEAT
from lessons.induction_heads.training import HEADS
from minimodels.attention_only import AttentionOnlyDecoder

TITLE = "4 · Weights beside importance"
TEXT = (
    "Now the second test. For one prediction in the copy, every token the model could read gets two importance "
    "scores: **leave one out** (change that token to another and measure how much log-probability the right next "
    "token loses) and **gradient × input** (how fast that log-probability moves along the token's own vector). "
    "Each head's weights on the same tokens are then ranked against them. Pick a position and compare the rows."
)
FIRST_QUERY, LAST_QUERY = PROBE_REPEAT, 2 * PROBE_REPEAT - 2  # the copy's predictable positions
NOTE = (
    "Each verdict is the course's one rule for comparisons (lessons.common.verdicts) on the seeds' figures; where "
    "it cannot separate two heads, or no cross-machine drift has been measured for the figure, it says too close "
    "to call and why."
)
CHOICES = ROLES


def top_exercise(results: Comparison) -> Exercise:
    """Predict, then reveal: which head's most-weighted token is most often the one whose change costs most."""
    means = [results.spread(shipped.TOP, role).mean for role in ROLES]
    answer = max(range(len(ROLES)), key=means.__getitem__)
    numbers = "; ".join(f"{role}: {results.spread(shipped.TOP, role).text('.0%')}" for role in ROLES)
    return Exercise(
        key="attention_explains.top",
        prompt=(
            "**Predict before you reveal.** For each prediction in the copy, take the token a head weighs most and "
            "the token whose change costs the prediction most. For which head are they **most often the same "
            "token** (mean over the shipped seeds)?"
        ),
        choices=CHOICES,
        answer=answer,
        explanation=(
            f"{numbers}. The prediction at i depends most on the token to copy, the one after the earlier "
            "occurrence of token i. A layer-2 head that looks back to it (the induction head, and the other layer-2 "
            "head wherever it learned part of the same job) has that token as its top key. A previous-token head "
            "puts its weight on i − 1: that token matters only through what it tells the next layer, so a head's "
            "weights can be essential (section 3) and still point away from the token the output depends on."
        ),
    )


def rows(results: Comparison) -> list[dict]:
    columns = {shipped.TAU_LOO: ".2f", shipped.TAU_GRADIENT: ".2f", shipped.TOP: ".0%"}
    return shipped.table_of(results, columns, ROLES, "head")


def verdicts(results: Comparison) -> dict[str, Verdict]:
    """The induction head against each other head on how often its top token is the one that matters most, and
    on τ with leave-one-out (the shared rule)."""
    induction = ROLES[2]
    found = {}
    for role in ROLES:
        if role != induction:
            found[f"top, {role}"] = results.compare(induction, role, shipped.TOP)
    found["τ leave-one-out, previous-token"] = results.compare(induction, ROLES[0], shipped.TAU_LOO)
    return found


def verdict_sentences(results: Comparison) -> list[str]:
    out = []
    for key, v in verdicts(results).items():
        s = v.sentence(".0%" if key.startswith("top") else ".2f", v.metric)
        out.append(s[:1].upper() + s[1:])
    return out


def token_figure(model: AttentionOnlyDecoder, found: Importance, query: int) -> go.Figure:
    """One prediction of the first probe sequence: each head's weights on the tokens it reads, then both importance
    scores, each row scaled to sum to 1 (importance as its absolute value), so the rows can be compared."""
    if not FIRST_QUERY <= query <= LAST_QUERY:
        raise ValueError(f"the position must be in the copy, {FIRST_QUERY}–{LAST_QUERY}")
    with torch.no_grad():
        out = model(found.inputs[:1])
    who = roles(training.read(model))
    rows, names = [], []
    for layer, head in HEADS:
        rows.append(out.attention[f"layer{layer + 1}"][0, head, query, : query + 1])
        names.append(head_label(layer, head, who))
    for label, scores in (("leave one out", found.leave_one_out), ("gradient × input", found.gradient)):
        row = scores[0, query, : query + 1].abs()
        rows.append(row / row.sum().clamp(min=1e-12))
        names.append(label)
    z = torch.stack(rows).numpy()
    tokens = [f"{j}·{NAMES[int(t)]}" for j, t in enumerate(found.inputs[0, : query + 1])]
    next_token = NAMES[int(found.targets[0, query])]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=tokens,
            y=names,
            colorscale=ATTENTION_COLORSCALE,
            zmin=0,
            zmax=1,
            hovertemplate="%{y}<br>token %{x}: %{z:.2f}<extra></extra>",
            colorbar={"title": "share"},
        )
    )
    fig.update_layout(
        title=f"Position {query} ({NAMES[int(found.inputs[0, query])]}), next: {next_token}",
        xaxis_title="token j (position · name)",
        yaxis={"autorange": "reversed"},
        height=330,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def own_rows(model: AttentionOnlyDecoder, found: Importance) -> list[dict]:
    who = roles(training.read(model))
    agreed = agreement(model, found)
    return [
        {
            "head": head_label(layer, head, who),
            shipped.TAU_LOO: f"{agreed[layer, head].tau_leave_one_out:.2f}",
            shipped.TAU_GRADIENT: f"{agreed[layer, head].tau_gradient:.2f}",
            shipped.TOP: f"{agreed[layer, head].top_agrees:.0%}",
        }
        for layer, head in HEADS
    ]


def own_caption(found: Importance) -> str:
    return (
        f"Your model, on the first {found.inputs.size(0)} held-out sequences, every copy position {FIRST_QUERY}–"
        f"{LAST_QUERY}; τ is the mean over positions. One model is one seed."
    )


def spread_sentence(results: Comparison) -> str:
    """How far apart the heads are on each figure, from the seeds' means: τ can sit near 0 for every head while the
    top token tells them apart (τ weighs every pair of tokens alike, and most tokens barely matter here)."""

    def span(metric: str, fmt: str) -> str:
        means = [results.spread(metric, role).mean for role in ROLES]
        return f"{min(means):{fmt}} to {max(means):{fmt}}"

    return (
        f"Over the heads' seed means, τ with leave-one-out runs from {span(shipped.TAU_LOO, '.2f')}, τ with gradient "
        f"× input from {span(shipped.TAU_GRADIENT, '.2f')}, and the share of predictions whose top token agrees from "
        f"{span(shipped.TOP, '.0%')}. τ counts every pair of tokens alike, and a copy prediction depends on very few "
        "of the tokens before it: how the rest are ordered, by weight or by importance, is mostly noise. The top "
        "token is the comparison that asks about the one token that decides."
    )
