"""Lesson: the architecture lab (Domhan, "How much attention do you need?", ACL 2018).

The student writes an encoder and a decoder as layer chains in the paper's language, sees the architecture
drawn and its parameters counted, trains it live, and compares runs with each other and with shipped runs of
the paper's main combinations, beside the paper's own BLEU table (quoted, credited, never recomputed).
No streamlit here: the page calls these functions.
"""

from __future__ import annotations

import functools
import html
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.catalog import ROOT
from lessons.common.charts import (
    attention_coloraxis,
    figure,
    hover_pairs,
    panel_axis,
    safe_label,
    subplot_grid,
    wrapped_title,
)
from lessons.common.comparison import Comparison, Run, curve_of
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from minimodels.chains import LIMITS, MAX_PARAMETERS, ChainConfig, ChainError, ChainModel, check_config
from minimodels.chains.language import (
    ALIASES,
    LAYERS,
    OPTIONS,
    STRUCTURES,
    Chain,
    Highway,
    Layer,
    Parallel,
    Repeat,
    Residual,
)
from minimodels.chains.model import _layer_parameters, chain_parameters
from minimodels.tasks import Task, get_task, make_batch
from minimodels.tokenizers import EOS_ID
from minimodels.train import Progress, TrainConfig, TrainResult
from minimodels.train import train as train_model

RESULTS = ROOT / "assets" / "results" / "architecture_lab.json"
# the same grid measured at two lengths: near the top (200 steps) and halfway there (100 steps: how fast each learns)
GRIDS = {"200 steps": RESULTS, "100 steps": ROOT / "assets" / "results" / "architecture_lab_100_steps.json"}
TASKS = ("copy", "reverse", "dates", "toy-translation")
TARGET = 0.9  # "steps/seconds to accuracy": the first report at or above this held-out exact match
STOP_AT = 0.98  # a run stops once it reaches this
REPORT_EVERY = 25
BUDGETS = (10, 20, 30, 60)  # seconds a live run may take
MAX_MAPS = 12  # attention maps drawn at most (a chain may hold up to 64 attention layers)
SIDES = ("encoder", "decoder")


# ------------------------------------------------------------------------------------------------ presets
def transformer_style(layer: str, side: str, n: int = 2) -> str:
    """The paper's §4 recipe: a Transformer whose self-attention sublayer is replaced by ``layer``.

    Encoder ``pos->repeat(n,res(norm->X)->res(norm->ff))->norm``; decoder the same with a source attention
    after X. ``layer=""`` in the decoder is the paper's decoder "none": source attention and ff only.
    """
    middle = f"res(norm->{layer})->" if layer else ""
    if side == "encoder":
        return f"pos->repeat({n},{middle}res(norm->ff))->norm"
    return f"pos->repeat({n},{middle}res(norm->mh_dot_src_att)->res(norm->ff))->norm"


# the poster's "RNN to Transformer" encoder: a bidirectional first layer, unidirectional ones after it
RNN_ENCODER = "pos->res(norm->birnn)->res(norm->ff)->repeat(1,res(norm->rnn)->res(norm->ff))->norm"
RNN_ENCODER_NO_FF = "pos->res(norm->birnn)->repeat(1,res(norm->rnn))->norm"  # the ablations before "+ ff"


@dataclass(frozen=True)
class Preset:
    key: str
    label: str  # "encoder → decoder"
    encoder: str
    decoder: str
    paper: tuple[str, str] | None  # the paper's table row it is a small copy of: (encoder, decoder)
    note: str
    group: str = "combinations"  # the poster's table it belongs to: "baselines", "combinations" or "ablations"


PRESETS: tuple[Preset, ...] = (
    Preset("transformer", "Transformer: self-att → self-att", transformer_style("mh_dot_self_att", "encoder"),
           transformer_style("mh_dot_self_att", "decoder"), ("self-att", "self-att"),
           "The paper's baseline, as pre-LN: the same sizes as the course's TinyTransformer."),
    Preset("rnn-rnn", "RNN → RNN (Transformer-style blocks)", RNN_ENCODER, transformer_style("rnn", "decoder"),
           ("RNN", "RNN"), "Recurrent layers in the Transformer's blocks: the paper's best RNN model."),
    Preset("cnn-cnn", "CNN → CNN (Transformer-style blocks)", transformer_style("cnn", "encoder"),
           transformer_style("cnn", "decoder"), ("CNN", "CNN"), "Gated convolutions in the Transformer's blocks."),
    Preset("selfatt-rnn", "self-att → RNN", transformer_style("mh_dot_self_att", "encoder"),
           transformer_style("rnn", "decoder"), ("self-att", "RNN"), "Self-attention reads the source; an RNN "
           "reads the target so far."),
    Preset("selfatt-cnn", "self-att → CNN", transformer_style("mh_dot_self_att", "encoder"),
           transformer_style("cnn", "decoder"), ("self-att", "CNN"), "A causal convolution reads the target."),
    Preset("rnn-selfatt", "RNN → self-att", RNN_ENCODER, transformer_style("mh_dot_self_att", "decoder"),
           ("RNN", "self-att"), "The paper's best IWSLT combination."),
    Preset("cnn-selfatt", "CNN → self-att", transformer_style("cnn", "encoder"),
           transformer_style("mh_dot_self_att", "decoder"), ("CNN", "self-att"), "Convolutions read the source."),
    Preset("selfatt-none", "self-att → none", transformer_style("mh_dot_self_att", "encoder"),
           transformer_style("", "decoder"), ("self-att", "none"), "A decoder with no layer that reads earlier "
           "target tokens: each position sees its own token, its position and the source."),
    Preset("rnmt", "RNMT-style RNN (the paper's RNN baseline)", "res(birnn)->repeat(1,res(rnn))",
           "repeat(2,res(rnn))->res(dot_src_att)->res(ff)", None, "The poster's RNN baseline "
           "dropout->res_d(birnn)->repeat(5,res_d(rnn)) / dropout->repeat(6,res_d(rnn))->res_d(dot_src_att)->"
           "res_d(ff), made small and without dropout. Its decoder starts from zeros, not the encoder's state.",
           "baselines"),
    Preset("convs2s", "CNN GLU (the paper's CNN baseline)", "pos->repeat(2,res(cnn))",
           "pos->repeat(2,res(cnn)->res(dot_src_att))", None, "The poster's CNN baseline pos->repeat(6,res_d(cnn)) "
           "/ pos->repeat(6,res_d(cnn)->res_d(dot_src_att)), made small and without dropout.", "baselines"),
    Preset("rnn-one-att", "RNN + mh + pos + norm (one source attention)", RNN_ENCODER_NO_FF,
           "pos->repeat(2,res(norm->rnn))->res(norm->mh_dot_src_att)->norm", None, "The poster's RNN ablation before "
           "'+ multi-att': multi-head attention, positions and layer norm, but one source attention on top of the "
           "decoder's RNNs and no feed-forward layers.", "ablations"),
    Preset("rnn-multi-att", "+ multi-att (a source attention in every decoder layer)", RNN_ENCODER_NO_FF,
           "pos->repeat(2,res(norm->rnn)->res(norm->mh_dot_src_att))->norm", None, "The same, with a source "
           "attention after each decoder RNN: the poster's '+ multi-att'. Adding the residual feed-forward layers "
           "to both sides gives RNN → RNN above (the poster's '+ ff').", "ablations"),
)  # fmt: skip
PRESET_BY_KEY = {p.key: p for p in PRESETS}

