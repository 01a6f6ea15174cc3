"""Lesson: queries, keys and values.

Starts where the Transformer lecture's "Okay.. But why? What is Q,K,V?" slides start: self-attention with no
parameters, Softmax(XXᵀ)X, with its dot-product-as-similarity example [1, 3, −5] · [4, −2, −1] = 3, and why
that is not enough (XXᵀ is symmetric; a word of typical length attends most to itself). Then the lecture's
"Thinking Machines" worked example (score q1·k1 = 112 and q1·k2 = 96, divide by √d_k = 8, softmax 0.88 / 0.12,
then z1 = Σ softmax × value) and the NLP lecture's database analogy (a query looked up softly against a
key → value table, each row weighted by the similarity of its key with the query). Every number here is
computed with :mod:`minimodels.attention`.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np
import torch

from lessons.common import charts
from lessons.common.exercises import Exercise
from minimodels.attention import masked_softmax, scaled_dot_product_attention

INTRO = (
    "Attention is a **soft lookup**. Each word asks a question (its *query*), every word offers a label "
    "(its *key*) and a content (its *value*). The query is compared with every key; the better a key "
    "matches, the more of its value flows into the answer. Section 1 starts without any of the three, as the "
    "lecture does: the words' own vectors play every part. Sections 2–4 then bring in the three learned "
    "matrices $W^Q$, $W^K$, $W^V$ and the formula this lesson is about:"
)

# --------------------------------------------------------------------------------------------------
# 1. Self-attention with no parameters: Softmax(XXᵀ)X
# --------------------------------------------------------------------------------------------------

NO_PARAMETERS_TEXT = (
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
    against xᵢ·xⱼ). Says what these vectors show, which is not always the lecture's "every word attends to
    itself most"."""
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
        "largest weight on the diagonal. Training chooses these matrices; sections 2–4 show what they compute."
    )


def plain_scores_figure(result: PlainSelfAttention):
    """XXᵀ as a heatmap: cell (i, j) is xᵢ·xⱼ (exact on hover)."""
    fig = charts.attention_heatmap(
        result.scores, result.words, result.words, title="Scores XXᵀ: xᵢ·xⱼ", x_title="word j", y_title="word i",
        zmax=None, value_name="score", show_cell_text=True,
    )  # fmt: skip
    fig.layout.xaxis.tickangle = -45  # half a phone's width: upright words would run into each other
    return fig


def plain_weights_figure(result: PlainSelfAttention):
    """Softmax(XXᵀ) as a heatmap: row i is word i's weights over every word."""
    fig = charts.attention_heatmap(
        result.weights, result.words, result.words, title="Softmax(XXᵀ): weights, row by row", x_title="word j",
        y_title="word i", show_cell_text=True,
    )  # fmt: skip
    fig.layout.xaxis.tickangle = -45
    return fig


def plain_outputs_figure(result: PlainSelfAttention):
    """X and Softmax(XXᵀ)X side by side, one row per word, one zero-centred colour scale."""
    words = [charts.safe_label(w) for w in result.words]
    X, Z = (m.numpy() for m in (result.X, result.Z))
    bound = float(max(np.abs(X).max(), np.abs(Z).max())) or 1.0
    layout = charts.subplot_grid(1, 2, titles=["X (your vectors)", "Softmax(XXᵀ)X"], horizontal_spacing=0.12)
    data = []
    for c, (m, name) in enumerate(((X, "x"), (Z, "z"))):
        n = charts.panel_axis(0, c, 2)
        data.append(
            {"type": "heatmap", "z": m, "x": list(range(m.shape[1])), "y": list(range(len(words))),
             "coloraxis": "coloraxis", "xaxis": f"x{n}", "yaxis": f"y{n}", "xgap": 1, "ygap": 1,
             "text": np.char.mod("%.2f", m), "texttemplate": "%{text}",
             "hovertemplate": f"{name} · dimension %{{x}}<br>value = %{{z:.3f}}<extra></extra>"}
        )  # fmt: skip
        layout[f"xaxis{n}"] |= {"title": {"text": "dimension"}, "tickmode": "array",
                                "tickvals": list(range(m.shape[1]))}  # fmt: skip
        layout[f"yaxis{n}"] |= {"tickmode": "array", "tickvals": list(range(len(words))), "ticktext": words,
                                "autorange": "reversed", "showticklabels": c == 0}  # fmt: skip
    layout |= {
        "coloraxis": {"colorscale": charts.DIVERGING_COLORSCALE, "cmid": 0.0, "cmin": -bound, "cmax": bound,
                      "colorbar": {"thickness": 10}},
        "height": 120 + 34 * len(words), "margin": {"l": 10, "r": 10, "t": 40, "b": 30},
    }  # fmt: skip
    return charts.figure(data, layout)


