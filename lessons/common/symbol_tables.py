"""The course's symbols, one table per part: each letter a page prints beside the letters the two lectures use.

The NLP lecture (``sources/nlp-lecture-attention.txt``) writes encoder states hᵢ, the decoder state gᵢ, scores sᵢ,
weights αᵢ and the context cᵢ; its self-attention slides call the *weight* matrices Q, K, V (qⱼ = Qhⱼ). The
Transformer lecture (``sources/transformer-lecture.txt``) writes RNN states a⟨t⟩, the attention slides' decoder
state s⟨t−1⟩, scores e⟨t,t′⟩ and weights α⟨t,t′⟩, and calls the *products* Q, K, V (Q = XW^Q). A lecture column
holds only letters that lecture's text really has (a test reads the file); "" where it has none. Part 3's lessons
follow papers, in the ``paper`` column (the attention bridge paper's text is in ``sources/`` too). ``latex`` lists
the letters the lesson's equations use for the symbol, as :func:`lessons.common.notation.letters` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Symbol:
    page: str  # as the course's pages write it
    meaning: str
    lessons: tuple[str, ...]  # the slugs whose pages use it, all in one part
    nlp: str = ""  # as the NLP lecture writes it, letters separated by ", " ("" where it has none)
    transformer: str = ""  # as the Transformer lecture writes it
    paper: str = ""  # as the lesson's paper writes it (Part 3: the attention bridge paper, the Sockeye poster)
    latex: tuple[str, ...] = ()  # the letters of the page's equations this row explains


R1, S2 = "rnn_cells", "seq2seq_bottleneck"
B3, F4, Q5, C6 = "bahdanau_attention", "scoring_functions", "queries_keys_values", "scaling"
M7, P8, H9, X10 = "masking", "positional_encoding", "multi_head_attention", "transformer"
A11, G12 = "architecture_lab", "attention_bridge"
P13, K14, I15, E16 = "positions_that_travel", "kv_cache", "induction_heads", "attention_explains"

PART_1: tuple[Symbol, ...] = (
    Symbol("x⟨t⟩", "the input (its embedding) at step t", (R1,), transformer="x⟨t⟩", latex=("x",)),
    Symbol("a⟨t⟩", "an RNN's hidden state (activation) after step t", (R1,), transformer="a⟨t⟩", latex=("a",)),
    Symbol("ŷ⟨t⟩", "the output at step t", (R1,), transformer="ŷ⟨t⟩", latex=("y",)),
    Symbol(
        "c⟨t⟩, c̃⟨t⟩",
        "a GRU's or LSTM's memory cell and its candidate (only in lesson 1: from lesson 2 on, c is the context)",
        (R1,),
        transformer="c⟨t⟩, c̃⟨t⟩",
        latex=("c",),
    ),
    Symbol(
        "Γ_u, Γ_r, Γ_f, Γ_o",
        "the gates: update, relevance (reset), forget, output; Γ_u is 1 − z in PyTorch's GRU",
        (R1,),
        transformer="Γ_u, Γ_r, Γ_f, Γ_o",
        latex=(r"\Gamma_u", r"\Gamma_r", r"\Gamma_f", r"\Gamma_o"),
    ),
    Symbol(
        "W_aa, W_ax, W_ya, W_c, W_u, W_r, W_f, W_o; b_a, b_y, …",
        "the cell's learned weights and biases, named for what they produce and read",
        (R1,),
        transformer="W_aa, W_ax, W_ya, W_c, W_u, W_r, W_f, W_o, b_a, b_y, b_c, b_u, b_r, b_f, b_o",
        latex=("W_aa", "W_ax", "W_ya", "W_c", "W_u", "W_r", "W_f", "W_o")
        + ("b_a", "b_y", "b_c", "b_u", "b_r", "b_f", "b_o"),
    ),
    Symbol("g, σ", "an activation function; σ the sigmoid", (R1,), transformer="g, σ", latex=("g", r"\sigma")),
    Symbol("T, t, k", "the sequence's length; a step; a step between t and T", (R1,), latex=("T", "t", "k")),
    Symbol(
        "x, xᵢ, yₜ",
        "the source sentence and its token i; the output token written at step t",
        (S2,),
        nlp="x, yᵢ",
        transformer="x⟨t⟩, ŷ⟨t⟩",
        latex=("x", "y"),
    ),
    Symbol("E", "the embedding matrix: E x is a token's vector", (S2,), latex=("E",)),
    Symbol(
        "hᵢ (h_I, h_like, …)",
        "the encoder's state at source position i (at the word I, like, …)",
        (S2,),
        nlp="hᵢ",
        transformer="a⟨t′⟩",
        latex=("h", "I", "like", "pizza"),
    ),
    Symbol(
        "h⃗ᵢ, h⃖ᵢ, hᵢ = [h⃗ᵢ; h⃖ᵢ]",
        "a bidirectional encoder's forward and backward states, and the two joined",
        (S2,),
        nlp="hᵢ (drawn with arrows)",
        latex=("h",),
    ),
    Symbol(
        "sₜ", "the decoder's state after writing output token t", (S2,), nlp="gᵢ", transformer="s⟨t−1⟩", latex=("s",)
    ),
    Symbol(
        "Enc(x), Enc(x, g)",
        "the source as one vector: a pooling of the states, or attention's weighted sum steered by g",
        (S2,),
        nlp="Enc(x), Enc(x, g)",
        latex=("Enc", "x", "g"),
    ),
    Symbol("g", "the vector attention's weights depend on (the decoder's state)", (S2,), nlp="g", latex=("g",)),
    Symbol("p(i | g)", "the weight of source position i", (S2,), nlp="p(i | g)", latex=("p", "i")),
    Symbol("c", "the context vector the decoder reads", (S2,), nlp="cᵢ", transformer="c⟨t⟩", latex=("c",)),
    Symbol("S, |x|, t", "the source's length; a step", (S2,), nlp="|x|", transformer="T_x", latex=("S", "t")),
    Symbol(
        "D, H",
        "a state's size: D = H one way, D = 2H for a bidirectional encoder of H per direction",
        (S2,),
        nlp="d",
        latex=("D", "H"),
    ),
    Symbol("W_o, W_c", "the decoder's output layer's weights", (S2,), latex=("W_o", "W_c")),
)

PART_2: tuple[Symbol, ...] = (
    Symbol(
        "hᵢ = [h⃗ᵢ; h⃖ᵢ]",
        "the encoder's state at source position i (both directions joined)",
        (B3, F4),
        nlp="hᵢ",
        transformer="a⟨t′⟩",
        latex=("h",),
    ),
    Symbol(
        "sₜ, s̃ₜ",
        "the decoder's state after output step t; s̃ₜ its output layer's input",
        (B3, F4),
        nlp="gᵢ",
        transformer="s⟨t−1⟩",
        latex=("s",),
    ),
    Symbol(
        "eₜ,ᵢ",
        "the score of source state hᵢ for the decoder at step t",
        (B3,),
        nlp="sᵢ, a(gᵢ, h)",
        transformer="e⟨t,t′⟩",
        latex=("e",),
    ),
    Symbol(
        "αₜ,ᵢ, αᵢ, αᵢ,ⱼ",
        "an attention weight: the softmax of the scores over the keys",
        (B3, F4, C6),
        nlp="αᵢ",
        transformer="α⟨t,t′⟩",
        latex=(r"\alpha",),
    ),
    Symbol(
        "cₜ, c", "the context: the weighted sum the decoder reads", (B3, F4), nlp="cᵢ", transformer="c⟨t⟩", latex=("c",)
    ),
    Symbol(
        "x, yₜ, p(yₜ | y₍<t₎, x)",
        "the source, the output token at step t and the probability of it",
        (B3,),
        nlp="x, yᵢ",
        transformer="ŷ⟨t⟩",
        latex=("x", "y", "p"),
    ),
    Symbol(
        "t, i, j",
        "an output step; a source position; any source position in a sum",
        (B3,),
        nlp="i, j (its i counts output steps in cᵢ = Σⱼ αᵢ,ⱼ hⱼ, and source positions in p(i | g))",
        transformer="t, t′",
        latex=("t", "i", "j"),
    ),
    Symbol(
        "W_q, W_k, v, W_c, W_o, E",
        "the additive score's weights (v the vector that turns its hidden layer into one score); the output "
        "layer's; the embedding",
        (B3,),
        latex=("W_q", "W_k", "v", "W_c", "W_o", "E"),
    ),
    Symbol(
        "q, kᵢ, vᵢ",
        "a query, a key and a value vector (in lesson 4's race, q = sₜ and kᵢ = vᵢ = hᵢ)",
        (F4, Q5, C6),
        nlp="q, kᵢ, vᵢ",
        transformer="q_1, k_1, v_1",
        latex=("q", "k", "v"),
    ),
    Symbol("sim(q, k)", "a score: how well key k matches query q", (F4,), nlp="sim(q, k)"),
    Symbol(
        "d, d′, d″",
        "the query's size; the key's when it differs; the additive score's hidden size",
        (F4,),
        nlp="d, d′, d″",
        latex=("d",),
    ),
    Symbol("W", "the bilinear score's learned d × d′ matrix, in qᵀWk", (F4,), nlp="W", latex=("W",)),
    Symbol(
        "W₁, b₁, w₂",
        "the additive (MLP) score's hidden layer and output weights",
        (F4,),
        nlp="W₁, w₂",
        latex=("W_1", "b_1", "w_2"),
    ),
    Symbol("σ²", "the variance of one entry of q or k; q·k then has sd about √d·σ²", (F4,)),
    Symbol("i", "a key's index", (F4,), nlp="i", latex=("i",)),
    Symbol(
        "X, xᵢ", "the word vectors, one row per word (T × d_model)", (Q5, X10), transformer="X, x_1", latex=("X", "x")
    ),
    Symbol(
        "Q, K, V",
        "the queries, keys and values of every word, one row each: Q = XW^Q, K = XW^K, V = XW^V",
        (Q5, C6, M7, H9, X10),
        nlp="q, k, v (every query, key and value, as columns: k = Kh)",
        transformer="Q, K, V",
        latex=("Q", "K", "V"),
    ),
    Symbol(
        "W^Q, W^K, W^V",
        "the learned weights that make queries, keys and values from the word vectors",
        (Q5, H9),
        nlp="Q, K, V (qⱼ = Qhⱼ, kᵢ = Khᵢ)",
        transformer="W^Q, W^K, W^V",
        latex=("W^Q", "W^K", "W^V"),
    ),
    Symbol("d_k", "the size of a query and a key", (Q5, C6, M7, H9), nlp="d′", transformer="d_k", latex=("d_k",)),
    Symbol(
        "z₁, Z",
        "the worked example's output for Thinking; every word's output",
        (Q5,),
        transformer="z_1, Z",
        latex=("z", "Z"),
    ),
    Symbol(
        "q_i, k_i, i", "entry i of q and of k (a sum over d_k entries)", (C6,), transformer="q_1, k_1", latex=("i",)
    ),
    Symbol(
        "M, M_ij, i, j", "the mask: 0 where query i may read key j, −∞ where it may not", (M7,), latex=("M", "i", "j")
    ),
    Symbol(
        "PE(pos, 2i), PE(pos, 2i+1)",
        "the sinusoid of frequency pair i at position pos",
        (P8,),
        transformer="PE(pos,2i), PE(pos,2i+1), pos, i",
        latex=("PE", "pos", "i"),
    ),
    Symbol("d_model", "the size of a word vector", (P8, H9), transformer="d_model", latex=("d_model",)),
    Symbol("ω_i", "pair i's frequency, 1 / 10000^(2i/d_model)", (P8,), latex=(r"\omega",)),
    Symbol(
        "k, R_i(k)",
        "an offset, and the 2 × 2 rotation that moves pair i by k positions",
        (P8,),
        transformer="k",
        latex=("k", "R"),
    ),
    Symbol(
        "h, head_i, W_i^Q, W_i^K, W_i^V",
        "the number of heads; head i and its own weights",
        (H9,),
        latex=("h", "i", "W_i^Q", "W_i^K", "W_i^V"),
    ),
    Symbol(
        "W^O", "the weights that mix the concatenated heads back to d_model", (H9,), transformer="W^o", latex=("W^O",)
    ),
    Symbol(
        "x, y; h, a, b",
        "a layer's input (encoder, decoder); what its sublayers add up to",
        (X10,),
        latex=("x", "y", "h", "a", "b"),
    ),
    Symbol("W₁, b₁, W₂, b₂", "the feed-forward block's two layers", (X10,), latex=("W_1", "b_1", "W_2", "b_2")),
    Symbol(
        "μ(x), σ(x), γ, β",
        "layer norm: the mean and sd over a vector's entries; its learned scale and shift",
        (X10,),
        latex=(r"\mu", r"\sigma", r"\gamma", r"\beta"),
    ),
)

PART_3: tuple[Symbol, ...] = (
    Symbol("l, l⁽ⁿ⁾", "a layer (a function of its input); its n-th copy", (A11,), latex=("l",)),
    Symbol("n", "a repeat count, as in repeat(n, …)", (A11,), paper="n", latex=("n",)),
    Symbol("x", "a layer's input", (A11,), latex=("x",)),
    Symbol("d", "the model's width (64 here)", (A11,)),
    Symbol("H = (h₁, …, hₙ)", "the encoder's n states, n × d_h", (G12,), paper="H, h_i", latex=("H",)),
    Symbol("n, d_h", "the sentence's length; a state's size", (G12,), paper="n, d_h", latex=("n",)),
    Symbol("k", "the bridge's heads: rows of A and of M", (G12,), paper="k", latex=("k",)),
    Symbol("A", "the bridge's weights, k × n, a softmax over the words per head", (G12,), paper="A", latex=("A",)),
    Symbol("M = AH", "the fixed-size matrix every sentence becomes, k × d_h", (G12,), paper="M", latex=("M",)),
    Symbol("W₁, W₂", "the bridge's learned weights", (G12,), paper="W_1, W_2", latex=("W_1", "W_2")),
    Symbol(
        "X, Y, p(Y | X)",
        "a source and a target sentence; the probability of the translation",
        (G12,),
        paper="X, Y, p(Y|X)",
        latex=("X", "Y", "p"),
    ),
    Symbol("ℒ, I, ‖·‖_F", "the loss; the identity; the Frobenius norm", (G12,), paper="ℒ, I, F", latex=("L", "I", "F")),
    Symbol("λ", "the penalty's weight (the paper's penalty has none: λ = 1)", (G12,), latex=(r"\lambda",)),
)

PART_4: tuple[Symbol, ...] = (
    Symbol("m, n", "a query's and a key's positions", (P13,), latex=("m", "n")),
    Symbol(
        "d, d_k", "a vector's size; a query's and key's", (P13, K14), nlp="d", transformer="d_k", latex=("d", "d_k")
    ),
    Symbol("x, x′, x_{2i}", "a vector, its rotation, the first entry of its pair i", (P13,), latex=("x",)),
    Symbol(
        "i",
        "a pair of dimensions (2i, 2i+1); in ALiBi's score, the query's position",
        (P13,),
        transformer="i",
        latex=("i",),
    ),
    Symbol("θ_i", "pair i's angle per position, 10000^(−2i/d)", (P13,), latex=(r"\theta",)),
    Symbol("R_m", "the rotation RoPE applies at position m (every pair turned by m·θ_i)", (P13,), latex=("R",)),
    Symbol(
        "q, k, q_i, k_j",
        "a query and a key (at positions i and j)",
        (P13,),
        nlp="q, kᵢ",
        transformer="q_1, k_1",
        latex=("q", "k"),
    ),
    Symbol("s^{(h)}_{ij}, j", "head h's score of key j for query i", (P13,), nlp="sᵢ", latex=("s", "j")),
    Symbol("m_h, h, H", "head h's ALiBi slope 2^(−8h/H); a head; the number of heads", (P13,), latex=("m", "h", "H")),
    Symbol("t", "the length so far (the token being written)", (K14,), latex=("t",)),
    Symbol("O(·)", "how a cost grows", (K14,), latex=("O",)),
    Symbol(
        "xₜ, qₜ, kₜ, vₜ",
        "token t's vector, and its query, key and value",
        (K14,),
        nlp="qⱼ, kᵢ, vᵢ",
        transformer="x_1, q_1, k_1, v_1",
        latex=("x", "q", "k", "v"),
    ),
    Symbol(
        "W^K, W^V",
        "the weights that make keys and values",
        (K14,),
        nlp="K, V",
        transformer="W^K, W^V",
        latex=("W^K", "W^V"),
    ),
    Symbol(
        "K_{≤t}, V_{≤t}",
        "the cache: every key and value so far, one row each",
        (K14,),
        nlp="k, v (the keys and values so far)",
        transformer="K, V",
        latex=("K", "V"),
    ),
    Symbol("zₜ, zᵢ", "position t's (or i's) output", (K14,), transformer="z_1", latex=("z",)),
    Symbol("w", "the sliding window: how many of the latest keys are kept", (K14,), latex=("w",)),
    Symbol("φ", "linear attention's feature map, elu(x) + 1", (K14,), latex=(r"\phi",)),
    Symbol(
        "Sᵢ, uᵢ, i, j",
        "linear attention's running sums up to position i; a position j ≤ i",
        (K14,),
        latex=("S", "u", "i", "j"),
    ),
    Symbol("R, T = 2R", "the random part's length; the whole sequence's", (I15, E16), latex=("R", "T")),
    Symbol("i, j", "a query's position and a key's", (I15, E16), nlp="i, j", latex=("i",)),
    Symbol(
        "αᵢ,ⱼ",
        "a head's weight on key j for query i",
        (I15, E16),
        nlp="αᵢ",
        transformer="α⟨t,t′⟩",
        latex=(r"\alpha",),
    ),
    Symbol("L, h, d", "layers; heads per layer; the model's width (d_model)", (I15, E16), transformer="d_model"),
    Symbol("v, v_j", "a value (one number in the by-hand exercise); key j's value", (E16,), nlp="vᵢ", latex=("v",)),
    Symbol("d_k", "a query's and a key's size, whose √ the scores are divided by", (E16,), transformer="d_k"),
    Symbol("τ", "Kendall's rank correlation of two rankings of the same tokens, −1 to 1", (E16,), latex=(r"\tau",)),
    Symbol(
        "KL", "the divergence of the changed model's next-token distribution from the intact one's, in nats", (E16,)
    ),
)
