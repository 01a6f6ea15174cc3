"""Section 3, the lecture's *I like pizza* weights set beside the shipped English → Italian-like model's.

The NLP lecture draws the first output step of *I like pizza* → *mi piace la pizza* with weights 60%, 35%, 5% on
*I*, *like*, *pizza*: a picture on a slide, not a trained model's output. This module decodes the same sentence with
the shipped model and sets its first step's weights beside the lecture's (:func:`pizza_rows`), and says, computed
from them, whether the model puts its largest weight where the lecture does and what it weighs instead
(:func:`pizza_sentence`).
"""

from __future__ import annotations

import numpy as np

from lessons.bahdanau_attention.decoding import Decoding
from lessons.bahdanau_attention.weighted_sum import LECTURE_WEIGHTS
from lessons.bahdanau_attention.wording import as_code, percent

PIZZA_TASK = "toy-translation-it"
PIZZA = "I like pizza"
PIZZA_WORDS = ("I", "like", "pizza")  # the words the lecture's weights are on, in order


def _word(piece: str) -> str:
    """A source piece as a plain word: "▁like" -> "like"."""
    return piece.lstrip("▁")


def model_weights(decoding: Decoding, step: int = 1) -> dict[str, float]:
    """The model's weights at output step ``step`` (1-based) on each source piece, keyed by its plain word."""
    return {_word(p): float(a) for p, a in zip(decoding.source, decoding.weights[step - 1], strict=True)}


def pizza_rows(decoding: Decoding) -> list[dict]:
    """Two rows, the lecture's first step and the model's, one column per source word (the model's end token too)."""
    weights = model_weights(decoding)
    words = [*PIZZA_WORDS, *(w for w in weights if w not in PIZZA_WORDS)]
    lecture = dict(zip(PIZZA_WORDS, LECTURE_WEIGHTS, strict=True))
    first = decoding.target[0] if decoding.target else "?"
    return [
        {"first output step": "the lecture's slide, writing “mi”"}
        | {w: f"{lecture[w]:.0%}" if w in lecture else "—" for w in words},
        {"first output step": f"the shipped model, writing “{first}”"}
        | {w: percent(weights[w]) if w in weights else "—" for w in words},
    ]


def pizza_sentence(decoding: Decoding) -> str:
    """Whether the model's first step weights the words as the lecture's slide does, computed from both: where each
    puts its largest weight, and the largest difference between them on one word."""
    weights = model_weights(decoding)
    if not all(w in weights for w in PIZZA_WORDS):
        return "The sentence did not come out as the lecture's three words, so there is nothing to set beside it."
    lecture = dict(zip(PIZZA_WORDS, LECTURE_WEIGHTS, strict=True))
    ours = {w: weights[w] for w in PIZZA_WORDS}
    top_lecture, top_model = max(lecture, key=lecture.get), max(ours, key=ours.get)
    gaps = {w: ours[w] - lecture[w] for w in PIZZA_WORDS}
    widest = max(gaps, key=lambda w: abs(gaps[w]))
    first = as_code(decoding.target[0]) if decoding.target else "its first token"
    numbers = ", ".join(f"{percent(ours[w])} on *{w}*" for w in PIZZA_WORDS)
    slide = ", ".join(f"{lecture[w]:.0%} on *{w}*" for w in PIZZA_WORDS)
    text = f"Writing {first}, the shipped model puts {numbers} (the slide: {slide}). "
    if top_model == top_lecture:
        text += f"Like the slide, its largest weight is on *{top_model}*"
    else:
        text += f"**Not the lecture's picture:** its largest weight is on *{top_model}*, not *{top_lecture}*"
    text += (
        f"; the widest difference is on *{widest}*, {percent(ours[widest])} against {lecture[widest]:.0%}. "
        f"Every step's largest weight: {step_tops(decoding)}. The slide's numbers illustrate the idea and come from "
        "no trained model; this one learned its weights from a small corpus with no one telling it which word "
        "translates which."
    )
    if top_model != top_lecture:
        text += (
            " A plausible reason, not tested here: Italian *mi piace* (“to me it pleases”) renders *I like* as a "
            "pair, so its first word can lean on the verb."
        )
    return text


def step_tops(decoding: Decoding) -> str:
    """Where every output step of the model puts its largest weight: "mi → like, piace → like, …"."""
    order = np.argmax(decoding.weights, axis=1)
    return ", ".join(
        f"{as_code(t)} → *{_word(decoding.source[int(i)])}*" for t, i in zip(decoding.target, order, strict=True)
    )