# The paper's encoder/decoder combinations table: BLEU, mean ± standard deviation over 3 runs, quoted as printed
# (Domhan 2018, the poster's "Encoder/Decoder Combinations" table). These are the paper's numbers, not ours.
PAPER_COLUMNS = ("IWSLT EN→DE", "WMT'17 EN→DE", "WMT'17 LV→EN")
PAPER_COMBINATIONS: tuple[tuple[str, str, tuple[tuple[float, float], ...]], ...] = (
    ("self-att", "self-att", ((25.4, 0.2), (27.6, 0.0), (18.3, 0.0))),
    ("self-att", "RNN", ((25.1, 0.1), (27.4, 0.1), (18.4, 0.2))),
    ("self-att", "CNN", ((25.4, 0.4), (27.6, 0.2), (18.0, 0.3))),
    ("RNN", "self-att", ((25.8, 0.1), (27.2, 0.1), (17.8, 0.1))),
    ("CNN", "self-att", ((25.7, 0.1), (26.6, 0.3), (16.8, 0.4))),
    ("RNN", "RNN", ((25.1, 0.1), (26.7, 0.1), (17.8, 0.1))),
    ("CNN", "CNN", ((25.3, 0.3), (26.9, 0.1), (16.4, 0.2))),
    ("self-att", "combined", ((25.1, 0.2), (27.6, 0.2), (18.3, 0.1))),
    ("self-att", "none", ((23.7, 0.2), (25.3, 0.2), (15.9, 0.1))),
)
PAPER_CREDIT = (
    "BLEU of the paper's 6-layer models on real translation (IWSLT'16 and WMT'17), mean ± standard deviation "
    "over 3 runs, quoted from T. Domhan, *How Much Attention Do You Need? A Granular Analysis of Neural Machine "
    "Translation Architectures*, ACL 2018 (Sockeye), encoder/decoder combinations table."
)
PAPER_CAPTION = PAPER_CREDIT + (  # under the paper's table: why its numbers and ours do not compare
    " Not comparable with the accuracies above: BLEU on real translation with 6-layer models of 512 units, "
    "against exact match on a toy task with 2-layer models of 64."
)


# the poster's rows with no preset here, and why: said under its table
NOT_COPIED = {
    ("self-att", "combined"): "the poster names its “combined” decoder in the table but prints no layer chain for "
    "it (unlike its Transformer, RNN and CNN chains), so a preset here would be a guess at what it was",
}


def paper_caption() -> str:
    """:data:`PAPER_CAPTION`, and for every row of the poster's table that no preset copies, why not."""
    copied = {p.paper for p in PRESETS if p.paper}
    missing = [(e, d) for e, d, _ in PAPER_COMBINATIONS if (e, d) not in copied]
    reasons = [f" No preset copies “{e} → {d}”: {NOT_COPIED.get((e, d), 'not built yet')}." for e, d in missing]
    return PAPER_CAPTION + "".join(reasons)


def paper_rows() -> list[dict]:
    """The paper's table as rows for a data frame, with the preset of this page that copies each row."""
    copies = {p.paper: p.label for p in PRESETS if p.paper}
    rows = []
    for encoder, decoder, scores in PAPER_COMBINATIONS:
        row = {"encoder": encoder, "decoder": decoder}
        row.update({col: f"{m:.1f} ± {s:.1f}" for col, (m, s) in zip(PAPER_COLUMNS, scores, strict=True)})
        row["preset here"] = copies.get((encoder, decoder), "–")
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------------------------ building
@dataclass(frozen=True)
class Checked:
    """Both chains checked for a task, before anything is built."""

    config: ChainConfig | None  # None when the chains cannot be built
    parameters: int | None
    error: str | None  # the parser's or the size check's message
    encoder: Chain = ()
    decoder: Chain = ()
    side: str = ""  # the chain the error is in ("" for the model as a whole, e.g. too many parameters)
    line: int | None = None  # where in that chain's text (1-based), when the error has a place
    column: int | None = None


def chain_config(encoder: str, decoder: str, task: Task, cell: str = "gru") -> ChainConfig:
    """The config of a model for ``task``: its vocabularies, positions for its longest sentences, d = 64."""
    longest = max(task.max_source_len, 2 * task.max_target_len) + 2  # room for EOS and long outputs
    return ChainConfig(
        encoder=encoder,
        decoder=decoder,
        source_vocab_size=task.source_tokenizer.vocab_size,
        target_vocab_size=task.target_tokenizer.vocab_size,
        cell=cell,
        max_len=max(ChainConfig.max_len, longest),
    )


def check(encoder: str, decoder: str, task: Task, cell: str = "gru") -> Checked:
    """Parse and size-check both chains; a message instead of an exception for anything a student typed."""
    config = chain_config(encoder, decoder, task, cell)
    try:
        enc, dec, parameters = check_config(config)
    except ChainError as error:
        return Checked(None, None, str(error), side=error.side, line=error.line, column=error.column)
    return Checked(config, parameters, None, enc, dec)


def attention_layers(chain: Chain) -> int:
    """Attention layers once repeats are unrolled: one map each."""
    total = 0
    for node in chain:
        if isinstance(node, Repeat):
            total += node.count * attention_layers(node.body)
        elif isinstance(node, Parallel):
            total += sum(attention_layers(branch) for branch in node.branches)
        elif isinstance(node, Residual | Highway):
            total += attention_layers(node.body)
        else:
            total += "att" in node.name
    return total


def caret(text: str, line: int, column: int) -> str:
    """The line of ``text`` the error is on, with a ``^`` under the column (to be shown as code, verbatim)."""
    shown = text.split("\n")[line - 1]
    return f"{shown}\n{' ' * (column - 1)}^"


