"""Section 4, without positions attention reads a bag of tokens: shuffle the input of a self-attention and its
outputs come back shuffled the same way (it is *permutation-equivariant*).

The student's string and its shuffle, read by the three shipped models of :mod:`.models`: f(shuffled) against f
shuffled, what each model writes, the self-attention on the string beside the one on its shuffle put back in order,
and the three models' maps side by side; every caption is computed from those checks. Before it, a prediction: what
the model without positions writes under a string's reverse.

Letters: T positions, d d_model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from lessons.common.charts import safe_label
from lessons.common.colorscales import ATTENTION_COLORSCALE
from lessons.common.exercises import Exercise
from lessons.positional_encoding.models import (
    D_MODEL,
    ENCODINGS,
    LABELS,
    LETTERS,
    MAX_LEN,
    TRAIN_MAX,
    TRAIN_MIN,
    is_right,
    load_model,
    read,
)
from minimodels.small import TinyEncoder

TITLE = "4 · Without positions, attention reads a bag of tokens"

TEXT = (
    "Shuffle the input of a self-attention and its outputs come back shuffled **the same way**, nothing else "
    "changes: it is *permutation-equivariant*. Each output is a weighted sum over all tokens, with weights from "
    "content alone, so moving a token moves its row and nothing more. Here are three small models, each one "
    "self-attention (one W^Q, W^K, W^V, as in lesson 5) and a linear read-out, trained to write under each letter "
    "**the letter before it** (under “position”, “?positio”: the first letter has none before it, so what it "
    "writes there is not scored). They are identical except for "
    "the position vectors added to the letters. Type a string, shuffle it, and compare the attention's outputs "
    "f(shuffled) with f(string) shuffled the same way."
)

MIN_CHARS, MAX_CHARS = 2, MAX_LEN
DEFAULT_TEXT = "position"
PERMUTATIONS: tuple[str, ...] = ("reverse", "rotate by one", "random shuffle")

SAME_CHOICES = (
    "exactly what it wrote under the string",
    "what it wrote under the string, reversed",
    "something that depends on the string",
)


def anagram_prediction(none_model: TinyEncoder) -> Exercise:
    """Predict, before section 4's table: what the model without positions writes under a string's reverse. The
    answer is what the shipped model does (checked on it, never assumed)."""
    text = DEFAULT_TEXT
    first, second = read(none_model, text)[2], read(none_model, text[::-1])[2]
    reversed_first = "".join(reversed(first))
    answer = 0 if second == first else 1 if second == reversed_first else 2
    return Exercise(
        key="positional_encoding.ex3",
        prompt=(
            f"**Predict before you scroll on.** The model **without** positions writes some letter under each letter "
            f"of “{text}”. What does it write under “{text[::-1]}”, the same letters in reverse order?"
        ),
        choices=SAME_CHOICES,
        answer=answer,
        explanation=(
            f"Checked on the shipped model: {first!r} under the string, {second!r} under its reverse. "
            + (
                "Every letter sees the same set of letters wherever it stands, so it writes the same letter under it "
                "wherever it stands: the output is the first one, reversed. Shuffle the input, and the output is "
                "shuffled the same way."
                if answer == 1
                else "The outputs are not the first reversed: the model is not as described, check it."
                if answer == 2
                else "The same letters in the same order: the string reads the same both ways."
            )
        ),
        hint="Shuffle the input of a self-attention without positions: what happens to its outputs?",
    )


def shipped_anagram_prediction() -> Exercise:
    """:func:`anagram_prediction` of the shipped model without positions (what the page caches for everyone)."""
    return anagram_prediction(load_model("none")[0])


@dataclass(frozen=True)
class ParsedText:
    text: str
    error: str | None = None  # why the text was refused; the page keeps the last good one


def parse_text(text: str) -> ParsedText:
    """The student's string: 2–32 lowercase letters (what the models read), or a message."""
    text = text.strip() if isinstance(text, str) else ""
    if not text:
        return ParsedText("", "Type a short string, for example “position”.")
    if len(text) > 64 * MAX_CHARS:
        return ParsedText("", f"That is far too long: the models read at most {MAX_CHARS} letters.")
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return ParsedText("", f"That is {len(text)} characters; type {MIN_CHARS} to {MAX_CHARS}.")
    odd = sorted({c for c in text if c not in LETTERS})
    if odd:
        shown = ", ".join(repr(c) for c in odd[:5])
        return ParsedText("", f"Only lowercase letters a–z are known to the models (not {shown}).")
    return ParsedText(text)


