"""Section 1's figures: the lecture's steps 2 to 5 drawn on the student's words, in the order the page shows them.

Q, K and V of the whole layer cut into the heads' blocks of columns (steps 2–3), each head's own attention map
(step 4), and the heads' Z_i side by side before and after W^O (step 5). Pure Plotly builders, no streamlit.

Letters: S tokens, d = d_model, h heads, d_k = d / h.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import torch

from lessons.common.charts import figure, safe_label
from lessons.common.colorscales import DIVERGING_COLORSCALE
from lessons.common.grids import NARROW, GridRow, head_grid
from lessons.multi_head_attention.split import HeadsByHand, SplitExample, shape_text


def _strips(
    matrices: Sequence[tuple[str, torch.Tensor]], tokens: Sequence[str], hb: HeadsByHand, split_rows: int
) -> go.Figure:
    """Matrices ``(S, d)`` stacked on one pair of axes, each under its name and shape, one colour scale; the first
    ``split_rows`` are cut into the heads' blocks of columns, with "head i" over the top one.

    One pair of axes, not a subplot per matrix: the browser draws every axis of a figure on every move of
    d_model or h, so three subplots draw slower than one axis. The lines between the heads' blocks are one line
    trace (its segments split by gaps): one layout shape per line costs more than the rest of the figure.
    Built from one dict (:func:`lessons.common.charts.figure`).
    """
    S, d = len(tokens), hb.d_model
    bound = max(float(m.abs().max()) for _, m in matrices) or 1.0
    labels = [safe_label(t, 16) for t in tokens]
    block = S + 1  # each matrix: a blank row that carries its name, then its S rows
    data, tickvals, annotations, xs, ys = [], [], [], [], []
    for r, (name, m) in enumerate(matrices):
        top = r * block + 1  # y of the matrix's first row
        data.append(
            {
                "type": "heatmap",
                "z": m.numpy(),
                "y": list(range(top, top + S)),
                "name": name,
                "coloraxis": "coloraxis",  # the row's word is its tick label: no per-cell hover text to send
                "hovertemplate": f"{name}<br>column %{{x}}<br>value = %{{z:.3f}}<extra></extra>",
            }
        )
        tickvals += range(top, top + S)
        annotations.append(
            {
                "text": f"<b>{name}</b>  {shape_text(m)}",
                "x": 0,
                "xref": "x domain",
                "xanchor": "left",
                "y": top - 1,
                "yref": "y",
                "yanchor": "middle",
                "showarrow": False,
                "font": {"size": 12},
            }
        )
        if r < split_rows:
            xs += [x for i in range(1, hb.n_heads) for x in (i * hb.d_k - 0.5, i * hb.d_k - 0.5, None)]
            ys += [y for _ in range(1, hb.n_heads) for y in (top - 0.5, top + S - 0.5, None)]
    annotations += [
        {
            "x": (i + 0.5) * hb.d_k - 0.5,
            "y": 1.0,
            "xref": "x",
            "yref": "y domain",
            "yanchor": "bottom",
            "showarrow": False,
            "text": f"head {i + 1}" if hb.n_heads <= (2 if NARROW.get() else 8) else str(i + 1),  # a phone: numbers
            "font": {"size": 11},
        }
        for i in range(hb.n_heads)
    ]
    data.append(
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines",
            "line": {"color": "#222", "width": 2},
            "hoverinfo": "skip",
            "showlegend": False,
        }
    )
    layout = {
        "annotations": annotations,
        "coloraxis": {
            "colorscale": DIVERGING_COLORSCALE,
            "cmid": 0.0,
            "cmin": -bound,
            "cmax": bound,
            "colorbar": {"thickness": 12},
        },
        "height": 70 + len(matrices) * (50 + 22 * S),
        "margin": {"l": 10, "r": 10, "t": 30, "b": 40},
        "xaxis": {
            "title": {"text": f"column (0 … {d - 1})"},
            "range": [-0.5, d - 0.5],
            "showgrid": False,
            "zeroline": False,
        },
        "yaxis": {
            "tickmode": "array",
            "tickvals": tickvals,
            "ticktext": labels * len(matrices),
            "range": [len(matrices) * block - 0.5, -0.5],
            "showgrid": False,
            "zeroline": False,
        },
    }
    return figure(data, layout)


def _join(per_head: torch.Tensor) -> torch.Tensor:
    """``(h, S, d_k)`` back to ``(S, h·d_k)``: head i's block is columns i·d_k … (i+1)·d_k − 1."""
    h, S, d_k = per_head.shape
    return per_head.transpose(0, 1).reshape(S, h * d_k)  # (S, h, d_k) -> (S, d)


def projection_figure(example: SplitExample) -> go.Figure:
    """Q, K and V of the whole layer (S × d), cut into h blocks of d_k columns: each block is one head's."""
    hb = example.heads
    joined = [("Q = XW^Q", _join(hb.Q)), ("K = XW^K", _join(hb.K)), ("V = XW^V", _join(hb.V))]
    return _strips(joined, example.tokens, hb, split_rows=3)


PROJECTION_CAPTION = (
    "Steps 2–3: the three projections of the whole layer, one row per word. The black lines cut the columns "
    "into heads: head i's Qᵢ is nothing but its own block of d_k columns (hover for values)."
)


def split_grid(example: SplitExample) -> go.Figure:
    """Each head's own A_i on the student's words (untrained weights)."""
    hb = example.heads
    row = GridRow("Aᵢ", hb.weights.numpy(), example.tokens, example.tokens)
    return head_grid([row], title=f"Aᵢ = softmax(QᵢKᵢᵀ / √{hb.d_k}): {hb.n_heads} × ({shape_text(hb.weights[0])})")


SPLIT_GRID_CAPTION = "Step 4: each head scores its own Qᵢ against its own Kᵢ, so each has its own map. Rows sum to 1."


def concat_figure(example: SplitExample) -> go.Figure:
    """Concat(Z₁ … Zₕ) (S × d, head blocks marked) and the layer's output Concat(…) W^O (S × d), where W^O has
    mixed every head into every column: no blocks any more."""
    hb = example.heads
    return _strips([("Concat(Zᵢ)", hb.concat), ("× W^O", hb.output)], example.tokens, hb, split_rows=1)


CONCAT_CAPTION = (
    "Step 5: the heads' Zᵢ side by side, then W^O mixes them back into one d_model vector per word: every "
    "output column reads every head, so the output has no head blocks any more."
)


def split_figures(example: SplitExample) -> list[tuple[str, go.Figure, str]]:
    """Section 1's figures in the lecture's order, each as ``(key, figure, caption)``: the projections (steps 2–3),
    each head's own map (step 4), the concatenation and W^O (step 5)."""
    return [
        ("projections", projection_figure(example), PROJECTION_CAPTION),
        ("split.heads", split_grid(example), SPLIT_GRID_CAPTION),
        ("concat", concat_figure(example), CONCAT_CAPTION),
    ]
