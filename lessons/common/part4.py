"""Part 4 of the course map: its lessons, in order (the entries :mod:`lessons.common.catalog` reads)."""

from __future__ import annotations

from lessons.common.entries import Axis, Lesson, Part

PART = Part(
    "Part 4 · Attention as it is built and questioned today",
    (
        Lesson(
            slug="positions_that_travel",
            title="Positions that travel",
            promise="Rotate queries and keys (RoPE), penalise distance (ALiBi): train short, test long.",
            icon=":material/rotate_right:",
            tab_icon="🧭",
            introduces=("rotary position embedding", "alibi", "length extrapolation"),
            results=("assets/results/positions_that_travel.json",),
            pretrained=(),
            sources=(
                "Sources: Su, Lu, Pan, Murtadha, Wen & Liu, *RoFormer: Enhanced Transformer with Rotary Position "
                "Embedding* (2021; Neurocomputing 2024): the rotation of pairs by m·θ_i, θ_i = 10000^(−2i/d), "
                "and the score's dependence on m − n; Press, Smith & Lewis, *Train Short, Test Long: Attention "
                "with Linear Biases Enables Input Length Extrapolation*, ICLR 2022: the penalty −m_h·(i − j) "
                "and the geometric slopes 2^(−8h/H); the Transformer lecture's positional encoding (lesson 8). "
                "Facts and formulas are restated in our own words; the figures are this course's own."
            ),
            sweep=(
                Axis(
                    "positions_that_travel.live_scheme",
                    "position scheme",
                    ("none", "sinusoidal", "learned", "rope", "alibi"),
                ),
                Axis("positions_that_travel.live_seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="kv_cache",
            title="What attention costs, and the KV cache",
            promise="Time a decoder token by token, cache its keys and values, then trade memory for reach.",
            icon=":material/memory:",
            tab_icon="🗄️",
            introduces=("kv cache", "sliding window", "linear attention"),
            results=("assets/results/kv_cache.json",),
            pretrained=(("copy", "small-decoder-causal"),),
            sources=(
                "Sources: the key–value cache as decoders generate with it (the causal mask of Vaswani et al., "
                "*Attention Is All You Need*, 2017, is what makes it exact); the sliding window: Beltagy, Peters "
                "& Cohan, *Longformer: The Long-Document Transformer*, 2020; linear attention and its recurrent "
                "form: Katharopoulos, Vyas, Pappas & Fleuret, *Transformers are RNNs: Fast Autoregressive "
                "Transformers with Linear Attention*, ICML 2020 (equations 2–9, the feature map elu + 1). The "
                "copy task and its length sweep are lesson 2's. All in our own words; the numbers are ours."
            ),
            sweep=(
                Axis("kv_cache.live_window", "window w", (2, 7, 13, 19, 25)),
                Axis("kv_cache.live_seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="induction_heads",
            title="Induction heads, forming live",
            promise="Train a two-layer attention-only model, watch an induction head form, then knock it out.",
            icon=":material/content_copy:",
            tab_icon="🧲",
            introduces=("induction head", "previous-token head", "in-context learning", "head knock-out"),
            results=("assets/results/induction_heads.json",),
            pretrained=(),
            sources=(
                "Sources: Elhage et al., *A Mathematical Framework for Transformer Circuits*, Transformer "
                "Circuits Thread, 2021 (attention-only models, the residual stream, the two-layer induction "
                "circuit); Olsson et al., *In-context Learning and Induction Heads*, Transformer Circuits "
                "Thread, 2022 (the prefix-matching score, the phase change, head knock-outs). Their findings "
                "in our own words; every number on this page is this small model's, measured here."
            ),
            sweep=(Axis("induction_heads.seed", "seed", (0, 1, 2, 3, 4)),),
        ),
        Lesson(
            slug="attention_explains",
            title="Does attention explain?",
            promise="Zero, shuffle or flatten a head's weights, rank tokens by what they change, find planted bugs.",
            icon=":material/help:",
            tab_icon="🔍",
            introduces=(
                "attention as explanation",
                "weight permutation",
                "leave-one-out importance",
                "rank correlation",
            ),
            results=("assets/results/attention_explains.json",),
            pretrained=(),
            sources=(
                "Sources: Jain & Wallace, *Attention is not Explanation*, NAACL 2019 (permuted weights, and the "
                "weights' ranking of tokens against gradient and leave-one-out rankings by Kendall's τ); Serrano & "
                "Smith, *Is Attention Interpretable?*, ACL 2019 (zeroing weights and watching the decision); "
                "Wiegreffe & Pinter, *Attention is not not Explanation*, EMNLP 2019 (uniform weights as the "
                "baseline such tests need); the scaling by √d_k of Vaswani et al., *Attention Is All You Need*, 2017. "
                "Their findings in our own words; every number on this page is this small model's, measured here."
            ),
            sweep=(
                Axis("attention_explains.seed", "seed", (0, 1, 2, 3, 4)),
                Axis("attention_explains.model", "model", ("the course's recipe", "mystery model A")),
            ),
        ),
    ),
)
