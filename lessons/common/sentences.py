"""The student's sentence: split into words (a clear message instead of an exception for text the lessons cannot
read), and each word a fixed random vector, the same in every lesson that draws words as vectors."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import torch

MAX_TOKEN_CHARS = 40


@dataclass(frozen=True)
class ParsedSentence:
    tokens: tuple[str, ...]
    error: str | None = None  # why the text was refused; the page then keeps the last good sentence


def parse_sentence(text: str, max_tokens: int) -> ParsedSentence:
    """Split on whitespace; refuse empty or over-long input with a message instead of an exception."""
    tokens = tuple(text.split()) if isinstance(text, str) else ()
    if not tokens:
        return ParsedSentence((), "Type a sentence of at least one word.")
    if len(tokens) > max_tokens:
        return ParsedSentence((), f"That is {len(tokens)} words; this lesson takes at most {max_tokens}.")
    if any(len(t) > MAX_TOKEN_CHARS for t in tokens):
        return ParsedSentence((), f"Words longer than {MAX_TOKEN_CHARS} characters are not accepted.")
    return ParsedSentence(tokens)


def word_embedding(token: str, d_model: int) -> torch.Tensor:
    """A fixed random vector per word (seeded by the word's CRC32), so "the" is the same vector everywhere."""
    g = torch.Generator().manual_seed(zlib.crc32(token.lower().encode("utf-8")))
    return torch.randn(d_model, generator=g)