# --------------------------------------------------------------------------------------------------
# 2. The lecture's worked example
# --------------------------------------------------------------------------------------------------

LECTURE_D_K = 64
LECTURE_SCORES = (112, 96)  # q1·k1 and q1·k2 as printed in the lecture


def _integer_vector_with_dot(rng: np.random.Generator, q: np.ndarray, target: int) -> np.ndarray:
    """A vector of small integers whose dot product with ``q`` is exactly ``target``.

    Start from random integers in [-2, 2], then move one entry at a time by ±1 where ``|q| == 1`` (each move
    changes the dot product by exactly 1) until the dot product is the target. Integers keep the float32
    arithmetic exact, so 112 is 112, not 111.99999.
    """
    k = rng.integers(-2, 3, size=q.shape[0])
    unit = np.flatnonzero(np.abs(q) == 1)
    while (residual := int(q @ k) - target) != 0:
        step = -int(np.sign(residual))
        # nudge an entry that can still move without leaving [-3, 3]
        movable = [i for i in unit if abs(k[i] + step * q[i]) <= 3]
        i = movable[int(rng.integers(len(movable)))]
        k[i] += step * q[i]
    return k


@dataclass(frozen=True)
class WorkedExample:
    tokens: tuple[str, str]
    q1: torch.Tensor  # (d_k,)
    keys: torch.Tensor  # (2, d_k): k1, k2
    values: torch.Tensor  # (2, d_v): v1, v2
    scores: torch.Tensor  # (2,): q1·k1, q1·k2
    scaled: torch.Tensor  # (2,): scores / √d_k
    weights: torch.Tensor  # (2,): softmax of the scaled scores
    z1: torch.Tensor  # (d_v,): Σ weight × value

    @property
    def d_k(self) -> int:
        return self.q1.shape[0]


def thinking_machines(seed: int = 0, d_k: int = LECTURE_D_K) -> WorkedExample:
    """The lecture's two-word example, with vectors chosen so the lecture's dot products come out exactly.

    The lecture does not print q1, k1, k2; we draw small random integers (seeded) and adjust k1 and k2 until
    q1·k1 = 112 and q1·k2 = 96. v1 and v2 are seeded random values. The attention itself is then computed
    by :func:`minimodels.attention.scaled_dot_product_attention`, exactly as any model computes it.
    """
    rng = np.random.default_rng(seed)
    q1 = rng.choice([-1, 1], size=d_k)  # entries ±1, so every nudge in _integer_vector_with_dot is exact
    k1 = _integer_vector_with_dot(rng, q1, LECTURE_SCORES[0])
    k2 = _integer_vector_with_dot(rng, q1, LECTURE_SCORES[1])
    values = rng.normal(size=(2, d_k)).round(2)

    q = torch.tensor(q1, dtype=torch.float32)
    keys = torch.tensor(np.stack([k1, k2]), dtype=torch.float32)  # (2, d_k)
    v = torch.tensor(values, dtype=torch.float32)  # (2, d_v)
    z1, weights = scaled_dot_product_attention(q[None], keys, v)  # (1, d_v), (1, 2)
    scores = keys @ q  # (2,)
    return WorkedExample(
        tokens=("Thinking", "Machines"),
        q1=q,
        keys=keys,
        values=v,
        scores=scores,
        scaled=scores / math.sqrt(d_k),
        weights=weights[0],
        z1=z1[0],
    )