def permutation(kind: str, n: int, seed: int = 0) -> list[int]:
    """``order``: position j of the shuffled string holds character ``order[j]`` of the original."""
    if kind == "reverse":
        return list(range(n - 1, -1, -1))
    if kind == "rotate by one":
        return [*range(1, n), 0]
    if kind == "random shuffle":
        return torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
    raise ValueError(f"unknown permutation {kind!r}; choose from {', '.join(PERMUTATIONS)}")


@dataclass(frozen=True)
class Equivariance:
    """f(shuffled x) against f(x) shuffled the same way, for one trained model."""

    positional: str
    text: str
    shuffled: str
    order: tuple[int, ...]  # shuffled[j] == text[order[j]]
    outputs: np.ndarray  # (T, d) the attention's output for text
    shuffled_outputs: np.ndarray  # (T, d) for shuffled
    attention: np.ndarray  # (T, T) self-attention for text
    attention_back: np.ndarray  # (T, T) the same for shuffled, rows and columns put back in text's order
    difference: float  # max |f(Px) − P f(x)|: ~1e-7 without positions, O(1) with them
    prediction: str  # the letters it writes under text
    shuffled_prediction: str  # and under shuffled


def equivariance(model: TinyEncoder, positional: str, text: str, order: Sequence[int]) -> Equivariance:
    """Run the model on ``text`` and on its shuffle, and compare the second with the first shuffled."""
    if sorted(order) != list(range(len(text))):
        raise ValueError(f"order {list(order)} is not a permutation of {len(text)} positions")
    shuffled = "".join(text[i] for i in order)
    out, attention, prediction = read(model, text)
    out_p, attention_p, shuffled_prediction = read(model, shuffled)
    back = np.argsort(order)  # shuffled position holding original position j
    return Equivariance(
        positional,
        text,
        shuffled,
        tuple(order),
        out,
        out_p,
        attention,
        attention_p[np.ix_(back, back)],
        float(np.abs(out_p - out[list(order)]).max()),
        prediction,
        shuffled_prediction,
    )


EQUIVARIANT = 1e-4  # a difference below this is float rounding: the model is permutation-equivariant


def equivariance_rows(checks: Sequence[Equivariance]) -> list[dict]:
    return [
        {
            "encoding": LABELS[c.positional],
            "max |f(shuffled) − shuffled f|": c.difference,
            "equivariant?": "yes" if c.difference < EQUIVARIANT else "no",
            "writes under the string": c.prediction,
            "under the shuffle": c.shuffled_prediction,
            "correct?": ("yes" if is_right(c.prediction, c.text) else "no")
            + " / "
            + ("yes" if is_right(c.shuffled_prediction, c.shuffled) else "no"),
        }
        for c in checks
    ]


def shipped_checks(text: str, order: tuple[int, ...]) -> list[Equivariance]:
    """Each shipped model on a string and its shuffle."""
    return [equivariance(load_model(name)[0], name, text, order) for name in ENCODINGS]


def shipped_caption(meta: dict | None = None) -> str:
    """Above the equivariance table: the shipped models' shape and training, read from a checkpoint's record."""
    training = (meta or {}).get("training", {})
    return (
        f"The shipped models: one self-attention, d = {D_MODEL}, seed {(meta or {}).get('seed', '?')} of the "
        f"measured runs below, {training.get('steps', '?')} training steps on strings of {TRAIN_MIN}–{TRAIN_MAX} "
        "letters."
    )


def equivariance_caption() -> str:
    """Under the equivariance table: what f is, its size read from the models' config."""
    return (
        f"f: the self-attention's output vectors (d = {D_MODEL}), one per letter. “correct?”: whether it wrote the "
        "letter before under each letter, for the string / for the shuffle (under the first letter, which has none "
        "before it, whatever it writes is not scored)."
    )


def set_text(checks: Sequence[Equivariance], quote=repr) -> str:
    """Under the attention pair: what the model without positions wrote for the string and its shuffle, computed
    from the checks (a model that told them apart would be said to)."""
    none = next((c for c in checks if c.positional == "none"), None)
    if none is None:
        return ""
    moved = "".join(none.prediction[i] for i in none.order)
    text = (
        "The cost shows in what it writes. Without positions, “the letter before” means nothing to the model: "
        "every letter sees the same set of letters. "
    )
    if none.shuffled_prediction == moved:
        return text + (
            f"Under the shuffle it writes {quote(none.shuffled_prediction)}: the letters it wrote under the string "
            f"({quote(none.prediction)}), moved with their letters. It writes the same letter under a letter "
            "wherever that letter stands."
        )
    return text + (
        f"Here it writes {quote(none.prediction)} under the string and {quote(none.shuffled_prediction)} under the "
        "shuffle."
    )


