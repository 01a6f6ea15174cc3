"""``toy-translation`` (English -> French-like) and ``toy-translation-it`` (English -> Italian-like).

Sentences come from the grammar in :mod:`minimodels.tasks.grammar`; tokens are sentencepiece pieces from
the models shipped in ``assets/spm/`` (made by ``python -m scripts.train_tokenizers``). The lecture's
sentences are always in the training split: "Jane visits Africa in September" -> "Jane visite l'Afrique en
septembre" and "I see it" -> "je le vois" (French), "I like pizza" -> "mi piace la pizza" (Italian).

Gold alignment is defined between words by the grammar (see its docstring for the choices) and carried
to pieces: each target piece aligns to every piece of the English words its target word comes from.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from pathlib import Path

from minimodels.tasks.core import Alignment, Example, Task, draw_splits
from minimodels.tasks.grammar import LECTURE_MEANINGS, sample_meaning, translate
from minimodels.tokenizers import SentencePieceTokenizer

SPM_DIR = Path(__file__).resolve().parents[2] / "assets" / "spm"
TRANSLATION_TASKS = {"toy-translation": "fr", "toy-translation-it": "it"}
MAX_SOURCE_LEN = 24  # pieces; tests check that no generated sentence is longer
MAX_TARGET_LEN = 32


@functools.cache
def load_tokenizer(lang: str) -> SentencePieceTokenizer:
    """The shipped sentencepiece model for "en", "fr" or "it"."""
    path = SPM_DIR / f"{lang}.model"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python -m scripts.train_tokenizers` to make it")
    return SentencePieceTokenizer.load(path)


def lecture_examples(lang: str, verb_final: bool = False) -> list[Example]:
    """The lecture's sentence pairs for ``lang``, as this grammar writes them."""
    out = []
    for meaning in LECTURE_MEANINGS[lang]:
        t = translate(meaning, lang, verb_final)
        out.append(Example(t.english, t.target))
    return out


def to_pieces(
    word_alignment: Alignment,
    ex: Example,
    source_tokenizer: SentencePieceTokenizer,
    target_tokenizer: SentencePieceTokenizer,
) -> Alignment:
    """Carry a word alignment to sentencepiece pieces: a target piece gets every piece of its sources."""
    pieces_of_word: dict[int, list[int]] = {}
    for p, w in enumerate(source_tokenizer.word_index_of_pieces(ex.source)):
        pieces_of_word.setdefault(w, []).append(p)
    return [
        [p for w in word_alignment[tw] for p in pieces_of_word[w]]
        for tw in target_tokenizer.word_index_of_pieces(ex.target)
    ]


@dataclass
class PieceAligner:
    """Gold piece alignment for the sentences a task generated; None for any other pair."""

    words_of: dict[str, Alignment]  # English sentence -> word alignment of its translation
    source_tokenizer: SentencePieceTokenizer
    target_tokenizer: SentencePieceTokenizer

    def __call__(self, ex: Example) -> Alignment | None:
        words = self.words_of.get(ex.source)
        if words is None or len(words) != len(ex.target.split()):
            return None
        return to_pieces(words, ex, self.source_tokenizer, self.target_tokenizer)


def build_translation(
    name: str,
    seed: int = 0,
    n_train: int = 6000,
    n_valid: int = 500,
    n_test: int = 500,
    verb_final: bool = False,
) -> Task:
    lang = TRANSLATION_TASKS[name]
    words_of: dict[str, Alignment] = {}

    def sample(rng: random.Random) -> Example:
        t = translate(sample_meaning(rng), lang, verb_final)
        words_of[t.english] = t.alignment
        return Example(t.english, t.target)

    pinned = []
    for meaning in LECTURE_MEANINGS[lang]:
        t = translate(meaning, lang, verb_final)
        words_of[t.english] = t.alignment
        pinned.append(Example(t.english, t.target))
    splits = draw_splits(sample, {"train": n_train, "valid": n_valid, "test": n_test}, seed, pinned)
    source_tokenizer, target_tokenizer = load_tokenizer("en"), load_tokenizer(lang)

    language = {"fr": "French", "it": "Italian"}[lang]
    order = " with the verb last" if verb_final else ""
    return Task(
        name=name,
        source_tokenizer=source_tokenizer,
        target_tokenizer=target_tokenizer,
        **splits,
        max_source_len=MAX_SOURCE_LEN,
        max_target_len=MAX_TARGET_LEN,
        description=f"A toy English -> {language}-like grammar{order}: reordered adjectives and pronouns.",
        probe=pinned[0],
        aligner=PieceAligner(words_of, source_tokenizer, target_tokenizer),
    )


def tokenizer_corpus(seed: int = 0, n: int = 20000) -> dict[str, list[str]]:
    """Sentences to train the sentencepiece models on: ``n`` grammar samples written in every language,
    plus the lecture sentences. Fixed order, so the same seed gives the same corpus."""
    rng = random.Random(seed)
    corpus: dict[str, list[str]] = {"en": [], "fr": [], "it": []}
    meanings = [m for lang in ("fr", "it") for m in LECTURE_MEANINGS[lang]]
    meanings += [sample_meaning(rng) for _ in range(n)]
    for meaning in meanings:
        for lang in ("fr", "it"):
            t = translate(meaning, lang)
            corpus[lang].append(t.target)
        corpus["en"].append(t.english)
    return corpus
