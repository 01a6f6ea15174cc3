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
import time
import zlib
from dataclasses import dataclass

import numpy as np
import torch

from lessons.common import charts
from lessons.common.comparison import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.timing import call_seconds
from minimodels.attention import masked_softmax, padding_mask, scaled_dot_product_attention
from minimodels.tokenizers import EOS_ID

INTRO = (
    "Attention is a **soft lookup**. Each word asks a question (its *query*), every word offers a label "
    "(its *key*) and a content (its *value*). The query is compared with every key; the better a key "
    "matches, the more of its value flows into the answer. Section 1 makes words into vectors, as the lecture "
    "does before attention; section 2 then attends without any of the three: the words' own vectors play every "
    "part. Sections 3–5 bring in the three learned matrices $W^Q$, $W^K$, $W^V$ and the formula this lesson is "
    "about, and section 6 asks what it buys over a recurrent encoder:"
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
        "largest weight on the diagonal. Training chooses these matrices; sections 3–5 show what they compute."
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

WORKED_TEXT = (
    "The Transformer lecture works one query through by hand: the input *Thinking Machines*, d_k = {d_k}. The "
    "lecture does not print the vectors, so we chose q₁, k₁ and k₂ (small integers, seeded) so that its dot "
    "products come out exactly; v₁ and v₂ are random. Everything below is computed by "
    "`minimodels.attention.scaled_dot_product_attention`."
)
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

DATABASE_TEXT = (
    "The NLP lecture's analogy: a table pairs **keys** (English words) with **values** (their Turkish "
    "translations). A database returns the value whose key *equals* the query. Attention returns every value, "
    "each weighted by how *similar* its key is to the query: p(i | q) ∝ exp(sharpness · sim(q, kᵢ)). Here Enc(·) "
    "is a hand-written feature vector per word ({features}), so you can read why each row scores as it does."
)
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

MATRIX_TEXT = (
    "Stack the words' embeddings into X; then Q = XW^Q, K = XW^K, V = XW^V and one matrix product scores every "
    "query against every key. Row *i* of the heatmap is the attention of word *i*. The W matrices here are random "
    "(seeded), not trained: the figure shows the mechanism, not what a trained model learns."
)
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
# 5b. The same product with a trained model's own W^Q, W^K, W^V (the shipped Transformer, or the student's own)
# --------------------------------------------------------------------------------------------------

TRAINED_MODEL = ("toy-translation", "transformer")  # the course's shipped translator (the Transformer lesson's)
TRAINED_SENTENCE = "Jane visits Africa in September"  # the lecture's sentence, in the toy language the model reads
TRAINED_TEXT = (
    "Section 5's W^Q, W^K, W^V were random. Here they are a **trained** translator's: its encoder's self-attention "
    "learned them while learning to translate, and we multiply by them ourselves. X is the layer's input, one row "
    "per token of your sentence (the model's own tokens: pieces of words, ▁ where a word starts; what else goes into "
    "X, the token's position and a normalisation, is lessons 8 and 10). The model cuts its W^Q, W^K, W^V into a few "
    "parallel attentions of d_k columns each, called heads (lesson 9); pick one. Then we check our "
    "softmax(QKᵀ/√d_k) against the map the model's own layer returns."
)
SPACE = "␣"  # a space piece as an axis label (a blank tick label would be invisible)


def parse_model_sentence(task, text: str) -> ParsedSentence:
    """The student's text for a trained model with ``task``'s tokenizer: refused (with the reason) when it is empty
    or longer than the model reads. Unknown characters are allowed: the model reads them as ``<unk>``."""
    tokens = tuple(text.split()) if isinstance(text, str) else ()
    if not tokens:
        return ParsedSentence((), "Type a sentence of at least one word.")
    if task.encode_source(" ".join(tokens)).truncated:
        return ParsedSentence((), f"That is more than {task.max_source_len} tokens: the model reads at most "
                                  f"{task.max_source_len}, the longest sentence it was trained on.")  # fmt: skip
    return ParsedSentence(tokens)


def model_parser(task):
    """``parse(text)`` for ``ui.sentence_input`` on a trained model's ``task``."""
    return lambda text: parse_model_sentence(task, text)


@dataclass(frozen=True)
class TrainedAttention:
    """One encoder self-attention of a trained Transformer on one sentence, recomputed from its own weights."""

    tokens: tuple[str, ...]  # S labels: the source pieces, </s> last
    layer: int  # 0-based encoder layer
    head: int  # 0-based head: columns head·d_k … (head+1)·d_k − 1 of W^Q, W^K, W^V
    n_heads: int
    X: torch.Tensor  # (S, d) what the layer's W^Q, W^K, W^V multiply
    Q: torch.Tensor  # (S, d_k)
    K: torch.Tensor  # (S, d_k)
    V: torch.Tensor  # (S, d_k)
    scores: torch.Tensor  # (S, S) Q Kᵀ / √d_k
    weights: torch.Tensor  # (S, S) softmax of each row: computed here
    model_weights: torch.Tensor  # (S, S) the same head's map, as the model's own layer returns it
    message: str | None = None  # the tokenizer's note (unknown characters), if any

    @property
    def d_k(self) -> int:
        return int(self.Q.shape[1])

    @property
    def difference(self) -> float:
        """Largest absolute difference between our weights and the model's own."""
        return float((self.weights - self.model_weights).abs().max())


def layer_input(model, source: torch.Tensor, layer: int) -> torch.Tensor:
    """``(S, d)``: what encoder layer ``layer``'s W^Q, W^K, W^V multiply for ``source (1, S)``: the embedded
    tokens run through the layers below it, then the layer's own normalisation (pre-LN), as its forward does."""
    lengths = torch.tensor([source.size(1)])  # (1,)
    allowed = padding_mask(lengths, source.size(1))[:, None, None, :]  # (1, 1, 1, S): one sentence, no padding
    x = model._embed(source, model.source_embedding, model.source_position)  # (1, S, d)
    for below in model.encoder_layers[:layer]:
        x, _ = below(x, allowed)  # (1, S, d)
    block = model.encoder_layers[layer]
    return (block.residual1.norm(x) if model.config.norm_first else x)[0]  # (S, d)


def project(X: torch.Tensor, linear: torch.nn.Linear, head: int, d_k: int) -> torch.Tensor:
    """``X (S, d)`` times one head's block of a projection: x W + b with W = ``linear.weight``ᵀ, its columns
    head·d_k … (head+1)·d_k − 1 (``nn.Linear`` stores W as (out, in)). Returns ``(S, d_k)``."""
    cols = slice(head * d_k, (head + 1) * d_k)
    bias = linear.bias[cols] if linear.bias is not None else 0.0
    return X @ linear.weight.T[:, cols] + bias  # (S, d) @ (d, d_k) -> (S, d_k)


@torch.inference_mode()
def trained_attention(model, task, text: str, layer: int = 0, head: int = 0) -> TrainedAttention | str:
    """softmax(QKᵀ/√d_k) of encoder layer ``layer``, head ``head`` of a trained Transformer on ``text``, computed
    from the layer's own W^Q, W^K, W^V, beside the map the model's layer returns; a message when there is nothing
    to read."""
    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    source = torch.tensor([[*encoded.ids, EOS_ID]])  # (1, S)
    mha = model.encoder_layers[layer].self_attention
    d_k = mha.d_k
    X = layer_input(model, source, layer)  # (S, d)
    Q, K, V = (project(X, linear, head, d_k) for linear in (mha.W_q, mha.W_k, mha.W_v))  # (S, d_k) each
    scores = Q @ K.T / math.sqrt(d_k)  # (S, S)
    weights = torch.softmax(scores, dim=-1)  # (S, S)
    own = model.encode(source, torch.tensor([source.size(1)])).attention[f"encoder.{layer}.self"][0, head]  # (S, S)
    pieces = [*encoded.pieces, task.source_tokenizer.id_to_piece(EOS_ID)]
    tokens = tuple(SPACE if p == " " else p for p in pieces)
    return TrainedAttention(tokens, layer, head, mha.n_heads, X, Q, K, V, scores, weights, own, encoded.message)


def trained_figure(view: TrainedAttention):
    """Our softmax(QKᵀ/√d_k) for the trained model's head, tokens on both axes."""
    return charts.attention_heatmap(view.weights, view.tokens, view.tokens, title="softmax(QKᵀ/√d_k), by hand")


def trained_matrices_figure(view: TrainedAttention):
    """Q, K and V of the head in one figure, one above the other (each as wide as a phone allows), one row per token,
    one colour scale centred on 0."""
    ys = [charts.safe_label(t, 12) for t in view.tokens]
    mats = {"Q = XW^Q": view.Q, "K = XW^K": view.K, "V = XW^V": view.V}
    bound = max(float(m.abs().max()) for m in mats.values()) or 1.0
    panel, gap = max(70, 18 * len(ys)), 62  # px: one matrix, and the room for its title and the x ticks above it
    plot = 3 * panel + 2 * gap
    layout = charts.subplot_grid(3, 1, titles=list(mats), vertical_spacing=gap / plot)
    data = []
    for r, (name, m) in enumerate(mats.items()):
        n = charts.panel_axis(r, 0, 1)
        data.append({"type": "heatmap", "z": m.numpy(), "y": list(range(len(ys))), "coloraxis": "coloraxis",
                     "name": name, "xaxis": f"x{n}", "yaxis": f"y{n}",
                     "hovertemplate": f"{name}<br>dimension %{{x}}<br>value = %{{z:.3f}}<extra></extra>"})  # fmt: skip
        layout[f"yaxis{n}"] |= {"tickmode": "array", "tickvals": list(range(len(ys))), "ticktext": ys,
                                "autorange": "reversed", "tickfont": {"size": 10}}  # fmt: skip
        layout[f"xaxis{n}"] |= {"tickfont": {"size": 10}}
    layout |= {
        "coloraxis": {"colorscale": charts.DIVERGING_COLORSCALE, "cmin": -bound, "cmax": bound, "cmid": 0.0,
                      "colorbar": {"thickness": 10}},
        "height": plot + 60, "margin": {"l": 10, "r": 10, "t": 30, "b": 30},
    }  # fmt: skip
    return charts.figure(data, layout)


def trained_sentence(view: TrainedAttention) -> str:
    """What the check found, from the numbers: our map against the model's own (and the tokenizer's note)."""
    if view.difference == 0:
        verdict = f"exactly the same map: not one of its {view.weights.numel()} weights differs"
    elif view.difference <= 1e-5:
        verdict = f"the same map up to float rounding (largest difference {view.difference:.1e})"
    else:
        verdict = f"**different** maps (largest difference {view.difference:.3f})"
    note = f" {view.message}" if view.message else ""
    return (
        f"Q, K and V: {len(view.tokens)} rows (one per token) of d_k = {view.d_k} numbers, from the model's learned "
        f"W^Q, W^K, W^V. Our softmax(QKᵀ/√d_k) and the map the model's encoder layer {view.layer + 1} returns for "
        f"head {view.head + 1} (lesson 9) are {verdict}.{note}"
    )


def trained_note(info) -> str:
    """A caption for the shipped Transformer: what it is and how well it translates."""
    test = (info.get("training") or {}).get("test_exact_match")
    score = f", {test:.0%} exact match on its test sentences" if isinstance(test, float) else ""
    return (
        f"The course's shipped Transformer (lesson 10), trained to translate English into a French-like toy "
        f"language{score}."
    )


# --------------------------------------------------------------------------------------------------
# 1. Words as vectors: 1-hot against learned embeddings (the lecture's "Bringing tensors into the picture")
# --------------------------------------------------------------------------------------------------

EMBEDDING_MODEL = ("toy-translation", "gru-additive")  # the Bahdanau lesson's shipped translator (lessons 2–3)
NEIGHBOURS = 5  # k: each word's nearest neighbours, by cosine similarity in the model's full embedding space
SHUFFLES = 1000  # label shuffles for the chance level and how often chance reaches the trained share
LECTURE_VOCAB, LECTURE_FEATURES = 10_000, 300  # the lecture's |V| = 10,000 and its 300 features (Gender, Royal, …)
PROPERTIES = {  # how the words are coloured and grouped: a property the toy language gives them
    "French gender (nouns)": "the gender of the noun's French translation (le chien, la voiture); English "
    "nouns carry none, so the encoder's embeddings can only have learned it from the translations",
    "word class": "the word's class in the toy English grammar (noun, verb, adjective, name, place, …)",
}
PROPERTY_NOUN = {"word class": "word class", "French gender (nouns)": "French gender"}

EMBEDDINGS_TEXT = (
    "Before a word can attend to anything it must be a vector. The lecture's first answer is the **1-hot** "
    "vector: list the vocabulary V, and word number i is a column of |V| zeros with a 1 in row i. Every two "
    "different words are then equally unlike (their dot product is 0), and a vector is as long as the "
    "vocabulary. The second answer is a **learned embedding**: a table of |V| rows of d numbers, one row per "
    "word, trained with the model, so that words used alike get similar rows (the lecture's features *Gender*, "
    "*Royal*, *Food* are what one hopes a dimension means; a trained table's dimensions have no names). The "
    "lecture then draws a trained table in 2-D (with t-SNE). Below is the source embedding table of the "
    "translator the Bahdanau lesson ships, before and after its training, projected to 2-D with PCA (the plane "
    "that keeps most of the table's variance): "
)


def _word_properties() -> dict[str, dict[str, str]]:
    """English word -> its value of each :data:`PROPERTIES`, read from the toy grammar's lexicon."""
    from minimodels.tasks import lexicon as lex

    word_class: dict[str, str] = {}
    gender: dict[str, str] = {}
    for n in lex.NOUNS:
        for w in (n.en, n.en_pl):
            word_class[w] = "noun"
            gender[w] = {"m": "masculine", "f": "feminine"}[n.fr_gender]
    for v in lex.VERBS:
        if " " not in v.en:  # "look for" is two pieces
            word_class[v.en] = word_class[v.en_3sg] = "verb"
    for a in lex.ADJECTIVES:
        word_class[a.en] = "adjective"
    for kind, names in (("name", lex.NAMES), ("place", [p.en for p in lex.PLACES]), ("month", lex.MONTHS["en"]),
                        ("weekday", lex.WEEKDAYS["en"]), ("number", tuple(lex.NUMBERS))):  # fmt: skip
        word_class.update(dict.fromkeys(names, kind))
    for w in (*lex.SUBJECT_PRONOUNS["en"], *lex.OBJECT_PRONOUNS):
        word_class.setdefault(w, "pronoun")
    return {"word class": word_class, "French gender (nouns)": gender}


@dataclass(frozen=True)
class NeighbourShare:
    """How often a word's k nearest neighbours (cosine, full space) share its label, averaged over the words."""

    share: float
    chance: float  # the mean share over :data:`SHUFFLES` random relabellings of the same points
    reached: int  # how many of those relabellings reached ``share``
    shuffles: int

    @property
    def above_chance(self) -> bool:
        """Clearly above chance: at most 1% of the shuffled labellings reached the share."""
        return self.reached <= 0.01 * self.shuffles


def neighbour_share(vectors: np.ndarray, labels, k: int = NEIGHBOURS, shuffles: int = SHUFFLES,
                    seed: int = 0) -> NeighbourShare:  # fmt: skip
    """For each word, the share of its ``k`` nearest neighbours (largest cosine similarity, itself excluded) with
    its label; the mean over words, against the same with the labels shuffled ``shuffles`` times (seeded)."""
    labels = np.asarray(labels)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)  # (n, d)
    similarity = unit @ unit.T  # (n, n)
    np.fill_diagonal(similarity, -np.inf)
    nearest = np.argsort(-similarity, axis=1, kind="stable")[:, :k]  # (n, k)

    def share_of(lab: np.ndarray) -> float:
        return float((lab[nearest] == lab[:, None]).mean())

    rng = np.random.default_rng(seed)
    observed = share_of(labels)
    shuffled = np.array([share_of(rng.permutation(labels)) for _ in range(shuffles)])
    return NeighbourShare(observed, float(shuffled.mean()), int((shuffled >= observed - 1e-12).sum()), shuffles)


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, float]:
    """The rows projected onto their first two principal axes (numpy's SVD of the centred table), each axis's
    sign fixed so its largest loading is positive; and the share of the variance those two axes keep."""
    centred = vectors - vectors.mean(axis=0)  # (n, d)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)  # vt: (d, d), rows are the principal axes
    axes = vt[:2] * np.sign(vt[:2][np.arange(2), np.abs(vt[:2]).argmax(axis=1)])[:, None]  # (2, d)
    return centred @ axes.T, float((s[:2] ** 2).sum() / (s**2).sum())  # (n, 2)


