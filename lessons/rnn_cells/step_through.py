"""Section 1, step through a sentence: a cell reads the student's sentence one token at a time, and every gate and
state is drawn as a heatmap of hidden units × time steps (the lecture's "The cat, which already ate …, was full.").

Each token is the Q/K/V lesson's fixed random vector for that word; the cell's weights are seeded random, never
trained (:mod:`.seeded_cells`), so what the student sees is the mechanism, not a learned memory.

Letters: T sequence length, I input (embedding) size, H hidden size.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.charts import safe_label
from lessons.common.colorscales import DIVERGING_COLORSCALE, SEQUENTIAL_COLORSCALE
from lessons.common.sentences import ParsedSentence, word_embedding
from lessons.common.sentences import parse_sentence as parse_words
from lessons.rnn_cells.seeded_cells import CELLS, INPUT_SIZE, make_cell, zero_state

TITLE = "1 · Step through a sentence"
TEXT = (
    "Each token becomes a fixed random vector x⟨t⟩ (the same vector for the same word everywhere in the "
    "course). Move the step to watch the cell read the sentence: each panel is a heatmap of **hidden units × "
    "time steps**, one column per token read. The weights are **random (seeded), not trained**, so the gates "
    "open and close by chance rather than because *cat* matters: what you see is the mechanism, not a "
    "learned memory."
)
DEFAULT_SENTENCE = "The cat, which already ate …, was full."
MAX_TOKENS = 40  # a heatmap column per token stays readable on a projector
# a word (with inner apostrophes or hyphens: "didn't", "Voulez-vous"), or a run of one punctuation mark ("…", "!!")
TOKEN = re.compile(r"\w+(?:['’-]\w+)*|([^\w\s])\1*")
ALLOWED_CATEGORIES = ("L", "M", "N", "P")  # letters, accents, digits, punctuation; no emoji, symbols or markup


def tokenize(text: str) -> tuple[str, ...]:
    """Words and punctuation marks: "The cat, which" -> ("The", "cat", ",", "which")."""
    return tuple(m.group(0) for m in TOKEN.finditer(text)) if isinstance(text, str) else ()


def parse_sentence(text: str, max_tokens: int = MAX_TOKENS) -> ParsedSentence:
    """Tokens of the student's text, or a message saying why it is refused (the page keeps the last good one).

    Empty and over-long text are refused by the Q/K/V lesson's rules; on top of those this lesson reads words
    only, so a character that is neither a letter, a digit nor punctuation (an emoji, ``<`` of an HTML tag, a
    control character) is refused by its Unicode name, never by echoing what was typed.
    """
    tokens = tokenize(text)
    parsed = parse_words(" ".join(tokens), max_tokens=max_tokens)
    if parsed.error:
        return parsed
    for ch in "".join(tokens):
        if not unicodedata.category(ch).startswith(ALLOWED_CATEGORIES):
            name = unicodedata.name(ch, "")
            what = f"“{name.title()}”" if name else "a control character"
            return ParsedSentence(
                (),
                f"The text contains {what} (U+{ord(ch):04X}). This lesson reads words: letters, digits and "
                "punctuation, without emoji, symbols or HTML tags.",
            )
    return parsed


def embed(tokens: tuple[str, ...], input_size: int = INPUT_SIZE) -> torch.Tensor:
    """x⟨1⟩ … x⟨T⟩: the Q/K/V lesson's fixed random vector per word, ``(T, I)``."""
    return torch.stack([word_embedding(t, input_size) for t in tokens])


# What each panel of the figure shows, in the order of the equations: (key, title, values in (0, 1)?)
PANELS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "RNN": (("hidden", "a⟨t⟩ hidden state", False),),
    "GRU": (
        ("reset", "Γ<sub>r</sub> reset gate", True),
        ("update", "Γ<sub>u</sub> update gate (1 = rewrite, 0 = keep)", True),
        ("candidate", "c̃⟨t⟩ candidate", False),
        ("hidden", "c⟨t⟩ = a⟨t⟩ memory", False),
    ),
    "LSTM": (
        ("forget", "Γ<sub>f</sub> forget gate (1 = keep)", True),
        ("input", "Γ<sub>u</sub> update (input) gate", True),
        ("output", "Γ<sub>o</sub> output gate", True),
        ("candidate", "c̃⟨t⟩ candidate", False),
        ("memory", "c⟨t⟩ memory cell", False),
        ("hidden", "a⟨t⟩ hidden state", False),
    ),
}


@dataclass(frozen=True)
class Trace:
    kind: str
    tokens: tuple[str, ...]
    panels: dict[str, torch.Tensor]  # every gate and state, each (H, T): hidden unit × time step

    @property
    def hidden_size(self) -> int:
        return self.panels["hidden"].shape[0]


