r"""Section 2, a penalty for distance: ALiBi (Press, Smith & Lewis, *Train Short, Test Long: Attention with Linear
Biases Enables Input Length Extrapolation*, ICLR 2022).

ALiBi adds no position vector and turns nothing: it subtracts from each score the distance between query and key
times a slope, a fixed slope per head, geometric across the heads (for H heads, :math:`m_h = 2^{-8h/H}`). Each head
thus prefers recent keys, some steeply, some hardly at all. The paper trains on short inputs and reads longer ones;
its figures show ALiBi's perplexity holding where the sinusoids' climbs.

Here: the formulas, the penalty of each head as a heatmap (query i down, key j across; the causal mask hides j > i),
the slopes, and the exercises.

Letters: i a query's position, j a key's, H heads, h a head (1 … H), m_h its slope.
"""

from __future__ import annotations

import numpy as np
import torch

from lessons.common.charts import figure, wrapped_title
from lessons.common.colorscales import SEQUENTIAL_COLORSCALE
from lessons.common.exercises import Exercise
from minimodels.positional import alibi_bias, alibi_slopes

TITLE = "2 · A penalty for distance: ALiBi"

TEXT = (
    "ALiBi (Press, Smith & Lewis, *Train Short, Test Long*, ICLR 2022) puts position into the score too, but more "
    "bluntly: it **subtracts** the distance between query and key, times a slope. Each head has its own fixed slope; "
    "for H heads the slopes are the geometric sequence 2^(−8/H), 2^(−16/H), …, 2^(−8) (for 8 heads: 1/2, 1/4, …, "
    "1/256). No position vector is added anywhere. The paper's model is causal, so a query only meets keys at or "
    "before it:"
)

# in lines (gathered): as one row it is wider than a phone's 390 px (tests/browser/test_phone.py)
FORMULA = (
    r"\begin{gathered} s^{(h)}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}} \;-\; m_h\,(i - j), \quad j \le i \\"
    r" m_h = 2^{-8h/H},\quad h = 1,\dots,H \end{gathered}"
)

HEADS = 8  # as the model of section 3 has, and the paper's example
SIZE = 24  # positions of the heatmap


def slopes_rows(n_heads: int = HEADS) -> list[dict]:
    """Each head's slope, and the penalty at distance 1 and 10."""
    return [
        {
            "head h": h,
            "slope m_h": float(m),
            "penalty at distance 1": -float(m),
            "penalty at distance 10": -10 * float(m),
        }
        for h, m in enumerate(alibi_slopes(n_heads).tolist(), 1)
    ]


def bias_grid(head: int, n_heads: int = HEADS, size: int = SIZE) -> np.ndarray:
    """``(size, size)``: head ``head``'s penalty −m_h·(i − j), None (NaN) above the diagonal where the causal mask
    hides the key."""
    grid = alibi_bias(n_heads, size)[head - 1].numpy().copy()  # (T, T)
    grid[np.triu_indices(size, 1)] = np.nan
    return grid


def bias_figure(head: int, n_heads: int = HEADS, size: int = SIZE):
    """One head's penalty as a heatmap; the masked upper triangle left blank."""
    grid = bias_grid(head, n_heads, size)
    slope = float(alibi_slopes(n_heads)[head - 1])
    heatmap = {
        "type": "heatmap",
        "name": f"Head {head} of {n_heads}, penalty −{slope:g} × (i − j), the causal mask's cells blank",
        "z": grid,
        "colorscale": SEQUENTIAL_COLORSCALE,
        "zmin": float(np.nanmin(grid)),
        "zmax": 0.0,
        "hovertemplate": "query i = %{y}, key j = %{x}<br>penalty = %{z:.4f}<extra></extra>",
        "colorbar": {"title": {"text": "penalty"}, "thickness": 12},
    }
    title, lines = wrapped_title(f"Head {head} of {n_heads}: −{slope:g} × (i − j); blank: hidden by the causal mask")
    layout = {
        "title": {"text": title},
        "height": 420 + 20 * lines,
        "margin": {"l": 10, "r": 10, "t": 30 + 20 * lines, "b": 40},
        "xaxis": {"title": {"text": "key position j"}},
        "yaxis": {"title": {"text": "query position i"}, "autorange": "reversed"},
    }
    return figure([heatmap], layout)


