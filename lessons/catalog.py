"""The course map: every lesson of Attention Lab, in order, with its one-line promise.

A lesson whose page file does not exist yet is not built: the home page and the sidebar list it as "coming",
without a link, so there is never a dead link or an empty page. Building a lesson means adding the file its
``page`` names under ``pages/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Lesson:
    title: str  # as it appears on the course map
    promise: str  # one line: what the student will see or be able to do
    icon: str  # a Material icon for st.page_link
    page: str | None = None  # path of the page file relative to the repo root; None while "coming"

    @property
    def built(self) -> bool:
        return self.page is not None and (ROOT / self.page).is_file()

    @property
    def url_path(self) -> str | None:
        """The path Streamlit serves the page at: the file name without its number prefix and ``.py``."""
        if self.page is None:
            return None
        stem = Path(self.page).stem
        return stem.split("_", 1)[1] if stem[:1].isdigit() and "_" in stem else stem


@dataclass(frozen=True)
class Part:
    title: str
    lessons: tuple[Lesson, ...]


COURSE: tuple[Part, ...] = (
    Part(
        "Part 1 · Recurrence and the bottleneck",
        (
            Lesson(
                "RNN cells",
                "Step an RNN, a GRU and an LSTM through a sentence and watch every gate.",
                ":material/replay:",
                page="pages/01_rnn_cells.py",
            ),
            Lesson(
                "Seq2seq and the fixed-size context",
                "Squeeze a whole sentence into one vector and see where it breaks.",
                ":material/compress:",
                page="pages/02_seq2seq_bottleneck.py",
            ),
        ),
    ),
    Part(
        "Part 2 · Attention",
        (
            Lesson(
                "Bahdanau attention",
                "Train a translator and watch it learn where to look, token by token.",
                ":material/visibility:",
                page="pages/03_bahdanau_attention.py",
            ),
            Lesson(
                "Scoring functions",
                "Dot, scaled dot, bilinear and additive scores, trained side by side.",
                ":material/functions:",
                page="pages/04_scoring_functions.py",
            ),
            Lesson(
                "Queries, keys and values",
                "Recompute the lecture's “Thinking Machines” example and attend over your own sentence.",
                ":material/key:",
                page="pages/05_queries_keys_values.py",
            ),
            Lesson(
                "Scaling by √d_k",
                "See dot products grow with d_k and the softmax saturate without scaling.",
                ":material/square_foot:",
                page="pages/06_scaling.py",
            ),
            Lesson(
                "Masking",
                "Hide padding and the future, and catch a decoder that cheats.",
                ":material/visibility_off:",
                page="pages/07_masking.py",
            ),
            Lesson(
                "Positional encoding",
                "Give attention a sense of order with sinusoids you can rotate.",
                ":material/timeline:",
                page="pages/08_positional_encoding.py",
            ),
            Lesson(
                "Multi-head attention",
                "Split d_model into heads and see each head look somewhere else.",
                ":material/view_module:",
                page="pages/09_multi_head_attention.py",
            ),
            Lesson(
                "The Transformer",
                "Follow your sentence through every layer and head of a trained model.",
                ":material/hub:",
                page="pages/10_transformer.py",
            ),
        ),
    ),
    Part(
        "Part 3 · Research labs",
        (
            Lesson(
                "Architecture lab",
                "Compose encoders and decoders in a layer-chain language and race them.",
                ":material/science:",
                page="pages/11_architecture_lab.py",
            ),
            Lesson(
                "The attention bridge",
                "Share one attention layer across languages and test zero-shot.",
                ":material/translate:",
                page="pages/12_attention_bridge.py",
            ),
        ),
    ),
)


def all_lessons() -> list[Lesson]:
    return [lesson for part in COURSE for lesson in part.lessons]


def built_lessons() -> list[Lesson]:
    return [lesson for lesson in all_lessons() if lesson.built]
