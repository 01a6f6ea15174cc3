"""Section 2: self-attention with no parameters, Softmax(XXᵀ)X.

The lecture's "Okay.. But why? What is Q,K,V?" slides: every word's vector is its own query, key and value. The
lecture's one dot product ([1, 3, −5] · [4, −2, −1] = 3) worked out, the student's own word vectors read from a
text box, the scores XXᵀ, the weights and Softmax(XXᵀ)X drawn, and two sentences computed from the student's
numbers: whether XXᵀ is symmetric (always) and whether every word attends most to itself (not always). Then why
the Transformer adds W^Q, W^K, W^V, and what one pair of random projections does to both facts. The section's
exercises are in :mod:`lessons.queries_keys_values.no_parameters_exercises`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from lessons.common import charts, colorscales, grids
from minimodels.attention import scaled_dot_product_attention

TITLE = "2 · Self-attention with no parameters: Softmax(XXᵀ)X"
TEXT = (
    "The lecture asks *“Okay.. But why? What is Q, K, V?”* and answers with a simpler formula first: "
    "$\\mathrm{Softmax}(XX^\\top)X$. Each row of X is one word's vector. $XX^\\top$ holds the dot product "
    "$x_i \\cdot x_j$ of every pair of words, and a dot product measures how **similar** two vectors are (how "
    "far one projects onto the other). The softmax turns each row of scores into weights that sum to 1, and "
    "multiplying by X again mixes the words' own vectors with those weights: each word becomes a blend of the "
    "words it resembles. The lecture's example of one dot product:"
)
WORDS_TEXT = (
    "Your word vectors, one word a line (`word: numbers`, every word with as many numbers). The defaults are "
    "hand-written, four numbers each, for words of the lecture's sentence *“The animal didn't cross the street "
    "because it was too tired”*. Predict first: which word will each word give its largest weight? Then press "
    "Ctrl+Enter (or click away) to compute."
)
WHY_PROJECTIONS = (
    "**Why $W^Q$, $W^K$, $W^V$.** Without parameters a word's vector is at once its question, its label and "
    "its answer. But a word's question is not its answer: *it* should look for the noun it stands for, which "
    "is not the same as looking for words like itself. And $x_i \\cdot x_j = x_j \\cdot x_i$, so *it*'s score "
    "for *animal* must equal *animal*'s score for *it*. Three learned matrices give each word a separate query "
    "$q_i = x_i W^Q$, key $k_i = x_i W^K$ and value $v_i = x_i W^V$; the score $q_i \\cdot k_j$ need not equal "
    "$q_j \\cdot k_i$, and nothing favours the diagonal any more."
)

LECTURE_DOT = ((1, 3, -5), (4, -2, -1))  # the lecture's "[1, 3, −5] · [4, −2, −1] = 3"
DEFAULT_WORDS = "animal: 2 1 0 1\ncross: 1 2 0 0\nstreet: 0 1 2 0\nit: 1 0 0 2\ntired: 1 -1 1 1"
MIN_WORDS, MAX_WORDS = 2, 8  # a handful: small enough to check a row of XXᵀ by hand
MAX_DIMS = 8
MAX_ABS = 100.0  # larger numbers only saturate the softmax (a score of 80 000 is one-hot) and hide the idea
MAX_WORD_LABEL = 20
MAX_WORDS_TEXT = 600  # characters in the box


def _num(x: float) -> str:
    """A number as the lecture writes it: integers without a decimal point, others to three significant digits."""
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.3g}"


@dataclass(frozen=True)
class DotProduct:
    a: tuple[float, ...]
    b: tuple[float, ...]
    products: tuple[float, ...]  # aᵢ bᵢ, one per dimension
    value: float  # Σ aᵢ bᵢ

    def steps(self) -> str:
        """The lecture's three lines as plain text: "(1)(4) + (3)(-2) + (-5)(-1) = 4 − 6 + 5 = 3"."""
        pairs = " + ".join(f"({_num(x)})({_num(y)})" for x, y in zip(self.a, self.b, strict=True))
        value = _num(self.value).replace("-", "−")
        return f"{pairs.replace('-', '−')} = {_signed_sum(self.products, minus='−')} = {value}"

    def latex(self) -> str:
        """The lecture's aligned equation, from the numbers."""
        vec = lambda v: "[" + ", ".join(_num(x) for x in v) + "]"  # noqa: E731
        pairs = " + ".join(f"({_num(x)})({_num(y)})" for x, y in zip(self.a, self.b, strict=True))
        return (  # the vectors on a line of their own: the whole first line of the lecture is wider than a phone
            f"\\begin{{aligned}}&{vec(self.a)} \\cdot {vec(self.b)} \\\\ &= {pairs} \\\\ "
            f"&= {_signed_sum(self.products)} \\\\ &= {_num(self.value)}\\end{{aligned}}"
        )


