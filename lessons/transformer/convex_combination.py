"""Section 4's first figure: why a feed-forward network, measured on the student's sentence.

The lecture asks "Why feed forward NN?". An attention head's output zᵢ = Σⱼ αᵢⱼ vⱼ has weights αᵢⱼ ≥ 0 that sum to 1:
a convex combination of the value vectors, inside their convex hull. :func:`convex_check` recomputes layer 1's
encoder self-attention by hand and checks that claim on every head and coordinate; :func:`convex_figure` draws head
1's values, their hull and its outputs on the values' two principal directions (a linear view, so the hull is kept).

Letters: S source positions (``</s>`` included), h heads, d_k the size of a head's queries, keys and values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.charts import figure, safe_label
from lessons.transformer.reading import display_token
from minimodels.attention import scaled_dot_product_attention
from minimodels.tasks import Task
from minimodels.tokenizers import EOS_ID


@dataclass(frozen=True)
class ConvexCheck:
    """Layer 1's encoder self-attention on one sentence, checked against "every output is a weighted average of the
    value vectors" (weights ≥ 0 that sum to 1, so the output lies in the values' convex hull), over every head."""

    tokens: list[str]  # source labels, "</s>" last
    heads: int
    d_k: int
    min_weight: float  # smallest attention weight of any head (≥ 0)
    max_sum_error: float  # largest |Σ_j α_ij − 1| over every row of every head
    max_reconstruction_error: float  # largest |z_i − Σ_j α_ij v_j| over every coordinate
    outside: int  # output coordinates beyond the smallest or largest value coordinate (0: inside the box)
    coordinates: int  # output coordinates checked: h × S × d_k
    values_2d: np.ndarray  # (S, 2) head 1's value vectors projected on their two principal directions
    outputs_2d: np.ndarray  # (S, 2) head 1's outputs, the same projection (linear: the hull is kept)
    relu_zero_share: float  # share of layer 1's FFN hidden units that ReLU sets to 0 for this sentence's tokens
    d_ff: int


@torch.inference_mode()
def convex_check(model: nn.Module, task: Task, text: str) -> ConvexCheck | str:
    """Run ``text`` through the embeddings and layer 1's self-attention by hand, keeping each head's value vectors
    ``v (h, S, d_k)``, weights ``α (h, S, S)`` and outputs ``z = α v`` (before W^O), and check the convex-combination
    claim numerically. A message for the student when there is nothing to read."""

    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    device = next(model.parameters()).device
    source = torch.tensor([[*encoded.ids, EOS_ID]], device=device)  # (1, S)
    layer = model.encoder_layers[0]
    x = model._embed(source, model.source_embedding, model.source_position)  # (1, S, d)
    h = layer.residual1.norm(x) if model.config.norm_first else x  # what the sublayer reads
    att = layer.self_attention
    q, k, v = (att._split(w(h)) for w in (att.W_q, att.W_k, att.W_v))  # (1, h, S, d_k) each
    z, alpha = scaled_dot_product_attention(q, k, v)  # (1, h, S, d_k), (1, h, S, S)
    v, z, alpha = v[0].double(), z[0].double(), alpha[0].double()
    lo, hi = v.min(dim=1, keepdim=True).values, v.max(dim=1, keepdim=True).values  # (h, 1, d_k)
    tolerance = 1e-5 * (1 + v.abs().max())
    outside = int(((z < lo - tolerance) | (z > hi + tolerance)).sum())
    values_2d, outputs_2d = _principal_plane(v[0].numpy(), z[0].numpy())
    hidden = torch.relu(layer.feed_forward.linear1(layer.residual2.norm(x))) if layer.feed_forward is not None else None
    return ConvexCheck(
        tokens=[display_token(task.source_tokenizer.id_to_piece(i)) for i in source[0].tolist()],
        heads=alpha.size(0),
        d_k=v.size(-1),
        min_weight=float(alpha.min()),
        max_sum_error=float((alpha.sum(-1) - 1).abs().max()),
        max_reconstruction_error=float((z - alpha @ v).abs().max()),
        outside=outside,
        coordinates=z.numel(),
        values_2d=values_2d,
        outputs_2d=outputs_2d,
        relu_zero_share=float((hidden == 0).double().mean()) if hidden is not None else float("nan"),
        d_ff=model.config.d_ff if hidden is not None else 0,
    )