def worked_table(example: WorkedExample) -> dict[str, list[str]]:
    """The lecture's table, one column per word: the score, the scaled score, the softmax, the weighted value."""
    table = {"": ["Score  q₁·kᵢ", f"Divide by √d_k = {example.d_k**0.5:g}", "Softmax", "Softmax × value"]}
    for i, token in enumerate(example.tokens):
        w = float(example.weights[i])
        table[token] = [f"{example.scores[i]:g}", f"{example.scaled[i]:g}", f"{w:.2f}", f"{w:.2f} · v{'₁₂'[i]}"]
    return table


def vectors_figure(example: WorkedExample):
    """q₁, both keys, both values and the answer z₁ as strips, every dimension (values on hover)."""
    return charts.vector_strip(
        [example.q1, example.keys[0], example.keys[1], example.values[0], example.values[1], example.z1],
        ["q₁ (Thinking)", "k₁ (Thinking)", "k₂ (Machines)", "v₁ (Thinking)", "v₂ (Machines)", "z₁ = Σ αᵢ vᵢ"],
        title=f"The vectors, all {example.d_k} dimensions (hover for values)",
    )


def worked_sentence(example: WorkedExample) -> str:
    """Which value z₁ leans towards, read from the example's weights (the lecture's: v₁, 88 %)."""
    w, (a, b) = example.weights, example.tokens
    if abs(float(w[0] - w[1])) < 5e-3:
        said = f"z₁ is an even mix: {w[0]:.0%} of it is *{a}*'s value and {w[1]:.0%} *{b}*'s."
    else:
        i = int(w.argmax())
        said = (
            f"z₁ leans towards v{'₁₂'[i]}: {w[i]:.0%} of it is *{example.tokens[i]}*'s value and {w[1 - i]:.0%} "
            f"*{example.tokens[1 - i]}*'s."
        )
    return f"{said} Try it: how would the split change if the vectors were wider but the dot products the same?"


def weights_at(example: WorkedExample, d_k: int) -> torch.Tensor:
    """The example's softmax weights had the same dot products been scaled by √d_k of another width."""
    return masked_softmax(example.scores / math.sqrt(d_k))


# --------------------------------------------------------------------------------------------------
# 3. The database analogy
# --------------------------------------------------------------------------------------------------

FEATURES = ("animal", "mammal", "person", "nature", "made by people", "small")

# The lecture's table (English key -> Turkish value), with a hand-written feature vector per key that stands
# in for Enc(k): the model would learn these; here they are written down so a student can read them.
TABLE: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    ("sheep", "koyun", (1, 1, 0, 0.3, 0, 0)),
    ("river", "ırmak", (0, 0, 0, 1, 0, 0)),
    ("author", "yazar", (0, 0.2, 1, 0, 0, 0)),
    ("bull", "boğa", (1, 1, 0, 0.3, 0, 0)),
    ("fly", "sinek", (1, 0, 0, 0.3, 0, 1)),
    ("radio", "radyo", (0, 0, 0, 0, 1, 0.3)),
    ("farmer", "çiftçi", (0, 0.2, 1, 0.3, 0, 0)),
    ("plant", "bitki", (0, 0, 0, 1, 0, 0.3)),
    ("actress", "aktris", (0, 0.2, 1, 0, 0, 0)),
    ("home", "ev", (0, 0, 0, 0, 1, 0)),
    ("snail", "salyangoz", (1, 0, 0, 0.3, 0, 1)),
)

QUERIES: dict[str, tuple[float, ...]] = {
    "words for mammals": (0.5, 1, 0, 0, 0, 0),
    "small creatures": (0.5, 0, 0, 0, 0, 1),
    "people": (0, 0, 1, 0, 0, 0),
    "things in nature": (0, 0, 0, 1, 0, 0),
    "things people made": (0, 0, 0, 0, 1, 0),
}


@dataclass(frozen=True)
class Lookup:
    query: str
    keys: tuple[str, ...]
    values: tuple[str, ...]
    similarity: torch.Tensor  # (n_rows,) Enc(q)·Enc(k_i)
    weights: torch.Tensor  # (n_rows,) softmax(sharpness × similarity)

    def best(self) -> tuple[str, str, float]:
        i = int(self.weights.argmax())
        return self.keys[i], self.values[i], float(self.weights[i])


