"""The sequences the lesson's decoders read: an 8-letter word, "=", then the word in Caesar's cipher.

Every letter of the cipher is 3 further on in the alphabet (z -> c): "sequence=vhtxhqfh". A decoder reads the
sequence left to right and predicts every next character. The word's letters are random, so no honest model
predicts them; the cipher half follows from the word. A model that may read position t + 1 predicts everything by
copying it, and generating gives it no position t + 1 to copy.

Letters: W = ``WORD`` letters per word, B words in a batch.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache

import torch

from minimodels.small import random_strings
from minimodels.tasks import get_task
from minimodels.tokenizers import EOS_ID

TASK = "copy"  # the course's character task whose tokenizer the models use (its checkpoints are checked against it)
LETTERS = string.ascii_lowercase
WORD = 8  # letters per word
SHIFT = 3  # Caesar's own shift
SEP = "="  # shown for the separator token (the tokenizer's end-of-string id)
PROBE = "sequence"


@cache
def tokenizer():
    return get_task(TASK).source_tokenizer


@cache
def _tables() -> tuple[torch.Tensor, torch.Tensor]:
    """``(letter ids (26,), cipher (V,))``: the letters' token ids, and each id's id after the shift."""
    ids = torch.tensor(tokenizer().encode(LETTERS))
    shifted = torch.arange(tokenizer().vocab_size)
    shifted[ids] = ids.roll(-SHIFT)
    return ids, shifted


def cipher(word: str) -> str:
    """Caesar's cipher: every letter ``SHIFT`` further on in the alphabet, z wrapping to c."""
    return "".join(LETTERS[(LETTERS.index(c) + SHIFT) % len(LETTERS)] for c in word)


def sequences(words: torch.Tensor) -> torch.Tensor:
    """``(B, WORD)`` letter ids -> ``(B, 2·WORD + 1)``: word, separator, cipher."""
    sep = torch.full((len(words), 1), EOS_ID)
    return torch.cat([words, sep, _tables()[1][words]], dim=1)


def random_words(n: int, generator: torch.Generator) -> torch.Tensor:
    return random_strings(n, WORD, _tables()[0], generator)  # (n, WORD)


def encode_word(word: str) -> torch.Tensor:
    return torch.tensor([tokenizer().encode(word)])  # (1, WORD)


def input_labels(word: str) -> list[str]:
    """The decoder's input positions: the word, the separator, the cipher without its last letter."""
    return [*word, SEP, *cipher(word)[:-1]]


@dataclass(frozen=True)
class ParsedWord:
    word: str
    error: str | None = None


def parse_word(text: str) -> ParsedWord:
    """The student's word: exactly ``WORD`` lowercase letters a–z (what the models were trained on), or a message."""
    word = text.strip().lower() if isinstance(text, str) else ""
    if len(word) != WORD:
        return ParsedWord("", f"Type a word of exactly {WORD} letters (that is {len(word)}), e.g. “{PROBE}”.")
    odd = sorted({c for c in word if c not in LETTERS})
    if odd:
        return ParsedWord("", f"Letters a–z only (not {', '.join(repr(c) for c in odd[:5])}).")
    return ParsedWord(word)
