"""One table of symbols for lessons 1–4: the lecture's notation next to the one the pages use.

The NLP lecture writes an RNN's hidden state as a⟨t⟩ and an LSTM's memory cell as c⟨t⟩; the attention papers
and the later lessons write encoder states hᵢ, decoder states sₜ and the context vector cₜ. The same letter c
means two things across that bridge, so every page of lessons 1–4 shows the rows it uses from this one table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Symbol:
    page: str  # as lessons 2–4 write it
    lecture: str  # as the lecture writes it ("" where it has none)
    meaning: str
    lessons: tuple[str, ...]  # the slugs whose pages use it


SYMBOLS: tuple[Symbol, ...] = (
    Symbol("xₜ", "x⟨t⟩", "the input token (its embedding) at step t", ("rnn_cells", "seq2seq_bottleneck")),
    Symbol(
        "hₜ",
        "a⟨t⟩",
        "an RNN's hidden state after step t; in an encoder, the state hᵢ of source token i",
        ("rnn_cells", "seq2seq_bottleneck", "bahdanau_attention", "scoring_functions"),
    ),
    Symbol(
        "c⟨t⟩",
        "c⟨t⟩",
        "an LSTM's memory cell (only in lesson 1; from lesson 2 on, c means the context vector)",
        ("rnn_cells",),
    ),
    Symbol("Γ_f, Γ_u, Γ_o", "Γ_f, Γ_u, Γ_o", "an LSTM's forget, update (input) and output gates", ("rnn_cells",)),
    Symbol(
        "h⃗ᵢ, h⃖ᵢ, hᵢ = [h⃗ᵢ; h⃖ᵢ]",
        "→hᵢ, ←hᵢ",
        "a bidirectional encoder's forward and backward states, and the two joined",
        ("seq2seq_bottleneck", "bahdanau_attention"),
    ),
    Symbol(
        "sₜ",
        "hᵢ (decoder side)",
        "the decoder's hidden state after writing output token t",
        ("seq2seq_bottleneck", "bahdanau_attention", "scoring_functions"),
    ),
    Symbol(
        "Enc(x)",
        "Enc(x)",
        "one vector for the whole source: the last state, or a pooling of all of them",
        ("seq2seq_bottleneck", "bahdanau_attention"),
    ),
    Symbol(
        "D, H",
        "d",
        "an encoder state's size: D = H for one direction, D = 2H for a bidirectional encoder of H per direction",
        ("seq2seq_bottleneck",),
    ),
    Symbol(
        "e_{t,i}",
        "score(·,·)",
        "the score of source state hᵢ for the decoder at step t",
        ("bahdanau_attention", "scoring_functions"),
    ),
    Symbol(
        "α_{t,i}",
        "p(i | ·), α⟨t,t′⟩",
        "the attention weight: softmax of the scores over the source positions i",
        ("seq2seq_bottleneck", "bahdanau_attention", "scoring_functions"),
    ),
    Symbol(
        "cₜ",
        "c⟨t⟩ (attention slides)",
        "the context vector Σᵢ α_{t,i} hᵢ the decoder reads at step t",
        ("seq2seq_bottleneck", "bahdanau_attention", "scoring_functions"),
    ),
    Symbol(
        "yₜ, p(yₜ | y₍<t₎, x)",
        "y⟨t⟩",
        "the output token written at step t, and the probability the decoder gives it",
        ("bahdanau_attention",),
    ),
    Symbol("d", "d", "the size of the vectors a score compares", ("scoring_functions",)),
    Symbol(
        "q, kᵢ",
        "q, kᵢ",
        "the query and a key a score compares (in the race, q = sₜ and kᵢ = hᵢ)",
        ("scoring_functions",),
    ),
    Symbol(
        "d′, d″",
        "d′, d″",
        "a key's size when it differs from d; the additive score's hidden size",
        ("scoring_functions",),
    ),
    Symbol("W", "W", "the bilinear score's learned d × d′ matrix, in qᵀWk", ("scoring_functions",)),
    Symbol(
        "W₁, b₁, w₂", "W₁, w₂", "the additive (MLP) score's hidden layer and output weights", ("scoring_functions",)
    ),
    Symbol("σ²", "", "the variance of one entry of q or k; q·k then has sd about √d·σ²", ("scoring_functions",)),
)


def rows(slug: str) -> list[dict[str, str]]:
    """The table's rows a lesson's page shows, in the table's order (one table, so the same across lessons).
    Lesson 1 writes the lecture's a⟨t⟩ and c⟨t⟩ (the RNN-cells slides'); lessons 2–4 write the attention papers'
    hᵢ, sₜ, cₜ: the columns say so, so the table reads the same from every page."""
    return [
        {"lessons 2–4 write": s.page, "the lecture (and lesson 1) writes": s.lecture or "—", "meaning": s.meaning}
        for s in SYMBOLS
        if slug in s.lessons
    ]