_BUILD_LOCK = threading.Lock()  # a seeded build borrows torch's global RNG; one thread at a time


def build(config: ChainConfig, seed: int = 0) -> ChainModel:
    """A fresh :class:`ChainModel`, its initial weights drawn from ``seed`` (same seed, same weights)."""
    with _BUILD_LOCK, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return ChainModel(config)


def parameter_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def layer_parameters(name: str, config: ChainConfig | None = None) -> int:
    """One layer's parameters at ``config``'s sizes (the course's defaults: d = 64, d_ff = 128, 4 heads)."""
    return _layer_parameters(Layer(name), config or ChainConfig())


# ------------------------------------------------------------------------------------------------- drawing
_BOX_W, _BOX_H = 124, 22  # a layer's box
_GAP = 16  # between two stacked things: room for the arrow
_PAD, _LABEL = 8, 14  # a block's margin around its body, and the room under it for its "× n" or "res"
_SKIP = 14  # room right of a residual block for its skip arrow
_R = 8  # the ⊕'s radius
_COLUMN_GAP = 44
_FONT = 'font-family="Helvetica, Arial, sans-serif" font-size="11"'


def _width(items: Chain) -> float:
    """How wide a chain is drawn: a block is its body's width plus its margins (and a residual's skip arrow)."""
    widths = [_BOX_W]
    for item in items:
        if isinstance(item, Repeat):
            widths.append(_width(item.body) + 2 * _PAD)
        elif isinstance(item, Residual | Highway):
            widths.append(_width(item.body) + 2 * (_PAD + _SKIP))
        elif isinstance(item, Parallel):
            widths.append(sum(_width(b) for b in item.branches) + _GAP * (len(item.branches) - 1))
    return max(widths)


def architecture_svg(encoder: Chain, decoder: Chain) -> str:
    """A drawing of both chains as SVG, made here (Graphviz in the browser took ~0.3 s of a student's CPU on
    each preset): data flows upwards, a repeat is a box marked × n (drawn once, not unrolled), a residual is a
    dashed box whose input also skips to its output (⊕), every source attention reads the encoder's output.
    Only parsed names appear in it, escaped, never raw text."""
    back: list[str] = []  # the blocks' boxes, drawn first
    front: list[str] = []  # layers, arrows and labels
    source_attentions: list[tuple[float, float]] = []  # the left middle of each source attention's box
    out = [0.0, 0.0, 0.0, 0.0]  # x, y, dx, dy: the encoder's output leaves its last box rightwards, a ⊕ upwards

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        front.append(f'<line x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1 + 2:g}" stroke="#555555" '
                     'marker-end="url(#head)"/>')  # fmt: skip

    def text(x: float, y: float, label: str, extra: str = "") -> None:
        front.append(f'<text x="{x:g}" y="{y:g}" text-anchor="middle" {_FONT}{extra}>{html.escape(label)}</text>')

    def parallel(item: Parallel, cx: float, below: float, top: float) -> tuple[float, float]:
        widths = [_width(branch) for branch in item.branches]
        x = cx - (sum(widths) + _GAP * (len(widths) - 1)) / 2
        ends, tops = [], []
        for branch, w in zip(item.branches, widths, strict=True):
            end, branch_top = chain(branch, x + w / 2, below, top)
            ends.append((x + w / 2, end))
            tops.append(branch_top)
            x += w + _GAP
        front.append(f'<line x1="{ends[0][0]:g}" y1="{below:g}" x2="{ends[-1][0]:g}" y2="{below:g}" '
                     'stroke="#555555"/>')  # fmt: skip  # the one input, fanned out to every branch
        y = min(tops) - _GAP - _BOX_H
        for bx, end in ends:
            arrow(bx, end, cx, y + _BOX_H)
        label = "+ (sum)" if item.add else "concat → linear"
        front.append(f'<rect x="{cx - _BOX_W / 2:g}" y="{y:g}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
                     'fill="#f4f6fb" stroke="#333333"/>')  # fmt: skip
        text(cx, y + 15, label)
        out[:] = cx + _BOX_W / 2, y + _BOX_H / 2, 1, 0
        return y, y

    def chain(items: Chain, cx: float, below: float, top: float) -> tuple[float, float]:
        """Draws ``items`` upwards above ``top``, centred on ``cx``; ``below`` is where the arrow into the first
        one starts. Returns (the top of the last one drawn, the new ``top``)."""
        for item in items:
            if isinstance(item, Parallel):  # branches side by side from one input, merged above them
                below, top = parallel(item, cx, below, top)
            elif isinstance(item, Repeat | Residual | Highway):
                skips = not isinstance(item, Repeat)
                bottom = top - _GAP
                half = _width((item,)) / 2 - (_SKIP if skips else 0)
                below, top = chain(item.body, cx, below, bottom - _LABEL)
                top -= _PAD
                style = (
                    'stroke="#8888aa" rx="8"' if isinstance(item, Repeat) else 'stroke="#aaaaaa" stroke-dasharray="4 3"'
                )
                back.append(f'<rect x="{cx - half:g}" y="{top:g}" width="{2 * half:g}" height="{bottom - top:g}" '
                            f'fill="none" {style}/>')  # fmt: skip
                label = f"× {item.count}" if isinstance(item, Repeat) else _BLOCK_LABELS[type(item)]
                front.append(f'<text x="{cx - half + 5:g}" y="{bottom - 4:g}" {_FONT} fill="#555555">{label}</text>')
                if skips:  # the block's input skips it and is added to (a highway: gated with) its output
                    cy = top - _GAP - _R
                    arrow(cx, below, cx, cy + _R)
                    front.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{_R}" fill="white" stroke="#555555"/>')
                    text(cx, cy + 4, "+" if isinstance(item, Residual) else "t")
                    out[:] = cx, cy - _R, 0, -1
                    start = bottom + _GAP  # just above the block's input
                    bend = cx + half + _SKIP
                    front.append(f'<path d="M{cx + 4:g},{start - 2:g} C{bend:g},{start - 8:g} {bend:g},{cy + 8:g} '
                                 f'{cx + _R + 1:g},{cy:g}" fill="none" stroke="#999999" stroke-dasharray="4 3" '
                                 'marker-end="url(#head)"/>')  # fmt: skip
                    below, top = cy - _R, cy - _R
            else:
                y = top - _GAP - _BOX_H
                label = item.name if item.option is None else f"{item.name}({item.option})"
                colour = _COLOURS.get(_family(item.name), "#f4f6fb")
                arrow(cx, below, cx, y + _BOX_H)
                front.append(f'<rect x="{cx - _BOX_W / 2:g}" y="{y:g}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
                             f'fill="{colour}" stroke="#333333"/>')  # fmt: skip
                text(cx, y + 15, label)
                out[:] = cx + _BOX_W / 2, y + _BOX_H / 2, 1, 0
                if item.name in ("dot_src_att", "mh_dot_src_att"):
                    source_attentions.append((cx - _BOX_W / 2, y + _BOX_H / 2))
                below = top = y
        return below, top

    widths = [max(_width(encoder), 150.0) + 2 * _PAD, max(_width(decoder), 150.0) + 2 * _PAD]
    centres = [widths[0] / 2, widths[0] + _COLUMN_GAP + widths[1] / 2]
    tops, leaves = [], []  # each chain's top, and where its output leaves its last box or ⊕
    for side, items, cx, width, start, colour in (
        ("encoder", encoder, centres[0], widths[0], "source tokens → embedding", "#4c72b0"),
        ("decoder", decoder, centres[1], widths[1], "target so far → embedding", "#dd8452"),
    ):
        text(cx, -30, start)
        out[:] = cx, -42, 0, -1
        below, top = chain(items, cx, -42, -42)
        if side == "decoder":
            text(cx, top - _GAP - 4, "linear → next-token scores")
            arrow(cx, below, cx, top - _GAP)
            top -= _GAP + 16
        tops.append(top)
        leaves.append(tuple(out))
        back.append(f'<rect x="{cx - width / 2:g}" y="{top - _PAD:g}" width="{width:g}" height="{-top + _PAD:g}" '
                    f'fill="none" stroke="{colour}"/>')  # fmt: skip
        text(cx, -8, side, ' font-weight="bold"')
    ex, ey, dx, dy = leaves[0]  # the encoder's output
    for ax, ay in source_attentions:  # from the encoder's output to each layer that reads it
        front.append(f'<path d="M{ex:g},{ey:g} C{ex + 30 * dx:g},{ey + 16 * dy:g} {ax - 40:g},{ay:g} {ax - 2:g},'
                     f'{ay:g}" fill="none" stroke="#4c72b0" stroke-width="2" marker-end="url(#head)"/>')  # fmt: skip
    top = min(tops) - _PAD - 1
    width = widths[0] + _COLUMN_GAP + widths[1] + 1
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-1 {top:g} {width:g} {-top:g}" width="{width:g}" '
        f'height="{-top:g}"><defs><marker id="head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
        'markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#555555"/></marker></defs>' + "".join(back) + "".join(front) + "</svg>"
    )


