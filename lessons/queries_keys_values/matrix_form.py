"""Section 5: all queries at once, softmax(QKᵀ/√d_k)V, on the student's own sentence.

Each word is a fixed random vector (seeded by the word); X stacks them, Q = XW^Q, K = XW^K, V = XW^V with seeded
random W's, and one matrix product scores every query against every key. The weights are untrained: the figure
shows the mechanism, not what a trained model learns (section 6 does that). Later lessons read sentences and
embed words with :mod:`lessons.common.sentences`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lessons.common import charts, sentences
from lessons.common.exercises import Exercise
from lessons.common.sentences import ParsedSentence, word_embedding
from minimodels.attention import scaled_dot_product_attention

TITLE = "5 · All queries at once: softmax(QKᵀ/√d_k)V"
TEXT = (
    "Stack the words' embeddings into X; then Q = XW^Q, K = XW^K, V = XW^V and one matrix product scores every "
    "query against every key. Row *i* of the heatmap is the attention of word *i*. The W matrices here are random "
    "(seeded), not trained: the figure shows the mechanism, not what a trained model learns."
)
MAX_TOKENS = 24  # per-cell hover stays fast and the axis labels stay readable on a projector
DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired"


def parse_sentence(text: str, max_tokens: int = MAX_TOKENS) -> ParsedSentence:
    """The student's sentence for this section's heatmap (:func:`lessons.common.sentences.parse_sentence`)."""
    return sentences.parse_sentence(text, max_tokens)


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


EXERCISE_SHAPE = {"T": 6, "d_model": 12, "d_k": 4, "d_v": 3}


def shape_exercise() -> Exercise:
    """The shape of softmax(QKᵀ/√d_k)V, read from what the code returns for zeros of those shapes."""
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
    )


def rows_exercise() -> Exercise:
    """What one row of the attention matrix is: the softmax's axis."""
    return Exercise(
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
    )