def soft_lookup(query: str, sharpness: float = 3.0) -> Lookup:
    """p(i | q) ∝ exp(sharpness · sim(Enc(q), Enc(k_i))): every row of the table answers, a little or a lot.

    ``sharpness`` plays the role of 1/temperature: as it grows the soft lookup becomes the database's hard
    one (all the weight on the best-matching key); at 0 every row gets the same weight.
    """
    if query not in QUERIES:
        raise ValueError(f"unknown query {query!r}; choose one of {sorted(QUERIES)}")
    q = torch.tensor(QUERIES[query], dtype=torch.float32)  # (F,)
    K = torch.tensor([row[2] for row in TABLE], dtype=torch.float32)  # (n_rows, F)
    similarity = K @ q  # (n_rows,)
    weights = masked_softmax(sharpness * similarity)
    return Lookup(
        query=query,
        keys=tuple(row[0] for row in TABLE),
        values=tuple(row[1] for row in TABLE),
        similarity=similarity,
        weights=weights,
    )


def lookup_figure(lookup: Lookup):
    """p(i | q) as one bar per row of the table, labelled "key → value"."""
    labels = [f"{k} → {v}" for k, v in zip(lookup.keys, lookup.values, strict=True)]
    return charts.weight_bars(labels, lookup.weights, title=f"p(i | “{lookup.query}”)")


# --------------------------------------------------------------------------------------------------
# 4. The matrix form on the student's own sentence
# --------------------------------------------------------------------------------------------------

MAX_TOKENS = 24  # per-cell hover stays fast and the axis labels stay readable on a projector
MAX_TOKEN_CHARS = 40
DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired"


@dataclass(frozen=True)
class ParsedSentence:
    tokens: tuple[str, ...]
    error: str | None = None  # why the text was refused; the page then keeps the last good sentence


def parse_sentence(text: str, max_tokens: int = MAX_TOKENS) -> ParsedSentence:
    """Split on whitespace; refuse empty or over-long input with a message instead of an exception."""
    tokens = tuple(text.split()) if isinstance(text, str) else ()
    if not tokens:
        return ParsedSentence((), "Type a sentence of at least one word.")
    if len(tokens) > max_tokens:
        return ParsedSentence((), f"That is {len(tokens)} words; this lesson takes at most {max_tokens}.")
    if any(len(t) > MAX_TOKEN_CHARS for t in tokens):
        return ParsedSentence((), f"Words longer than {MAX_TOKEN_CHARS} characters are not accepted.")
    return ParsedSentence(tokens)


def word_embedding(token: str, d_model: int) -> torch.Tensor:
    """A fixed random vector per word (seeded by the word's CRC32), so "the" is the same vector everywhere."""
    g = torch.Generator().manual_seed(zlib.crc32(token.lower().encode("utf-8")))
    return torch.randn(d_model, generator=g)


@dataclass(frozen=True)
class SelfAttention:
    tokens: tuple[str, ...]
    X: torch.Tensor  # (T, d_model) the word embeddings
    Q: torch.Tensor  # (T, d_k)
    K: torch.Tensor  # (T, d_k)
    V: torch.Tensor  # (T, d_k)
    scores: torch.Tensor  # (T, T) Q Kᵀ / √d_k
    weights: torch.Tensor  # (T, T) softmax over each row
    Z: torch.Tensor  # (T, d_k) weights @ V


def self_attention(tokens: tuple[str, ...], d_model: int = 16, d_k: int = 8, seed: int = 0) -> SelfAttention:
    """softmax(Q Kᵀ / √d_k) V with Q = X W^Q, K = X W^K, V = X W^V, the W's random but seeded.

    Untrained weights: the pattern shows the *mechanism*, not linguistics; the Transformer lesson trains them.
    """
    if not tokens:
        raise ValueError("self_attention needs at least one token")
    g = torch.Generator().manual_seed(seed)
    W_q, W_k, W_v = (torch.randn(d_model, d_k, generator=g) / math.sqrt(d_model) for _ in range(3))
    X = torch.stack([word_embedding(t, d_model) for t in tokens])  # (T, d_model)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (T, d_k) each
    Z, weights = scaled_dot_product_attention(Q, K, V)  # (T, d_k), (T, T)
    return SelfAttention(tokens, X, Q, K, V, Q @ K.T / math.sqrt(d_k), weights, Z)


