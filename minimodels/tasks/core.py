"""What every task shares: examples, the task record, splits that never overlap, and padded batches."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import torch

from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID, EncodedText, Tokenizer

Alignment = list[list[int]]  # per target token, the source token indices it comes from
SPLITS = ("train", "valid", "test")


@dataclass(frozen=True)
class Example:
    source: str
    target: str


@dataclass
class Batch:
    """A padded batch, the shapes every model and trainer in ``minimodels`` expects (B examples).

    ``source`` has no BOS and ends with EOS; ``target_in`` is BOS + target (teacher forcing input) and
    ``target_out`` is target + EOS, both padded with PAD_ID to the same width T.
    """

    source: torch.Tensor  # (B, S) long
    source_lengths: torch.Tensor  # (B,) long, including EOS
    target_in: torch.Tensor  # (B, T) long
    target_out: torch.Tensor  # (B, T) long

    @property
    def target_lengths(self) -> torch.Tensor:
        """(B,) long: target tokens + EOS per row."""
        return (self.target_out != PAD_ID).sum(dim=1)

    def __len__(self) -> int:
        return self.source.shape[0]

    def to(self, device: torch.device | str) -> Batch:
        return Batch(*(t.to(device) for t in (self.source, self.source_lengths, self.target_in, self.target_out)))

    def select(self, index: torch.Tensor | Sequence[int]) -> Batch:
        """Rows ``index`` of this batch, with columns that are padding in every chosen row trimmed off.

        This is how a trainer samples a minibatch from :meth:`Task.encoded` without tokenizing again.
        """
        index = torch.as_tensor(index, dtype=torch.long)
        source_lengths = self.source_lengths[index]
        target_out = self.target_out[index]
        s = int(source_lengths.max())
        t = int((target_out != PAD_ID).sum(dim=1).max())
        return Batch(self.source[index, :s], source_lengths, self.target_in[index, :t], target_out[:, :t])


@dataclass
class Task:
    """A generated seq2seq task: tokenizers, three disjoint splits and, where known, gold alignments.

    ``Task`` objects are cached and shared (``get_task`` is memoised): treat them as read-only. They pickle
    (tokenizers and aligners included), so ``st.cache_data`` can hold one too.
    ``encoded(split)`` tokenizes a whole split once and keeps it, so a trainer can draw minibatches with
    ``task.encoded("train").select(idx)``.
    """

    name: str
    source_tokenizer: Tokenizer
    target_tokenizer: Tokenizer
    train: list[Example]
    valid: list[Example]
    test: list[Example]
    max_source_len: int  # in tokens, without EOS: the longest source any split can hold; cap for user text
    max_target_len: int  # in tokens, without EOS: the longest target; a decoding budget
    description: str = ""  # one sentence for a page
    probe: Example | None = None  # a fixed example (in train) whose attention a page or trainer can draw
    aligner: Callable[[Example], Alignment | None] | None = field(default=None, repr=False)
    _encoded: dict[str, Batch] = field(default_factory=dict, repr=False, compare=False)

    def gold_alignment(self, ex: Example) -> Alignment | None:
        """For each target token (``target_tokenizer.encode(ex.target)``, no EOS), the indices of the source
        tokens (``source_tokenizer.encode(ex.source)``, no EOS) it comes from; ``[]`` for a target token
        with no source (an ISO date's "-"). None when the task has no gold alignment, or when this pair is
        not one the task can align (e.g. text a user typed into a translation task)."""
        return None if self.aligner is None else self.aligner(ex)

    def split(self, name: str) -> list[Example]:
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}; choose from {', '.join(SPLITS)}")
        return getattr(self, name)

    def encoded(self, split: str) -> Batch:
        """The whole split as one padded :class:`Batch` (computed once, then cached on the task)."""
        if split not in self._encoded:
            self._encoded[split] = make_batch(self.split(split), self)
        return self._encoded[split]

    def encode_source(self, text: str) -> EncodedText:
        """User text for this task's encoder, capped at ``max_source_len`` tokens, never raising."""
        return self.source_tokenizer.encode_user_text(text, self.max_source_len)


def _pad(rows: Sequence[Sequence[int]], width: int) -> torch.Tensor:
    return torch.tensor([[*row, *[PAD_ID] * (width - len(row))] for row in rows], dtype=torch.long)


def make_batch(examples: Sequence[Example], task: Task) -> Batch:
    """Tokenize and pad ``examples``; sources/targets longer than the task's limits are cut to them."""
    if not examples:
        raise ValueError("make_batch needs at least one example")
    sources = [task.source_tokenizer.encode(ex.source)[: task.max_source_len] + [EOS_ID] for ex in examples]
    targets = [task.target_tokenizer.encode(ex.target)[: task.max_target_len] for ex in examples]
    target_in = [[BOS_ID, *t] for t in targets]
    target_out = [[*t, EOS_ID] for t in targets]
    width = max(len(t) for t in target_out)
    return Batch(
        source=_pad(sources, max(len(s) for s in sources)),
        source_lengths=torch.tensor([len(s) for s in sources], dtype=torch.long),
        target_in=_pad(target_in, width),
        target_out=_pad(target_out, width),
    )


def draw_splits(
    sample: Callable[[random.Random], Example],
    sizes: dict[str, int],
    seed: int,
    pinned: Iterable[Example] = (),
) -> dict[str, list[Example]]:
    """Draw examples with ``sample`` until each split has its size, no source string appearing twice.

    Test is drawn first, then valid, then train, all from one ``random.Random(seed)``: the same seed gives
    the same data, and growing the training set leaves valid and test unchanged. ``pinned`` examples (the
    lecture sentences, the probe) go to the front of train (when it has room) and never to valid/test.
    """
    for split, n in sizes.items():
        if n < 0:
            raise ValueError(f"n_{split} must be >= 0, got {n}")
    rng = random.Random(seed)
    pinned = list(pinned)
    seen = {ex.source for ex in pinned}
    out: dict[str, list[Example]] = {}
    for split in ("test", "valid", "train"):
        chosen = list(pinned) if split == "train" else []
        want = sizes[split]
        misses = 0
        while len(chosen) < want:
            ex = sample(rng)
            if ex.source in seen:
                misses += 1
                if misses > 1000 + 20 * want:
                    raise ValueError(
                        f"could only draw {len(chosen)} distinct {split} examples of {want}: "
                        "the task's space of sources is too small for these sizes"
                    )
                continue
            seen.add(ex.source)
            chosen.append(ex)
        out[split] = chosen[:want]
    return out