def _family(name: str) -> str:
    if "att" in name:
        return "attention"
    if "rnn" in name:
        return "rnn"
    return "cnn" if name == "cnn" else "other"


_BLOCK_LABELS = {Residual: "res", Highway: "highway"}
_COLOURS = {"attention": "#fde2c8", "rnn": "#d4ecd4", "cnn": "#e3daf2"}


def _spellings(name: str) -> str:
    """The other ways a name may be written: the poster's (spaces for underscores) and the registered aliases."""
    others = ([name.replace("_", " ")] if "_" in name else []) + [a for a, n in ALIASES.items() if n == name]
    return ", ".join(others) or "–"


def _option(keyword: str | None) -> str:
    if keyword is None:
        return "–"
    what, *bounds = OPTIONS[keyword]
    values = f"{bounds[0]}–{bounds[1]}" if len(bounds) == 2 else " | ".join(bounds[0])
    return f"{what}: ({values}) or ({keyword}=…)"


_STRUCTURE_PROBES = {  # each structure around nothing: the parameters it adds itself
    "highway": Highway(()),
    "parallel": Parallel(((), ())),
    "parallel_add": Parallel(((), ()), add=True),
}


def language_notes() -> str:
    """The paragraph under the reference table: the grammar's rules and limits, read from the language itself."""
    limits, config = LIMITS, ChainConfig()
    glyphs = ", ".join(f"`{a}`" for a, n in ALIASES.items() if n == "ff")
    return (
        "Layers are joined by `->`, `→` or `!` (the arrow as the poster's PDF text prints it). Names may be written "
        "the poster's way, with spaces for underscores: `res nd(mh dot self att)` is `res_nd(mh_dot_self_att)`. "
        f"{glyphs} are read as `ff`: the poster's extracted text shows them where its chains and ablation rows have "
        "the feed-forward layer (Sockeye's own configurations write `res(norm->ff(2048)->linear)` there); `ε` is "
        "`id`. An option goes in brackets, alone or by its keyword: `mh_dot_att(2)` = `mh_dot_att(heads=2)`. In a "
        "decoder, self-attention and convolutions are masked so that no position reads a later one, and a decoder "
        "must contain a source attention, its only way to read the source. Limits, so that no one can make the "
        f"class server build a giant: {limits.max_chars:,} characters, brackets {limits.max_depth} deep, "
        f"`repeat` 1–{limits.max_repeat} times, {limits.max_layers} layers once repeats are unrolled, "
        f"{MAX_PARAMETERS:,} parameters. Sizes: d = {config.d_model}, ff width {config.d_ff}, "
        f"{config.n_heads} heads for `mh_` layers, kernel width {config.kernel_width}."
    )


def layer_table() -> list[dict]:
    """The language's reference table, read from its own registry (LAYERS, STRUCTURES, ALIASES, OPTIONS):
    every layer and structure, its other spellings, its option, its side and the parameters it adds at d = 64."""
    config = ChainConfig()
    rows = [
        {
            "write": name,
            "also written": _spellings(name),
            "what it does": spec.what,
            "option": _option(spec.option),
            "allowed in": " and ".join(spec.sides),
            "parameters (d = 64)": f"{layer_parameters(name):,}",
        }
        for name, spec in LAYERS.items()
    ]
    for name, what in STRUCTURES.items():
        probe = _STRUCTURE_PROBES.get(name)
        added = chain_parameters((probe,), config) if probe else 0
        rows.append({
            "write": f"{name}(…)",
            "also written": _spellings(name),
            "what it does": what,
            "option": "–",
            "allowed in": "encoder and decoder",
            "parameters (d = 64)": f"{added:,}" + (" (two branches) + the branches'" if probe and "parallel" in name
                                                  else " + its chain's"),
        })  # fmt: skip
    return rows