def attention_figure(result: SelfAttention):
    """The attention matrix as a heatmap: row i is the attention of word i over every word."""
    return charts.attention_heatmap(
        result.weights, result.tokens, result.tokens, title="softmax(QKᵀ/√d_k): row i attends"
    )


def matrix_figures(result: SelfAttention) -> dict[str, object]:
    """Q, K and V as strips, one row per word, keyed by their titles."""
    matrices = {"Q = XW^Q": result.Q, "K = XW^K": result.K, "V = XW^V": result.V}
    return {name: charts.vector_strip(matrix, result.tokens, title=name) for name, matrix in matrices.items()}


# --------------------------------------------------------------------------------------------------
# Exercises, their answers computed from the same functions the figures use
# --------------------------------------------------------------------------------------------------


# Section 1's exercises: vectors of their own (not the page's defaults), so no answer can be read off the page.
EXERCISE_DOT = ((2, -1, 3), (1, 4, -2))
EXERCISE_IT = (("animal", (3.0, 1.0, 0.0)), ("street", (0.0, 1.0, 2.0)), ("it", (1.0, 1.0, 0.0)))
EXERCISE_PAIR = (("a", (2.0, 0.0)), ("b", (1.0, 1.0)), ("c", (0.0, 2.0)))
EXERCISE_SHAPE = {"T": 6, "d_model": 12, "d_k": 4, "d_v": 3}
EXERCISE_SCORE = 104  # ex1: Machines' dot product, were it 104 instead of the lecture's 96
EXERCISE_WIDTH = 100  # ex2: a d_k that is not on the what-if slider


def _vec(values) -> str:
    return "[" + ", ".join(_num(v) for v in values) + "]"


def _dot_exercise() -> Exercise:
    a, b = EXERCISE_DOT
    d = dot_product(a, b)
    sign = "positive" if d.value > 0 else "negative" if d.value < 0 else "zero"
    return Exercise(
        key="queries_keys_values.dot",
        prompt=f"By hand, as the lecture does: what is {_vec(a)} · {_vec(b)}?",
        answer=d.value,
        tolerance=1e-6,
        explanation=f"Multiply entry by entry, then add: {d.steps()}. The result is {sign}: as word vectors, "
        "these two would count as "
        + ("similar." if d.value > 0 else "dissimilar (they point in opposing directions)." if d.value < 0 else
           "unrelated (perpendicular)."),
        hint="A product of two negatives is positive, and a negative times a positive is negative.",
    )  # fmt: skip


def _it_exercise() -> Exercise:
    r = plain_self_attention(EXERCISE_IT)
    i = r.words.index("it")
    top = row_tops(r.scores)[i]
    choices = tuple("*it* itself" if w == "it" else f"*{w}*" for w in r.words) + ("all of them equally",)
    if len(top.best) != 1:  # a tie has no one answer to predict
        raise ValueError("the exercise's vectors must give *it*'s row a single largest score")
    answer = top.best[0]
    x = dict(EXERCISE_IT)
    row = "; ".join(f"it·{w} = {dot_product(x['it'], x[w]).steps()}" for w in r.words)
    exps = " + ".join(f"e^{_num(float(s))}" for s in r.scores[i])
    winner = r.words[top.best[0]]
    return Exercise(
        key="queries_keys_values.it",
        prompt="Predict, then run it: three words, as section 1's table would read them: "
        + ", ".join(f"`{w}: {' '.join(_num(x) for x in v)}`" for w, v in EXERCISE_IT)
        + ". With no parameters, in Softmax(XXᵀ), which word gets the largest weight in *it*'s row?",
        choices=choices,
        answer=answer,
        explanation=f"Row *it* of XXᵀ: {row}. The softmax keeps the order of the scores, so *{winner}* wins with "
        f"e^{_num(float(r.scores[i, top.best[0]]))} / ({exps}) = {float(r.weights[i, top.best[0]]):.2f}. "
        + (
            f"*{winner}*'s projection onto *it* (it·{winner} / ‖it‖ = "
            f"{float(r.scores[i, top.best[0]]) / math.sqrt(top.self_score):.2f}) is longer than *it* itself "
            f"(‖it‖ = {math.sqrt(top.self_score):.2f}), so the lecture's “every word attends to itself most” fails "
            "here: it holds only when ‖xᵢ‖² ≥ xᵢ·xⱼ for every j."
            if winner != "it" else "Here ‖it‖² is the largest score in its row, as it is for vectors of equal length."
        ),
        hint="The softmax does not change which score is largest: compare it·x for every word, it·it included.",
    )  # fmt: skip


