"""Section 5, what if the model looked elsewhere: one step's attention forced onto a source token of the student's
choice, and whether the output follows."""

from __future__ import annotations

from lessons.bahdanau_attention.decoding import Decoding
from lessons.bahdanau_attention.wording import as_code

TITLE = "5 · What if the model looked elsewhere?"
TEXT = (
    "Force the attention of one step onto a source token of your choice (a one-hot α) and decode again, "
    "and see whether the output follows: the decoder state carries information too, so attention need not "
    "be the whole explanation."
)
FIGURE_TITLE = "α with the forced step"


def forced_note(forced: Decoding, original: Decoding, step: int, source_index: int) -> str:
    """Whether forcing step ``step`` (0-based) onto one source token changed the output, said from the decodings."""
    what = f"Forcing step {step + 1} onto {as_code(original.source[source_index])}"
    if forced.translation.text == original.translation.text:
        return f"{what} left the output unchanged."
    same = sum(a == b for a, b in zip(forced.target, original.target, strict=False))
    return f"{what} changed the output ({same} of {len(original.target)} tokens still the same, position by position)."
