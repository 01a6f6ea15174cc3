"""Which rows make each step's minibatch, and how one minibatch is computed in slices of similar length.

Both serve speed, not the maths: padding costs the encoder positions that teach nothing, and grouping rows by
length removes most of it while every batch stays a random sample and every gradient stays the whole batch's.
"""

from __future__ import annotations

import torch

from .config import TrainConfig


def _minibatches(lengths: torch.Tensor, config: TrainConfig, generator: torch.Generator):
    """Endless random minibatches (row indices) drawn with replacement, grouped by source length.

    ``length_grouping`` batches are drawn at once, sorted by source length, cut into batches and shuffled:
    every batch is still a random sample, but of sentences of similar length, so it carries little padding
    and the encoder runs over fewer positions (the "group by length" of many seq2seq toolkits).
    """
    group = max(1, config.length_grouping)
    while True:
        pool = torch.randint(len(lengths), (config.batch_size * group,), generator=generator)
        if group > 1:
            pool = pool[torch.argsort(lengths[pool], stable=True)]
        chunks = pool.split(config.batch_size)
        for i in torch.randperm(len(chunks), generator=generator).tolist():
            yield chunks[i]


def _length_slices(lengths: torch.Tensor, slices: int) -> list[torch.Tensor]:
    """Positions into ``lengths`` (one minibatch's source lengths), cut into at most ``slices`` runs of similar length.

    A random batch is padded to its longest sentence (on ``dates``: 28 positions for a mean of 13). Computed as
    separate slices of sorted rows, each padded only to its own longest one, the encoder runs over far fewer
    positions (about 18 per sentence in two slices, 15 in three), while the batch, its loss (summed over the
    slices, divided by the batch's token count) and so its gradient stay those of the whole batch. The cuts
    minimise the padded area, sum over slices of rows × longest length (dynamic programming over the distinct
    lengths: at most a few dozen).
    """
    order = torch.argsort(lengths, stable=True)
    values, counts = torch.unique_consecutive(lengths[order], return_counts=True)
    values, ends = values.tolist(), counts.cumsum(0).tolist()  # sorted rows [0, ends[j]) are <= values[j] long
    # area[j], cut[j]: the least padded area of sorted rows [0, ends[j]) in the slices allowed so far, and where
    # its last slice starts (a group index; -1: at row 0). One slice: pad everything to the longest.
    area = [ends[j] * values[j] for j in range(len(values))]
    cuts = [[-1] * len(values)]
    for _ in range(1, slices):  # one more slice allowed: its last slice may start after any group i < j
        previous, cut = area, list(cuts[-1])
        area = list(previous)
        for j in range(len(values)):
            for i in range(j):
                candidate = previous[i] + (ends[j] - ends[i]) * values[j]
                if candidate < area[j]:
                    area[j], cut[j] = candidate, i
        cuts.append(cut)
    bounds, j = [], len(values) - 1
    for cut in reversed(cuts):  # walk back from the longest rows, one slice per level at most
        if j < 0:
            break
        i = cut[j]
        bounds.append((ends[i] if i >= 0 else 0, ends[j]))
        j = i
    return [order[a:b] for a, b in reversed(bounds)]