@dataclass(frozen=True)
class EmbeddingView:
    """One property's words in one state of the table: their 2-D PCA (of these words' rows only) and neighbours."""

    words: tuple[str, ...]  # the words the property is defined for
    labels: tuple[str, ...]  # each word's value of the property
    coords: np.ndarray  # (n, 2)
    kept: float  # share of these rows' variance the two axes keep
    neighbours: NeighbourShare


@dataclass(frozen=True)
class EmbeddingMap:
    views: dict[tuple[str, str], EmbeddingView]  # (table, property) -> view; table "trained" | "before training"
    vocab_size: int  # |V|: the source tokenizer's pieces
    dim: int  # d: the embedding's width
    described: str  # the model, as its config describes itself
    steps: int  # training steps of the shipped checkpoint
    seed: int  # its initial weights' seed


TABLES = ("trained", "before training")


def embedding_map(model, meta: dict) -> EmbeddingMap:
    """The shipped model's source embedding table and the one it started from (rebuilt by the trainer's own
    :func:`minimodels.train.models.build_model` from the checkpoint's seed and config), for every source piece
    that is a whole word of the toy lexicon (``▁dog``, not ``▁hor`` + ``se``)."""
    from minimodels.tasks import get_task
    from minimodels.train.models import build_model

    task = get_task(meta["task"], seed=meta.get("task_seed", 0))  # already built by load_pretrained's check
    initial = build_model(meta["model"], task, seed=meta["seed"], **meta["config"])
    pieces = meta["tokenizers"]["source"]["pieces"]
    views = {}
    for prop, values in _word_properties().items():
        rows = [(i, p[1:]) for i, p in enumerate(pieces) if p.startswith("▁") and p[1:] in values]
        ids, words = [i for i, _ in rows], tuple(w for _, w in rows)
        labels = tuple(values[w] for w in words)
        for table, m in zip(TABLES, (model, initial), strict=True):
            vectors = m.source_embedding.weight.detach().double().numpy()[ids]  # (n, d)
            coords, kept = pca_2d(vectors)
            views[table, prop] = EmbeddingView(words, labels, coords, kept, neighbour_share(vectors, labels))
    return EmbeddingMap(views, len(pieces), int(model.source_embedding.embedding_dim), model.config.describe(),
                        int(meta.get("training", {}).get("steps", 0)), int(meta["seed"]))  # fmt: skip


