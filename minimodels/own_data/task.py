"""A teacher's sentence pairs as a :class:`~minimodels.tasks.Task`, so the course's trainer and pages take it as is.

:class:`PairsTask` is a ``Task`` (tokenizers, ``train``/``valid``/``test`` lists of :class:`Example`,
``encoded(split)``, ``probe``, ``max_source_len``/``max_target_len``): ``build_model(name, task)``,
``train(model, task, config, on_progress)``, the live panel, the attention snapshots and ``evaluate`` work on it
unchanged. Its held-out pairs are the validation file's, or a seeded 10% of the pairs. The held-out part is
drawn by *source sentence*, so a sentence whose translation is held out is never trained on (a repeated pair,
or one source with two translations, goes wholly to one side). There is no third split: ``test`` is the same
held-out list as ``valid`` (``test_exact_match`` in the command line's final line is over all of it, the
live ``exact_match`` over its first ``eval_size``). There is no gold alignment (``aligner`` is None).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..tasks import Example, Task
from ..tokenizers import Tokenizer
from .pairs import Pair, PairsError, PairsFile, fingerprint
from .tokenize import train_tokenizers

HOLDOUT = 0.1  # share of the pairs held out when no validation file is given
MIN_PAIRS = 10  # fewer than this cannot be split into something to learn and something to check


@dataclass
class PairsTask(Task):
    """A :class:`Task` made of a teacher's pairs; see the module docstring. Build one with :meth:`from_pairs`."""

    fingerprint: str = ""  # sha256 of the training pairs (then of the held-out ones, when a file gave them)
    source_name: str = ""  # the file the pairs came from
    held_out_from: str = "train"  # "train" (a seeded share of it) or "file" (a validation file)

    @classmethod
    def from_pairs(
        cls,
        train: PairsFile | list[Pair],
        valid: PairsFile | list[Pair] | None = None,
        *,
        tokenizers: tuple[Tokenizer, Tokenizer] | None = None,
        vocab_size: int | None = None,
        holdout: float = HOLDOUT,
        seed: int = 0,
        name: str = "your data",
    ) -> PairsTask:
        """The task for ``train`` pairs, held out: ``valid``, or a seeded ``holdout`` share of ``train``.

        ``tokenizers``: reuse these (a loaded model's); otherwise sentencepiece models are trained on the
        training pairs (:func:`~minimodels.own_data.train_tokenizers`, ``vocab_size``). Raises
        :class:`PairsError` when there are too few pairs to split.
        """
        source_name = getattr(train, "name", "")
        train_pairs = list(getattr(train, "pairs", train))
        given = list(train_pairs)  # what the fingerprint is of, in the file's order
        if valid is not None:
            held_pairs = list(getattr(valid, "pairs", valid))
            if not held_pairs:
                raise PairsError("The validation file has no usable pairs.")
            held_out_from = "file"
        else:
            if len(train_pairs) < MIN_PAIRS:
                raise PairsError(
                    f"Only {len(train_pairs)} pairs: at least {MIN_PAIRS} are needed to learn from some and "
                    "check the model on the others."
                )
            train_pairs, held_pairs = split_pairs(train_pairs, holdout, seed)
            held_out_from = "train"
        source_tok, target_tok = tokenizers or train_tokenizers(train_pairs, vocab_size)
        train_examples = [Example(s, t) for s, t in train_pairs]
        held = [Example(s, t) for s, t in held_pairs]
        every = [*train_examples, *held]
        max_source = max(len(source_tok.encode(ex.source)) for ex in every)
        max_target = max(len(target_tok.encode(ex.target)) for ex in every)
        digest = fingerprint([*given, *held_pairs] if valid is not None else given)
        return cls(
            name=name,
            source_tokenizer=source_tok,
            target_tokenizer=target_tok,
            train=train_examples,
            valid=held,
            test=held,
            max_source_len=max(1, max_source),
            max_target_len=max(1, max_target),
            description=f"{len(train_examples):,} pairs to learn from, {len(held):,} held out to check",
            probe=_probe(train_examples, source_tok),
            fingerprint=digest,
            source_name=source_name,
            held_out_from=held_out_from,
        )

    @property
    def pairs_count(self) -> int:
        return len(self.train) + len(self.valid)


def split_pairs(pairs: list[Pair], holdout: float = HOLDOUT, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """``(train, held_out)``: about ``holdout`` of the pairs, drawn by source sentence from ``random.Random(seed)``.

    Every pair of one source sentence goes to the same side, so held-out sources are never trained on. At least
    one pair is held out and at least one kept; the file's order is kept within each side.
    """
    if not 0 < holdout < 1:
        raise ValueError(f"holdout must be between 0 and 1, got {holdout}")
    sources = list(dict.fromkeys(s for s, _ in pairs))
    if len(sources) < 2:
        raise PairsError("Every pair has the same source sentence: there is nothing to hold out and check.")
    n_held = min(len(sources) - 1, max(1, round(holdout * len(sources))))
    held = set(random.Random(seed).sample(sources, n_held))
    return [p for p in pairs if p[0] not in held], [p for p in pairs if p[0] in held]


def _probe(examples: list[Example], tokenizer: Tokenizer) -> Example:
    """A training pair of about median source length (the first such): the sentence the live panel draws."""
    lengths = [len(tokenizer.encode(ex.source)) for ex in examples[:2000]]
    median = sorted(lengths)[len(lengths) // 2]
    return examples[lengths.index(median)]
