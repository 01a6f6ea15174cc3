r"""Section 1, turn the query and the key: rotary position embeddings (RoPE; Su et al., *RoFormer*, 2021).

Lesson 8 added a position vector to each input. RoPE adds nothing: it turns each pair of a query's and a key's
dimensions by an angle proportional to its position, the pair's own angle per step θ_i (the sinusoids' frequencies).
A rotation keeps a vector's length, and two rotations compose by adding their angles, so the dot product of a query
turned to position m and a key turned to position n is the dot product of the unturned pair with one rotation by
n − m between them: the score sees the distance, never the positions themselves.

Here: the formulas, the rotation of each word of the student's sentence (a fixed random vector per word, as lesson 3
draws words), the score of one query and one key at every pair of positions (constant along each diagonal: a
Toeplitz matrix), and its exercises.

Letters: m, n positions (query, key), d a vector's size, i a pair, θ_i its angle per position.
"""

from __future__ import annotations

import numpy as np
import torch

from lessons.common.charts import figure, safe_label, wrapped_title
from lessons.common.colorscales import DIVERGING_COLORSCALE
from lessons.common.exercises import Exercise
from lessons.common.sentences import ParsedSentence, parse_sentence, word_embedding
from minimodels.positional import rotary_frequencies, rotate_pairs

TITLE = "1 · Turn the query and the key: rotary embeddings (RoPE)"

TEXT = (
    "Lesson 8 *added* a vector to each token for its position. Rotary position embeddings (RoPE, Su et al., "
    "*RoFormer*, 2021) add nothing to the input. Inside attention, each query and key is cut into pairs of "
    "dimensions, and pair i of the vector at position m is **turned** by the angle $m\\theta_i$, with the "
    "sinusoids' angles per step $\\theta_i = 10000^{-2i/d}$:"
)

# in lines (gathered): as one row it is wider than a phone's 390 px (tests/browser/test_phone.py)
FORMULA = (
    r"\begin{gathered} \begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} = "
    r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
    r"\begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix} \\ \theta_i = 10000^{-2i/d} \end{gathered}"
)

WHY = (
    "Turning keeps a vector's length, and turning by a then by b is turning by a + b. So a query turned to "
    "position m and a key turned to position n score as if only the key had been turned, by n − m:"
)

PROPERTY = r"(R_m\,q)\cdot(R_n\,k) = q^\top R_m^\top R_n\,k = q^\top R_{\,n-m}\,k"

D_DRAW = 8  # the size of the word vectors drawn here: four pairs, θ = 1, 0.1, 0.01, 0.001
MAX_WORDS = 12
DEFAULT_SENTENCE = "the cat sat on the mat and the dog sat down"
GRID = 24  # positions of the score grid


def parse(text: str) -> ParsedSentence:
    """The student's sentence, or the reason it is refused (the course's one sentence parser)."""
    return parse_sentence(text, MAX_WORDS)


def pair_label(i: int) -> str:
    theta = float(rotary_frequencies(D_DRAW)[i])
    return f"pair {i}: θ = {theta:g} rad per position"


def turned_words(tokens: tuple[str, ...], pair: int) -> list[dict]:
    """For each word at position m: its pair ``pair`` before and after turning by m·θ_pair (as :func:`rotate_pairs`
    turns it), and the angle. The words are the course's fixed random vectors (``word_embedding``)."""
    x = torch.stack([word_embedding(t, D_DRAW) for t in tokens]).double()  # (T, d)
    turned = rotate_pairs(x, torch.arange(len(tokens)))  # (T, d)
    theta = float(rotary_frequencies(D_DRAW)[pair])
    rows = []
    for m, token in enumerate(tokens):
        before = x[m, 2 * pair : 2 * pair + 2].tolist()
        after = turned[m, 2 * pair : 2 * pair + 2].tolist()
        rows.append({"word": token, "m": m, "angle (rad)": m * theta, "before": before, "after": after})
    return rows


def rotation_figure(tokens: tuple[str, ...], pair: int):
    """Each word's pair as an arrow from the origin: faint before turning, solid after (one colour per position)."""
    rows = turned_words(tokens, pair)
    reach = max(max(abs(v) for v in r["before"]) for r in rows) * 1.15 or 1.0
    data = []
    for r in rows:
        label = f"{safe_label(r['word'])} (m = {r['m']})"
        shade = f"hsl({int(300 * r['m'] / max(1, len(rows) - 1))}, 65%, 42%)"
        (bx, by), (ax, ay) = r["before"], r["after"]
        data.append(
            {
                "type": "scatter",
                "x": [0, bx],
                "y": [0, by],
                "mode": "lines",
                "showlegend": False,
                "line": {"color": shade, "width": 1, "dash": "dot"},
                "hoverinfo": "skip",
            }
        )
        data.append(
            {
                "type": "scatter",
                "x": [0, ax],
                "y": [0, ay],
                "mode": "lines+markers+text",
                "name": label,
                "text": ["", label],
                "textposition": "top center",
                "line": {"color": shade, "width": 2},
                "hovertemplate": f"{label}<br>turned by {r['angle (rad)']:.3f} rad<extra></extra>",
            }
        )
    axis = {"range": [-reach, reach], "zeroline": True}
    title, lines = wrapped_title(f"{pair_label(pair)} · dotted: before, solid: turned by m·θ")
    layout = {
        "title": {"text": title},
        "height": 440 + 20 * lines,
        "margin": {"l": 10, "r": 10, "t": 30 + 20 * lines, "b": 30},
        "xaxis": {**axis, "title": {"text": f"dimension {2 * pair}"}},
        "yaxis": {**axis, "title": {"text": f"dimension {2 * pair + 1}"}, "scaleanchor": "x"},
        "showlegend": False,
    }
    return figure(data, layout)