# ------------------------------------------------------------------------------------------ attention maps
@dataclass(frozen=True)
class MapView:
    """One attention layer's map on one sentence, heads averaged: rows attend to columns."""

    name: str  # "encoder.0.self", "decoder.1.cross", …
    weights: np.ndarray  # (rows, columns), heads averaged
    heads: int
    row_tokens: tuple[str, ...]
    column_tokens: tuple[str, ...]

    @property
    def title(self) -> str:
        side, index, kind = self.name.split(".")
        what = "self-att" if kind == "self" else "source att"
        heads = f"{self.heads} heads" if self.heads > 1 else "1 head"
        return f"{side} {what} {int(index) + 1} · {heads}"


def map_views(maps: Mapping[str, np.ndarray], source_tokens: Sequence[str], target_tokens: Sequence[str]):
    """Every map of one sentence (batch axis removed, ``(h, rows, columns)``), labelled by what it reads."""
    views = []
    for name, m in maps.items():
        m = np.asarray(m, dtype=float)
        heads = m.shape[0] if m.ndim == 3 else 1
        weights = m.mean(axis=0) if m.ndim == 3 else m
        rows = source_tokens if name.startswith("encoder") else target_tokens
        columns = target_tokens if name.endswith(".self") and name.startswith("decoder") else source_tokens
        views.append(MapView(name, weights, heads, tuple(rows), tuple(columns)))
    return views  # in the order the model computed them: the encoder's layers, then the decoder's


def _shown_token(token: str) -> str:
    return "␣" if token == " " else token


