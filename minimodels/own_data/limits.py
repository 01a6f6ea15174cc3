"""What a student's file may hold, in one place: a file of sentence pairs, and a model file.

The page states these limits (:meth:`Limits.describe`, :meth:`Limits.describe_model`); :func:`~.read_pairs` and
:func:`~.load_model` enforce them, each before the work it guards: a pairs file's size before it is read whole, a
model file's every setting, its parameter count and the memory it would take before a single weight is made.

The model limits sit well above what this course makes (a model trained on the page has a vocabulary of a few
thousand pieces, widths of 32 to 128, two layers, and sentences of at most a few hundred pieces) and well below what
would hold a class server: every limit is a bound on the time or memory one student's file may cost it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..decode import MAX_SECONDS, MAX_STEPS


@dataclass(frozen=True)
class Limits:
    """The limits of a pairs file and of a model file (see the module docstring)."""

    # a file of sentence pairs
    max_bytes: int = 5_000_000  # the whole file, in bytes (checked before it is read in full)
    max_pairs: int = 20_000  # non-blank lines
    max_chars: int = 300  # characters per side of one pair
    # a model file: the file, then each setting of the model it describes
    max_model_bytes: int = 20_000_000  # the whole file (the page's upload stops at max_bytes)
    max_vocab: int = 32_000  # pieces of each tokenizer, specials included
    max_width: int = 1024  # embedding, hidden and attention sizes; d_model
    max_feed_forward: int = 4096  # a Transformer's d_ff
    max_heads: int = 16  # attention heads per sublayer
    max_layers: int = 6  # a Transformer's encoder layers, and its decoder layers
    max_sentence: int = 512  # pieces of a source or a target sentence (the task's max_source_len, max_target_len)
    max_positions: int = 2 * 512 + 2  # a Transformer's max_len: twice the longest target, and its end token
    max_examples: int = 200  # sentences the file keeps to show
    max_curve: int = 10_000  # points of its training curve
    max_text: int = 500  # characters of one name or description in the file's record
    # what building and using the model costs, worked out from the file's header before anything is built
    max_parameters: int = 4_000_000  # weights (16 MB in float32)
    max_memory_bytes: int = 256_000_000  # weights, their copy while loading, fixed tables and one page's decoding
    beam_width: int = 8  # the widest beam search a page offers (the Transformer lesson's), in that estimate

    def describe(self) -> str:
        """The pairs file's limits in one sentence, for a page."""
        return (
            f"at most {self.max_bytes / 1e6:g} MB, {self.max_pairs:,} pairs, {self.max_chars} characters per sentence"
        )

    def describe_model(self) -> str:
        """The model file's limits in one sentence, for a page."""
        return (
            f"at most {self.max_parameters / 1e6:g} million weights and {self.max_memory_bytes / 1e6:g} MB of memory "
            f"in use, {self.max_vocab:,} pieces per tokenizer, widths up to {self.max_width:,} "
            f"(feed-forward {self.max_feed_forward:,}), {self.max_heads} heads, {self.max_layers} layers, sentences "
            f"of {self.max_sentence} pieces; a sentence is decoded for at most {MAX_STEPS:,} steps and "
            f"{MAX_SECONDS:g} seconds"
        )


LIMITS = Limits()