def _signed_sum(terms, minus: str = "-") -> str:
    """4, −6, 5 → "4 − 6 + 5": every term after the first with its own sign."""
    out = _num(terms[0])
    for t in terms[1:]:
        out += f" {minus} {_num(-t)}" if t < 0 else f" + {_num(t)}"
    return out.replace("-", minus)


def dot_product(a, b) -> DotProduct:
    """a · b = Σ aᵢ bᵢ, computed in float64 by torch, with the products the lecture writes out."""
    ta, tb = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)  # (d,), (d,)
    if ta.shape != tb.shape:
        raise ValueError("a dot product needs two vectors of the same length")
    return DotProduct(tuple(a), tuple(b), tuple((ta * tb).tolist()), float(ta @ tb))


@dataclass(frozen=True)
class ParsedVectors:
    vectors: tuple[tuple[str, tuple[float, ...]], ...]  # (word, its numbers), in the order typed
    error: str | None = None  # why the text was refused; the page keeps the last table that worked


def parse_word_vectors(text: object) -> ParsedVectors:
    """Read ``word: numbers`` lines. Refuses, with a message that never repeats the text: no words, one word, more
    than :data:`MAX_WORDS`, a line without a colon or a word, anything that is not a number, NaN or infinity,
    numbers beyond ±:data:`MAX_ABS`, rows of different lengths or more than :data:`MAX_DIMS` numbers."""
    lines = [line.strip() for line in text.splitlines()] if isinstance(text, str) else []
    lines = [line for line in lines if line]
    if not lines:
        return ParsedVectors((), "Type at least two word vectors, one a line, e.g. animal: 2 1 0 1.")
    if len(lines) > MAX_WORDS:
        return ParsedVectors((), f"That is {len(lines)} lines; this table takes at most {MAX_WORDS} words.")
    rows = []
    for n, line in enumerate(lines, start=1):
        word, colon, numbers = line.partition(":")
        word = word.strip()
        if not colon or not word:
            return ParsedVectors((), f"Line {n}: write it as a word, a colon, then numbers (animal: 2 1 0 1).")
        if len(word) > MAX_WORD_LABEL:
            return ParsedVectors((), f"Line {n}: keep the word to {MAX_WORD_LABEL} characters.")
        cleaned = numbers.replace("−", "-").replace(",", " ").replace("[", " ").replace("]", " ")
        try:
            values = tuple(float(x) for x in cleaned.split())
        except ValueError:
            return ParsedVectors((), f"Line {n}: after the colon, only numbers (e.g. 2 1 0 1 or 2, -1.5, 0).")
        if not values:
            return ParsedVectors((), f"Line {n}: give the word at least one number.")
        if not all(math.isfinite(v) for v in values):
            return ParsedVectors((), f"Line {n}: NaN and infinity are not numbers a vector can hold.")
        if any(abs(v) > MAX_ABS for v in values):
            return ParsedVectors((), f"Line {n}: keep each number between −{MAX_ABS:g} and {MAX_ABS:g}.")
        if len(values) > MAX_DIMS:
            return ParsedVectors((), f"Line {n}: at most {MAX_DIMS} numbers a word.")
        rows.append((word, values))
    if len(rows) < MIN_WORDS:
        return ParsedVectors((), f"Give at least {MIN_WORDS} words: attention needs something to compare.")
    if len({len(v) for _, v in rows}) > 1:
        lengths = ", ".join(str(len(v)) for _, v in rows)
        return ParsedVectors((), f"Every word needs as many numbers; these lines have {lengths}.")
    return ParsedVectors(tuple(rows))


@dataclass(frozen=True)
class PlainSelfAttention:
    words: tuple[str, ...]
    X: torch.Tensor  # (T, d) the word vectors
    scores: torch.Tensor  # (T, T) XXᵀ
    weights: torch.Tensor  # (T, T) Softmax(XXᵀ), each row sums to 1
    Z: torch.Tensor  # (T, d) Softmax(XXᵀ) X