def run_cell(cell: nn.Module, X: torch.Tensor) -> dict[str, torch.Tensor]:
    """Feed x⟨1⟩ … x⟨T⟩ (``X``: ``(T, I)``) to the cell one step at a time; collect every gate and state."""
    kind = next(name for name, cls in CELLS.items() if isinstance(cell, cls))
    state = zero_state(kind, 1, cell.hidden_size, X.dtype)
    columns: dict[str, list[torch.Tensor]] = {}
    with torch.no_grad():
        for x in X:
            state, gates = cell(x[None], state)  # x[None]: (1, I); each gate (1, H)
            a, c = state if kind == "LSTM" else (state, None)
            values = {**gates, "hidden": a} | ({"memory": c} if c is not None else {})
            for name, v in values.items():
                columns.setdefault(name, []).append(v[0])
    return {name: torch.stack(vs, dim=1) for name, vs in columns.items()}  # (H, T) each


def trace_sentence(kind: str, tokens: tuple[str, ...], hidden_size: int = 8, seed: int = 0) -> Trace:
    """The cell ``kind`` read over the student's sentence: every gate at every step, as (H, T) maps."""
    if not tokens:
        raise ValueError("trace_sentence needs at least one token")
    cell = make_cell(kind, hidden_size, seed)
    return Trace(kind, tuple(tokens), run_cell(cell, embed(tokens)))


def moved_step(step: int, delta: int, length: int) -> int:
    """The step after a ◀ back (``delta`` −1) or next ▶ (+1) click: kept between 1 and ``length``."""
    return min(max(step + delta, 1), length)