def _symmetric_exercise() -> Exercise:
    r = plain_self_attention(EXERCISE_PAIR)
    ab, ba = float(r.weights[0, 1]), float(r.weights[1, 0])
    choices = (
        "equal: XXᵀ is symmetric, so the weights are too",
        "α(a→b) is larger",
        "α(b→a) is larger",
    )
    answer = 0 if abs(ab - ba) < 1e-9 else 1 if ab > ba else 2

    def row_text(i: int) -> str:
        return " + ".join(f"e^{_num(float(s))}" for s in r.scores[i])

    return Exercise(
        key="queries_keys_values.symmetric",
        prompt="Predict: three words "
        + ", ".join(f"*{w}* = {_vec(v)}" for w, v in EXERCISE_PAIR)
        + ". XXᵀ is symmetric, so a·b = b·a. In Softmax(XXᵀ), how does α(a→b) (row *a*'s weight on *b*) compare "
        "with α(b→a) (row *b*'s weight on *a*)?",
        choices=choices,
        answer=answer,
        explanation=f"Both scores are a·b = {_num(float(r.scores[0, 1]))}, but each row is normalised by its own "
        f"sum: α(a→b) = e^{_num(float(r.scores[0, 1]))} / ({row_text(0)}) = {ab:.2f}, while "
        f"α(b→a) = e^{_num(float(r.scores[1, 0]))} / ({row_text(1)}) = {ba:.2f}. The scores are symmetric; the "
        f"weights need not be: each row has its own denominator, and row *a*'s holds a·a = "
        f"{_num(float(r.scores[0, 0]))} where row *b*'s holds b·b = {_num(float(r.scores[1, 1]))}.",
        hint="Each row of the softmax has its own denominator.",
    )  # fmt: skip


def _shape_exercise() -> Exercise:
    T, d_model, d_k, d_v = (EXERCISE_SHAPE[n] for n in ("T", "d_model", "d_k", "d_v"))
    Q, K, V = torch.zeros(T, d_k), torch.zeros(T, d_k), torch.zeros(T, d_v)
    Z, weights = scaled_dot_product_attention(Q, K, V)  # run it: the answer is the shape the code returns
    shape = lambda t: f"({', '.join(str(n) for n in t.shape)})"  # noqa: E731
    choices = tuple(dict.fromkeys([f"({T}, {T})", f"({T}, {d_k})", shape(Z), f"({T}, {d_model})", f"({d_k}, {d_v})"]))
    return Exercise(
        key="queries_keys_values.shape",
        prompt=f"A sentence of T = {T} words with d_model = {d_model}; W^Q and W^K are {d_model} × {d_k}, W^V is "
        f"{d_model} × {d_v}. What is the shape of softmax(QKᵀ/√d_k)V?",
        choices=choices,
        answer=choices.index(shape(Z)),
        explanation=f"Q = XW^Q and K = XW^K are {shape(Q)}; QKᵀ is {shape(weights)}, one row per word and one "
        f"column per word, and the softmax keeps that shape; times V {shape(V)} gives {shape(Z)}: one output per "
        "word, as wide as a value (d_model and d_k do not appear).",
        hint="(T × d_k)(d_k × T) = T × T; then (T × T)(T × d_v).",
    )  # fmt: skip


