r"""Section 2, nearby positions look alike: the dot product of two position vectors,
:math:`PE_p \cdot PE_q = \sum_i \cos(\omega_i (p - q))`, depends only on how far apart p and q are.

The dot product of every pair of positions as a heatmap, the same numbers against the offset k as a curve, and a
dot product to compute by hand.

Letters: T positions, d d_model, i a frequency pair, k an offset.
"""

from __future__ import annotations

import json
import math
from functools import cache

import altair as alt
import numpy as np
import plotly.graph_objects as go

from lessons.common.colorscales import DIVERGING_COLORSCALE
from lessons.common.exercises import Exercise
from lessons.common.vega import vega_lite_spec, with_values
from lessons.positional_encoding.sinusoid_table import encoding_table, frequencies

TITLE = "2 · Nearby positions look alike"

TEXT = (
    "Pair each sine with its cosine: sin a·sin b + cos a·cos b = cos(a − b). So the dot product of two position "
    "vectors is Σᵢ cos(ω_i (p − q)): it depends only on **how far apart** p and q are, is largest at distance 0 "
    "and falls off (not monotonically) as they move apart."
)


def similarity(n_positions: int, d_model: int) -> np.ndarray:
    r"""``(T, T)``: PE_p · PE_q for every pair of positions. It equals :math:`\sum_i \cos(\omega_i (p - q))`."""
    pe = encoding_table(n_positions, d_model)  # (T, d)
    return pe @ pe.T  # (T, T)


def similarity_by_offset(d_model: int, max_offset: int) -> np.ndarray:
    r"""``(max_offset + 1,)``: :math:`PE_p \cdot PE_{p+k} = \sum_i \cos(k\,\omega_i)` for k = 0 … max_offset."""
    k = np.arange(max_offset + 1, dtype=np.float64)[:, None]  # (K, 1)
    return np.cos(k * frequencies(d_model)).sum(axis=1)  # (K,)


def similarity_figure(sim: np.ndarray) -> go.Figure:
    """The dot product of every pair of positions."""
    fig = go.Figure(
        go.Heatmap(
            z=sim,
            colorscale=DIVERGING_COLORSCALE,  # a sum of cosines: negative far from the diagonal
            zmid=0.0,
            hovertemplate="p = %{y}, q = %{x}<br>PE_p·PE_q = %{z:.3f}<extra></extra>",
            colorbar={"thickness": 12},
        )
    )
    fig.update_layout(
        title={"text": "PE_p · PE_q"},
        height=420,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"title": "position q"},
        yaxis={"title": "position p", "autorange": "reversed"},
    )
    return fig


def offset_curve(by_offset: np.ndarray) -> dict:
    """PE_p · PE_{p+k} against the offset k (the same for every p): a Vega-Lite spec, built once, filled per move."""
    return with_values(_offset_curve_spec(), [{"k": k, "dot product": float(v)} for k, v in enumerate(by_offset)])


@cache
def _offset_curve_spec() -> str:
    chart = (
        alt.Chart(alt.Data(name="by_offset"))
        .mark_line()
        .encode(
            x=alt.X("k:Q", title="offset k"),
            y=alt.Y("dot product:Q", title="dot product"),
            tooltip=["k:Q", alt.Tooltip("dot product:Q", format=".3f", title="PE_p · PE_{p+k}")],
        )
        .properties(height=330, title="PE_p · PE_{p+k}, the same for every p")
    )
    return json.dumps(vega_lite_spec(chart))


def similarity_caption(d_model: int) -> str:
    """Under the similarity figures: what the diagonal holds for this ``d_model``."""
    return (
        f"Left: every pair of positions; each diagonal holds one value (here PE_p·PE_p = d/2 = {d_model // 2}). "
        "Right: the same numbers against the offset k."
    )


# exercise 2: a dot product by hand, at an offset past the page's figures (their positions stop at 100), which
# would answer it
EX_SMALL_D, EX_P, EX_Q = 4, 3, 153


def dot_product_by_hand() -> Exercise:
    """By hand: the dot product of two position vectors at a small d_model, the answer computed by
    :func:`similarity`."""
    dot = float(similarity(EX_Q + 1, EX_SMALL_D)[EX_P, EX_Q])
    w0, w1 = (float(w) for w in frequencies(EX_SMALL_D))
    k = EX_Q - EX_P
    return Exercise(
        key="positional_encoding.ex2",
        prompt=(
            f"d_model = {EX_SMALL_D}, so ω₀ = {w0:g} and ω₁ = {w1:g}. What is PE_{EX_P} · PE_{EX_Q}? (three decimals)"
        ),
        answer=dot,
        tolerance=0.002,
        explanation=(
            f"sin a sin b + cos a cos b = cos(a − b) for each pair, so the dot product is cos({k}·{w0:g}) + "
            f"cos({k}·{w1:g}) = {math.cos(k * w0):.3f} + {math.cos(k * w1):.3f} = {dot:.3f}: it depends only on "
            f"the offset {EX_Q} − {EX_P} = {k}."
        ),
        hint="Pair each sin with its cos: sin a·sin b + cos a·cos b = cos(a − b).",
    )
