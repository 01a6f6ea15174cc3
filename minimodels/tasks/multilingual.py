"""Four toy languages that say the same things: multi-parallel data for the attention bridge lesson.

One random *meaning* of the toy-translation grammar (:mod:`minimodels.tasks.grammar`) is written in every
language at once, so a translation pair exists between any two of them, as in the multi30k data of Vázquez et
al. ("Multilingual NMT with a language-independent attention bridge"):

========  ==========================================================  ========================================
code      language                                                    "a dog carries the cow in October"
========  ==========================================================  ========================================
``en``    English (subject, verb, object)                             a dog carries the cow in October
``fr``    French-like: adjectives after the noun, clitic pronouns     un chien porte la vache en octobre
``it``    Italian-like: no subject pronouns, "mi piace"               un cane porta la mucca in ottobre
``vf``    verb-final, invented words: French word order with the      kazubo dolapi kovi mesu ... (verb last)
          verb moved to the end, every word replaced by a made-up
          one (names stay)
========  ==========================================================  ========================================

Tokens are whole words (a :class:`WordTokenizer` per language, its vocabulary every word the data holds, in
sorted order): small vocabularies (about 240 to 370 words) and a heatmap that reads word by word.

Splits hold *meanings*: no sentence of a valid or test meaning appears, in any language, in train, so a
zero-shot test translates sentences the model has never read in either language. The grammar's object
pronoun "him" is left out: French and the verb-final language write "it" and "him" alike ("le"), which would
make translating into English a guess. Italian drops subject pronouns ("vede il cane": he or she sees the
dog), so translating *from* Italian keeps a little real ambiguity; every other direction has one right answer.

Each sentence also carries its word alignment to the English sentence (from the grammar's gold alignment), so
a page can say which English words a token of any language expresses: the "concept" an attention head finds.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from minimodels.tasks.core import Alignment
from minimodels.tasks.grammar import Meaning, sample_meaning, translate
from minimodels.tasks.lexicon import NAMES
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID, Tokenizer, VocabularyTokenizer

LANGUAGES: tuple[str, ...] = ("en", "fr", "it", "vf")
LANGUAGE_NAMES = {"en": "English", "fr": "French-like", "it": "Italian-like", "vf": "Verb-final (invented)"}
MAX_LEN = 16  # words per sentence, without EOS; the grammar writes at most 13 (a test checks)

# ---------------------------------------------------------------- the invented verb-final vocabulary
_ONSETS = "bdgklmnprstvz"
_VOWELS = "aeiou"
_CODAS = ("", "n", "k", "r")
_SALT = "bridge-0"  # changing it re-draws every invented word; a test checks the words stay distinct


@functools.cache
def invented_word(word: str) -> str:
    """The verb-final language's word for a French-like word: three made-up syllables drawn from a hash of it
    (so the same word always gets the same invention, with no table to ship). Names are kept as they are."""
    if word in NAMES:
        return word
    n = int.from_bytes(hashlib.blake2b(f"{_SALT}:{word}".encode(), digest_size=8).digest(), "big")
    syllables = []
    for _ in range(3):
        n, onset = divmod(n, len(_ONSETS))
        n, vowel = divmod(n, len(_VOWELS))
        syllables.append(_ONSETS[onset] + _VOWELS[vowel])
    return "".join(syllables) + _CODAS[n % len(_CODAS)]


# ---------------------------------------------------------------- one meaning in every language
@dataclass(frozen=True)
class Parallel:
    """One meaning written in every language, each with its word alignment to the English sentence."""

    sentences: dict[str, str]  # language -> sentence (words separated by single spaces)
    alignments: dict[str, Alignment]  # language -> per word, the indices of the English words it expresses

    def words(self, lang: str) -> list[str]:
        return self.sentences[lang].split()


def render(meaning: Meaning) -> Parallel:
    """Write ``meaning`` in the four languages."""
    fr, it, vf = translate(meaning, "fr"), translate(meaning, "it"), translate(meaning, "fr", verb_final=True)
    english = fr.english.split()
    return Parallel(
        sentences={
            "en": fr.english,
            "fr": fr.target,
            "it": it.target,
            "vf": " ".join(invented_word(w) for w in vf.target.split()),
        },
        alignments={
            "en": [[i] for i in range(len(english))],
            "fr": fr.alignment,
            "it": it.alignment,
            "vf": vf.alignment,
        },
    )


def sample_parallel(rng: random.Random) -> Parallel:
    """A random meaning (never with the object pronoun "him", see the module docstring), in every language."""
    while True:
        meaning = sample_meaning(rng)
        if meaning.obj != "him":
            return render(meaning)


# ---------------------------------------------------------------- words <-> ids
class WordTokenizer(VocabularyTokenizer):
    """One id per known word (ids 4, 5, ... in the order given, after the four specials); others are UNK."""

    joiner = " "

    def __init__(self, words: Sequence[str], name: str = ""):
        super().__init__(list(words), "a vocabulary")
        self.name = name

    def units(self, text: str) -> list[str]:
        return text.split()

    def __repr__(self) -> str:
        return f"WordTokenizer({self.name!r}, {self.vocab_size} ids)"


# ---------------------------------------------------------------- the corpus
@dataclass
class Encoded:
    """One language's side of a split as tensors (N sentences, L = longest + 1)."""

    with_eos: torch.Tensor  # (N, L) long: the words then EOS, PAD after; an encoder's input, a decoder's target
    with_bos: torch.Tensor  # (N, L) long: BOS then the words, PAD after; a decoder's teacher-forced input
    lengths: torch.Tensor  # (N,) long: words + 1 (the EOS)


