"""Section 3: what "it" refers to, honestly: the lecture's sentence against what the toy model can read.

The lecture shows a trained encoder's self-attention at "it" in "The animal didn't cross the street because it was
too tired" leaning on "animal". The shipped toy translator cannot show that, and this section says why, measured
(:func:`lecture_it`); then what it does learn about the "it" its grammar has: in "I see it" → "je le vois" the
object pronoun moves before the verb, and where the last decoder layer reads from when it writes it
(:func:`pronoun_check`).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lessons.transformer.reading import walk
from minimodels.tasks import Task, get_task, lecture_examples

TITLE = "3 · What does “it” refer to? An honest look"
LECTURE_SENTENCE = "The animal didn't cross the street because it was too tired"


@dataclass(frozen=True)
class LectureCheck:
    """Can the toy model even read the lecture's sentence?"""

    tokens: int  # pieces the tokenizer makes of it
    limit: int  # the model reads at most this many
    words: int
    unknown_words: list[str]  # words never seen in training
    it_is_read: bool  # whether "it" falls inside the pieces the model reads


def lecture_it(task: Task) -> LectureCheck:
    """The lecture's sentence against this toy model's tokenizer and training vocabulary."""
    seen = {word.lower() for ex in task.train for word in ex.source.split()}
    words = LECTURE_SENTENCE.split()
    pieces = task.source_tokenizer.encode(LECTURE_SENTENCE)
    index = task.source_tokenizer.word_index_of_pieces(LECTURE_SENTENCE)
    it_word = words.index("it")
    read = index[: task.max_source_len]
    return LectureCheck(
        tokens=len(pieces),
        limit=task.max_source_len,
        words=len(words),
        unknown_words=[w for w in words if w.lower() not in seen],
        it_is_read=it_word in read,
    )


@dataclass(frozen=True)
class PronounCheck:
    """What the shipped model does with the "it" its grammar has: an object pronoun, moved before the verb."""

    text: str
    output: str
    pronoun_piece: str  # the output piece written for "it"
    step: int  # its decoder step
    looked_at: str  # the source piece with the largest head-averaged weight in the last layer's cross-attention
    weight: float  # that weight
    heads_on_it: int  # heads of the last layer whose largest weight is on "it"
    heads: int


def pronoun_check(model: nn.Module, task: Task) -> PronounCheck | None:
    """Where the last decoder layer reads from when it writes the pronoun for "it" in the lecture's "I see it"
    (→ "je le vois": the object pronoun moves before the verb). Which output token translates "it" comes from
    the grammar's gold alignment; None when the model's output is not the grammar's translation."""
    example = next((ex for ex in lecture_examples("fr") if ex.source.split()[-1] == "it"), None)
    gold = task.gold_alignment(example) if example is not None else None
    w = walk(model, task, example.source) if gold is not None else None
    if w is None or isinstance(w, str) or w.translation.text != example.target:
        return None
    it = w.translation.source_pieces.index("▁it")
    step = next(t for t, sources in enumerate(gold) if it in sources)
    last = w.weights("cross", w.config.decoder_layers - 1)[:, step]  # (h, S)
    mean = last.mean(axis=0)
    best = int(mean.argmax())
    return PronounCheck(
        text=example.source,
        output=w.translation.text,
        pronoun_piece=w.output[step],
        step=step,
        looked_at=w.source[best],
        weight=float(mean[best]),
        heads_on_it=int((last.argmax(axis=-1) == it).sum()),
        heads=last.shape[0],
    )


def it_checks(translator: nn.Module) -> tuple[LectureCheck, PronounCheck | None]:
    """Section 3's two measurements, for the shipped toy translator: the lecture's sentence, and "I see it"."""
    task = get_task("toy-translation")
    return lecture_it(task), pronoun_check(translator, task)


def it_lines(lecture: LectureCheck, pronoun: PronounCheck | None) -> list[str]:
    """Section 3's paragraphs, computed from the two checks (the second None when the model does not translate
    the grammar's "I see it" as its grammar does)."""
    cut = "read" if lecture.it_is_read else "**cut off**"
    lines = [
        f"The lecture's example of self-attention is *“{LECTURE_SENTENCE}”*: a trained model's encoder, at “it”, "
        "puts much of its attention on “animal”. Our toy translator cannot show you that, and here is why, measured: "
        f"its tokenizer cuts the sentence into **{lecture.tokens}** pieces, but the model reads at most "
        f"**{lecture.limit}** (so “it” is {cut}); **{len(lecture.unknown_words)} of its {lecture.words} words** never "
        f"occur in its training data ({', '.join(lecture.unknown_words)}); and its grammar has no sentence in which a "
        "pronoun refers back to a noun of the same sentence. Nothing it was trained on rewards resolving “it”, so no "
        "map on this page is evidence of coreference, whatever it looks like."
    ]
    if pronoun is not None:
        lines.append(
            f"What the toy model *does* learn about “it” is what its data rewards: in *{pronoun.text}* → "
            f"*{pronoun.output}* the object pronoun moves before the verb. When it writes "
            f"`{pronoun.pronoun_piece}` (output token {pronoun.step + 1}), the last decoder layer's encoder–decoder "
            f"attention, averaged over heads, puts its largest weight, **{pronoun.weight:.2f}**, on "
            f"`{pronoun.looked_at}`; {pronoun.heads_on_it} of its {pronoun.heads} heads peak there. Type *I see it* "
            "above (task: English → French-like) to see the maps."
        )
    return lines


NOT_TRANSLATED = (  # in place of the second paragraph, when the shipped model gets "I see it" wrong
    "The shipped translator does not translate “I see it” as its grammar does, so there is nothing to show."
)