def plain_self_attention(vectors: tuple[tuple[str, tuple[float, ...]], ...]) -> PlainSelfAttention:
    """Softmax(XXᵀ)X: self-attention in which every word's vector is its query, its key and its value (no scaling,
    no parameters), computed by :func:`minimodels.attention.scaled_dot_product_attention` with ``scale=False``."""
    X = torch.tensor([v for _, v in vectors], dtype=torch.float64)  # (T, d)
    Z, weights = scaled_dot_product_attention(X, X, X, scale=False)  # (T, d), (T, T)
    return PlainSelfAttention(tuple(w for w, _ in vectors), X, X @ X.T, weights, Z)


def _tol(scores: torch.Tensor) -> float:
    return 1e-9 * max(1.0, float(scores.abs().max()))


def _w(word: str) -> str:
    """A typed word inside a sentence: an inline code span, so markdown, LaTeX ($) and HTML in it show as typed."""
    return "`" + word.replace("`", "'") + "`"


def symmetry_sentence(scores: torch.Tensor, words: tuple[str, ...], name: str = "XXᵀ") -> str:
    """Whether a score matrix is symmetric, from its numbers: the largest |S − Sᵀ| and where it is."""
    gap = (scores - scores.T).abs()  # (T, T)
    i, j = divmod(int(gap.argmax()), gap.shape[1])
    if float(gap[i, j]) <= _tol(scores):
        return (
            f"{name} is symmetric: the score of {_w(words[0])} for {_w(words[-1])} is the score of {_w(words[-1])} "
            f"for {_w(words[0])}, and so for every pair (largest |S − Sᵀ| = 0)."
        )
    return (
        f"{name} is **not** symmetric: {_w(words[i])} scores {_w(words[j])} {float(scores[i, j]):.3g} but "
        f"{_w(words[j])} scores {_w(words[i])} {float(scores[j, i]):.3g} (largest |S − Sᵀ| = {float(gap[i, j]):.3g})."
    )


@dataclass(frozen=True)
class RowTop:
    """Where row i of a score matrix puts its largest weight (the softmax keeps the order of the scores)."""

    i: int
    best: tuple[int, ...]  # every column with the row's largest score (more than one: a tie)
    self_score: float  # S[i, i], for XXᵀ the squared length ‖xᵢ‖²

    @property
    def on_diagonal(self) -> bool:
        return self.best == (self.i,)


def row_tops(scores: torch.Tensor) -> list[RowTop]:
    tol = _tol(scores)
    tops = []
    for i, row in enumerate(scores):
        best = tuple(int(j) for j in torch.nonzero(row >= row.max() - tol).flatten())
        tops.append(RowTop(i, best, float(row[i])))
    return tops


def diagonal_sentence(scores: torch.Tensor, words: tuple[str, ...]) -> str:
    """Row by row, whether each word attends most to itself, with the numbers that decide it (for XXᵀ: ‖xᵢ‖²
    against xᵢ·xⱼ). Says what these vectors show, which is not always "every word attends most to itself" (a
    guess the formula invites, not a line of the lecture)."""
    tops = row_tops(scores)
    n = len(tops)
    if all(t.on_diagonal for t in tops):
        return (
            f"In all {n} rows the largest weight is on the diagonal: each of your words attends most to itself, "
            "because for each word ‖xᵢ‖² = xᵢ·xᵢ is larger than its dot product with every other word."
        )
    k = sum(t.on_diagonal for t in tops)
    parts = []
    for t in tops:
        if t.on_diagonal:
            continue
        w = _w(words[t.i])
        if t.i in t.best:
            others = ", ".join(_w(words[j]) for j in t.best if j != t.i)
            parts.append(f"{w} scores itself and {others} equally ({t.self_score:.3g})")
        else:
            j = t.best[0]
            parts.append(
                f"{w} attends most to {_w(words[j])} ({w}·{_w(words[j])} = {float(scores[t.i, j]):.3g} > "
                f"{w}·{w} = {t.self_score:.3g})"
            )
    return (
        f"In {k} of {n} rows the largest weight is on the diagonal; not in the others: " + "; ".join(parts) + ". "
        "A word's own score is the largest in its row exactly when ‖xᵢ‖² ≥ xᵢ·xⱼ for every other word (equal: a "
        "tie), that is when no other word's projection onto xᵢ is longer than xᵢ. Vectors of equal length always "
        "pass (Cauchy–Schwarz); a short vector next to a longer one pointing the same way does not."
    )