def shipped_embedding_map(task: str = EMBEDDING_MODEL[0], model: str = EMBEDDING_MODEL[1]) -> EmbeddingMap:
    """:func:`embedding_map` of the shipped checkpoint ``task``/``model`` (raises ``LookupError`` when none)."""
    from lessons.common.pretrained import load_pretrained

    return embedding_map(*load_pretrained(task, model))


def one_hot_sentence(m: EmbeddingMap) -> str:
    """|V| × |V| against |V| × d, for this model and for the lecture's numbers."""
    V, d = m.vocab_size, m.dim
    return (
        f"This model's source vocabulary has |V| = {V:,} pieces. As 1-hot vectors each piece would be {V:,} "
        f"numbers long ({V - 1:,} zeros and one 1), the whole vocabulary a {V:,} × {V:,} table of {V * V:,} numbers; "
        f"its embedding table is {V:,} × {d} = {V * d:,} numbers, {V / d:.1f}× fewer, and each word is {d} numbers "
        f"it learned. With the lecture's |V| = {LECTURE_VOCAB:,} and {LECTURE_FEATURES} features: "
        f"{LECTURE_VOCAB**2:,} against {LECTURE_VOCAB * LECTURE_FEATURES:,}."
    )


def _chance_text(s: NeighbourShare) -> str:
    if s.above_chance:
        reached = "none" if s.reached == 0 else f"only {s.reached}"
        return f"above chance ({s.chance:.0%}: {reached} of {s.shuffles:,} random relabellings reached it)"
    if s.share <= s.chance:
        return f"no more than chance ({s.chance:.0%})"
    return f"not clearly above chance ({s.chance:.0%}: {s.reached / s.shuffles:.0%} of random relabellings reached it)"


