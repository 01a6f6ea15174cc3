"""The course, declared once: every lesson of Attention Lab, in order, with what it needs.

One :class:`Lesson` entry per lesson drives the course map (``app.py``), the sidebar, each page's set-up
(``ui.lesson``), the "Next: …" links and the tests that walk every page. Its ``slug`` is the lesson's one name in
every layer:

==================  ==============================================================================
page                ``pages/<slug>.py`` (served at ``/<slug>``)
lesson code         the package ``lessons/<slug>/``: ``__init__`` (the introduction, ``exercises()``) and
                    one module per section of the page
session-state keys  ``"<slug>.…"``
results script      ``scripts/<slug>_results.py``
shipped results     ``assets/results/<slug>.json``
tests               ``tests/lessons/<slug>/test_<module>.py``, ``tests/pages/test_<slug>.py``
==================  ==============================================================================

A lesson whose page file does not exist yet is not built: the course map lists it as "coming", without a link.
Adding a lesson copies nothing: an entry here, its lessons package, a short page, its tests (README, "Adding a
lesson"). The shape of an entry is in :mod:`lessons.common.entries`.
"""

from __future__ import annotations

from lessons.common.entries import ROOT as ROOT  # the repository's root: lessons find their assets from it
from lessons.common.entries import Axis, Lesson, Part, Tool

COURSE: tuple[Part, ...] = (
    Part(
        "Part 1 · Recurrence and the bottleneck",
        (
            Lesson(
                slug="rnn_cells",
                title="RNN cells",
                promise="Step an RNN, a GRU and an LSTM through a sentence and watch every gate.",
                icon=":material/replay:",
                tab_icon="🔁",
                introduces=("recurrence", "rnn", "gru", "lstm"),
                results=("assets/results/rnn_cells.json", "assets/results/rnn_cells_learning_rates.json"),
                pretrained=(),
                sources=(
                    "Sources: the Transformer lecture's “RNN cells” slides (RNN, GRU and LSTM equations; “The "
                    "cat, which already ate …, was full.”), “Why not a standard network?”, “Different types of "
                    "RNNs” and “Limitation? … Sequential”; the NLP lecture's note that attention helps with the "
                    "vanishing gradient through a shortcut to far-away states."
                ),
                sweep=(
                    Axis("rnn_cells.train.distance", "distance T", (5, 10, 20, 40, 60, 80)),
                    Axis("rnn_cells.train.seed", "seed", (0, 1, 2, 3, 4)),
                ),
            ),
            Lesson(
                slug="seq2seq_bottleneck",
                title="Seq2seq and the fixed-size context",
                promise="Squeeze a whole sentence into one vector and see where it breaks.",
                icon=":material/compress:",
                tab_icon="🗜️",
                introduces=("encoder", "decoder", "context vector", "bidirectional encoder", "pooling"),
                results=("assets/results/seq2seq_bottleneck.json",),
                pretrained=(),
                sources=(
                    "Sources: the Transformer lecture's encoder–decoder slides (“Jane visite l'Afrique en "
                    "septembre”, and the long sentence where “it is not perfect”); the NLP lecture's “Problem "
                    "2: fixed-size sequence embedding” (the bottleneck); Sutskever, Vinyals & Le 2014; Cho et "
                    "al. 2014; Bahdanau, Cho & Bengio 2015."
                ),
                sweep=(
                    Axis("seq2seq_bottleneck.train_d", "context size D", (16, 32, 64, 128)),
                    Axis("seq2seq_bottleneck.train_encoder", "encoder", ("unidirectional", "bidirectional")),
                    Axis("seq2seq_bottleneck.seed", "seed", (0, 1, 2, 3, 4)),
                ),
            ),
        ),
    ),
    Part(
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
                introduces=("residual", "layer norm", "feed-forward", "transformer"),
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
                    Axis(
                        "transformer.variant", "variant", ("full", "post-LN", "no residual", "no layer norm", "no FFN")
                    ),
                    Axis("transformer.seed", "seed", (0, 1, 2, 3, 4)),
                ),
            ),
        ),
    ),
    Part(
        "Part 3 · Research labs",
        (
            Lesson(
                slug="architecture_lab",
                title="Architecture lab",
                promise="Compose encoders and decoders in a layer-chain language and race them.",
                icon=":material/science:",
                tab_icon="🧪",
                introduces=("layer chains",),
                results=("assets/results/architecture_lab.json", "assets/results/architecture_lab_100_steps.json"),
                pretrained=(),
                sources=(
                    "Source: T. Domhan, *How Much Attention Do You Need? A Granular Analysis of Neural Machine "
                    "Translation Architectures*, ACL 2018 (Sockeye; its layer-chain language and tables). Gated "
                    "convolutions: Gehring et al., *Convolutional Sequence to Sequence Learning*, ICML 2017. "
                    "The Transformer: Vaswani et al., NeurIPS 2017."
                ),
                sweep=(Axis("architecture_lab.seed", "seed", (0, 1, 2, 3, 4)),),
            ),
            Lesson(
                slug="attention_bridge",
                title="The attention bridge",
                promise="Share one attention layer across languages and test zero-shot.",
                icon=":material/translate:",
                tab_icon="🌉",
                introduces=("attention bridge", "zero-shot"),
                results=(
                    "assets/results/attention_bridge.json",
                    "assets/results/attention_bridge_penalty.json",
                    "assets/results/attention_bridge_leave_out.json",
                ),
                pretrained=(),
                sources=(
                    "Source: Vázquez, Raganato, Tiedemann & Creutz, *Multilingual NMT with a language-"
                    "independent attention bridge* (RepL4NLP 2019): equations 1–3, Table 1 (zero-shot with and "
                    "without monolingual data) and Table 3 (the penalty). Lin et al. 2017 introduced the "
                    "structured self-attention and its penalty."
                ),
                sweep=(
                    Axis("attention_bridge.live.penalty", "penalty on", (True, False)),
                    Axis("attention_bridge.live.mono", "monolingual pairs", (True, False)),
                ),
            ),
        ),
    ),
    Part(
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
        ),
    ),
)


