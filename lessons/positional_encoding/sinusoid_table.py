r"""Section 1, the sinusoid matrix: the table PE the models add, one row per position and one column per dimension.

Each pair of dimensions (2i, 2i+1) is one frequency :math:`\omega_i = 10000^{-2i/d}`, a point going round a circle at
angle pos·ω_i: the table as a heatmap, its chosen columns as curves against the position, and a caption computed from
the table the student chose.

Letters: T positions, d d_model, i a frequency pair.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache

import altair as alt
import numpy as np
import plotly.graph_objects as go

from lessons.common.colorscales import DIVERGING_COLORSCALE
from lessons.common.vega import vega_lite_spec, with_values
from minimodels.positional import sinusoidal_encoding

TITLE = "1 · The sinusoid matrix"

BASE = 10000.0  # the 10000 of the formula
D_CHOICES: tuple[int, ...] = (4, 8, 16, 32, 64, 128)  # even only: an odd d drops its last cosine (no rotation)
MAX_LENGTH = 200  # positions drawn in the table


def check_d_model(d_model: int) -> None:
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be even and at least 2 (each frequency is a sin/cos pair); got {d_model}")


def frequencies(d_model: int) -> np.ndarray:
    r"""``(d/2,)`` float64: :math:`\omega_i = 10000^{-2i/d}`, the angle pair i turns per position."""
    check_d_model(d_model)
    return BASE ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def encoding_table(n_positions: int, d_model: int) -> np.ndarray:
    """``(T, d)``: the table the models add, as :func:`minimodels.positional.sinusoidal_encoding` makes it."""
    return sinusoidal_encoding(n_positions, d_model).double().numpy()


def exact_encoding(positions, d_model: int) -> np.ndarray:
    """``(len(positions), d)`` float64, from the angles pos·ω_i: sin in even columns, cos in odd ones."""
    angles = np.asarray(positions, dtype=np.float64)[:, None] * frequencies(d_model)  # (T, d/2)
    pe = np.empty((len(angles), d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


def wavelengths(d_model: int) -> np.ndarray:
    """``(d/2,)``: positions per full turn of each pair, 2π/ω_i (from 2π ≈ 6.3 up to 2π·10000)."""
    return 2 * math.pi / frequencies(d_model)


def signed_heatmap(z: np.ndarray, **kwargs) -> go.Heatmap:
    """A heatmap in the diverging scale, symmetric about 0 (the table here, M_k and its vectors in section 3)."""
    bound = float(np.abs(z).max()) or 1.0
    return go.Heatmap(z=z, colorscale=DIVERGING_COLORSCALE, zmid=0.0, zmin=-bound, zmax=bound, **kwargs)


def table_figure(pe: np.ndarray) -> go.Figure:
    """The encoding matrix: positions down, dimensions across, value on hover."""
    T, d = pe.shape
    fig = go.Figure(
        signed_heatmap(
            pe,
            hovertemplate="position %{y}<br>dimension %{x}<br>PE = %{z:.4f}<extra></extra>",
            colorbar={"thickness": 12, "title": {"text": "PE"}},
        )
    )
    fig.update_layout(
        title={"text": f"PE for {T} positions × d_model = {d}"},
        height=520,
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        xaxis={"title": "dimension (even: sin, odd: cos)"},
        yaxis={"title": "position", "autorange": "reversed"},
    )
    return fig


def table_caption(pe: np.ndarray) -> str:
    """Under the table: how far the slowest pair moves over the positions shown, computed from the table (a small
    d_model's last pair is not slow at all, and the caption says so)."""
    T, d = pe.shape
    slowest = float(wavelengths(d)[-1])
    moved = float(np.abs(pe[:, d - 2]).max())  # its sine starts at 0: how far it gets over these positions
    text = (
        f"Rows are positions, columns dimensions. The left columns (fast frequencies) stripe quickly. The last pair "
        f"turns once every {slowest:,.0f} positions: over these {T}, its sine reaches at most {moved:.2f}"
    )
    if moved < 0.1:
        return text + ", so towards the right the values barely change (sin ≈ 0, cos ≈ 1). Nearby rows are similar."
    return text + ": with d_model this small, even the slowest pair moves visibly. Nearby rows are similar."


def default_dims(d_model: int) -> list[int]:
    """The dimensions the table's curves show first: fast, middle and slow ones that exist for ``d_model``."""
    return sorted({j for j in (0, 1, 6, 20, d_model - 2) if j < d_model})


def dimension_curves(pe: np.ndarray, dims: Sequence[int]) -> dict:
    """Selected columns of the table as curves against the position: a Vega-Lite spec (Altair, built once by
    :func:`_curves_spec`; a move only puts new numbers in and Streamlit redraws the chart in place, where a Plotly
    figure would be drawn anew)."""
    T, d = pe.shape
    omegas = frequencies(d)
    values = []
    for j in dims:
        name = f"dim {j} ({'sin' if j % 2 == 0 else 'cos'}, wavelength {2 * math.pi / omegas[j // 2]:.3g})"
        values += [{"position": p, "PE": float(pe[p, j]), "dimension": name} for p in range(T)]
    return with_values(_curves_spec(), values)


@cache
def _curves_spec() -> str:
    chart = (
        alt.Chart(alt.Data(name="curves"))
        .mark_line()
        .encode(
            x=alt.X("position:Q", title="position"),
            y=alt.Y("PE:Q", title="PE", scale=alt.Scale(domain=[-1.1, 1.1])),
            # one legend entry per line, under the chart: it fits a phone
            color=alt.Color(
                "dimension:N", sort=None, legend=alt.Legend(orient="bottom", title=None, columns=1, labelLimit=300)
            ),
            tooltip=["dimension:N", "position:Q", alt.Tooltip("PE:Q", format=".4f")],
        )
        .properties(height=260, autosize={"type": "fit-x", "contains": "padding"})  # the legend adds height
    )
    return json.dumps(vega_lite_spec(chart))