def embedding_sentence(m: EmbeddingMap, prop: str) -> str:
    """What the neighbours show for ``prop``, trained against before training, computed from the shares."""
    trained, before = m.views["trained", prop], m.views["before training", prop]
    a, b = trained.neighbours, before.neighbours
    change = (
        f"training raised it by {100 * (a.share - b.share):.0f} points" if a.share > b.share + 0.005
        else f"training lowered it by {100 * (b.share - a.share):.0f} points" if a.share < b.share - 0.005
        else "training left it where it was"
    )  # fmt: skip
    return (
        f"Of each of these {len(trained.words)} words' {NEIGHBOURS} nearest neighbours in the full {m.dim}-dimensional "
        f"table (cosine similarity), **{a.share:.0%} share its {PROPERTY_NOUN[prop]}** after training, "
        f"{_chance_text(a)}; before training {b.share:.0%}, {_chance_text(b)}: {change}. The plane keeps "
        f"{trained.kept:.0%} of these rows' variance ({before.kept:.0%} before training), so judge the neighbours "
        "by these numbers more than by eye. "
        f"One trained model (seed {m.seed}, {m.steps} steps): another seed would place the words elsewhere."
    )


PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#b279a2", "#9d755d", "#eeca3b", "#ff9da6")


def embedding_figure(m: EmbeddingMap, prop: str, table: str = "trained"):
    """The words' rows in 2-D (PCA), each point labelled by its word, one colour per value of ``prop``."""
    v = m.views[table, prop]
    groups = sorted(set(v.labels), key=lambda g: (-v.labels.count(g), g))  # the largest group first
    data = []
    for g, group in enumerate(groups):
        idx = [j for j, label in enumerate(v.labels) if label == group]
        data.append(
            {"type": "scatter", "mode": "markers+text", "name": group, "x": v.coords[idx, 0], "y": v.coords[idx, 1],
             "text": [charts.safe_label(v.words[j]) for j in idx], "textposition": "top center",
             "textfont": {"size": 9, "color": PALETTE[g % len(PALETTE)]},
             "marker": {"size": 7, "color": PALETTE[g % len(PALETTE)]},
             "hovertemplate": f"%{{text}} · {group}<extra></extra>"}
        )  # fmt: skip
    layout = {
        "title": {"text": f"{prop}, {table}<br>PCA to 2-D: {v.kept:.0%} of the variance"},  # two lines fit a phone
        "xaxis": {"title": {"text": "principal axis 1"}, "zeroline": False},
        "yaxis": {"title": {"text": "principal axis 2"}, "zeroline": False},
        "legend": {"orientation": "h", "y": -0.12}, "height": 560, "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
    }  # fmt: skip
    return charts.figure(data, layout)


