r"""Section 1, the whole string in one vector: the student types a string and watches the encoder read it, one state
:math:`h_t` of D numbers per character, of which the decoder gets only the last, :math:`c = h_S`.

Beside each character's row, how much of it survives in c: replace that character alone and measure how far c
moves (:func:`squeeze`). Random (seeded) weights forget the start of a long string; a model the student trained in
section 5 can be read here instead.

Letters: S source positions (characters + EOS), D context size, N the strings with one character replaced.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.charts import figure, safe_label
from lessons.common.colorscales import ATTENTION_COLORSCALE, DIVERGING_COLORSCALE
from lessons.common.grids import NARROW
from lessons.seq2seq_bottleneck.experiment import MAX_LEN, build, lesson_task, shown
from minimodels.tokenizers import EOS_ID, UNK_ID

TITLE = "1 · The whole string in one vector"
TEXT = (
    "The models of this lesson **copy** a string of letters and spaces, character by character. Copying is the "
    "hardest case for a fixed vector: the first character to write is the one the encoder read longest ago. "
    "Type a string and watch the encoder read it: one row of D numbers per character, and the decoder is given "
    "only the last row, c. (The NLP lecture calls this *Problem 2: a fixed-size representation of the entire "
    "input sequence*.)"
)
DEFAULT_TEXT = "jane visits africa"


@dataclass(frozen=True)
class ParsedText:
    """The student's string as the model reads it, or a message saying why it cannot be used."""

    text: str  # cleaned: lower case, cut to MAX_LEN; "" when refused
    tokens: tuple[str, ...]  # one label per character ("<unk>" for one the model does not know)
    message: str | None  # a note (cut, unknown characters) or, when ``text`` is "", why it is refused

    @property
    def error(self) -> str | None:
        """Why the text is refused (``ui.checked_text`` keeps the last string that worked), or None."""
        return None if self.text else self.message

    @property
    def note(self) -> str | None:
        """What was changed in a usable text (cut, unknown characters), or None."""
        return self.message if self.text else None


def parse_text(text: object) -> ParsedText:
    """Read what the student typed: lower-cased, letters and spaces only, at most :data:`MAX_LEN` characters.

    Never raises and never echoes the text in its message (it is shown elsewhere as a literal).
    """
    if not isinstance(text, str) or not text.strip():
        return ParsedText("", (), "Type a few words first (letters and spaces).")
    cleaned = " ".join(text.lower().split())  # newlines, tabs and runs of spaces become one space
    encoded = lesson_task().source_tokenizer.encode_user_text(cleaned, MAX_LEN)
    if encoded.ids and all(i == UNK_ID for i in encoded.ids):
        return ParsedText("", (), "None of these characters is one the model knows: use letters and spaces.")
    tokens = tuple("<unk>" if i == UNK_ID else p for i, p in zip(encoded.ids, encoded.pieces, strict=True))
    kept = "".join(cleaned[: len(encoded.ids)])
    notes = []
    if encoded.truncated:
        notes.append(f"Only the first {MAX_LEN} characters are used: the models were trained on at most {MAX_LEN}.")
    if encoded.unknown_positions:
        n = len(encoded.unknown_positions)
        notes.append(
            f"{n} character{'s are' if n > 1 else ' is'} not a letter or a space and "
            f"{'are' if n > 1 else 'is'} read as <unk>."
        )
    return ParsedText(kept, tokens, " ".join(notes) or None)


@dataclass(frozen=True)
class Squeeze:
    """One string through the encoder: every state, the context vector, and how much each character moves it."""

    tokens: tuple[str, ...]  # the characters, then "</s>"
    states: np.ndarray  # (S, D) h_1 … h_S (the last is the EOS step)
    context: np.ndarray  # (D,) c = h_S, all the decoder gets
    sensitivity: np.ndarray  # (S - 1,) mean ‖c' − c‖ / ‖c‖ when that one character is replaced
    bidirectional: bool = False  # then c = [→h_S; ←h_1]: the forward half of the last state, the backward of the first


@torch.inference_mode()
def squeeze(model: nn.Module, text: str, replacements: str = "aeiostxz ") -> Squeeze:
    """Encode ``text`` (a :func:`parse_text` result) and measure what each character contributes to c.

    For every position, the character is replaced by each of ``replacements`` (itself skipped) and the
    string encoded again; the relative change of the context vector, averaged, says how much of that
    character survives in c.
    """
    task = lesson_task()
    ids = task.source_tokenizer.encode(text)
    source = torch.tensor([[*ids, EOS_ID]])  # (1, S)
    memory = model.encode(source, torch.tensor([source.size(1)]))
    states = memory.states[0]  # (S, D)
    context = memory.context[0]  # (D,)
    variants, owners = [], []
    for i, ch in enumerate(text):
        for r in replacements:
            if r != ch:
                variants.append([*ids[:i], *task.source_tokenizer.encode(r), *ids[i + 1 :], EOS_ID])
                owners.append(i)
    changed = model.encode(torch.tensor(variants), torch.full((len(variants),), source.size(1))).context  # (N, D)
    relative = (changed - context).norm(dim=-1) / context.norm().clamp_min(1e-9)  # (N,)
    owners_t = torch.tensor(owners)
    sensitivity = torch.stack([relative[owners_t == i].mean() for i in range(len(text))])  # (S - 1,)
    tokens = (*("<unk>" if i == UNK_ID else task.source_tokenizer.id_to_piece(i) for i in ids), "</s>")
    return Squeeze(tokens, states.numpy(), context.numpy(), sensitivity.numpy(), model.config.bidirectional)