def _principal_plane(values: np.ndarray, outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values (S, d_k)`` and ``outputs (S, d_k)`` on the values' two principal directions (centred on their mean).
    A linear map sends a weighted average to the same weighted average of the images: the hull survives."""
    mean = values.mean(axis=0)
    _, _, directions = np.linalg.svd(values - mean, full_matrices=False)  # rows: principal directions
    plane = directions[:2].T  # (d_k, 2)
    return (values - mean) @ plane, (outputs - mean) @ plane


def convex_hull(points: np.ndarray) -> list[int]:
    """Indices of the 2-D convex hull of ``points (n, 2)``, counter-clockwise (Andrew's monotone chain)."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))

    def cross(o: int, a: int, b: int) -> float:
        (ox, oy), (ax, ay), (bx, by) = points[o], points[a], points[b]
        return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)

    def chain(indices: list[int]) -> list[int]:
        out: list[int] = []
        for i in indices:
            while len(out) >= 2 and cross(out[-2], out[-1], i) <= 0:
                out.pop()
            out.append(i)
        return out

    if len(order) < 3:
        return order
    lower, upper = chain(order), chain(order[::-1])
    return lower[:-1] + upper[:-1]


def inside_hull(point: np.ndarray, points: np.ndarray, tolerance: float = 1e-9) -> bool:
    """Whether ``point`` lies in the convex hull of ``points`` (2-D), on its edge included."""
    hull = convex_hull(points)
    if len(hull) < 3:
        return False
    scale = tolerance * (1 + float(np.abs(points).max()))
    for a, b in zip(hull, hull[1:] + hull[:1], strict=True):
        (ax, ay), (bx, by) = points[a], points[b]
        if (bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax) < -scale:
            return False
    return True


def convex_figure(check: ConvexCheck, height: int = 360) -> go.Figure:
    """Head 1's value vectors (dots), their convex hull (shaded) and its outputs (crosses), on the values' two
    principal directions: every cross lies inside the shaded polygon."""
    v, z = check.values_2d, check.outputs_2d
    hull = convex_hull(v)
    ring = hull + hull[:1]
    labels = [safe_label(t, 12) for t in check.tokens]
    data = [
        {
            "type": "scatter",
            "x": v[ring, 0].tolist(),
            "y": v[ring, 1].tolist(),
            "mode": "lines",
            "fill": "toself",
            "fillcolor": "rgba(76,120,168,0.15)",
            "line": {"color": "#4c78a8", "width": 1},
            "name": "convex hull of the values",
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": v[:, 0].tolist(),
            "y": v[:, 1].tolist(),
            "mode": "markers+text",
            "text": labels,
            "textposition": "top center",
            "marker": {"size": 9, "color": "#4c78a8"},
            "name": "value vⱼ of each token",
            "hovertemplate": "value of %{text}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": z[:, 0].tolist(),
            "y": z[:, 1].tolist(),
            "mode": "markers",
            "text": labels,
            "marker": {"size": 10, "symbol": "x", "color": "#e45756"},
            "name": "output zᵢ = Σⱼ αᵢⱼ vⱼ",
            "hovertemplate": "output at %{text}<extra></extra>",
        },
    ]
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "title": {"text": "Layer 1 self-attention, head 1: values and outputs"},
        "xaxis": {"title": {"text": "1st principal direction of the values"}, "zeroline": False},
        "yaxis": {"title": {"text": "2nd"}, "zeroline": False},
        "legend": {"orientation": "h", "y": -0.2},
        "plot_bgcolor": "white",
    }
    return figure(data, layout)


def convex_text(check: ConvexCheck) -> str:
    """What the check found, in numbers (it can also say that an output fell outside)."""
    verdict = (
        "every one of them lies within the smallest and largest value of its coordinate"
        if check.outside == 0
        else f"**{check.outside}** of them fall outside that range"
    )
    relu = (
        f" The feed-forward network after it is the layer's only non-linear step on each token alone: for your "
        f"sentence ReLU sets **{check.relu_zero_share:.0%}** of its {check.d_ff} hidden units to 0, a different "
        "set for each token."
        if check.d_ff
        else ""
    )
    return (
        f"Measured on your sentence, layer 1 of the encoder, all {check.heads} heads: the smallest weight is "
        f"{check.min_weight:.2g} (never negative), every row sums to 1 within {check.max_sum_error:.1e}, and each "
        f"output equals Σⱼ αᵢⱼ vⱼ within {check.max_reconstruction_error:.1e}. Of the {check.coordinates} output "
        f"coordinates (heads × tokens × d_k = {check.heads} × {len(check.tokens)} × {check.d_k}), {verdict}.{relu}"
    )
