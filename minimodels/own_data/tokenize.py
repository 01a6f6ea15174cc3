"""Sentencepiece models for a teacher's sentences, trained in this process from memory in seconds.

The recipe is the course's (``scripts/train_tokenizers.py``: BPE, the shared special ids, NFKC done in Python so
the models stay small), with what data nobody has seen before needs: the vocabulary is a soft limit that is
never below what the characters require (a few hundred pairs of Chinese need more pieces than the default), and
it shrinks to what the data can fill (sentencepiece refuses a vocabulary larger than its pieces otherwise).
Nothing is written to disk and nothing is downloaded: sentences go in through ``sentence_iterator``, the model
comes out through ``model_writer`` into a ``BytesIO``.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable

import sentencepiece as spm

from ..tokenizers import BOS_ID, EOS_ID, PAD_ID, UNK_ID, SentencePieceTokenizer

DEFAULT_VOCAB_SIZE = 1000  # pieces per side, specials included, at most (less when the data cannot fill it)
MIN_VOCAB_SIZE = 16
FULL_COVERAGE_CHARACTERS = 2000  # up to this many distinct characters every one gets a piece; beyond, rare ones
#                                  (the last 0.05% of the text, e.g. rare CJK characters) become <unk>
TRAINER_OPTIONS = dict(
    model_type="bpe",
    normalization_rule_name="identity",  # NFKC happens in SentencePieceTokenizer.normalize
    pad_id=PAD_ID,
    bos_id=BOS_ID,
    eos_id=EOS_ID,
    unk_id=UNK_ID,
    unk_surface="<unk>",
    hard_vocab_limit=False,  # small data: fewer pieces than asked is fine
    num_threads=1,  # determinism, and the machine is shared
    input_sentence_size=0,  # every sentence
    shuffle_input_sentence=False,
    max_sentence_length=8192,  # bytes; read_pairs already caps sides at a few hundred characters
    minloglevel=2,  # quiet
)


def _coverage(sentences: list[str]) -> tuple[float, int]:
    """sentencepiece's ``character_coverage`` for ``sentences`` and how many characters it keeps."""
    counts = Counter(ch for s in sentences for ch in s if not ch.isspace())
    if len(counts) <= FULL_COVERAGE_CHARACTERS:
        return 1.0, len(counts)
    coverage, total, kept, seen = 0.9995, sum(counts.values()), 0, 0
    for _, n in counts.most_common():
        if seen >= coverage * total:
            break
        seen += n
        kept += 1
    return coverage, kept


def train_tokenizer(sentences: Iterable[str], vocab_size: int | None = None, name: str = "") -> SentencePieceTokenizer:
    """One sentencepiece model for ``sentences`` (normalised as the tokenizer will see them).

    ``vocab_size``: the most pieces wanted (default :data:`DEFAULT_VOCAB_SIZE`); raised to what the characters
    need, and sentencepiece stops earlier when the data has no more pieces to merge.
    """
    texts = [t for t in (SentencePieceTokenizer.normalize(s) for s in sentences) if t]
    if not texts:
        raise ValueError("no text to train a tokenizer on")
    coverage, characters = _coverage(texts)
    wanted = max(vocab_size or DEFAULT_VOCAB_SIZE, characters + 8, MIN_VOCAB_SIZE)  # 4 specials, "▁", a margin
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=out,
        vocab_size=wanted,
        character_coverage=coverage,
        **TRAINER_OPTIONS,
    )
    return SentencePieceTokenizer(out.getvalue(), name=name)


def train_tokenizers(
    pairs, vocab_size: int | None = None, *, target_vocab_size: int | None = None
) -> tuple[SentencePieceTokenizer, SentencePieceTokenizer]:
    """``(source_tokenizer, target_tokenizer)`` trained on ``pairs`` (a list of (source, target) or a PairsFile).

    ``vocab_size`` caps both sides (``target_vocab_size`` the target's, when given); see :func:`train_tokenizer`.
    """
    pairs = getattr(pairs, "pairs", pairs)
    if not pairs:
        raise ValueError("no sentence pairs to train tokenizers on")
    source = train_tokenizer((s for s, _ in pairs), vocab_size, name="source")
    target = train_tokenizer((t for _, t in pairs), target_vocab_size or vocab_size, name="target")
    return source, target
