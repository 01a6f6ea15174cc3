"""Lesson: queries, keys and values.

Follows the Transformer lecture's "Thinking Machines" worked example (score q1·k1 = 112 and q1·k2 = 96,
divide by √d_k = 8, softmax 0.88 / 0.12, then z1 = Σ softmax × value) and the NLP lecture's database
analogy (a query looked up softly against a key → value table, each row weighted by the similarity of its
key with the query). Every number here is computed with :mod:`minimodels.attention`.
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

# --------------------------------------------------------------------------------------------------
# 1. The lecture's worked example
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


def weights_at(example: WorkedExample, d_k: int) -> torch.Tensor:
    """The example's softmax weights had the same dot products been scaled by √d_k of another width."""
    return masked_softmax(example.scores / math.sqrt(d_k))


# --------------------------------------------------------------------------------------------------
# 2. The database analogy
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
# 3. The matrix form on the student's own sentence
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

    Untrained weights: the pattern shows the *mechanism*, not linguistics. A trained model's heads come in the
    multi-head and Transformer lessons.
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


def exercises() -> list[Exercise]:
    ex = thinking_machines()
    wider = weights_at(ex, 256)
    mammals = soft_lookup("words for mammals", sharpness=3.0)
    sheep_bull = float(mammals.weights[0] + mammals.weights[3])
    return [
        Exercise(
            key="queries_keys_values.ex1",
            prompt=(
                "In the worked example, q₁·k₂ = 96 and d_k = 64. What weight does *Thinking* give to "
                "*Machines* after scaling and the softmax? (two decimals)"
            ),
            answer=float(ex.weights[1]),
            tolerance=0.005,
            explanation="96 / 8 = 12 and 112 / 8 = 14; softmax(14, 12) puts e¹²/(e¹⁴+e¹²) ≈ 0.12 on Machines.",
        ),
        Exercise(
            key="queries_keys_values.ex2",
            prompt=(
                "Keep the same dot products (112 and 96) but make the vectors wider: d_k = 256. "
                "What weight goes to *Thinking* now? (two decimals)"
            ),
            answer=float(wider[0]),
            tolerance=0.005,
            explanation="√256 = 16: the scaled scores are 7 and 6, a gap of 1 instead of 2, so the softmax is "
            "less peaked.",
        ),
        Exercise(
            key="queries_keys_values.ex3",
            prompt=(
                "In the database table, query *words for mammals* with sharpness 3. What total weight do "
                "the two mammals' rows (sheep → koyun, bull → boğa) get? (two decimals)"
            ),
            answer=sheep_bull,
            tolerance=0.01,
            explanation="Their keys share the 'mammal' feature with the query, so they score highest; the "
            "other nine rows still get a little weight: the lookup is soft.",
        ),
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