def projected_scores(X: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """QKᵀ with Q = XW^Q and K = XW^K, the two (d × d) matrices random but seeded: what one pair of untrained
    projections does to the symmetry and the diagonal of XXᵀ."""
    d = X.shape[1]
    g = torch.Generator().manual_seed(seed)
    W_q, W_k = (torch.randn(d, d, generator=g, dtype=torch.float64) / math.sqrt(d) for _ in range(2))
    return (X @ W_q) @ (X @ W_k).T  # (T, T)


def projection_sentence(result: PlainSelfAttention, seed: int = 0) -> str:
    """The same two facts after one pair of random projections, computed on the student's vectors."""
    S = projected_scores(result.X, seed)
    k = sum(t.on_diagonal for t in row_tops(S))
    symmetric = symmetry_sentence(S, result.words, "QKᵀ")
    return (
        f"Try it on your vectors with one pair of random (untrained, seed {seed}) {result.X.shape[1]}×"
        f"{result.X.shape[1]} matrices W^Q and W^K: {symmetric} {k} of {len(result.words)} rows put their "
        "largest weight on the diagonal. Training chooses these matrices; sections 3–5 show what they compute."
    )


def plain_scores_figure(result: PlainSelfAttention):
    """XXᵀ as a heatmap: cell (i, j) is xᵢ·xⱼ (exact on hover)."""
    fig = charts.attention_heatmap(
        result.scores,
        result.words,
        result.words,
        title="Scores XXᵀ: xᵢ·xⱼ",
        x_title="word j",
        y_title="word i",
        zmax=None,
        value_name="score",
        show_cell_text=True,
    )
    fig.layout.xaxis.tickangle = -45  # half a phone's width: upright words would run into each other
    return fig


def plain_weights_figure(result: PlainSelfAttention):
    """Softmax(XXᵀ) as a heatmap: row i is word i's weights over every word."""
    fig = charts.attention_heatmap(
        result.weights,
        result.words,
        result.words,
        title="Softmax(XXᵀ): weights, row by row",
        x_title="word j",
        y_title="word i",
        show_cell_text=True,
    )
    fig.layout.xaxis.tickangle = -45
    return fig


def plain_outputs_figure(result: PlainSelfAttention):
    """X and Softmax(XXᵀ)X side by side, one row per word, one zero-centred colour scale."""
    words = [charts.safe_label(w) for w in result.words]
    X, Z = (m.numpy() for m in (result.X, result.Z))
    bound = float(max(np.abs(X).max(), np.abs(Z).max())) or 1.0
    layout = grids.subplot_grid(1, 2, titles=["X (your vectors)", "Softmax(XXᵀ)X"], horizontal_spacing=0.12)
    data = []
    for c, (m, name) in enumerate(((X, "x"), (Z, "z"))):
        n = grids.panel_axis(0, c, 2)
        data.append(
            {
                "type": "heatmap",
                "z": m,
                "x": list(range(m.shape[1])),
                "y": list(range(len(words))),
                "coloraxis": "coloraxis",
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
                "xgap": 1,
                "ygap": 1,
                "text": np.char.mod("%.2f", m),
                "texttemplate": "%{text}",
                "hovertemplate": f"{name} · dimension %{{x}}<br>value = %{{z:.3f}}<extra></extra>",
            }
        )
        layout[f"xaxis{n}"] |= {
            "title": {"text": "dimension"},
            "tickmode": "array",
            "tickvals": list(range(m.shape[1])),
        }
        layout[f"yaxis{n}"] |= {
            "tickmode": "array",
            "tickvals": list(range(len(words))),
            "ticktext": words,
            "autorange": "reversed",
            "showticklabels": c == 0,
        }
    layout |= {
        "coloraxis": {
            "colorscale": colorscales.DIVERGING_COLORSCALE,
            "cmid": 0.0,
            "cmin": -bound,
            "cmax": bound,
            "colorbar": {"thickness": 10},
        },
        "height": 120 + 34 * len(words),
        "margin": {"l": 10, "r": 10, "t": 40, "b": 30},
    }
    return charts.figure(data, layout)