def bias_caption(head: int, n_heads: int = HEADS) -> str:
    slope = float(alibi_slopes(n_heads)[head - 1])
    alone = self_share(head, 64, n_heads)
    return (
        f"Constant along each diagonal, like RoPE's scores, and falling by {slope:g} per step back. If every content "
        f"score were equal, head {head} would put {alone:.1%} of a 64-letter input's attention on the query's own "
        "position and the rest on the keys behind it, less the further back: a preference for the recent, not a "
        "pointer to one position."
    )


def self_share(head: int, length: int, n_heads: int = HEADS) -> float:
    """The weight the last query puts on itself when every content score is equal: the softmax of the penalty
    alone, over ``length`` keys."""
    row = alibi_bias(n_heads, length)[head - 1, -1]  # (length,): the last query's penalties
    return float(torch.softmax(row, dim=-1)[-1])


def penalty_by_hand() -> Exercise:
    """By hand: head 3 of 8, a key 4 positions back."""
    slope = float(alibi_slopes(HEADS)[2])
    return Exercise(
        key="positions_that_travel.ex3",
        prompt=(
            f"**By hand.** A model with {HEADS} heads. What does ALiBi add to head h = 3's score of a query at "
            "position 9 and a key at position 5?"
        ),
        answer=-slope * 4,
        tolerance=0.001,
        explanation=(
            f"m_3 = 2^(−8·3/{HEADS}) = 2^(−3) = {slope:g}; the distance is 9 − 5 = 4, so the penalty is "
            f"−{slope:g} × 4 = {-slope * 4:g}."
        ),
        hint="The slope is 2^(−8h/H); the penalty is minus slope times distance.",
    )


def share_on_itself(slope: float, length: int) -> float:
    """The weight a query puts on itself when every content score is equal and the keys behind it are penalised
    by ``slope`` per step: the softmax of 0, −slope, −2·slope, … over ``length`` keys."""
    return float(torch.softmax(-slope * torch.arange(length, dtype=torch.float64), dim=0)[0])


EX_SLOPE = 1.0  # exercise 4's head: steeper than any of the model's heads, whose shares the page's caption states


def self_share_prediction() -> Exercise:
    """Compute, by hand or by reasoning: a head's weight on the query itself, content scores all equal. A slope
    none of the page's heads has, so the caption under the penalty's heatmap does not answer it."""
    share = share_on_itself(EX_SLOPE, 64)
    ratio = float(np.exp(-EX_SLOPE))
    return Exercise(
        key="positions_that_travel.ex4",
        prompt=(
            f"**Compute.** Suppose every content score q·k/√d_k is equal, so only ALiBi's penalty differs. A head "
            f"with slope {EX_SLOPE:g}, twice as steep as the steepest of this page's {HEADS} heads (head 1, slope "
            "1/2): the last query of a 64-letter input. What share of its attention falls on its own position "
            "(distance 0)? Give a fraction between 0 and 1."
        ),
        answer=share,
        tolerance=0.01,
        explanation=(
            f"The weights are the softmax of 0, −{EX_SLOPE:g}, −{2 * EX_SLOPE:g}, …, −{63 * EX_SLOPE:g}: "
            f"proportional to r^d with r = e^(−{EX_SLOPE:g}) ≈ {ratio:.3f}. Their sum is (1 − r^64)/(1 − r) ≈ "
            f"{1 / (1 - ratio):.3f}, so distance 0 gets 1/{1 / share:.3f} = {share:.3f}, distance 1 gets "
            f"{share * ratio:.3f}. Even so steep a head spreads its attention; the model's own content scores must "
            "do the rest, and lengthening the input adds keys that each get almost nothing."
        ),
        hint=f"A geometric series: weight ∝ e^(−{EX_SLOPE:g}·d) for d = 0 … 63.",
    )
