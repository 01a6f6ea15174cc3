"""Part 2 of the course map: its lessons, in order (the entries :mod:`lessons.common.catalog` reads)."""

from __future__ import annotations

from lessons.common.entries import Axis, Lesson, Part

PART = Part(
    "Part 2 · Attention",
    (
        Lesson(
            slug="bahdanau_attention",
            title="Bahdanau attention",
            promise="Train a translator and watch it learn where to look, token by token.",
            icon=":material/visibility:",
            tab_icon="👀",
            introduces=(
                "attention",
                "additive score",
                "alignment",
                "cross-attention",  # the decoder reads the encoder: the lecture's encoder-decoder attention
            ),
            results=(),
            pretrained=(
                ("toy-translation", "gru-additive"),
                ("toy-translation-it", "gru-additive"),
                ("dates", "gru-additive"),
            ),
            sources=(
                "Sources: the NLP lecture on attention (“I like pizza” → “mi piace la pizza”); Bahdanau, "
                "Cho & Bengio, *Neural Machine Translation by Jointly Learning to Align and Translate*, "
                "ICLR 2015."
            ),
            sweep=(
                Axis("bahdanau_attention.bidirectional", "bidirectional encoder", (False, True)),
                Axis("bahdanau_attention.seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="scoring_functions",
            title="Scoring functions",
            promise="Dot, scaled dot, bilinear and additive scores, trained side by side.",
            icon=":material/functions:",
            tab_icon="⚖️",
            introduces=("dot score", "bilinear score", "scaled dot score"),
            results=("assets/results/scoring_functions.json",),
            pretrained=(("toy-translation", "gru-additive"),),
            sources=(
                "Sources: the NLP lecture on attention (“Similarity between query and key”: bilinear, MLP, "
                "dot product, scaled dot product); Luong, Pham & Manning, *Effective Approaches to "
                "Attention-based Neural Machine Translation*, EMNLP 2015; Bahdanau, Cho & Bengio, ICLR "
                "2015; Vaswani et al., *Attention Is All You Need*, NeurIPS 2017."
            ),
            sweep=(Axis("scoring_functions.race_seed", "seed", (0, 1, 2, 3, 4)),),
        ),
        Lesson(
            slug="queries_keys_values",
            title="Queries, keys and values",
            promise="Recompute the lecture's “Thinking Machines” example and attend over your own sentence.",
            icon=":material/key:",
            tab_icon="🔑",
            introduces=("query", "key", "value", "self-attention"),
            results=(),
            pretrained=(
                ("toy-translation", "gru-additive"),  # section 1: its source embedding table
                ("toy-translation", "transformer"),  # section 6: its encoder's own W^Q, W^K, W^V
            ),
            sources=(
                "Sources: the Transformer lecture's “Thinking Machines” walk-through; the NLP lecture's "
                "query/key/value database analogy (English → Turkish table); Vaswani et al., *Attention Is "
                "All You Need*, 2017, eq. 1; the Transformer lecture's “Bringing tensors into the picture” "
                "(1-hot vectors, learned embeddings and their 2-D picture) and its “Limitation? … "
                "Sequential” slide."
            ),
        ),
        Lesson(
            slug="scaling",
            title="Scaling by √d_k",
            promise="See dot products grow with d_k and the softmax saturate without scaling.",
            icon=":material/square_foot:",
            tab_icon="📐",
            introduces=("scaling",),
            results=("assets/results/scaling.json", "assets/results/scoring_functions.json"),
            pretrained=(),
            sources=(
                "Sources: the Transformer lecture (“What about √d_k?”, the “Thinking Machines” example); "
                "Vaswani et al., *Attention Is All You Need*, NeurIPS 2017, §3.2.1; the NLP lecture on "
                "attention (“Scaled dot product attention”, sim(q, k) = qᵀk / √d′)."
            ),
        ),
        Lesson(
            slug="masking",
            title="Masking",
            promise="Hide padding and the future, and catch a decoder that cheats.",
            icon=":material/visibility_off:",
            tab_icon="🎭",
            introduces=("padding mask", "causal mask"),
            results=("assets/results/masking.json",),
            pretrained=(
                ("copy", "small-decoder-causal"),
                ("copy", "small-decoder-no-mask"),
            ),
            sources=(
                "Sources: the Transformer lecture's “Masking” slide (padding mask, sequence mask, “set "
                "future attention to −inf”); Vaswani et al., *Attention Is All You Need*, NeurIPS 2017, "
                "§3.2.3 (“masking out (setting to −∞) all values in the input of the softmax which "
                "correspond to illegal connections”)."
            ),
            sweep=(
                Axis("masking.live_causal", "causal mask", (True, False)),
                Axis("masking.seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="positional_encoding",
            title="Positional encoding",
            promise="Give attention a sense of order with sinusoids you can rotate.",
            icon=":material/timeline:",
            tab_icon="📍",
            introduces=("positional encoding",),
            results=("assets/results/positional_encoding.json",),
            pretrained=(
                ("copy", "small-encoder-none"),
                ("copy", "small-encoder-sinusoidal"),
                ("copy", "small-encoder-learned"),
            ),
            sources=(
                "Sources: the Transformer lecture (“Positional encoding”: the two formulas and “for any "
                "fixed offset k, PE_{pos+k} can be represented as a linear function of PE_pos”); Vaswani et "
                "al., *Attention Is All You Need*, NeurIPS 2017, §3.5."
            ),
            sweep=(
                Axis("positional_encoding.live_encoding", "encoding", ("none", "sinusoidal", "learned")),
                Axis("positional_encoding.live_seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="multi_head_attention",
            title="Multi-head attention",
            promise="Split d_model into heads and see each head look somewhere else.",
            icon=":material/view_module:",
            tab_icon="🐙",
            introduces=("heads", "multi-head attention"),
            results=("assets/results/multi_head_attention.json", "assets/results/multi_head_attention_it.json"),
            pretrained=(("toy-translation", "transformer"),),
            sources=(
                "Sources: the Transformer lecture (“What is multi-head self-attention”: Thinking Machines "
                "split into 8 heads, concatenate and multiply by W^O; “Why multi-head self-attention”); "
                "Vaswani et al., *Attention Is All You Need*, NeurIPS 2017, §3.2.2."
            ),
            sweep=(
                Axis("multi_head_attention.live.heads", "heads h", (1, 2, 4, 8)),
                Axis("multi_head_attention.live.seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
        Lesson(
            slug="transformer",
            title="The Transformer",
            promise="Follow your sentence through every layer and head of a trained model.",
            icon=":material/hub:",
            tab_icon="🤖",
            introduces=("residual", "layer norm", "feed-forward", "transformer", "teacher forcing"),
            results=("assets/results/transformer.json", "assets/results/transformer_depth.json"),
            pretrained=(
                ("dates", "transformer"),
                ("toy-translation", "transformer"),
            ),
            sources=(
                "Sources: the Transformer lecture (overall architecture, self-attention and “The animal "
                "didn't cross the street because it was too tired”, encoder–decoder attention, masking, "
                "residuals, “Q: Why feed forward NN?”, training and beam search); Vaswani et al., "
                "*Attention Is All You Need*, NeurIPS 2017; Xiong et al., *On Layer Normalization in the "
                "Transformer Architecture*, ICML 2020; He et al., *Deep Residual Learning for Image "
                "Recognition*, CVPR 2016."
            ),
            sweep=(
                Axis("transformer.variant", "variant", ("full", "post-LN", "no residual", "no layer norm", "no FFN")),
                Axis("transformer.seed", "seed", (0, 1, 2, 3, 4)),
            ),
        ),
    ),
)
