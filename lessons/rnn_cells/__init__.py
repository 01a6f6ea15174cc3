"""Lesson: RNN cells (Part 1).

Follows the Transformer lecture's "RNN cells" slides: the plain RNN, the GRU and the LSTM in the lecture's
notation (a⟨t⟩, c⟨t⟩, c̃⟨t⟩, Γ_u, Γ_r, Γ_f, Γ_o), its example "The cat, which already ate …, was full." (the
cell must carry *cat* across the clause to choose *was*), its "different types of RNNs" slide, and the NLP
lecture's remark that attention "helps with vanishing gradient problem via shortcut to far-away states".
Every number is computed by :mod:`minimodels.cells`; the weights are seeded random, never trained.

Letters: T sequence length, I input (embedding) size, H hidden size, B batch.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.catalog import number
from lessons.common.charts import DIVERGING_COLORSCALE, SEQUENTIAL_COLORSCALE, safe_label
from lessons.common.comparison import curves_chart
from lessons.common.exercises import Exercise
from lessons.queries_keys_values import ParsedSentence, word_embedding
from lessons.queries_keys_values import parse_sentence as parse_words
from lessons.rnn_cells.sequential import steps_in_a_row
from lessons.rnn_cells.standard_network import PROBE, PROBE_OPTIONS, SharingDemo, count, sharing_demo, window_layer
from lessons.rnn_cells.training import load_results as load_results  # the shipped comparison, for ui.shipped_results
from minimodels.cells import GRUCell, LSTMCell, RNNCell

CELLS: dict[str, type[nn.Module]] = {"RNN": RNNCell, "GRU": GRUCell, "LSTM": LSTMCell}
INPUT_SIZE = 16  # every token is a fixed random vector of this size (lessons.queries_keys_values.word_embedding)

# The lecture's equations (its slide's typos fixed: a⟨t−1⟩ on the RNN's right-hand side, * not + in the GRU's
# last line). The GRU's output is its memory, a⟨t⟩ = c⟨t⟩.
EQUATIONS: dict[str, str] = {
    "RNN": r"""\begin{aligned}
        a^{\langle t\rangle} &= \tanh(W_{aa}\,a^{\langle t-1\rangle} + W_{ax}\,x^{\langle t\rangle} + b_a) \\
        \hat y^{\langle t\rangle} &= g(W_{ya}\,a^{\langle t\rangle} + b_y)
        \end{aligned}""",
    "GRU": r"""\begin{aligned}
        \Gamma_r &= \sigma(W_r[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_r) \\
        \Gamma_u &= \sigma(W_u[c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u) \\
        \tilde c^{\langle t\rangle} &= \tanh(W_c[\Gamma_r * c^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_c) \\
        c^{\langle t\rangle} &= \Gamma_u * \tilde c^{\langle t\rangle} + (1 - \Gamma_u) * c^{\langle t-1\rangle} \\
        a^{\langle t\rangle} &= c^{\langle t\rangle}
        \end{aligned}""",
    "LSTM": r"""\begin{aligned}
        \tilde c^{\langle t\rangle} &= \tanh(W_c[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_c) \\
        \Gamma_u &= \sigma(W_u[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_u) \\
        \Gamma_f &= \sigma(W_f[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_f) \\
        \Gamma_o &= \sigma(W_o[a^{\langle t-1\rangle}, x^{\langle t\rangle}] + b_o) \\
        c^{\langle t\rangle} &= \Gamma_u * \tilde c^{\langle t\rangle} + \Gamma_f * c^{\langle t-1\rangle} \\
        a^{\langle t\rangle} &= \Gamma_o * \tanh(c^{\langle t\rangle})
        \end{aligned}""",
}
EQUATION_NOTES = (  # the caption under the three cells' equations
    "σ is the sigmoid (a gate: between 0 and 1), * multiplies unit by unit, [·, ·] stacks two vectors. As in "
    "`torch.nn.GRUCell`, our GRU applies Γ_r after multiplying c⟨t−1⟩ by its weights rather than before; "
    "the lecture's slide also writes the RNN's a⟨t−1⟩ as a⟨t⟩ and the GRU's last * as +, typos fixed here."
)

# --------------------------------------------------------------------------------------------------
# 1. The student's sentence
# --------------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------------
# 2. A cell, stepped through the sentence one token at a time
# --------------------------------------------------------------------------------------------------


def make_cell(
    kind: str,
    hidden_size: int,
    seed: int,
    *,
    input_size: int = INPUT_SIZE,
    gate_bias: float = 0.0,
    recurrent_scale: float = 1.0,
    dtype: torch.dtype = torch.float32,
) -> nn.Module:
    """A cell with seeded random weights (PyTorch's own uniform ±1/√H initialisation), never trained.

    ``gate_bias`` is added to the bias of the gate that decides how much memory is *kept*: the LSTM's forget
    gate Γ_f, and the GRU's 1 − Γ_u (PyTorch's z gate); both sit in rows H:2H of the stacked weights.
    ``recurrent_scale`` multiplies the recurrent weights (W_aa for the RNN). A private generator leaves the
    global random state, which every student's session shares, untouched.
    """
    if kind not in CELLS:
        raise ValueError(f"unknown cell {kind!r}; choose one of {list(CELLS)}")
    g = torch.Generator().manual_seed(seed)
    with torch.device("meta"):  # shapes only: the cell's own initialisation would draw from the global generator
        cell = CELLS[kind](input_size, hidden_size)
    cell = cell.to_empty(device="cpu").to(dtype)
    bound = 1.0 / math.sqrt(hidden_size)
    with torch.no_grad():
        for p in cell.parameters():
            nn.init.uniform_(p, -bound, bound, generator=g)
        cell.weight_hh.mul_(recurrent_scale)
        if kind != "RNN":
            cell.bias_ih[hidden_size : 2 * hidden_size] += gate_bias
    return cell


def zero_state(kind: str, batch_size: int, hidden_size: int, dtype: torch.dtype = torch.float32):
    """a⟨0⟩ = 0 (and c⟨0⟩ = 0 for the LSTM), in the cell's dtype."""
    a0 = torch.zeros(batch_size, hidden_size, dtype=dtype)
    return (a0, a0.clone()) if kind == "LSTM" else a0


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
        {"type": "scatter", "mode": "lines", **outline, "yaxis": "y2", "line": {"color": "#111", "width": 2},
         "hoverinfo": "skip", "showlegend": False}
    )  # fmt: skip
    shapes = []
    if unread:
        shapes.append({"type": "path", "path": "".join(unread), "fillcolor": "#eeeeee", "line": {"width": 0},
                       "layer": "below"})  # fmt: skip
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


# --------------------------------------------------------------------------------------------------
# 3. Why gates matter: the vanishing gradient, measured with autograd
# --------------------------------------------------------------------------------------------------

GRADIENT_HIDDEN = 16
GRADIENT_SEEDS = (0, 1, 2, 3, 4)
DEFAULT_LENGTH = 60  # long enough for a plain RNN's gradient to fall by many powers of ten


def jacobian_norms(cell: nn.Module, x: torch.Tensor, groups: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """‖∂a⟨T⟩/∂x⟨t⟩‖ for every t of the sequence ``x`` ``(T, I)``, and the mean "keep" gate over the run.

    One backward pass gives the whole Jacobian: the sequence is run as a batch of H copies and copy b
    back-propagates only unit b of a⟨T⟩, so the gradient reaching copy b's inputs is row b of ∂a⟨T⟩/∂x⟨t⟩.
    The norm is the Frobenius norm over (b, i). The "keep" gate is Γ_f (LSTM) or 1 − Γ_u (GRU); NaN for the
    RNN, which has none.

    ``groups``: the cell is that many cells run side by side (:func:`side_by_side`), each owning an equal block
    of the units and of the inputs; returned per cell: norms ``(groups, T)`` and keep gates ``(groups,)``.
    Copy b then back-propagates unit b of every cell at once: no cell reads another's inputs, so the gradient on
    cell g's block of inputs is row b of cell g's own Jacobian.
    """
    kind = next(name for name, cls in CELLS.items() if isinstance(cell, cls))
    T, H = x.shape[0], cell.hidden_size // groups  # H units per cell, H copies
    X = x[:, None, :].expand(T, H, x.shape[1]).clone().requires_grad_(True)  # (T, B=H, groups·I): H copies
    state = zero_state(kind, H, groups * H, x.dtype)
    kept = []
    for t in range(T):
        state, gates = cell(X[t], state)  # X[t]: (H, groups·I)
        if kind == "LSTM":
            kept.append(gates["forget"].detach())
        elif kind == "GRU":
            kept.append(gates["update"].detach())  # 1 − Γ_u taken below, once for the whole run
    a_T = state[0] if kind == "LSTM" else state  # (H copies, groups·H units)
    target = a_T.view(H, groups, H).diagonal(dim1=0, dim2=2).sum()  # copy b keeps only ∂a⟨T⟩_b of each cell
    target.backward(inputs=[X])  # the inputs' gradient only: the weights' would cost as much again, unused
    norms = X.grad.pow(2).view(T, H, groups, -1).sum(dim=(1, 3)).sqrt().T  # (groups, T) by time step t
    if not kept:
        return norms, torch.full((groups,), float("nan"), dtype=x.dtype)
    gate = torch.stack(kept).view(T, H, groups, H).mean(dim=(0, 1, 3))  # (groups,): over steps, copies, units
    return norms, gate if kind == "LSTM" else 1 - gate


def side_by_side(cells: list[nn.Module]) -> nn.Module:
    """One cell of the same kind that runs ``cells`` (equal sizes, their own weights) side by side.

    Its input is their inputs stacked, its state their states stacked, and each weight matrix is block-diagonal
    gate by gate, so block g computes exactly what cell g computes and nothing crosses between blocks. Why:
    autograd's cost here is Python's, one call per small operation; five seeds in one pass make five times fewer
    calls for the same numbers (a unit test checks them against the cells run one by one).
    """
    first, n = cells[0], len(cells)
    H, I, G = first.hidden_size, first.input_size, first.n_gates
    param = first.weight_ih
    with torch.device("meta"):  # shapes only: the values are copied in below
        big = type(first)(n * I, n * H)
    big = big.to_empty(device=param.device).to(param.dtype)
    with torch.no_grad():
        for name, width in (("weight_ih", I), ("weight_hh", H)):
            blocks = torch.zeros(G, n * H, n * width, dtype=param.dtype)  # (gates, units, inputs)
            for g, cell in enumerate(cells):
                blocks[:, g * H : (g + 1) * H, g * width : (g + 1) * width] = getattr(cell, name).view(G, H, width)
            getattr(big, name).copy_(blocks.view(G * n * H, n * width))
        for name in ("bias_ih", "bias_hh"):
            getattr(big, name).copy_(torch.stack([getattr(c, name).view(G, H) for c in cells], 1).view(-1))
    return big


def random_sequence(length: int, seed: int) -> torch.Tensor:
    """The experiment's seeded random inputs ``(T, I)``, float64."""
    g = torch.Generator().manual_seed(10_000 + seed)
    return torch.randn(length, INPUT_SIZE, generator=g, dtype=torch.float64)  # (T, I)


def gradient_norms(
    kind: str,
    length: int,
    seed: int,
    *,
    hidden_size: int = GRADIENT_HIDDEN,
    gate_bias: float = 0.0,
    recurrent_scale: float = 1.0,
) -> tuple[np.ndarray, float]:
    """:func:`jacobian_norms` of a seeded random cell on a seeded random sequence, indexed by distance T − t.

    Float64, so a gradient of 1e-30 is still a number, not an underflowed 0.
    """
    cell = make_cell(kind, hidden_size, seed, gate_bias=gate_bias, recurrent_scale=recurrent_scale, dtype=torch.float64)
    norms, keep = jacobian_norms(cell, random_sequence(length, seed))
    return norms[0].flip(0).numpy(), float(keep[0])  # index d = T − t


@dataclass(frozen=True)
class GradientExperiment:
    length: int
    gate_bias: float
    recurrent_scale: float
    norms: dict[str, np.ndarray]  # cell -> (T,) geometric mean over seeds, index = distance T − t
    keep: dict[str, float]  # cell -> mean keep gate (Γ_f, or 1 − Γ_u) over the runs
    per_seed: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)  # cell -> (seeds, T), same index
    seeds: tuple[int, ...] = ()

    def at(self, distance: int) -> dict[str, float]:
        return {kind: float(v[distance]) for kind, v in self.norms.items()}


def vanishing_experiment(
    length: int = DEFAULT_LENGTH,
    gate_bias: float = 0.0,
    recurrent_scale: float = 1.0,
    seeds: tuple[int, ...] = GRADIENT_SEEDS,
) -> GradientExperiment:
    """RNN vs GRU vs LSTM: the gradient of the last state w.r.t. every earlier input, over several seeds.

    Averaged geometrically (the mean of the logs), because the numbers span many powers of ten.
    Each cell kind runs once, its seeds side by side (:func:`side_by_side`): the same numbers as
    :func:`gradient_norms` seed by seed.
    """
    norms, keep, each = {}, {}, {}
    x = torch.cat([random_sequence(length, s) for s in seeds], dim=1)  # (T, seeds·I)
    for kind in CELLS:
        settings = {"gate_bias": gate_bias, "recurrent_scale": recurrent_scale, "dtype": torch.float64}
        cells = [make_cell(kind, GRADIENT_HIDDEN, s, **settings) for s in seeds]
        per_seed, kept = jacobian_norms(side_by_side(cells), x, groups=len(seeds))  # (seeds, T), (seeds,)
        each[kind] = per_seed.flip(1).numpy()  # index d = T − t
        norms[kind] = np.exp(np.log(each[kind]).mean(axis=0))
        keep[kind] = float(kept.mean())
    return GradientExperiment(length, gate_bias, recurrent_scale, norms, keep, each, tuple(seeds))


def _superscript(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def gradient_summary(exp: GradientExperiment, distance: int = 30) -> str:
    """What the numbers show, said plainly (they are random untrained cells: no promise, just the reading)."""
    d = min(distance, exp.length - 1)
    at = exp.at(d)
    order = sorted(at, key=at.get)
    ratio = at[order[-1]] / at[order[0]]
    parts = [
        f"At distance {d}: " + ", ".join(f"{kind} {at[kind]:.1e}" for kind in CELLS) + ". ",
        f"The {order[0]}'s gradient is the smallest, about 10{_superscript(round(math.log10(ratio)))} times "
        f"smaller than the "
        f"{order[-1]}'s. ",
        f"The keep gates average Γ_f = {exp.keep['LSTM']:.2f} (LSTM) and 1 − Γ_u = {exp.keep['GRU']:.2f} (GRU).",
    ]
    if exp.norms["RNN"][d] > exp.norms["RNN"][0]:
        parts.append(" The plain RNN's gradient *grows* with distance here: it explodes instead of vanishing.")
    return "".join(parts)


CELL_COLORS = ("#444444", "#1f77b4", "#ff7f0e")  # RNN, GRU, LSTM: apart in colour and in dash


def gradient_chart(exp: GradientExperiment) -> dict:
    """log₁₀ of the gradient norm against distance (a straight falling line is an exponential decay): the course's
    curve chart, each seed a faint line, the mean of the logs (the geometric mean the sentences quote) and ± one sd
    of the logs as a band. Logs, because the seeds' numbers span many powers of ten: their arithmetic mean would
    be the largest seed's alone."""
    points = [
        {"variant": kind, "order": i, "seed": seed, "x": d, "y": float(np.log10(v))}
        for i, (kind, runs) in enumerate(exp.per_seed.items())
        for seed, row in zip(exp.seeds, runs, strict=True)
        for d, v in enumerate(row)
        if v > 0
    ]
    n = len(exp.seeds)
    return curves_chart(
        points, y_title="log₁₀ gradient norm", x_title="distance T − t (steps back from the last token)",
        title=f"‖∂a⟨T⟩/∂x⟨t⟩‖, T = {exp.length}, {n} seed{'s' if n > 1 else ''}" + (", mean ± sd" if n > 1 else ""),
        height=420, colors=dict(zip(CELLS, CELL_COLORS, strict=True)),
    )  # fmt: skip


# --------------------------------------------------------------------------------------------------
# 4. The kinds of RNN (the lecture's "Different types of RNNs" and its sequence-model examples)
# --------------------------------------------------------------------------------------------------


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


KINDS_CAPTION = (  # under the table of :func:`kinds_markdown`
    "The encoder–decoder squeezes the whole input into the encoder's last state: the next lesson shows where "
    "that breaks, and why attention was invented."
)


def kind_of(task: str) -> int:
    """Index in :data:`KINDS` of the kind whose lecture example mentions ``task``."""
    matches = [i for i, k in enumerate(KINDS) if task.lower() in k.example.lower()]
    if len(matches) != 1:
        raise ValueError(f"{task!r} names {len(matches)} kinds, not one")
    return matches[0]


# --------------------------------------------------------------------------------------------------
# Exercises, their answers computed from the same functions the figures use
# --------------------------------------------------------------------------------------------------


def gru_blend(update: float, candidate: float, previous: float) -> float:
    """The GRU's last line, c⟨t⟩ = Γ_u * c̃⟨t⟩ + (1 − Γ_u) * c⟨t−1⟩, for one unit."""
    return update * candidate + (1.0 - update) * previous


def memory_kept(forget: float, steps: int) -> float:
    """∂c⟨T⟩/∂c⟨T−steps⟩ of one LSTM unit whose update gate is closed (Γ_u = 0): the product of its Γ_f's."""
    return forget**steps


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


EXERCISE_SIZES = {"T": 25, "E": 4, "H": 10}  # the window of exercise 3: not the sizes the page's figure counts
LANGUAGE_MODEL = "a language model reading a sentence, predicting the next word at every word"


STEPS_EXERCISE = {"length": 30, "layers": 2}  # a size the page's chart does not show


def _steps_exercise() -> Exercise:
    """By hand: the steps a two-layer RNN must take one after another, against a two-layer self-attention stack."""
    T, L = STEPS_EXERCISE.values()
    chain = steps_in_a_row(T, L)
    attention = number("queries_keys_values")
    return Exercise(
        key="rnn_cells.ex6",
        prompt=(
            f"Compute by hand. A {L}-layer RNN reads T = {T} tokens. Step t of layer 2 needs step t of layer 1 and "
            "its own step t − 1. With as many cores as you like, how many steps must still run one after another?"
        ),
        answer=chain,
        explanation=(
            f"Layer 1 takes its {T} steps in a row. Layer 2 can start as soon as layer 1's first step is done, "
            f"and then follows one step behind: it finishes {L - 1} step later, so {T} + {L} − 1 = {chain} steps "
            f"in a row. Twice the length, twice the chain. A stack of {L} self-attention layers (lesson "
            f"{attention}) needs "
            f"{steps_in_a_row(T, L, recurrent=False)} steps in a row whatever T is: each layer covers every "
            "position at once (it does more arithmetic, T² scores, but all of it can run side by side)."
        ),
        hint="Draw the grid of (layer, step) and follow the longest chain of arrows.",
    )


def exercises(sharing: SharingDemo | None = None) -> list[Exercise]:
    """The check-yourself questions: three computed by hand, one prediction about the sharing demo (``sharing``,
    trained if None) and one about the kinds of RNN; every answer from the lesson's own functions."""
    demo = sharing or sharing_demo()
    T, E, H = EXERCISE_SIZES.values()
    window = count(window_layer(T, E, H))
    rnn = count(nn.RNN(E, H))
    kept = {b: memory_kept(sigmoid(b), 40) for b in (1.0, 3.0)}
    picks = demo.probe["window network"]
    pick = max(set(picks), key=picks.count)
    told = {m: ", ".join(f"{PROBE_OPTIONS[o]} ({demo.probe[m].count(o)} of {len(demo.probe[m])} seeds)"
                         for o in sorted(set(demo.probe[m]))) for m in demo.probe}  # fmt: skip
    cells = tuple(k.name for k in KINDS)
    return [
        Exercise(
            key="rnn_cells.ex1",
            prompt=(
                "Compute by hand. A GRU unit holds c⟨t−1⟩ = 0.8. The candidate is c̃⟨t⟩ = −0.5 and the update "
                "gate Γ_u = 0.1. What is c⟨t⟩? (two decimals)"
            ),
            answer=gru_blend(0.1, -0.5, 0.8),
            tolerance=0.005,
            explanation=(
                "c⟨t⟩ = Γ_u · c̃⟨t⟩ + (1 − Γ_u) · c⟨t−1⟩ = 0.1 · (−0.5) + 0.9 · 0.8 = −0.05 + 0.72 = "
                f"{gru_blend(0.1, -0.5, 0.8):.2f}. With Γ_u near 0 the unit mostly keeps what it had."
            ),
            hint="Γ_u weighs the candidate and 1 − Γ_u the old memory, not the other way round.",
        ),
        Exercise(
            key="rnn_cells.ex2",
            prompt=(
                "Compute by hand. An LSTM unit's update gate stays shut (Γ_u = 0) and its forget gate stays at its "
                "initial value Γ_f = σ(b) for 40 steps. With this lesson's bias b = 3, what fraction of c⟨t⟩ (and "
                "of the gradient flowing back through it) survives the 40 steps? (three decimals)"
            ),
            answer=kept[3.0],
            tolerance=0.003,
            explanation=(
                f"σ(3) = 1 / (1 + e⁻³) = {sigmoid(3.0):.4f}, and each step multiplies c by it: "
                f"{sigmoid(3.0):.4f}⁴⁰ = {kept[3.0]:.3f}. With the usual bias b = 1, σ(1) = {sigmoid(1.0):.4f} and "
                f"{sigmoid(1.0):.4f}⁴⁰ = {kept[1.0]:.1e}: at the start of training almost nothing of *cat* reaches "
                "the verb 40 steps later, which is what the measured chart's fourth curve is about."
            ),
            hint="σ(3) is not 3: take the sigmoid first, then the 40th power.",
        ),
        Exercise(
            key="rnn_cells.ex3",
            prompt=(
                f"Compute by hand. A standard network reads a window of T = {T} words, each an embedding of E = {E} "
                f"numbers, into H = {H} hidden units (one `nn.Linear` with its bias). How many parameters does "
                "that layer have?"
            ),
            answer=window,
            tolerance=0.5,
            explanation=(
                f"The window flattens to T · E = {T * E} inputs; each of the {H} units has one weight per input and "
                f"one bias: {T * E} · {H} + {H} = {window}. An RNN layer with the same E and H (`nn.RNN`) has "
                f"E·H + H·H + 2H = {E * H} + {H * H} + {2 * H} = {rnn}, whatever T is."
            ),
            hint="Every unit sees every position's every number: T · E inputs, not E.",
        ),
        Exercise(
            key="rnn_cells.ex4",
            prompt=(
                "Predict, then read the answer. The window network of section 2 was trained on names at positions "
                "1–4 only. It is now given “" + " ".join(PROBE) + "”: *Harry* at position 2, *Hermione* at "
                "position 6. Which names does it tag?"
            ),
            choices=PROBE_OPTIONS,
            answer=pick,
            explanation=(
                f"Run on this server: the window network tagged {told['window network']}; the RNN tagged "
                f"{told['RNN']}. "
                + (
                    "The window network's weights for position 6 only ever saw ordinary words, so they learned "
                    "“never a name here”; the RNN's one cell and output layer read position 6 with the weights that "
                    "learned *Hermione* at positions 1–4."
                    if pick == PROBE_OPTIONS.index("only Harry (position 2)")
                    else "The expected reading (its weights for position 6 never saw a name) did not hold for this "
                    "run: its position-6 weights still learned something from the ordinary words there."
                )
            ),
            hint="Ask which weights read position 6, and what they saw in training.",
        ),
        _steps_exercise(),
        Exercise(
            key="rnn_cells.ex5",
            prompt=f"Which kind of RNN is {LANGUAGE_MODEL}?",
            choices=cells,
            answer=kind_of("named entity recognition"),
            explanation=(
                "One output (the next word) for every input word, so Tₓ = T_y: many-to-many with one output per "
                "step, wired like the lecture's named-entity recognition, not like translation's encoder–decoder."
            ),
            hint="Count the outputs for a sentence of Tₓ words.",
        ),
    ]