def cell_figure(trace: Trace, step: int) -> go.Figure:
    """Every gate and state of ``trace`` as a (hidden unit × time step) heatmap, tokens on the time axis.

    One panel per gate or state, stacked on a shared time axis. Columns after ``step`` are left blank (not read
    yet) and the column of ``step`` is outlined. Gates share one colour scale on [0, 1], states and candidates a
    diverging one on [−1, 1], so panels compare at a glance. Each step redraws the whole figure in the browser,
    so it is kept cheap to draw: all panels on ONE pair of axes (each heatmap shifted down its own rows, a gap
    above it for its title) instead of six subplots, and two drawn unit numbers per panel (every unit's number on
    a hidden axis, for the hover-free downloads): 48 tick labels cost more to draw than the heatmaps. The layout
    is written out as one dict rather than with ``make_subplots`` and ``update_*`` calls, ~10× faster to build.
    """
    T, H = len(trace.tokens), trace.hidden_size
    if not 1 <= step <= T:
        raise ValueError(f"step {step} is outside 1…{T}")
    panels = PANELS[trace.kind]
    labels = [safe_label(t, max_chars=12) for t in trace.tokens]
    panel_px, gap_px = min(220, max(70, 14 * H)), 56  # each panel's plot area, and the room for its title above
    gap = round(gap_px * H / panel_px, 3)  # the title's room, in rows of the shared y axis
    area_px = len(panels) * (panel_px + gap_px)
    first_rows = [i * (H + gap) + gap for i in range(len(panels))]  # y of each panel's unit 1 (drawn top down)
    data, annotations, unread, tickvals, ticktext, drawn = [], [], [], [], [], []
    outline = {"x": [], "y": []}  # the column of ``step`` in every panel, one closed line each
    for (name, title, is_gate), y0 in zip(panels, first_rows, strict=True):
        rows = [round(y0 + u, 3) for u in range(H)]  # units 1…H of this panel on the shared y axis
        top, bottom = y0 - 0.5, y0 + H - 0.5  # the panel's edges on the (reversed) y axis
        z = trace.panels[name].detach().cpu().numpy().astype(float).copy()  # (H, T)
        z[:, step:] = np.nan  # not read yet
        symbol = re.sub(r"<[^>]+>", "", title.split(" ")[0])  # "Γ<sub>u</sub>" -> "Γu" for the hover
        hover = np.array([[f"t = {j + 1} · {labels[j]}<br>unit {u}" for j in range(T)] for u in range(1, H + 1)])
        data.append(
            {
                "type": "heatmap",
                "name": symbol,
                "z": z,
                "x": list(range(T)),
                "y": rows,
                "customdata": hover,
                "coloraxis": "coloraxis" if is_gate else "coloraxis2",
                "hovertemplate": f"%{{customdata}}<br>{symbol} = %{{z:.3f}}<extra></extra>",
                "hoverongaps": False,
                "xgap": 1,
                "ygap": 1 if H <= 16 else 0,
            }
        )
        tickvals += rows
        ticktext += [str(u + 1) for u in range(H)]
        drawn += rows if H <= 4 else [rows[0], rows[-1]]
        annotations.append(
            {
                "text": title,
                "x": 0.5,
                "y": top,
                "xref": "paper",
                "yref": "y",
                "xanchor": "center",
                "yanchor": "bottom",
                "yshift": 6,
                "showarrow": False,
                "font": {"size": 15, "color": "#222"},
            }
        )
        if step < T:  # the grey of the columns not read yet (the gaps between panels stay white)
            unread.append(f"M{step - 0.5},{top}H{T - 0.5}V{bottom}H{step - 0.5}Z")
        outline["x"] += [step - 1.5, step - 0.5, step - 0.5, step - 1.5, step - 1.5, None]
        outline["y"] += [top, top, bottom, bottom, top, None]
    data.append(  # on the drawn-labels axis: an axis is drawn only with a trace on it
        {
            "type": "scatter",
            "mode": "lines",
            **outline,
            "yaxis": "y2",
            "line": {"color": "#111", "width": 2},
            "hoverinfo": "skip",
            "showlegend": False,
        }
    )
    shapes = []
    if unread:
        shapes.append(
            {"type": "path", "path": "".join(unread), "fillcolor": "#eeeeee", "line": {"width": 0}, "layer": "below"}
        )
    gates = any(is_gate for _, _, is_gate in panels)
    layout = {
        "title": {
            "text": f"{trace.kind}, step {step} of {T}: reading “{labels[step - 1]}”",
            "y": 0.995,
            "yref": "container",
            "yanchor": "top",
        },
        "xaxis": {
            "tickmode": "array",
            "tickvals": list(range(T)),
            "ticktext": labels,
            "tickangle": -45 if T > 8 else 0,
            "tickfont": {"size": 14, "color": "#222"},
            "showgrid": False,
            "zeroline": False,
            "range": [-0.5, T - 0.5],
            "title": {"text": "time step t (token read)"},
        },
        "yaxis": {  # every row's unit number: the rows' names in the downloaded numbers, not drawn
            "range": [round(len(panels) * (H + gap) - 0.5, 3), -0.5],  # reversed: unit 1 on top, first panel on top
            "tickmode": "array",
            "tickvals": tickvals,
            "ticktext": ticktext,
            "showticklabels": False,
            "ticks": "",
            "showgrid": False,
            "zeroline": False,
        },
        "yaxis2": {  # the drawn unit numbers, each panel's first and last: 48 tick labels took ~200 ms to draw
            "overlaying": "y",
            "anchor": "x",
            "side": "left",
            "matches": "y",
            "tickmode": "array",
            "tickvals": drawn,
            "ticktext": [ticktext[tickvals.index(v)] for v in drawn],
            "showgrid": False,
            "zeroline": False,
        },
        "annotations": annotations,
        "shapes": shapes,
        "height": area_px + 150,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "font": {"size": 13},
        "plot_bgcolor": "white",
        "coloraxis": {
            "colorscale": SEQUENTIAL_COLORSCALE,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": {"title": {"text": "gate"}, "len": 0.45, "y": 1.0, "yanchor": "top", "thickness": 14},
        },
        "coloraxis2": {
            "colorscale": DIVERGING_COLORSCALE,
            "cmin": -1.0,
            "cmax": 1.0,
            "colorbar": {
                "title": {"text": "state"},
                "len": 0.45 if gates else 1.0,
                "y": 0.0,
                "yanchor": "bottom",
                "thickness": 14,
            },
        },
    }
    return go.Figure(data=data, layout=layout)


def step_summary(trace: Trace, step: int) -> str:
    """One sentence about the gates at ``step`` (1-based), in words a student can check on the figure."""
    t = step - 1
    mean = {name: float(v[:, t].mean()) for name, v in trace.panels.items()}
    if trace.kind == "RNN":
        return (
            f"At step {step} the plain RNN rewrites all {trace.hidden_size} units of a⟨t⟩ from a⟨t−1⟩ and "
            "x⟨t⟩: there is no gate that could hold an early word unchanged until a late one needs it."
        )
    if trace.kind == "GRU":
        return (
            f"At step {step} the update gate Γ_u averages {mean['update']:.2f} over the units: on average a unit "
            f"takes {mean['update']:.0%} of the candidate c̃ and keeps {1 - mean['update']:.0%} of its old memory."
        )
    return (
        f"At step {step} the forget gate Γ_f averages {mean['forget']:.2f} (the share of c⟨t−1⟩ kept) and the "
        f"update gate Γ_u {mean['input']:.2f} (the share of c̃ written in); the output gate Γ_o averages "
        f"{mean['output']:.2f}."
    )


CELL_FIGURE_CAPTION = (  # how to read :func:`cell_figure`
    "Gates: yellow = open (near 1), dark blue = shut (near 0). States and candidates: blue positive, "
    "red negative. Grey columns are tokens not read yet. Hover a cell for its exact value."
)