def attention_figure(views: Sequence[MapView], *, caption: str = "", columns: int = 3) -> go.Figure:
    """Every attention layer's map in a grid, one colour scale 0–1, the exact weight on hover."""
    if not views:
        raise ValueError("no attention maps to draw")
    views = list(views)[:MAX_MAPS]
    cols = min(columns, len(views))
    rows = math.ceil(len(views) / cols)
    layout = subplot_grid(rows, cols, titles=[html.escape(v.title) for v in views], horizontal_spacing=0.06,
                          vertical_spacing=0.5 / rows if rows > 1 else 0.1, title_size=12)  # fmt: skip
    traces = []
    for i, view in enumerate(views):
        xs = [safe_label(_shown_token(t)) for t in view.column_tokens]
        ys = [safe_label(_shown_token(t)) for t in view.row_tokens]
        if view.weights.shape != (len(ys), len(xs)):
            raise ValueError(f"{view.name}: map of shape {view.weights.shape} does not match {len(ys)} × {len(xs)}")
        n = panel_axis(i // cols, i % cols, cols)
        traces.append(
            {"type": "heatmap", "z": view.weights, "x": list(range(len(xs))), "y": list(range(len(ys))),
             "customdata": hover_pairs(ys, xs), "coloraxis": "coloraxis", "xgap": 1, "ygap": 1,
             "hovertemplate": "%{customdata}<br>α = %{z:.4f}<extra>" + view.name + "</extra>",
             "xaxis": f"x{n}", "yaxis": f"y{n}"}
        )  # fmt: skip
        layout[f"xaxis{n}"] |= {"tickmode": "array", "tickvals": list(range(len(xs))), "ticktext": xs, "tickangle": 0}
        layout[f"yaxis{n}"] |= {"tickmode": "array", "tickvals": list(range(len(ys))), "ticktext": ys,
                                "autorange": "reversed"}  # fmt: skip
    title, lines = wrapped_title(caption)  # in lines that fit a phone
    layout |= {
        "height": 60 + 300 * rows + 18 * (lines - 1),
        "margin": {"l": 10, "r": 10, "t": 42 + 18 * lines if caption else 40, "b": 10},
        "title": {"text": title, "font": {"size": 14}} if caption else None,
        "coloraxis": attention_coloraxis(),
    }
    return figure(traces, layout)


def probe_tokens(task: Task) -> tuple[list[str], list[str]]:
    """The task's fixed probe sentence as token labels: source and target, each with its EOS."""
    example = task.probe or task.valid[0]
    src, tgt = task.source_tokenizer, task.target_tokenizer
    source = [*src.pieces(example.source), src.id_to_piece(EOS_ID)]
    return source, [*tgt.pieces(example.target), tgt.id_to_piece(EOS_ID)]


@torch.inference_mode()
def untrained_views(model: ChainModel, task: Task) -> list[MapView]:
    """Every map of a freshly built (untrained) model on the task's probe, teacher forced: the starting point."""
    example = task.probe or task.valid[0]
    batch = make_batch([example], task)
    model.eval()
    out = model(batch.source, batch.source_lengths, batch.target_in)
    source_tokens, target_tokens = probe_tokens(task)
    return map_views({k: v[0].numpy() for k, v in out.attention.items()}, source_tokens, target_tokens)


UNTRAINED_TITLE = "UNTRAINED (random weights, seed 0): every attention layer on the task's example"
UNTRAINED_CAPTION = (  # under the untrained maps of :func:`untrained_maps`
    "Rows attend to columns; multi-head maps are averaged over heads. Untrained attention is close to uniform over "
    "what each row may see (the decoder's self-attention: only earlier tokens). Train the model below to watch the "
    "maps take shape."
)


def untrained_maps(encoder: str, decoder: str, task_name: str, cell: str = "gru", seed: int = 0) -> list[MapView]:
    """The maps of a freshly built model of these chains on the task's probe (a new model each time: nothing
    shared is ever trained); ``ValueError`` when the chains cannot be built."""
    task = get_task(task_name)
    checked = check(encoder, decoder, task, cell)
    if checked.config is None:
        raise ValueError(checked.error)
    return untrained_views(build(checked.config, seed), task)


def snapshot_views(snapshot: Progress) -> list[MapView]:
    """Every map of a training report's probe."""
    return map_views(snapshot.attention_maps, snapshot.source_tokens, snapshot.target_tokens)


def snapshot_figure(snapshot: Progress) -> go.Figure:
    """A live report's maps (:func:`attention_figure`), titled with its step, exact match and what it writes."""
    caption = f"step {snapshot.step} · exact match {snapshot.exact_match:.0%} · writes “{snapshot.prediction}”"
    return attention_figure(snapshot_views(snapshot), caption=caption)


# ------------------------------------------------------------------------------------------------ training
def train_config(budget_seconds: float, seed: int = 0, **overrides) -> TrainConfig:
    """The lab's recipe for every chain: Adam, peak lr 1e-2 after a 50-step warm-up, then the Transformer
    paper's inverse-square-root decay (course default for Transformers); reports every ``REPORT_EVERY`` steps,
    stop at ``STOP_AT`` or after ``budget_seconds``. One torch thread per run (a shared class server)."""
    options = {
        "seed": seed,
        "lr": 1e-2,
        "warmup_steps": 50,
        "decay": True,
        "report_every": REPORT_EVERY,
        "target_exact_match": STOP_AT,
        "max_seconds": budget_seconds,
        "max_steps": 5000,
        "threads": THREADS_PER_RUN,
        "device": "cpu",
        **overrides,
    }
    return TrainConfig(**options)


def new_run(checked: Checked, task: Task, seed: int, budget_seconds: float, max_steps: int | None = None):
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``. With
    ``max_steps`` (a shipped row's recipe) it trains that many steps and does not stop early at ``STOP_AT``."""
    if checked.config is None:
        raise ValueError(checked.error or "the chains cannot be built")
    check_budget(budget_seconds)
    model = build(checked.config, seed)
    fixed = {"max_steps": max_steps, "target_exact_match": 1.0} if max_steps else {}
    config = train_config(budget_seconds, seed, **fixed)

    def train_fn(on_progress) -> TrainResult:
        return train_model(model, task, config, on_progress)

    return model, train_fn


def reached(history: Sequence[Progress], target: float = TARGET) -> tuple[int, float] | None:
    """The first report at or above ``target`` exact match: ``(step, seconds)``, or None."""
    for p in history:
        if p.exact_match >= target:
            return p.step, p.seconds
    return None


def live_run(checked: Checked, task_name: str, cell: str, encoder: str, decoder: str, seed: int,
             budget_seconds: float, max_steps: int | None = None
             ) -> tuple[TrainingRun, Callable[[TrainResult], dict]]:  # fmt: skip
    """The training panel's run of these chains (:func:`new_run`), and the function that makes its row of the
    comparison table (:func:`run_row`) from its result once it is over."""
    trained, train_fn = new_run(checked, get_task(task_name), seed, budget_seconds, max_steps)
    row = functools.partial(run_row, label_for(encoder, decoder), encoder, decoder, cell, task_name, checked.parameters)
    return TrainingRun(train_fn, model=trained, name="architecture_lab"), row


def run_row(label: str, encoder: str, decoder: str, cell: str, task: str, parameters: int, result: TrainResult):
    """One finished run as a row of the comparison table."""
    first = reached(result.history)
    return {
        "chains": label,
        "encoder": encoder,
        "decoder": decoder,
        "cell": cell,
        "task": task,
        "parameters": parameters,
        f"steps to {TARGET:.0%}": first[0] if first else None,
        f"seconds to {TARGET:.0%}": round(first[1], 1) if first else None,
        "final exact match": round(result.exact_match, 3),
        "steps": result.steps,
        "seconds": round(result.seconds, 1),
        "stopped": result.stopped,
    }


def label_for(encoder: str, decoder: str) -> str:
    """The preset's label when the chains are a preset's, else "your chains"."""
    for p in PRESETS:
        if (p.encoder, p.decoder) == (encoder, decoder):
            return p.label
    return "your chains"


# ------------------------------------------------------------------------------------------ shipped results
# ``assets/results/architecture_lab.json`` is a :class:`Comparison` made by ``scripts/architecture_lab_results.py``:
# variants are preset keys, one run per (preset, seed, task) with params {"task"}; finals below; extra holds the
# chains, cell, parameters, why it stopped and, for one run per preset, its final attention on the task's probe.
STEPS_TO, SECONDS_TO, FINAL = f"steps to {TARGET:.0%}", f"seconds to {TARGET:.0%}", "final exact match"
METRICS = (STEPS_TO, SECONDS_TO, FINAL, "steps", "seconds")  # every run's finals


def shipped_run(preset: Preset, task_name: str, seed: int, result: TrainResult, parameters: int, *,
                probe: bool = False) -> Run:  # fmt: skip
    """One measured run of ``preset`` as the comparison keeps it: its reports, the finals of :func:`run_row`, and
    with ``probe`` its final attention on the task's probe sentence."""
    row = run_row(preset.label, preset.encoder, preset.decoder, "gru", task_name, parameters, result)
    curve = tuple(curve_of(result.history))
    extra = {k: row[k] for k in ("encoder", "decoder", "cell", "parameters", "stopped")}
    if probe:
        last = result.history[-1]
        maps = {name: [[[round(float(v), 4) for v in r] for r in head] for head in m]
                for name, m in last.attention_maps.items()}  # fmt: skip
        extra["probe"] = {"step": last.step, "source_tokens": list(last.source_tokens), "maps": maps,
                          "order": list(maps),  # the order computed: a saved comparison sorts its keys
                          "target_tokens": list(last.target_tokens), "prediction": last.prediction}  # fmt: skip
    return Run(preset.key, seed, {"task": task_name}, curve, {m: row[m] for m in METRICS}, extra)


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison; ``FileNotFoundError`` / ``ValueError`` naming the script when unusable."""
    script = "scripts/architecture_lab_results.py"
    results = Comparison.load(path if path is not None else RESULTS, script=script)
    unknown = [v for v in results.variants if v not in PRESET_BY_KEY]
    if unknown:
        raise ValueError(f"{Path(path or RESULTS).name} has runs of unknown presets {unknown}: run `python {script}`")
    for run in results.runs:
        missing = [m for m in METRICS if m not in run.final] + [k for k in ("task",) if k not in run.params]
        if missing:
            raise ValueError(f"run {run.variant} seed {run.seed} lacks {', '.join(missing)}: run `python {script}`")
        probe = run.extra.get("probe")
        if probe is not None and (not {"source_tokens", "target_tokens", "maps", "order"} <= set(probe)
                                  or sorted(probe["order"]) != sorted(probe["maps"])):  # fmt: skip
            raise ValueError(f"the probe of {run.variant} lacks its tokens or maps: run `python {script}`")
    return results


def probes(results: Comparison) -> dict[str, dict]:
    """Preset -> its first run's probe (with that run's task and seed): the trained maps the page can show."""
    found = {}
    for run in results.runs:
        if "probe" in run.extra and run.variant not in found:
            found[run.variant] = {"task": run.params["task"], "seed": run.seed, **run.extra["probe"]}
    return found


def shipped_views(results: Comparison, key: str) -> list[MapView]:
    probe = probes(results)[key]
    maps = {name: np.asarray(probe["maps"][name], dtype=float) for name in probe["order"]}
    return map_views(maps, probe["source_tokens"], probe["target_tokens"])


def probe_caption(results: Comparison, key: str) -> str:
    probe = probes(results)[key]
    return f"TRAINED ({probe['task']}, seed {probe['seed']}, step {probe['step']}): writes “{probe['prediction']}”"


def provenance_note(meta: Mapping) -> str:
    """What the page adds to the provenance caption: the recipe, how long each run trained, the machine's load."""
    machine = meta.get("machine", {})
    steps, stop_at = meta.get("max_steps", "?"), meta.get("stop_at", 0)
    how = (f"for exactly {steps} steps (no early stop), so every row had the same training"
           if stop_at >= 1.0 else f"for at most {steps} steps, stopping at {stop_at:.0%}")  # fmt: skip
    return (
        f"Each preset trained with this page's recipe {how}. Torch {machine.get('torch', '?')} on "
        f"{machine.get('processor', '?')}, 1-minute load average {meta.get('load_1min_after', '?')} after: the "
        "machine was shared, so the seconds are slower than yours will be, and only roughly comparable between rows."
    )


# ------------------------------------------------------------------------------------ the poster's layout
# The poster's WMT'17 EN→DE BLEU (mean ± sd of 3 runs, quoted as printed) beside the rows that copy it here.
PAPER_BASELINES = {"transformer": ("Transformer", (27.6, 0.0)), "rnmt": ("RNMT", (25.5, 0.2)),
                   "convs2s": ("CNN GLU", (25.0, 0.3))}  # fmt: skip
PAPER_RNN_LADDER = {"rnmt": ("RNN", (23.8, 0.1)), "rnn-one-att": ("+ mh, + pos, + norm", (24.0, 0.2)),
                    "rnn-multi-att": ("+ multi-att", (25.5, 0.0)), "rnn-rnn": ("+ ff", (26.7, 0.1))}  # fmt: skip
POSTER_COLUMN = "poster: WMT'17 EN→DE BLEU"


@dataclass(frozen=True)
class Finding:
    """One of the poster's findings, as pairs (a, b) of presets where the poster has a ahead of b."""

    claim: str
    pairs: tuple[tuple[str, str], ...]


FINDINGS = (
    Finding("Multiple source attention layers are key", (("rnn-multi-att", "rnn-one-att"),)),
    Finding("The residual feed-forward layer is key", (("rnn-rnn", "rnn-multi-att"),)),
    Finding("Self-attention is more important on the source side",
            (("selfatt-rnn", "rnn-selfatt"), ("selfatt-cnn", "cnn-selfatt"))),
    Finding("The Transformer beats the RNN and CNN baselines", (("transformer", "rnmt"), ("transformer", "convs2s"))),
    Finding("The decoder needs a layer that reads the target so far (self-att → none loses to the Transformer)",
            (("transformer", "selfatt-none"),)),
)  # fmt: skip


def final_name(results: Comparison) -> str:
    """What the tables' main column measures: held-out exact match after the grid's fixed number of steps."""
    return f"exact match after {results.meta.get('max_steps', '?')} steps"


def _poster_row(results: Comparison, key: str, head: dict, paper: tuple[float, float] | None) -> dict:
    runs = results.runs_of(key)
    row = {**head, final_name(results): results.spread(FINAL, key).text(".1%", with_n=False)}
    row["parameters"] = runs[0].extra.get("parameters")
    row["seconds"] = results.spread("seconds", key).text(".1f", with_n=False)
    row["n"] = len(runs)
    row[POSTER_COLUMN] = f"{paper[0]:.1f} ± {paper[1]:.1f}" if paper else "–"
    return row


def combination_rows(results: Comparison) -> list[dict]:
    """The poster's "Encoder/Decoder Combinations" table, measured here: one row per combination the grid ran, in
    the poster's order, with mean ± sd over seeds, parameters, seconds, n and the poster's own BLEU."""
    by_pair = {p.paper: p.key for p in PRESETS if p.paper}
    rows = []
    for encoder, decoder, scores in PAPER_COMBINATIONS:
        key = by_pair.get((encoder, decoder))
        if key in results.variants and results.runs_of(key):
            rows.append(_poster_row(results, key, {"encoder": encoder, "decoder": decoder}, scores[1]))
    return rows


def ladder_rows(results: Comparison, ladder: Mapping[str, tuple[str, tuple[float, float]]]) -> list[dict]:
    """The poster's baselines or its RNN ablation ladder, measured here (the rows the grid ran)."""
    return [_poster_row(results, key, {"model": name}, paper) for key, (name, paper) in ladder.items()
            if key in results.variants and results.runs_of(key)]  # fmt: skip


def poster_tables(results: Comparison) -> list[tuple[str, list[dict]]]:
    """The poster's three tables as the grid measured them, (title, rows), the empty ones left out."""
    tables = [
        ("Baselines: Transformer, RNMT and ConvS2S (CNN GLU)", ladder_rows(results, PAPER_BASELINES)),
        ("Encoder/decoder combinations", combination_rows(results)),
        ("The RNN ablations, one step at a time", ladder_rows(results, PAPER_RNN_LADDER)),
    ]
    return [(title, rows) for title, rows in tables if rows]


def grid_text(results: Comparison) -> str:
    """How the shipped grid was measured, from its meta: task, steps, seeds, metric."""
    meta = results.meta
    tasks = ", ".join(f"`{t}`" for t in meta.get("tasks", results.param_values("task")))
    seeds = ", ".join(str(s) for s in results.seeds)
    spreads = results.spreads(FINAL)
    worst, best = min(spreads, key=lambda v: spreads[v].mean), max(spreads, key=lambda v: spreads[v].mean)
    low, high = spreads[worst], spreads[best]
    return (
        f"Every row below is a preset of section 1, trained on {tasks} for exactly {meta.get('max_steps', '?')} steps "
        f"with the recipe of section 2, once per seed ({seeds}). The toy English → French grammar moves adjectives "
        "behind their noun and pronouns before the verb (I see it → je le vois), adds articles, agreement and "
        "ne … pas, so a model has to reorder and look back at the source, where `reverse` only reads it backwards. "
        f"After {meta.get('max_steps', '?')} steps the rows' means range from {low.mean:.1%} "
        f"({results.label(worst)}) to {high.mean:.1%} ({results.label(best)}); whether two rows differ is "
        "for the sentences under the tables to say: a gap counts only when it is larger than the spread over seeds. "
        f"The main column is the {final_name(results)} on held-out sentences, mean ± sd over the seeds "
        "(n runs); seconds are one run's training time at one thread on a shared machine. The last column quotes "
        "the poster's BLEU for the row it copies: a direction to compare, not a number. The same grid is shipped "
        f"trained for {' and for '.join(GRIDS)}: a finding that holds at one length and not at the other is about "
        "how fast a model learns, not how good it ends up."
    )


def finding_status(verdicts: Sequence) -> str:
    """ "reproduced" when every pair is clearly won the poster's way, "contradicted" when any is clearly won the
    other way, "partly reproduced" when some are won and the rest too close, else "too close to call"."""
    winners = [v.winner for v in verdicts]
    if any(w == v.b for w, v in zip(winners, verdicts, strict=True)):
        return "contradicted"
    if all(w == v.a for w, v in zip(winners, verdicts, strict=True)):
        return "reproduced"
    return "partly reproduced" if any(winners) else "too close to call"


def findings(results: Comparison) -> list[tuple[str, str, list[str]]]:
    """For each poster finding whose presets the grid ran: (claim, status, the computed sentences)."""
    name = final_name(results)
    out = []
    for finding in FINDINGS:
        pairs = [(a, b) for a, b in finding.pairs if {a, b} <= set(results.variants)]
        if not pairs:
            continue
        verdicts = [results.compare(a, b, FINAL) for a, b in pairs]
        sentences = [v.sentence(".1%", metric_name=name) + _sizes(results, v.a, v.b) for v in verdicts]
        out.append((finding.claim, finding_status(verdicts), sentences))
    return out


def _sizes(results: Comparison, a: str, b: str) -> str:
    """The two models' sizes, and a warning when the first is over 10% larger: its lead may be its size."""
    pa, pb = (results.runs_of(k)[0].extra.get("parameters") for k in (a, b))
    if not pa or not pb:
        return ""
    warning = " — more weights, so the gap is not the layout's alone" if pa > 1.1 * pb else ""
    return f" Parameters: {pa:,} against {pb:,}{warning}."


def findings_markdown(results: Comparison) -> str:
    """A summary line (which findings the toy reproduces, which not), then the findings as a list:
    "- **claim**: reproduced here. sentence …"."""
    found = findings(results)
    lines = [f"- **“{claim}”**: {status} here. " + " ".join(sentences) for claim, status, sentences in found]
    held = [claim for claim, status, _ in found if status == "reproduced"]
    other = [f"{claim} ({status})" for claim, status, _ in found if status != "reproduced"]
    summary = (f"The toy reproduces {len(held)} of the {len(found)} findings it can test"
               + (f": {'; '.join(held)}." if held else ".")
               + (f" It does not reproduce: {'; '.join(other)}." if other else ""))  # fmt: skip
    return "\n".join([summary, "", *lines]) if found else ""


def rerun_settings(results: Comparison, key: str) -> dict:
    """The page's state that sets section 1 and 2 to a shipped row: its preset, chains, task, seed and steps (the
    longest budget: a busy machine's 200 steps may take more than the shipped seconds)."""
    preset, run = PRESET_BY_KEY[key], results.runs_of(key)[0]
    return {"architecture_lab.preset": key, "architecture_lab.encoder": preset.encoder,
            "architecture_lab.decoder": preset.decoder, "architecture_lab.task": run.params["task"],
            "architecture_lab.cell": run.extra.get("cell", "gru"), "architecture_lab.seed": run.seed,
            "architecture_lab.budget": BUDGETS[-1],
            "architecture_lab.steps": int(results.meta.get("max_steps", 0))}  # fmt: skip


# ------------------------------------------------------------------------------------------------ exercises
def exercises() -> list[Exercise]:
    d = ChainConfig().d_model
    attention = layer_parameters("mh_dot_self_att")
    best_iwslt = max(PAPER_COMBINATIONS, key=lambda row: row[2][0][0])
    wmt_best = max(PAPER_COMBINATIONS, key=lambda row: row[2][1][0])
    encoders = sorted({row[0] for row in PAPER_COMBINATIONS})
    task = get_task("toy-translation")
    full, none = (check(PRESET_BY_KEY[k].encoder, PRESET_BY_KEY[k].decoder, task).parameters
                  for k in ("transformer", "selfatt-none"))  # fmt: skip
    saved, layers = full - none, 2
    return [
        Exercise(
            key="architecture_lab.ex1",
            prompt=f"How many parameters does one `mh_dot_self_att` layer have at d = {d}? (Four d × d projections, "
            "each with a bias; the number of heads does not change it.)",
            answer=attention,
            explanation=f"4 × ({d}·{d} + {d}) = {attention}: splitting d into heads changes how the projections are "
            "read, not how many weights they hold.",
        ),
        Exercise(
            key="architecture_lab.ex2",
            prompt="Which layer may **not** appear in a decoder?",
            choices=("rnn", "birnn", "cnn", "mh_dot_self_att"),
            answer=1,
            explanation="A bidirectional RNN reads the sentence from both ends, so in a decoder it would read "
            "target tokens that have not been generated yet. Decoder self-attention and convolutions are masked "
            "to look only left.",
        ),
        Exercise(
            key="architecture_lab.ex3",
            prompt="In the paper's table, which **encoder** paired with a self-attention decoder scored highest on "
            "IWSLT EN→DE?",
            choices=tuple(encoders),
            answer=encoders.index(best_iwslt[0]),
            explanation=f"{best_iwslt[0]} → {best_iwslt[1]}: {best_iwslt[2][0][0]} BLEU on the small IWSLT set. On "
            f"the larger WMT'17 EN→DE the self-attention encoders lead ({wmt_best[0]} → {wmt_best[1]}: "
            f"{wmt_best[2][1][0]}). The poster's conclusions: “Multiple source attention layers and residual "
            "feed-forward layer are key” and “Self-attention more important on the source side”.",
        ),
        Exercise(
            key="architecture_lab.ex4",
            prompt=f"Before you look at the tables: the decoder of **self-att → none** is the Transformer preset's "
            f"decoder with the self-attention sublayer, and the layer norm in front of it, taken out of each of its "
            f"{layers} layers. At d = {d}, how many parameters does that remove? (A layer norm has a gain and a bias "
            "per dimension.)",
            answer=saved,
            hint="Count the norm too, and both decoder layers (repeat(n, …) gives each copy its own weights).",
            explanation=f"Per layer: the attention's four d × d projections with biases, 4 × ({d}·{d} + {d}) = "
            f"{attention}, plus the norm's 2 × {d} = {2 * d}, together {attention + 2 * d}; × {layers} layers = "
            f"{saved}. The parameter column agrees: {full:,} − {none:,} = {saved:,}. Whether those weights matter "
            "is what the run measures: the poster's “none” decoder lost about 2 BLEU.",
        ),
    ]