def exercises() -> list[Exercise]:
    ex = thinking_machines()
    nearer = masked_softmax(torch.tensor([LECTURE_SCORES[0], EXERCISE_SCORE], dtype=torch.float64) / 8)
    wider = weights_at(ex, EXERCISE_WIDTH)
    hard = soft_lookup("things in nature", sharpness=40.0)
    river = hard.keys.index("river")
    tied = [hard.keys[i] for i in torch.nonzero(hard.similarity == hard.similarity.max()).flatten()]
    root = math.sqrt(EXERCISE_WIDTH)
    return [
        _dot_exercise(),
        _it_exercise(),
        _symmetric_exercise(),
        Exercise(
            key="queries_keys_values.ex1",
            prompt=(
                f"By hand: in the worked example, suppose q₁·k₂ were {EXERCISE_SCORE} instead of 96 (q₁·k₁ = 112, "
                "d_k = 64). What weight would *Thinking* give to *Machines*? (two decimals)"
            ),
            answer=float(nearer[1]),
            tolerance=0.005,
            explanation=f"Divide by √64 = 8: 112 / 8 = 14 and {EXERCISE_SCORE} / 8 = {EXERCISE_SCORE / 8:g}. "
            f"softmax(14, {EXERCISE_SCORE / 8:g}) puts e^{EXERCISE_SCORE / 8:g} / (e^14 + e^{EXERCISE_SCORE / 8:g}) "
            f"= 1 / (1 + e^{14 - EXERCISE_SCORE / 8:g}) = {float(nearer[1]):.2f} on Machines: a smaller gap "
            "between the scores, a more even split.",
            hint="Divide both scores by √d_k before the softmax.",
        ),
        Exercise(
            key="queries_keys_values.ex2",
            prompt=(
                f"By hand: keep the lecture's dot products (112 and 96) but make the vectors d_k = {EXERCISE_WIDTH} "
                "wide. What weight goes to *Thinking*? (two decimals)"
            ),
            answer=float(wider[0]),
            tolerance=0.005,
            explanation=f"√{EXERCISE_WIDTH} = {root:g}: the scaled scores are {112 / root:g} and {96 / root:g}, a "
            f"gap of {16 / root:g}, so Thinking gets 1 / (1 + e^−{16 / root:g}) = {float(wider[0]):.2f}. The gap "
            "16/√d_k shrinks as d_k grows (2 at d_k = 64), so the weight moves from "
            f"{float(ex.weights[0]):.2f} towards 0.5, never below it, since 112 > 96.",
            hint="Divide both dot products by √d_k, then take the softmax of the two.",
        ),
        Exercise(
            key="queries_keys_values.ex3",
            prompt=(
                "Predict, beyond the slider's range: query *things in nature* in the database table with "
                "sharpness 40, a nearly hard lookup. What weight does *river → ırmak* get? (two decimals)"
            ),
            answer=float(hard.weights[river]),
            tolerance=0.01,
            explanation=f"{' and '.join(tied)} both score {float(hard.similarity.max()):g} with this query, every "
            f"other row at most {float(hard.similarity[hard.similarity < hard.similarity.max()].max()):g}. As the "
            "sharpness grows, all the weight goes to the best keys and splits equally between tied ones: "
            f"{float(hard.weights[river]):.2f} for river. A database's exact match returns one row; the hard limit "
            "of a soft lookup returns the average of the tied rows' values.",
            hint="Look for ties among the best-matching keys.",
        ),
        _shape_exercise(),
        Exercise(
            key="queries_keys_values.ex4",
            prompt="Each row of the attention matrix softmax(QKᵀ/√d_k) is…",
            choices=(
                "a probability distribution over the keys: non-negative, summing to 1",
                "a probability distribution over the queries",
                "a vector of values",
                "always one-hot",
            ),
            answer=0,
            explanation="The softmax runs along each row, over the keys, so each query's weights sum to 1.",
            hint="Think about which axis the softmax normalises over.",
        ),
    ]