def rotation_rows(tokens: tuple[str, ...], pair: int) -> list[dict]:
    """The table beside the drawing: word, position, angle, and the pair's length before and after (equal)."""
    return [
        {
            "word": r["word"],
            "position m": r["m"],
            "angle m·θ (rad)": round(r["angle (rad)"], 4),
            "length before": round(float(np.hypot(*r["before"])), 4),
            "length after": round(float(np.hypot(*r["after"])), 4),
        }
        for r in turned_words(tokens, pair)
    ]


def score_grid(query_word: str, key_word: str, n_positions: int = GRID) -> np.ndarray:
    """``(N, N)``: the score of ``query_word``'s vector turned to position m with ``key_word``'s turned to n, for
    every m and n (float64), :math:`(R_m q)\\cdot(R_n k)`."""
    q = word_embedding(query_word, D_DRAW).double().expand(n_positions, D_DRAW)  # (N, d): the same q everywhere
    k = word_embedding(key_word, D_DRAW).double().expand(n_positions, D_DRAW)
    positions = torch.arange(n_positions)
    return (rotate_pairs(q, positions) @ rotate_pairs(k, positions).T).numpy()  # (N, N)


def diagonal_spread(grid: np.ndarray) -> float:
    """The largest difference between two scores on one diagonal (the same n − m): 0 for a Toeplitz matrix."""
    n = grid.shape[0]
    return max(float(np.ptp(np.diagonal(grid, offset=k))) for k in range(-(n - 1), n))


def score_figure(grid: np.ndarray, query_word: str, key_word: str):
    """The score grid as a heatmap, query position m down, key position n across."""
    top = float(np.abs(grid).max()) or 1.0
    heatmap = {
        "type": "heatmap",
        "name": f"RoPE score of “{safe_label(query_word)}” at m and “{safe_label(key_word)}” at n",
        "z": grid,
        "colorscale": DIVERGING_COLORSCALE,
        "zmin": -top,
        "zmax": top,
        "hovertemplate": "m = %{y}, n = %{x}<br>score = %{z:.4f}<extra></extra>",
        "colorbar": {"title": {"text": "score"}, "thickness": 12},
    }
    title, lines = wrapped_title(f"(R_m q)·(R_n k), q = “{safe_label(query_word)}”, k = “{safe_label(key_word)}”")
    layout = {
        "title": {"text": title},
        "height": 420 + 20 * lines,
        "margin": {"l": 10, "r": 10, "t": 30 + 20 * lines, "b": 40},
        "xaxis": {"title": {"text": "key position n"}},
        "yaxis": {"title": {"text": "query position m"}, "autorange": "reversed"},
    }
    return figure([heatmap], layout)


def score_caption(grid: np.ndarray) -> str:
    return (
        f"Every diagonal holds one value: along each, n − m is fixed, and the scores on it differ by at most "
        f"{diagonal_spread(grid):.1e} (float64 rounding). A trained model's query and key differ from word to word, "
        "so its scores vary along a diagonal too, but only through the words: where the words sit enters through "
        "n − m alone."
    )


def angle_by_hand() -> Exercise:
    """By hand: the angle of pair 1 at position 20 for d = 8."""
    theta = float(rotary_frequencies(D_DRAW)[1])
    return Exercise(
        key="positions_that_travel.ex1",
        prompt=(
            f"**By hand.** Vectors of d = {D_DRAW}. By how many radians does RoPE turn pair i = 1 (dimensions 2 and "
            "3) of the vector at position m = 20?"
        ),
        answer=20 * theta,
        tolerance=0.01,
        explanation=(
            f"θ_1 = 10000^(−2·1/{D_DRAW}) = 10000^(−0.25) = {theta:g}, and the angle is m·θ_1 = 20 × {theta:g} = "
            f"{20 * theta:g} rad (about {np.degrees(20 * theta):.0f}°)."
        ),
        hint="First θ_1 = 10000^(−2i/d) with i = 1, d = 8; then multiply by the position.",
    )


SHIFT_CHOICES = ("larger", "the same", "smaller", "it depends on the words")
SHIFT_WORDS = ("cat", "mat")


def shift_prediction() -> Exercise:
    """Predict: a query and a key both moved ten positions later; what happens to their score?"""
    q, k = SHIFT_WORDS
    grid = score_grid(q, k, 16)
    return Exercise(
        key="positions_that_travel.ex2",
        prompt=(
            f"**Predict.** Under RoPE, the query of “{q}” at position 5 and the key of “{k}” at position 2 have some "
            f"score s. Move both ten positions later: “{q}” at 15, “{k}” at 12. Their score is then …"
        ),
        choices=SHIFT_CHOICES,
        answer=1,
        explanation=(
            f"The same: the score depends on n − m only, here −3 both times. Computed: {grid[5, 2]:.6f} at (5, 2) and "
            f"{grid[15, 12]:.6f} at (15, 12). Under lesson 8's added sinusoids, the two scores would differ: there "
            "the position vector mixes with the word in every product."
        ),
        hint="Write the score as qᵀR_mᵀR_n k: which rotation is left between q and k?",
    )