# --------------------------------------------------------------------------------------------------
# 6. Why no recurrence: all positions at once (the lecture's "Limitation? … Sequential")
# --------------------------------------------------------------------------------------------------

RECURRENCE_LENGTHS = (8, 16, 32, 64, 128, 256, 512)  # T
RECURRENCE_WIDTH = 64  # the GRU's E = H and the self-attention layer's d: the same width
RECURRENCE_BATCH = 8  # sequences per call; times are per sequence
RECURRENCE_REPEATS = 3  # averages per figure; the fastest is kept
GRU_ENCODER = "GRU encoder (T steps in a row)"
SELF_ATTENTION = "self-attention layer (all T at once)"
RECURRENCE_COLORS = {GRU_ENCODER: "#d62728", SELF_ATTENTION: "#17becf"}
_MATRIX_PRODUCTS = {"MmBackward0", "AddmmBackward0", "BmmBackward0"}  # autograd's nodes for a matrix product

RECURRENCE_TEXT = (
    "The lecture's *Limitation?* slide: an RNN, a GRU, an LSTM, each more complex than the last, are all "
    "**sequential**. The GRU encoder's state at step t needs its state at step t − 1, so reading T words is T "
    "matrix products one after another, however many cores are free. Self-attention has no state to wait for: "
    "$XW^Q$ projects every word at once, one product $QK^\\top$ gives all T × T scores, one more mixes the "
    "values. Below, both are counted from the models' own computation graphs (*steps*: the longest chain of "
    "matrix products each of which needs the one before) and timed on this server: a GRU encoder (the lessons' "
    "`Seq2Seq` encoder, E = H = {width}) against a self-attention layer of the same width (section 5's "
    "softmax(QKᵀ/√d)V with d = {width}), random weights, {batch} sequences per call, one CPU thread, measured "
    "once when the server first shows this section."
)


