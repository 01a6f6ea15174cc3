"""``copy``, ``reverse``, ``sort``: short strings whose true attention map is known by construction.

copy: the diagonal. reverse: the anti-diagonal. sort: a permutation; output character j comes from the
source position the *stable* sort put there, so repeated symbols align left to right ("abab" -> "aabb"
aligns to [[0], [2], [1], [3]]). Sorting follows the alphabet's order (digits before letters).

The gold alignment is computed from the strings themselves, so it also exists for text a user types.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from minimodels.tasks.core import Alignment, Example, Task, draw_splits
from minimodels.tokenizers import CharTokenizer

DEFAULT_ALPHABET = string.digits + string.ascii_lowercase


def sort_order(text: str, alphabet: str) -> list[int]:
    """Source positions in stable-sorted order (characters outside the alphabet sort last)."""
    rank = {c: k for k, c in enumerate(alphabet)}
    return sorted(range(len(text)), key=lambda i: rank.get(text[i], len(alphabet)))


@dataclass(frozen=True)
class StringAligner:
    """Where each target character comes from, for any source string (typed text included)."""

    name: str  # "copy" | "reverse" | "sort"
    alphabet: str  # the sort order

    def order(self, source: str) -> list[int]:
        """The source position of every target character."""
        if self.name == "copy":
            return list(range(len(source)))
        if self.name == "reverse":
            return list(range(len(source) - 1, -1, -1))
        return sort_order(source, self.alphabet)

    def pair(self, source: str) -> Example:
        return Example(source, "".join(source[i] for i in self.order(source)))

    def __call__(self, ex: Example) -> Alignment | None:
        if self.pair(ex.source) != ex:
            return None
        return [[i] for i in self.order(ex.source)]


STRING_TASKS = ("copy", "reverse", "sort")
PROBE_TEXT = "attention"  # repeated letters: the sort probe shows how stable sorting aligns them


def build_string_task(
    name: str,
    seed: int = 0,
    n_train: int = 4000,
    n_valid: int = 500,
    n_test: int = 500,
    min_len: int = 3,
    max_len: int = 10,
    alphabet: str = DEFAULT_ALPHABET,
) -> Task:
    if name not in STRING_TASKS:
        raise ValueError(f"not a string task: {name!r}")
    if not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got {min_len}, {max_len}")
    if len(alphabet) < 2 or len(set(alphabet)) != len(alphabet):
        raise ValueError(f"alphabet needs at least two distinct symbols, got {alphabet!r}")
    aligner = StringAligner(name, alphabet)

    def sample(rng: random.Random) -> Example:
        n = rng.randint(min_len, max_len)
        return aligner.pair("".join(rng.choices(alphabet, k=n)))

    fits = set(PROBE_TEXT) <= set(alphabet) and min_len <= len(PROBE_TEXT) <= max_len
    pinned = [aligner.pair(PROBE_TEXT)] if fits else []
    splits = draw_splits(sample, {"train": n_train, "valid": n_valid, "test": n_test}, seed, pinned)
    tokenizer = CharTokenizer(alphabet)
    return Task(
        name=name,
        source_tokenizer=tokenizer,
        target_tokenizer=tokenizer,
        **splits,
        max_source_len=max_len,
        max_target_len=max_len,
        description={
            "copy": "Copy a string: the attention map is the diagonal.",
            "reverse": "Reverse a string: the attention map is the anti-diagonal.",
            "sort": "Sort a string's characters (stable): the attention map is a permutation.",
        }[name],
        probe=(pinned or splits["train"] or [None])[0],
        aligner=aligner,
    )
