"""Part 3 of the course map: its lessons, in order (the entries :mod:`lessons.common.catalog` reads)."""

from __future__ import annotations

from lessons.common.entries import Axis, Lesson, Part

PART = Part(
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
                "assets/results/attention_bridge_long_run.json",
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
)