@functools.cache
def random_encoder(hidden_size: int) -> nn.Module:
    """A seeded, untrained model without attention, built once and shared read-only (eval mode)."""
    return build("gru-none", hidden_size).eval()


def squeeze_random(text: str, hidden_size: int) -> Squeeze:
    """:func:`squeeze` through the seeded, untrained encoder of context size ``hidden_size``."""
    return squeeze(random_encoder(hidden_size), text)


def squeeze_caption(trained: bool) -> str:
    """The caption under :func:`squeeze_figure`: how to read the bars, for trained or random weights."""
    bars = (
        "The bars beside the states, ‖c′ − c‖ / ‖c‖: how far c moves when that character alone is replaced. A "
        "character whose replacement barely moves c is nearly forgotten, and the decoder cannot copy what c no "
        "longer holds. "
    )
    if trained:
        return bars + (
            "These are your trained weights: training teaches the encoder to keep what copying needs, as far as "
            "D numbers allow."
        )
    return bars + (
        "These weights are random (seeded), not trained: each new character overwrites part of the state, so the "
        "earliest ones fade most. Train a model in section 5 and come back to see what training keeps."
    )


def squeeze_figure(result: Squeeze) -> go.Figure:
    """Every encoder state h_1 … h_S (one row of D numbers per character) and, under a blank row, c = h_S: all
    the decoder gets; beside each character's row, a bar: how much c changes when that character alone is
    replaced (mean ‖c′ − c‖ / ‖c‖ over replacements). The states and c share one pair of axes and one
    zero-centred colour scale, so h_S and c read as the same colours; the bars share their rows.

    One figure, not one each for the states, c and the bars: the browser draws every changed Plotly figure from
    scratch, and all three change with the string and with D (a second figure costs 80–90 ms more a move).
    Built from one dict (:func:`lessons.common.charts.figure`).
    """
    S, D = result.states.shape
    labels = [safe_label(f"h{i + 1} · {shown(token)}") for i, token in enumerate(result.tokens)]
    c_label = f"c = [→h{S}; ←h1]" if result.bidirectional else f"c = h{S}"
    bound = float(np.abs(result.states).max()) or 1.0
    w = np.asarray(result.sensitivity, dtype=float)  # (S - 1,): one per character, none for the end mark
    top = max(float(w.max()), 1e-9)
    hover = "dimension %{x}<br>value = %{z:.3f}<extra></extra>"
    data = [
        {
            "type": "heatmap",
            "z": result.states,
            "y": list(range(S)),
            "name": "encoder states",
            "showlegend": False,
            "coloraxis": "coloraxis",
            "hovertemplate": hover,
        },
        {
            "type": "heatmap",
            "z": result.context[None],
            "y": [S + 1],
            "name": "context c",
            "showlegend": False,
            "coloraxis": "coloraxis",
            "hovertemplate": f"c · {hover}",
        },
        {
            "type": "bar",
            "x": w,
            "y": list(range(S - 1)),
            "orientation": "h",
            "xaxis": "x2",
            "yaxis": "y",
            "name": "relative change of c",
            "showlegend": False,
            "customdata": labels[:-1],
            "text": [f"{v:.2f}" for v in w],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertemplate": "%{customdata}<br>relative change of c = %{x:.4f}<extra></extra>",
            "marker": {"color": w, "colorscale": ATTENTION_COLORSCALE, "cmin": 0, "cmax": top},
        },
    ]
    layout = {
        "title": {
            "text": f"Encoder states: {S} rows of D = {D} numbers;<br>under them, all the decoder gets: c, {D} numbers"
        },
        "coloraxis": {
            "colorscale": DIVERGING_COLORSCALE,
            "cmid": 0.0,
            "cmin": -bound,
            "cmax": bound,
            "colorbar": {"thickness": 10, "title": {"text": "h, c"}},
        },
        "height": 150 + 22 * (S + 2),
        "margin": {"l": 10, "r": 10, "t": 84, "b": 50},  # the right panel's axis title takes two lines
        "xaxis": {"title": {"text": "dimension"}, "domain": [0.0, 0.62], "showgrid": False, "zeroline": False},
        "xaxis2": {
            # on a phone the bars' panel is a hundred pixels wide: its title is the formula alone (the caption says
            # what it measures), else it runs over the states' axis title
            "title": {
                "text": "‖c′ − c‖ / ‖c‖"
                if NARROW.get()
                else "change of c, ‖c′ − c‖ / ‖c‖,<br>when this character is replaced"
            },
            "domain": [0.7, 1.0],
            "anchor": "y",
            "range": [0, max(1.0, top * 1.15)],
        },
        "yaxis": {
            "tickmode": "array",
            "tickvals": [*range(S), S + 1],
            "ticktext": [*labels, c_label],
            "autorange": "reversed",
            "range": [S + 1.5, -0.5],
            "showgrid": False,
            "zeroline": False,
        },
    }
    return figure(data, layout)