def matrix_product_chain(output: torch.Tensor) -> int:
    """The longest chain of matrix products in ``output``'s autograd graph, each needing the one before: how many
    products must run one after another, whatever the number of cores. Walks the graph without recursion."""
    order, seen, stack = [], set(), [(output.grad_fn, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)  # every input of ``node`` is already in ``order``
        elif node is not None and node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((n, False) for n, _ in node.next_functions if n is not None and n not in seen)
    depth: dict = {}
    for node in order:
        below = max((depth[n] for n, _ in node.next_functions if n is not None), default=0)
        depth[node] = below + (type(node).__name__ in _MATRIX_PRODUCTS)
    return depth[output.grad_fn]


@dataclass
class RecurrenceModels:
    """The two layers the section compares, same width, seeded random weights."""

    encoder: object  # minimodels.seq2seq.Seq2Seq: its source embedding and GRU encoder
    W_q: torch.nn.Linear
    W_k: torch.nn.Linear
    W_v: torch.nn.Linear

    def gru(self, source: torch.Tensor) -> torch.Tensor:
        """The Seq2Seq encoder's states (B, T, H): torch's fused GRU, its loop over t in C++."""
        lengths = torch.full((source.shape[0],), source.shape[1])
        return self.encoder.encode(source, lengths).states

    def attention(self, source: torch.Tensor) -> torch.Tensor:
        """softmax(QKᵀ/√d)V on the same embeddings: (B, T, d)."""
        x = self.encoder.source_embedding(source)  # (B, T, d)
        return scaled_dot_product_attention(self.W_q(x), self.W_k(x), self.W_v(x))[0]  # (B, T, d)

    def gru_stepped(self, source: torch.Tensor, layers: int = 1, bidirectional: bool = False) -> torch.Tensor:
        """The same GRU written as steps (lesson 1's :class:`minimodels.cells.GRUCell`, with the encoder's weights
        for the first layer): every state one cell call after the one before. ``layers`` > 1 stacks more cells
        (seeded random weights), each reading, position by position, the states of the layer below;
        ``bidirectional`` adds a right-to-left pass to every layer. Returns the top layer's states (B, T, H or 2H).
        Positions are kept as separate tensors, so the graph holds only the dependencies the GRU has."""
        from minimodels.cells import GRUCell

        gru, H = self.encoder.encoder, self.encoder.config.hidden_size
        embedded = self.encoder.source_embedding(source)  # (B, T, E)
        inputs = [embedded[:, t] for t in range(source.shape[1])]  # T × (B, E)
        g = torch.Generator().manual_seed(0)
        for layer in range(layers):
            passes = []
            for direction in range(2 if bidirectional else 1):
                cell = GRUCell(inputs[0].shape[-1], H)
                with torch.no_grad():
                    for name, p in cell.named_parameters():
                        first = layer == 0 and direction == 0  # the encoder's own weights
                        drawn = (torch.rand(p.shape, generator=g) * 2 - 1) / math.sqrt(H)  # PyTorch's own init range
                        p.copy_(getattr(gru, f"{name}_l0") if first else drawn)
                h, states = None, [None] * len(inputs)
                for t in range(len(inputs)) if direction == 0 else reversed(range(len(inputs))):
                    h, _ = cell(inputs[t], h)  # (B, H): needs the h of the step before
                    states[t] = h
                passes.append(states)
            inputs = [torch.cat(at_t, dim=-1) for at_t in zip(*passes, strict=True)]  # T × (B, H × directions)
        return torch.stack(inputs, dim=1)  # (B, T, H × directions)


def recurrence_models(width: int = RECURRENCE_WIDTH, vocab: int = 500, seed: int = 0) -> RecurrenceModels:
    from minimodels.seq2seq import Seq2Seq, Seq2SeqConfig

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        config = Seq2SeqConfig(source_vocab_size=vocab, target_vocab_size=8, attention="none",
                               embedding_size=width, hidden_size=width)  # fmt: skip
        encoder = Seq2Seq(config).eval()
        W_q, W_k, W_v = (torch.nn.Linear(width, width, bias=False) for _ in range(3))
    return RecurrenceModels(encoder, W_q, W_k, W_v)


def sequential_steps(models: RecurrenceModels, length: int, **gru_options) -> dict[str, int]:
    """Matrix products one after another (:func:`matrix_product_chain`) for a sequence of ``length`` tokens."""
    source = torch.zeros(1, length, dtype=torch.long)
    with torch.enable_grad():
        return {GRU_ENCODER: matrix_product_chain(models.gru_stepped(source, **gru_options)),
                SELF_ATTENTION: matrix_product_chain(models.attention(source))}  # fmt: skip


def multiply_adds(models: RecurrenceModels, length: int) -> dict[str, int]:
    """Multiply-adds per sequence of each layer, from its weight shapes: the GRU's 3 gates each do W_ih x and W_hh h
    at every step; self-attention does three T × d by d × d projections, then QKᵀ and αV, each T × T × d."""
    gru, d = models.encoder.encoder, models.W_q.in_features
    per_step = gru.weight_ih_l0.numel() + gru.weight_hh_l0.numel()  # 3H × E + 3H × H
    return {GRU_ENCODER: length * per_step, SELF_ATTENTION: 3 * length * d * d + 2 * length * length * d}


@dataclass(frozen=True)
class RecurrenceTiming:
    lengths: tuple[int, ...]
    ms: dict[str, tuple[tuple[float, ...], ...]]  # layer -> per length, each repeat's ms per sequence
    steps: dict[str, tuple[int, ...]]  # layer -> per length, matrix products one after another
    work: dict[str, tuple[int, ...]]  # layer -> per length, multiply-adds per sequence
    batch: int
    width: int
    threads: int
    seconds: float  # how long measuring took

    def fastest(self, layer: str, length: int) -> float:
        """The fastest repeat's ms per sequence: other work on a shared machine only ever adds time."""
        return float(min(self.ms[layer][self.lengths.index(length)]))


def measure_recurrence(lengths=RECURRENCE_LENGTHS, *, batch: int = RECURRENCE_BATCH, width: int = RECURRENCE_WIDTH,
                       budget: float = 0.01, repeats: int = RECURRENCE_REPEATS) -> RecurrenceTiming:  # fmt: skip
    """Wall time per sequence of the GRU encoder and the self-attention layer at each T (on whatever threads torch
    has here: the pages run on one), and each one's count of sequential matrix products and of multiply-adds."""
    lengths = tuple(int(t) for t in lengths)
    if not lengths or any(not 1 <= t <= 4096 for t in lengths):
        raise ValueError("lengths must be between 1 and 4096")
    started = time.perf_counter()
    models = recurrence_models(width)
    generator = torch.Generator().manual_seed(0)
    layers = {GRU_ENCODER: models.gru, SELF_ATTENTION: models.attention}
    ms: dict[str, list] = {name: [] for name in layers}
    steps: dict[str, list] = {name: [] for name in layers}
    work: dict[str, list] = {name: [] for name in layers}
    warm = torch.randint(4, 500, (batch, lengths[0]), generator=generator)  # (B, T)
    for fn in layers.values():  # the first calls of a fresh process are slow (allocations, kernel choice)
        call_seconds(fn, warm, budget=budget, repeats=repeats)
    for t in lengths:
        source = torch.randint(4, 500, (batch, t), generator=generator)  # (B, T)
        for name, fn in layers.items():
            ms[name].append(tuple(1000 * s / batch for s in call_seconds(fn, source, budget=budget, repeats=repeats)))
        for name, count in sequential_steps(models, t).items():
            steps[name].append(count)
        for name, count in multiply_adds(models, t).items():
            work[name].append(count)
    freeze = lambda d: {k: tuple(v) for k, v in d.items()}  # noqa: E731
    return RecurrenceTiming(lengths, freeze(ms), freeze(steps), freeze(work), batch, width, torch.get_num_threads(),
                            time.perf_counter() - started)  # fmt: skip


def recurrence_chart(timing: RecurrenceTiming) -> dict:
    """Milliseconds per sequence (the fastest repeat) against T, both axes logarithmic (slope 1: time ∝ T; slope 2:
    time ∝ T²)."""
    points = [
        {"variant": name, "seed": 0, "x": t, "y": timing.fastest(name, t), "order": i}
        for i, name in enumerate((GRU_ENCODER, SELF_ATTENTION))
        for t in timing.lengths
    ]
    threads = f"{timing.threads} thread{'s' if timing.threads > 1 else ''}"
    return curves_chart(points, y_title="ms per sequence (fastest of 3)", x_title="sequence length T",
                        title=f"Time per sequence, d = {timing.width}, {threads}",
                        log_x=True, log_y=True, height=340, colors=RECURRENCE_COLORS)  # fmt: skip


def recurrence_rows(timing: RecurrenceTiming) -> list[dict]:
    """One row per T: both layers' time (fastest repeat) and their sequential matrix products."""
    return [
        {"T": t, "GRU ms": timing.fastest(GRU_ENCODER, t), "attention ms": timing.fastest(SELF_ATTENTION, t),
         "GRU steps": timing.steps[GRU_ENCODER][i], "attention steps": timing.steps[SELF_ATTENTION][i]}
        for i, t in enumerate(timing.lengths)
    ]  # fmt: skip


def _growth(values: tuple[float, ...], lengths: tuple[int, ...]) -> float:
    """The exponent p in value ∝ T^p over the last two lengths (the log-log slope)."""
    return math.log(values[-1] / values[-2]) / math.log(lengths[-1] / lengths[-2])


def recurrence_sentence(timing: RecurrenceTiming) -> str:
    """What the counts and the measurement show, computed: the steps, who was faster where, how time grew
    against how the arithmetic grew."""
    first, last, lengths = timing.lengths[0], timing.lengths[-1], timing.lengths
    gru_steps, att_steps = timing.steps[GRU_ENCODER], timing.steps[SELF_ATTENTION]
    counted = (
        f"self-attention's stays at {att_steps[0]} whatever T" if len(set(att_steps)) == 1
        else f"self-attention's goes from {att_steps[0]} to {att_steps[-1]}"
    )  # fmt: skip
    threads = f"{timing.threads} thread{'s' if timing.threads > 1 else ''}"
    faster = [t for t in lengths if timing.fastest(SELF_ATTENTION, t) < timing.fastest(GRU_ENCODER, t)]
    if len(faster) == len(lengths):
        who = f"On {threads}, self-attention was faster at every length measured"
    elif not faster:
        who = f"On {threads}, the GRU was faster at every length measured"
    else:
        slower = [t for t in lengths if t not in faster]
        who = (f"On {threads}, self-attention was faster at T = {', '.join(map(str, faster))} and slower at "
               f"T = {', '.join(map(str, slower))}")  # fmt: skip
    ratio = lambda t: timing.fastest(SELF_ATTENTION, t) / timing.fastest(GRU_ENCODER, t)  # noqa: E731
    times = {name: tuple(timing.fastest(name, t) for t in lengths) for name in (GRU_ENCODER, SELF_ATTENTION)}
    grew = {name: _growth(v, lengths) for name, v in times.items()}
    work = {name: _growth(tuple(float(w) for w in timing.work[name]), lengths) for name in times}
    a, b = lengths[-2], lengths[-1]
    more = timing.work[SELF_ATTENTION][-1] / timing.work[GRU_ENCODER][-1]
    if more > 1:
        arithmetic = (
            f"What self-attention buys at long T is not less arithmetic (at T = {last} it does {more:.1f}× the GRU's "
            "multiply-adds, its T × T scores growing with T², and one thread must do every one of them in turn)"
        )
    else:
        arithmetic = (
            f"Up to T = {last} self-attention even does less arithmetic ({more:.2f}× the GRU's multiply-adds), but "
            "its T × T scores grow with T² and will overtake the GRU's at longer T; what it buys for good is not "
            "arithmetic"
        )
    return (
        f"Counted in the graphs: the GRU needs {gru_steps[0]} matrix products one after another at T = {first} and "
        f"{gru_steps[-1]:,} at T = {last}; {counted}. {who} (its time was {ratio(first):.2f}× the GRU's at T = "
        f"{first}, {ratio(last):.2f}× at T = {last}). From T = {a} to {b} the GRU's time grew as "
        f"T^{grew[GRU_ENCODER]:.1f} and self-attention's as T^{grew[SELF_ATTENTION]:.1f}; their multiply-adds grew "
        f"as T^{work[GRU_ENCODER]:.1f} and T^{work[SELF_ATTENTION]:.1f}. {arithmetic}: it is {att_steps[-1]} steps "
        f"instead of {gru_steps[-1]:,}, and the products of those few steps can be spread over as many cores as the "
        "hardware has; the GRU's steps cannot."
    )


# --------------------------------------------------------------------------------------------------
# Exercises, their answers computed from the same functions the figures use
# --------------------------------------------------------------------------------------------------


# Section 2's exercises: vectors of their own (not the page's defaults), so no answer can be read off the page.
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
        prompt="Predict, then run it: three words, as section 2's table would read them: "
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


EXERCISE_ONE_HOT = 5  # words in the 1-hot exercise's vocabulary (the page never shows 1-hot attention)
EXERCISE_BIDIRECTIONAL = 40  # T of the bidirectional-encoder exercise
EXERCISE_STACKED = 30  # T of the two-layer exercise


def _one_hot_exercise() -> Exercise:
    n = EXERCISE_ONE_HOT
    words = tuple((f"w{i + 1}", tuple(float(i == j) for j in range(n))) for i in range(n))
    r = plain_self_attention(words)  # X is the n × n identity
    own, other = float(r.weights[0, 0]), float(r.weights[0, 1])
    return Exercise(
        key="queries_keys_values.one_hot",
        prompt=f"By hand: a vocabulary of {n} words, each a 1-hot vector (section 1), and a sentence that uses each "
        f"word once. In section 2's Softmax(XXᵀ), what weight does a word give itself? (two decimals)",
        answer=own,
        tolerance=0.005,
        explanation=f"X is the {n} × {n} identity, so XXᵀ is too: a word's dot product with itself is 1 and with "
        f"every other word 0. Its row of scores is [1, 0, 0, 0, 0]: e¹ / (e¹ + {n - 1}·e⁰) = 2.718 / "
        f"{math.e + n - 1:.3f} = {own:.2f} on itself and 1 / {math.e + n - 1:.3f} = {other:.2f} on each other word, "
        "whichever words they are. 1-hot vectors say nothing about which words are alike; a learned embedding "
        "can, and section 1 measures whether it does.",
        hint="Two different 1-hot vectors have no 1 in the same row.",
    )


def _steps_choice_exercise(key: str, prompt: str, length: int, counted: int, why: str, **gru_options) -> Exercise:
    choices = tuple(sorted({1, 2, length, length + 1, 2 * length} | {counted}))
    labels = tuple(f"{c:,}" for c in choices)
    return Exercise(
        key=key,
        prompt=prompt,
        choices=labels,
        answer=choices.index(counted),
        explanation=f"Counted in the graph of the stepped GRU (section 6's count): {counted:,}. {why}",
        hint="A step waits only for the states it reads, not for every step computed before it.",
    )


def _recurrence_exercises() -> list[Exercise]:
    models = recurrence_models()
    T, S = EXERCISE_BIDIRECTIONAL, EXERCISE_STACKED
    bi = sequential_steps(models, T, bidirectional=True)[GRU_ENCODER]
    stacked = sequential_steps(models, S, layers=2)[GRU_ENCODER]
    both = sequential_steps(models, S, layers=2, bidirectional=True)[GRU_ENCODER]
    return [
        _steps_choice_exercise(
            "queries_keys_values.bidirectional",
            f"Predict: a bidirectional GRU encoder (lesson 2) reads T = {T} tokens, one pass left to right and one "
            "right to left. How many matrix products must run one after another (the longest chain)?",
            T,
            bi,
            f"Each pass is a chain of {T} steps, but neither pass reads the other: the right-to-left pass's first "
            f"step needs only the last token, so both chains can run side by side. The longest chain is {bi}, not "
            f"{2 * T}; the states are joined only after both passes end.",
            bidirectional=True,
        ),  # fmt: skip
        _steps_choice_exercise(
            "queries_keys_values.stacked",
            f"Predict: two GRU layers stacked, both left to right; the second reads the first's state at each "
            f"position. For T = {S} tokens, how many matrix products must run one after another (the longest chain)?",
            S,
            stacked,
            f"Layer 2's step t needs only layer 1's step t and its own step t − 1, so it can start as soon as layer 1 "
            f"has done step 1 and follow one step behind (a wavefront): layer 1's {S} products, then layer 2's last "
            f"input product, {stacked} in all, not {2 * S}. Make both layers bidirectional and layer 2 must wait for "
            f"all of layer 1 (its right-to-left pass starts at the last token): {both}.",
            layers=2,
        ),  # fmt: skip
    ]


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
        _one_hot_exercise(),
        *_recurrence_exercises(),
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