TOOLS: tuple[Tool, ...] = (
    Tool(
        slug="classroom",
        title="Class",
        promise="Start a class or join one: polls, predict-then-reveal, class sweeps, spotlight.",
        icon=":material/groups:",
        tab_icon="🧑‍🏫",
    ),
    Tool(
        slug="own_data",
        title="Your own data",
        promise="Bring sentence pairs in any language, train a model on them, keep it, bring it back.",
        icon=":material/upload_file:",
        tab_icon="📄",
    ),
)


def tool(slug: str) -> Tool:
    for entry in TOOLS:
        if entry.slug == slug:
            return entry
    raise KeyError(f"no tool {slug!r}; the tools are {', '.join(t.slug for t in TOOLS)}")


def all_lessons() -> list[Lesson]:
    return [lesson for part in COURSE for lesson in part.lessons]


def built_lessons() -> list[Lesson]:
    return [lesson for lesson in all_lessons() if lesson.built]


def lesson(slug: str) -> Lesson:
    """The catalog entry of a lesson; ``KeyError`` naming the known slugs when there is none."""
    for entry in all_lessons():
        if entry.slug == slug:
            return entry
    raise KeyError(f"no lesson {slug!r} in the catalog; known: {', '.join(e.slug for e in all_lessons())}")


def next_lesson(slug: str) -> Lesson | None:
    """The built lesson after this one in course order, or None for the last."""
    order = all_lessons()
    index = next(i for i, entry in enumerate(order) if entry.slug == slug)
    return next((entry for entry in order[index + 1 :] if entry.built), None)


def number(slug: str) -> int:
    """The lesson's number on the course map (1-based, in course order)."""
    return next(i for i, entry in enumerate(all_lessons(), 1) if entry.slug == slug)
