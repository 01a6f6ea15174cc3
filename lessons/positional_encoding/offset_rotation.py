r"""Section 3, a fixed offset is a rotation: the lecture's reason for the sinusoids, "for any fixed offset k,
PE_{pos+k} can be represented as a linear function of PE_pos".

Moving k positions turns pair i by k·ω_i, a 2×2 rotation that does not depend on pos; one block per pair on the
diagonal of a d × d matrix M_k gives :math:`PE_{pos+k} = M_k\,PE_{pos}` for every pos. This module builds M_k from k
alone, checks it against every row of the table in float64 (the residual is rounding, ~1e-15), draws it beside the
vectors it maps, and asks for one pair's angle by hand.

Letters: T positions, d d_model, i a frequency pair, k an offset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lessons.common.exercises import Exercise
from lessons.positional_encoding.sinusoid_table import MAX_LENGTH, exact_encoding, frequencies, signed_heatmap

TITLE = "3 · A fixed offset is a rotation"

TEXT = (
    "The lecture's reason for the sinusoids: *for any fixed offset k, $PE_{pos+k}$ can be represented as a linear "
    "function of $PE_{pos}$.* For one pair, the angle addition formulas give it:"
)

ROTATION = (  # two lines: one row was 495 px, wider than a phone
    r"\begin{gathered} \begin{pmatrix}\sin((pos+k)\,\omega_i)\\ \cos((pos+k)\,\omega_i)\end{pmatrix} = \\"
    r"\underbrace{\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}}"
    r"_{R_i(k)}\begin{pmatrix}\sin(pos\,\omega_i)\\ \cos(pos\,\omega_i)\end{pmatrix} \end{gathered}"
)

ROTATION_TEXT = (
    "$R_i(k)$ depends on k, not on pos. Put one block per pair on the diagonal of a d × d matrix $M_k$, and "
    "$PE_{pos+k} = M_k\\,PE_{pos}$ for **every** pos. Below, $M_k$ is built from k alone and checked against every "
    "row of the table (in float64)."
)


def rotation(omega: float, k: int) -> np.ndarray:
    r"""``(2, 2)``: the matrix that takes pair (sin pos·ω, cos pos·ω) to (sin (pos+k)·ω, cos (pos+k)·ω).

    .. math:: \begin{pmatrix}\sin(a+b)\\ \cos(a+b)\end{pmatrix} =
              \begin{pmatrix}\cos b & \sin b\\ -\sin b & \cos b\end{pmatrix}
              \begin{pmatrix}\sin a\\ \cos a\end{pmatrix},\quad b = k\omega
    """
    b = k * omega
    return np.array([[math.cos(b), math.sin(b)], [-math.sin(b), math.cos(b)]])


def offset_matrix(d_model: int, k: int) -> np.ndarray:
    """``(d, d)`` block-diagonal: one :func:`rotation` per frequency pair. The same matrix for every pos."""
    M = np.zeros((d_model, d_model))
    for i, omega in enumerate(frequencies(d_model)):
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = rotation(float(omega), k)
    return M


@dataclass(frozen=True)
class OffsetCheck:
    """PE_{pos+k} = M_k PE_pos, checked at every position of the table, in float64."""

    d_model: int
    k: int
    pos: int
    n_positions: int
    omegas: np.ndarray  # (d/2,) ω_i
    angles: np.ndarray  # (d/2,) k·ω_i, radians: how far pair i turns
    matrix: np.ndarray  # (d, d) M_k
    pe_pos: np.ndarray  # (d,) PE_pos
    rotated: np.ndarray  # (d,) M_k PE_pos
    pe_target: np.ndarray  # (d,) PE_{pos+k}
    residual: float  # max |PE_{p+k} − M_k PE_p| over every p with p + k < n_positions
    pair_residuals: np.ndarray  # (d/2,) the same, per frequency pair

    def rows(self) -> list[dict]:
        """One table row per frequency pair."""
        return [
            {
                "pair i": i,
                "dimensions": f"{2 * i}, {2 * i + 1}",
                "ω_i": float(w),
                "wavelength 2π/ω_i": 2 * math.pi / float(w),
                "angle k·ω_i (rad)": float(a),
                "angle (degrees, mod 360)": math.degrees(float(a)) % 360,
                "max residual": float(r),
            }
            for i, (w, a, r) in enumerate(zip(self.omegas, self.angles, self.pair_residuals, strict=True))
        ]


def offset_check(d_model: int, k: int, pos: int = 0, n_positions: int = MAX_LENGTH) -> OffsetCheck:
    """Build M_k and measure how well it maps every PE_p to PE_{p+k} (float64 throughout)."""
    if k < 0 or pos < 0 or pos + k >= n_positions:
        raise ValueError(f"need 0 <= k, 0 <= pos and pos + k < {n_positions}; got pos {pos}, k {k}")
    M = offset_matrix(d_model, k)
    pe = exact_encoding(np.arange(n_positions), d_model)  # (T, d) float64
    error = np.abs(pe[k:] - pe[: n_positions - k] @ M.T)  # (T - k, d): PE_{p+k} − M PE_p, every row at once
    omegas = frequencies(d_model)
    return OffsetCheck(
        d_model=d_model,
        k=k,
        pos=pos,
        n_positions=n_positions,
        omegas=omegas,
        angles=k * omegas,
        matrix=M,
        pe_pos=pe[pos],
        rotated=M @ pe[pos],
        pe_target=pe[pos + k],
        residual=float(error.max()),
        pair_residuals=error.reshape(len(error), -1, 2).max(axis=(0, 2)),
    )


def offset_figure(check: OffsetCheck) -> go.Figure:
    """M_k (block diagonal) beside PE_pos, M_k PE_pos and PE_{pos+k} as columns."""
    d = check.d_model
    vectors = np.stack([check.pe_pos, check.rotated, check.pe_target], axis=1)  # (d, 3)
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.7, 0.3],
        subplot_titles=(f"M_k for k = {check.k}", "the vectors"),
        horizontal_spacing=0.12,
    )
    fig.add_trace(
        signed_heatmap(
            check.matrix,
            hovertemplate="row %{y}, column %{x}<br>M = %{z:.4f}<extra></extra>",
            showscale=False,
            xgap=1 if d <= 32 else 0,
            ygap=1 if d <= 32 else 0,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        signed_heatmap(
            vectors,
            x=[f"PE_{check.pos}", f"M·PE_{check.pos}", f"PE_{check.pos + check.k}"],
            hovertemplate="%{x}<br>dimension %{y}<br>value = %{z:.6f}<extra></extra>",
            colorbar={"thickness": 12},
            xgap=2,
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(autorange="reversed", title_text="dimension", row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=1, col=2)
    fig.update_xaxes(title_text="dimension", row=1, col=1)
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 40, "b": 40})
    return fig


def offset_metrics(check: OffsetCheck) -> list[tuple[str, str]]:
    """The three numbers under the offset figure, ``(label, value)``: the residual over every row, how many rows,
    and the residual at ``check.pos``."""
    k, pos = check.k, check.pos
    return [
        (f"max |PE_(p+{k}) − M_k PE_p|, every p", f"{check.residual:.1e}"),
        ("rows checked", f"{check.n_positions - k}"),
        (f"|PE_{pos + k} − M_k PE_{pos}| at pos = {pos}", f"{abs(check.pe_target - check.rotated).max():.1e}"),
    ]


OFFSET_CAPTION = (
    "The residual is rounding error of float64 arithmetic (about 1e-16 per operation): the identity is exact. "
    "Each pair turns by its own angle k·ω_i:"
)

OFFSET_FORMATS = {  # how the page shows OffsetCheck.rows()'s numbers (printf formats)
    "ω_i": "%.6f",
    "wavelength 2π/ω_i": "%.1f",
    "angle k·ω_i (rad)": "%.4f",
    "angle (degrees, mod 360)": "%.2f",
    "max residual": "%.1e",
}

OFFSET_WHY = (
    "Why it helps: a model can learn to attend “k places to the left” with one linear map, the same at every "
    "position, instead of learning it separately for position 3, position 4, and so on."
)

# exercise 1: the angle pair i turns for offset k; k past the page's slider (0–50), whose table would answer it
EX_D, EX_PAIR, EX_K = 16, 2, 70


def angle_by_hand() -> Exercise:
    """By hand: the angle one pair turns for an offset, the answer computed by :func:`offset_check`."""
    angle = float(offset_check(EX_D, EX_K).angles[EX_PAIR])
    omega = float(frequencies(EX_D)[EX_PAIR])
    return Exercise(
        key="positional_encoding.ex1",
        prompt=(
            f"d_model = {EX_D}. Through how many **radians** does frequency pair i = {EX_PAIR} (dimensions "
            f"{2 * EX_PAIR} and {2 * EX_PAIR + 1}) turn when you move k = {EX_K} positions? That is the angle "
            "of its 2×2 block in M_k."
        ),
        answer=angle,
        tolerance=0.005,
        explanation=(
            f"ω_{EX_PAIR} = 10000^(−2·{EX_PAIR}/{EX_D}) = {omega:.4f}, and the angle is k·ω_{EX_PAIR} = {EX_K} × "
            f"{omega:.4f} = {angle:.3f} rad, whatever pos is."
        ),
        hint="ω_i = 10000^(−2i/d); the angle is k·ω_i (it does not depend on pos).",
    )