@dataclass
class PairBatch:
    """A minibatch translating ``source_lang`` into ``target_lang`` (B sentences; S, T trimmed to the longest)."""

    source_lang: str
    target_lang: str
    source: torch.Tensor  # (B, S) long, EOS-terminated, PAD after
    source_lengths: torch.Tensor  # (B,) long, EOS included
    target_in: torch.Tensor  # (B, T) long: BOS + target
    target_out: torch.Tensor  # (B, T) long: target + EOS


@dataclass
class MultilingualCorpus:
    """Multi-parallel splits of meanings in :data:`LANGUAGES`, with a word tokenizer per language.

    Shared and cached by :func:`get_multilingual`: treat it as read-only. ``pair_batch(split, src, tgt, index)``
    cuts a minibatch for any direction from tensors made once per split and language.
    """

    languages: tuple[str, ...]
    tokenizers: dict[str, WordTokenizer]
    train: list[Parallel]
    valid: list[Parallel]
    test: list[Parallel]
    probe: Parallel  # a fixed held-out (test) meaning whose attention a page draws in every language
    _encoded: dict[tuple[str, str], Encoded] = field(default_factory=dict, repr=False)

    def split(self, name: str) -> list[Parallel]:
        if name not in ("train", "valid", "test"):
            raise ValueError(f"unknown split {name!r}; choose from train, valid, test")
        return getattr(self, name)

    def encoded(self, split: str, lang: str) -> Encoded:
        if (split, lang) not in self._encoded:
            self._encoded[split, lang] = encode_sentences(
                [p.sentences[lang] for p in self.split(split)], self.tokenizers[lang]
            )
        return self._encoded[split, lang]

    def with_tokenizers(self, tokenizers: dict[str, WordTokenizer]) -> MultilingualCorpus:
        """The same sentences read with other vocabularies (a saved model's), nothing encoded yet."""
        return dataclasses.replace(self, tokenizers=dict(tokenizers), _encoded={})

    def pair_batch(self, split: str, source_lang: str, target_lang: str, index: torch.Tensor) -> PairBatch:
        """Rows ``index`` of ``split`` as a batch from ``source_lang`` into ``target_lang``."""
        src, tgt = self.encoded(split, source_lang), self.encoded(split, target_lang)
        s, t = int(src.lengths[index].max()), int(tgt.lengths[index].max())
        return PairBatch(
            source_lang,
            target_lang,
            src.with_eos[index, :s],
            src.lengths[index],
            tgt.with_bos[index, :t],
            tgt.with_eos[index, :t],
        )


def encode_sentences(sentences: Sequence[str], tokenizer: Tokenizer, max_len: int = MAX_LEN) -> Encoded:
    """Tokenize and pad ``sentences`` (each cut to ``max_len`` words) into an :class:`Encoded`."""
    rows = [tokenizer.encode(s)[:max_len] for s in sentences]
    width = max(len(r) for r in rows) + 1
    with_eos = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    with_bos = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    for k, r in enumerate(rows):
        with_eos[k, : len(r) + 1] = torch.tensor([*r, EOS_ID])
        with_bos[k, : len(r) + 1] = torch.tensor([BOS_ID, *r])
    return Encoded(with_eos, with_bos, torch.tensor([len(r) + 1 for r in rows]))


def draw_meanings(sizes: dict[str, int], seed: int) -> dict[str, list[Parallel]]:
    """Test, then valid, then train, from one ``random.Random(seed)``; a meaning is skipped when any of its
    sentences already occurs (in that language) in an earlier draw, so splits share no sentence in any language."""
    rng = random.Random(seed)
    seen: dict[str, set[str]] = {lang: set() for lang in LANGUAGES}
    out: dict[str, list[Parallel]] = {}
    for split in ("test", "valid", "train"):
        chosen: list[Parallel] = []
        misses = 0
        while len(chosen) < sizes[split]:
            p = sample_parallel(rng)
            if any(p.sentences[lang] in seen[lang] for lang in LANGUAGES):
                misses += 1
                if misses > 1000 + 20 * sizes[split]:
                    raise ValueError(f"could only draw {len(chosen)} distinct {split} meanings of {sizes[split]}")
                continue
            for lang in LANGUAGES:
                seen[lang].add(p.sentences[lang])
            chosen.append(p)
        out[split] = chosen
    return out


@functools.lru_cache(maxsize=8)
def get_multilingual(seed: int = 0, n_train: int = 6000, n_valid: int = 300, n_test: int = 500) -> MultilingualCorpus:
    """The corpus drawn from ``seed`` (the same seed gives the same data, well under a second)."""
    for name, n in (("n_train", n_train), ("n_valid", n_valid), ("n_test", n_test)):
        if n < 1:
            raise ValueError(f"{name} must be >= 1, got {n}")
    splits = draw_meanings({"train": n_train, "valid": n_valid, "test": n_test}, seed)
    everything = [p for s in splits.values() for p in s]
    tokenizers = {
        lang: WordTokenizer(sorted({w for p in everything for w in p.words(lang)}), name=lang) for lang in LANGUAGES
    }
    probe = next((p for p in splits["test"] if 6 <= len(p.words("en")) <= 9), splits["test"][0])
    return MultilingualCorpus(LANGUAGES, tokenizers, **splits, probe=probe)
