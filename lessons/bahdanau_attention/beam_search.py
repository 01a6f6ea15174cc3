"""Section 4, greedy or beam search: the beam's finished hypotheses, best first, and whether its best one is the
greedy output."""

from __future__ import annotations

from lessons.bahdanau_attention.decoding import Decoding
from minimodels.tasks import Task

TITLE = "4 · Greedy or beam search"
TEXT = (
    "Greedy decoding keeps the single best token at each step. Beam search keeps the *k* best partial "
    "outputs by log p(y | x), so a choice that looked second-best early can still win. Width 1 is greedy."
)
MAX_BEAM = 5


def beam_rows(decoding: Decoding, task: Task) -> list[dict]:
    """The beam's finished hypotheses, best first: output text, log-probability and length."""
    beam = decoding.translation.beam
    if beam is None:
        return []
    return [
        {
            "rank": rank,
            "output": task.target_tokenizer.decode(h.tokens),
            "log p(y | x)": round(h.log_prob, 4),
            "tokens": len(h.tokens),
            "finished": h.finished,
        }
        for rank, h in enumerate(beam.hypotheses, start=1)
    ]


def beam_note(beam: Decoding, greedy: Decoding) -> str:
    """Whether the beam's best hypothesis is the greedy output, said from the two decodings."""
    if beam.translation.text == greedy.translation.text:
        return "The best beam hypothesis is the greedy output."
    return "Beam search found a different output than greedy decoding."
