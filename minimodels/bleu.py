r"""Corpus BLEU (Papineni et al. 2002), in plain Python, for scoring the toy translators the way papers score theirs.

For n = 1..4, the *modified precision* :math:`p_n` pools the whole corpus: every hypothesis n-gram counts as
correct at most as often as it occurs in its reference, summed over sentences, divided by the hypotheses' n-grams.
BLEU is their geometric mean times a brevity penalty over the corpus's total lengths (c hypothesis words,
r reference words):

.. math::  \mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\tfrac14 \sum_{n=1}^{4} \log p_n\Big), \qquad
           \mathrm{BP} = \begin{cases} 1 & c > r \\ e^{1 - r/c} & c \le r \end{cases}

on a 0–100 scale, as the attention-bridge paper reports it (via sacrebleu). One reference per sentence, no
smoothing: a corpus with no correct n-gram of some order scores 0, as in the original definition. The words are
whatever the caller passes (the toy languages' tokenizers are word-level, so no further tokenizing is done here,
where sacrebleu would apply its 13a tokenizer to raw text).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

MAX_ORDER = 4


def ngrams(words: Sequence[Hashable], n: int) -> Counter:
    """The n-grams of one sentence with their counts."""
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


@dataclass(frozen=True)
class Bleu:
    """A corpus BLEU with the counts it was computed from (so a test or a page can show its parts)."""

    score: float  # 0–100
    correct: tuple[int, ...]  # clipped matching n-grams, n = 1..max_order, over the corpus
    total: tuple[int, ...]  # hypothesis n-grams, n = 1..max_order
    hypothesis_length: int  # c
    reference_length: int  # r

    @property
    def precisions(self) -> tuple[float, ...]:
        return tuple(c / t if t else 0.0 for c, t in zip(self.correct, self.total, strict=True))

    @property
    def brevity_penalty(self) -> float:
        c, r = self.hypothesis_length, self.reference_length
        if c == 0:
            return 0.0
        return 1.0 if c > r else math.exp(1 - r / c)


def corpus_bleu(
    hypotheses: Sequence[Sequence[Hashable]], references: Sequence[Sequence[Hashable]], max_order: int = MAX_ORDER
) -> Bleu:
    """Corpus BLEU of tokenized ``hypotheses`` against one tokenized reference each (lists of words or ids)."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    correct, total = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, ref in zip(hypotheses, references, strict=True):
        c += len(hyp)
        r += len(ref)
        for n in range(1, max_order + 1):
            h, g = ngrams(hyp, n), ngrams(ref, n)
            correct[n - 1] += sum(min(count, g[gram]) for gram, count in h.items())
            total[n - 1] += max(len(hyp) - n + 1, 0)
    result = Bleu(0.0, tuple(correct), tuple(total), c, r)
    if min(correct) == 0:
        return result
    log_mean = sum(math.log(p) for p in result.precisions) / max_order
    return Bleu(100.0 * result.brevity_penalty * math.exp(log_mean), tuple(correct), tuple(total), c, r)
