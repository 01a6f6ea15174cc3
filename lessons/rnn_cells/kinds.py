"""Section 4, the kinds of RNN: the lecture's "Different types of RNNs" slide and its sequence-model examples, as a
table of how many inputs (T_x) and outputs (T_y) the same cell, wired differently, serves.
"""

from __future__ import annotations

from dataclasses import dataclass

from lessons.common.exercises import Exercise

TITLE = "4 · The kinds of RNN"
TEXT = (
    "The same cell, wired differently, serves tasks with different numbers of inputs ($T_x$) and outputs ($T_y$). "
    "▢ is one step of the cell; the examples are the lecture's."
)


@dataclass(frozen=True)
class RNNKind:
    name: str
    lengths: str  # T_x and T_y, in Markdown math
    shape: str  # the unrolled picture in one line
    example: str  # from the lecture


KINDS: tuple[RNNKind, ...] = (
    RNNKind("one-to-one", "${T_x = T_y = 1}$", "x → ▢ → ŷ", "a standard network: one input, one output"),
    RNNKind("one-to-many", "${T_x = 1,\\ T_y > 1}$", "x → ▢→▢→▢ → ŷ⟨1⟩ ŷ⟨2⟩ ŷ⟨3⟩", "music generation"),
    RNNKind(
        "many-to-one",
        "${T_x > 1,\\ T_y = 1}$",
        "x⟨1⟩ x⟨2⟩ x⟨3⟩ → ▢→▢→▢ → ŷ",
        "sentiment classification: “There is nothing to like in this movie.” → ☆",
    ),
    RNNKind(
        "many-to-many",
        "$T_x = T_y$",
        "x⟨t⟩ → ▢ → ŷ⟨t⟩ at every step",
        "named entity recognition: “Yesterday, Harry Potter met Hermione Granger.”",
    ),
    RNNKind(
        "many-to-many, encoder–decoder",
        "$T_x \\neq T_y$",
        "x⟨1⟩ … x⟨$T_x$⟩ → encoder ▢→▢ ⇒ decoder ▢→▢ → ŷ⟨1⟩ … ŷ⟨$T_y$⟩",
        "machine translation: “Jane visite l'Afrique en septembre” → “Jane is visiting Africa in September”",
    ),
)


def kinds_markdown() -> str:
    """The kinds as a Markdown table (our own text only, never a student's)."""
    rows = ["| kind | lengths | unrolled | example from the lecture |", "|---|---|---|---|"]
    rows += [f"| **{k.name}** | {k.lengths} | {k.shape} | {k.example} |" for k in KINDS]
    return "\n".join(rows)


def kinds_list_markdown() -> str:
    """The same kinds as a list, for a phone: the table's four columns do not fit its width (the last one, the
    lecture's examples, would be cut at the screen's edge)."""
    return "\n".join(f"- **{k.name}**, {k.lengths}: {k.shape}. The lecture's example: {k.example}" for k in KINDS)


KINDS_CAPTION = (  # under the table of :func:`kinds_markdown`
    "The encoder–decoder squeezes the whole input into the encoder's last state: lesson 2 shows where that "
    "breaks, and lesson 3 the attention that was invented to fix it."
)


def kind_of(task: str) -> int:
    """Index in :data:`KINDS` of the kind whose lecture example mentions ``task``."""
    matches = [i for i, k in enumerate(KINDS) if task.lower() in k.example.lower()]
    if len(matches) != 1:
        raise ValueError(f"{task!r} names {len(matches)} kinds, not one")
    return matches[0]


# ------------------------------------------------------------------------------------------------- exercises
LANGUAGE_MODEL = "a language model reading a sentence, predicting the next word at every word"


def exercises() -> list[Exercise]:
    """Which kind a task not in the table is, answered by :func:`kind_of` on the lecture's examples."""
    return [
        Exercise(
            key="rnn_cells.ex5",
            prompt=f"Which kind of RNN is {LANGUAGE_MODEL}?",
            choices=tuple(k.name for k in KINDS),
            answer=kind_of("named entity recognition"),
            explanation=(
                "One output (the next word) for every input word, so Tₓ = T_y: many-to-many with one output per "
                "step, wired like the lecture's named-entity recognition, not like translation's encoder–decoder."
            ),
            hint="Count the outputs for a sentence of Tₓ words.",
        ),
    ]