def attention_pair_figure(check: Equivariance) -> go.Figure:
    """The self-attention for the string, and for its shuffle with rows and columns put back."""
    labels = [safe_label(c) for c in check.text]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            f"{safe_label(check.positional)}:<br>the string",
            "its shuffle,<br>put back in order",
        ),
        horizontal_spacing=0.1,
    )
    for col, z in ((1, check.attention), (2, check.attention_back)):
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=list(range(len(labels))),
                y=list(range(len(labels))),
                colorscale=ATTENTION_COLORSCALE,
                zmin=0,
                zmax=1,
                showscale=col == 2,
                xgap=1,
                ygap=1,
                hovertemplate="query %{y}, key %{x}<br>weight = %{z:.4f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        axis = {"tickmode": "array", "tickvals": list(range(len(labels))), "ticktext": labels}
        fig.update_xaxes(**axis, side="top", row=1, col=col)
        fig.update_yaxes(**axis, autorange="reversed", row=1, col=col)
    fig.update_annotations(yshift=30)  # the titles above the top axis's tick labels
    fig.update_layout(height=430, margin={"l": 10, "r": 10, "t": 100, "b": 10})
    return fig


def pair_caption(check: Equivariance) -> str:
    """Under the attention pair: whether the two maps agree, computed from them (``EQUIVARIANT`` is the line the
    table draws between "yes" and "no")."""
    gap = float(np.abs(check.attention - check.attention_back).max())
    if gap < EQUIVARIANT:
        return (
            f"The two maps differ by at most {gap:.0e}, rounding: the shuffle only renamed the rows and columns. "
            f"{LABELS[check.positional]} cannot tell the shuffled string from the string."
        )
    return (
        f"The two maps differ by up to {gap:.2f}: with {LABELS[check.positional]} the shuffled string is a different "
        "input and gets a different map."
    )


@dataclass(frozen=True)
class AttentionMap:
    """One model's self-attention on a string, and how often each row's largest weight is on the letter before."""

    positional: str
    tokens: list[str]
    weights: np.ndarray  # (T, T)
    prediction: str
    on_previous: float | None  # share of rows 2..T whose argmax is the previous position


def attention_map(model: TinyEncoder, positional: str, text: str) -> AttentionMap:
    _, weights, prediction = read(model, text)
    hits = [int(weights[t].argmax()) == t - 1 for t in range(1, len(text))]
    return AttentionMap(positional, list(text), weights, prediction, sum(hits) / len(hits) if hits else None)


def shipped_maps(text: str) -> list[AttentionMap]:
    return [attention_map(load_model(name)[0], name, text) for name in ENCODINGS]


def _map_title(m: AttentionMap) -> str:
    """Short: three maps share a phone's width (the caption gives the numbers)."""
    return safe_label(m.positional, 80)


def attention_maps_figure(maps: Sequence[AttentionMap], titles: Sequence[str] | None = None) -> go.Figure:
    """Each model's self-attention on the same string side by side (rows: the position writing, columns: the
    position read)."""
    fig = make_subplots(
        rows=1,
        cols=len(maps),
        subplot_titles=[safe_label(t, 80) for t in titles] if titles else [_map_title(m) for m in maps],
        horizontal_spacing=0.06,
    )
    for col, m in enumerate(maps, start=1):
        xs = ys = [safe_label(t) for t in m.tokens]
        fig.add_trace(
            go.Heatmap(
                z=m.weights,
                x=list(range(len(xs))),
                y=list(range(len(ys))),
                colorscale=ATTENTION_COLORSCALE,
                zmin=0,
                zmax=1,
                showscale=col == len(maps),
                xgap=1,
                ygap=1,
                hovertemplate="position %{y} reads %{x}<br>α = %{z:.4f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(xs))), ticktext=xs, side="top", row=1, col=col)
        fig.update_yaxes(
            tickmode="array", tickvals=list(range(len(ys))), ticktext=ys, autorange="reversed", row=1, col=col
        )
    fig.update_annotations(yshift=30)  # the titles above the top axis's tick labels
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 110, "b": 10})
    return fig


def maps_caption(text: str, maps: Sequence[AttentionMap], quote=repr) -> str:
    """Under the three models' maps on ``text``; ``quote`` shows user and model text verbatim."""
    outputs = ", ".join(f"{m.positional} → {quote(m.prediction)}" for m in maps)
    inside = (
        ""
        if len(text) <= TRAIN_MAX
        else (f" Your string is longer than any training string ({TRAIN_MAX}): look at its rows past {TRAIN_MAX}.")
    )
    shares = ", ".join(f"{m.positional} {m.on_previous:.0%}" for m in maps if m.on_previous is not None)
    argmax = f" Rows whose largest weight is on the letter before (the first row left out): {shares}." if shares else ""
    return (
        f"Rows: the position writing; columns: the position read. The task means row t should read t − 1: the "
        f"diagonal just below the main one.{argmax} What each writes: {outputs}.{inside}"
    )
