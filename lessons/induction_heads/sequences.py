"""Section 1 of the induction-heads lesson: sequences that repeat.

A training sequence is R random tokens drawn uniformly from V, then the same R tokens again, then padding that no
loss reads. R changes from sequence to sequence (``MIN_REPEAT`` to ``MAX_REPEAT``), so the copy starts at a
different distance each time: no head can find the earlier token by its position alone, only by what it is. The
first R tokens are unpredictable (any model is right 1 time in V there); from the first token of the copy on, every
next token is in the context already, for a model that can find it.

Letters: V the vocabulary, R the length of the random part, T = 2R positions, i a query's position, j a key's.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lessons.common.exercises import Exercise

TITLE = "1 · Sequences that repeat"
VOCAB = 32  # V: token ids 0 … V − 1
MIN_REPEAT, MAX_REPEAT = 8, 16  # R: the random part's length, drawn per training sequence
POSITIONS = 2 * MAX_REPEAT  # T: the longest sequence, the model's position table
IGNORE = -100  # a target no loss reads (after the copy ends)
PROBE_REPEAT = MAX_REPEAT  # the scores are read on sequences of R = 16 random tokens and their copy
NAMES = [
    "ant",
    "bee",
    "cat",
    "dog",
    "eel",
    "fox",
    "gnu",
    "hen",
    "ibis",
    "jay",
    "koi",
    "lark",
    "mole",
    "newt",
    "owl",
    "pig",
    "quail",
    "rat",
    "seal",
    "toad",
    "urchin",
    "vole",
    "wasp",
    "yak",
    "zebu",
    "asp",
    "bat",
    "cod",
    "doe",
    "elk",
    "fly",
    "gar",
]  # a name per token id, so a sequence reads as words (V of them)

TEXT = (
    f"The task is the simplest one that rewards reading the context. A sequence is **R random tokens**, drawn "
    f"uniformly from V = {VOCAB}, **then the same R tokens again**. R changes from sequence to sequence ({MIN_REPEAT} "
    f"to {MAX_REPEAT}), so the copy starts at a different distance every time. The model reads left to right and "
    f"predicts every next token, as a causal decoder does. In the first half no model can beat a guess: the next "
    f"token is random. In the copy, every next token is already in the context, one place after the earlier "
    f"occurrence of the current token. A model that learns to look there and copy what it finds predicts the whole "
    f"second half. The tokens are shown as animal names so that a sequence reads, but they are only ids."
)


def repeated(n: int, generator: torch.Generator, repeat: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` sequences of R random tokens and their copy: ``(inputs (n, T), targets (n, T))``.

    ``repeat``: R for every sequence (None: drawn per sequence from ``MIN_REPEAT`` … ``MAX_REPEAT``). Row i of the
    targets is token i + 1; targets past the copy's end are ``IGNORE`` and inputs there are token 0 (a causal model's
    earlier positions never read them)."""
    T = 2 * (repeat or MAX_REPEAT)
    if repeat is None:
        lengths = torch.randint(MIN_REPEAT, MAX_REPEAT + 1, (n,), generator=generator)  # (n,)
    else:
        lengths = torch.full((n,), repeat)
    random_part = torch.randint(VOCAB, (n, T), generator=generator)  # (n, T)
    i = torch.arange(T + 1)[None, :]  # (1, T + 1)
    source = torch.where(i < lengths[:, None], i, i - lengths[:, None]).clamp(max=T - 1)  # (n, T + 1): i or i − R
    tokens = random_part.gather(1, source)  # (n, T + 1): the copy reads its token R places back
    tokens = tokens.masked_fill(i >= 2 * lengths[:, None], IGNORE)  # (n, T + 1): nothing after the copy
    return tokens[:, :-1].clamp(min=0), tokens[:, 1:]


@dataclass(frozen=True)
class Example:
    """One sequence as the page lays it out: its tokens' names, by half."""

    tokens: tuple[int, ...]

    @property
    def repeat(self) -> int:
        return len(self.tokens) // 2

    def names(self) -> list[str]:
        return [NAMES[t] for t in self.tokens]

    def table(self) -> list[dict]:
        """Rows for a table: position, token, which half, the next token, and whether the context predicts it."""
        R = self.repeat
        return [
            {
                "position i": i,
                "token": NAMES[t],
                "half": "random" if i < R else "copy",
                "next token": NAMES[self.tokens[i + 1]] if i + 1 < len(self.tokens) else "–",
                "predictable from the context?": "yes" if predictable(i, R) else "no",
            }
            for i, t in enumerate(self.tokens)
        ]


def predictable(i: int, R: int) -> bool:
    """Whether the token after position ``i`` follows from positions 0 … i: from the copy's first token to its
    second-to-last (the copy's first token itself is not: nothing says where the copy starts)."""
    return R <= i <= 2 * R - 2


def example_caption(example: Example) -> str:
    R = example.repeat
    first = NAMES[example.tokens[R]]
    after = NAMES[example.tokens[1]]
    return (
        f"R = {R}: positions 0–{R - 1} are random, {R}–{2 * R - 1} their copy. At position {R} the token is "
        f"{first}; the earlier {first} (position 0) was followed by {after}, so the next token is {after}. That "
        f"is the look-back an induction head learns. The last position's next token is outside the sequence. The "
        f"training sequences have R from {MIN_REPEAT} to {MAX_REPEAT}."
    )


def example(seed: int, repeat: int = 6) -> Example:
    """A short sequence of ``repeat`` random tokens and their copy, for the page's table."""
    inputs, _ = repeated(1, torch.Generator().manual_seed(seed), repeat)
    return Example(tuple(int(t) for t in inputs[0]))


def chance_exercise() -> Exercise:
    """By hand: the best accuracy any model can have on the first half's next tokens (1/V)."""
    return Exercise(
        key="induction_heads.chance",
        prompt=(
            f"Each token of the random half is drawn uniformly from V = {VOCAB} tokens, independently of the ones "
            "before it. What is the **highest accuracy** any model can have, on average, predicting the next token "
            "inside the random half? (A fraction between 0 and 1.)"
        ),
        answer=1 / VOCAB,
        tolerance=0.002,
        explanation=(
            f"1/V = 1/{VOCAB} ≈ {1 / VOCAB:.3f}. The context says nothing about a token that is drawn independently "
            "of it, so every guess is right with probability 1/V, whatever the model does. In the copy the same "
            "tokens become predictable: the context now holds them."
        ),
    )
