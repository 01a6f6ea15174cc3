"""Section 1: the student's sentence through the model, drawn as the lecture's "Overall architecture" block diagram.

Every box and arrow is labelled with this sentence's real shapes (S source tokens, T output positions, d = d_model,
h heads of d_k = d / h), and every sublayer with its residual and layer norm as this model wraps it (pre-LN,
post-LN, or an ablated variant trained in section 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from lessons.common.charts import figure, safe_label
from lessons.common.grids import NARROW
from lessons.transformer.maps import maps_per_sentence
from lessons.transformer.reading import Walk
from minimodels.transformer import TransformerConfig

TITLE = "1 · Your sentence through the model"


def text(w: Walk) -> str:
    """Under the title: what the diagram shows, with this sentence's sizes."""
    return (
        "The model as it runs on your sentence, read from the bottom up: the shapes in the boxes and on the arrows "
        f"are this sentence's ({len(w.source)} source tokens, {len(w.output)} output positions, "
        f"d_model = {w.config.d_model}). "
        "The encoder runs once; its output is the keys and values of *every* decoder layer's encoder–decoder "
        "attention. The decoder runs once per output token, fed its own previous outputs."
    )


MAX_LABEL = 24  # characters of the student's text shown in one diagram box


def _quoted(text: str, max_chars: int = MAX_LABEL) -> str:
    """The student's text for a diagram box, cut to ``max_chars`` (escaped later, with every other line)."""
    text = " ".join(str(text).split())
    return "“" + (text if len(text) <= max_chars else text[: max_chars - 1] + "…") + "”"


def _sublayer(config: TransformerConfig, name: str) -> str:
    """How a sublayer is wrapped in this model: its residual and layer norm, as a formula."""
    inner = "LN(x)" if config.layer_norm and config.norm_first else "x"
    body = f"{name}({inner})"
    body = f"x + {body}" if config.residual else body
    if config.layer_norm and not config.norm_first:
        body = f"LN({body})"
    return body


@dataclass(frozen=True)
class Box:
    """One box of the block diagram: a column (0 encoder, 1 decoder), a row from the bottom, its lines."""

    name: str
    column: int
    row: int
    lines: tuple[str, ...]
    fill: str = "#f4f6fb"


@dataclass(frozen=True)
class Diagram:
    boxes: tuple[Box, ...]
    arrows: tuple[tuple[str, str, str], ...]  # (from box, to box, label)

    def box(self, name: str) -> Box:
        return next(b for b in self.boxes if b.name == name)

    def text(self) -> str:
        """Every line of every box, for tests and for reading."""
        return "\n".join(line for b in self.boxes for line in b.lines)


ATTENTION_FILL = {"encoder_self": "#dbe7f6", "decoder_self": "#f9e0e0", "cross": "#efe3f7"}
ENDS_FILL = "#fff7d6"


def block_diagram(w: Walk) -> Diagram:
    """The model as boxes and arrows, labelled with this sentence's real shapes (read bottom up)."""
    c = w.config
    S, T = len(w.source), len(w.output)
    d, h, d_k = c.d_model, c.n_heads, c.d_model // c.n_heads
    boxes = [
        Box("src", 0, 0, (f"source: {_quoted(w.text)}", f"{S} tokens ({S - 1} + </s>)"), ENDS_FILL),
        Box("src_emb", 0, 1, ("embedding + positional encoding", f"{S} × {d}")),
        Box("tgt", 1, 0, ("fed to the decoder: <s> + its own output", f"{T} positions"), ENDS_FILL),
        Box("tgt_emb", 1, 1, ("embedding + positional encoding", f"{T} × {d}")),
    ]
    arrows = [("src", "src_emb", ""), ("tgt", "tgt_emb", "")]
    previous, row = "src_emb", 2
    for i in range(c.encoder_layers):
        lines = (
            f"layer {i + 1} self-attention, {h} heads × d_k {d_k}",
            _sublayer(c, "MultiHead"),
            f"{h} maps of {S} × {S}",
        )
        boxes.append(Box(f"e{i}_att", 0, row, lines, ATTENTION_FILL["encoder_self"]))
        arrows.append((previous, f"e{i}_att", f"{S} × {d}"))
        previous, row = f"e{i}_att", row + 1
        if c.feed_forward:  # a model trained without feed-forward networks has attention sublayers only
            boxes.append(
                Box(f"e{i}_ff", 0, row, (f"layer {i + 1} feed-forward {d} → {c.d_ff} → {d}", _sublayer(c, "FFN")))
            )
            arrows.append((previous, f"e{i}_ff", ""))
            previous, row = f"e{i}_ff", row + 1
    if c.layer_norm and c.norm_first:  # pre-LN leaves the residual stream un-normalised: one last norm
        boxes.append(Box("e_norm", 0, row, ("layer norm: the encoder's output", f"{S} × {d}")))
        arrows.append((previous, "e_norm", ""))
        previous = "e_norm"
    memory = previous
    previous, row = "tgt_emb", 2
    for i in range(c.decoder_layers):
        boxes += [
            Box(
                f"d{i}_self",
                1,
                row,
                (
                    f"layer {i + 1} masked self-attention, {h} heads",
                    _sublayer(c, "MultiHead"),
                    f"{h} maps of {T} × {T} (future masked)",
                ),
                ATTENTION_FILL["decoder_self"],
            ),
            Box(
                f"d{i}_cross",
                1,
                row + 1,
                (
                    f"layer {i + 1} encoder–decoder attention, {h} heads",
                    _sublayer(c, "MultiHead"),
                    f"{h} maps of {T} × {S}",
                ),
                ATTENTION_FILL["cross"],
            ),
        ]
        arrows += [
            (previous, f"d{i}_self", f"{T} × {d}"),
            (f"d{i}_self", f"d{i}_cross", f"queries {T} × {d}"),
            (memory, f"d{i}_cross", f"keys, values {S} × {d}"),
        ]
        previous, row = f"d{i}_cross", row + 2
        if c.feed_forward:
            boxes.append(
                Box(f"d{i}_ff", 1, row, (f"layer {i + 1} feed-forward {d} → {c.d_ff} → {d}", _sublayer(c, "FFN")))
            )
            arrows.append((previous, f"d{i}_ff", ""))
            previous, row = f"d{i}_ff", row + 1
    final = "layer norm → " if c.layer_norm and c.norm_first else ""
    boxes += [
        Box("out", 1, row, (f"{final}linear {d} → {c.target_vocab_size} → softmax", f"{T} × {c.target_vocab_size}")),
        Box("text", 1, row + 1, (f"output: {_quoted(w.translation.text or '(nothing)')}",), ENDS_FILL),
    ]
    arrows += [(previous, "out", ""), ("out", "text", "")]
    return Diagram(tuple(boxes), tuple(arrows))


COLUMN_X = (0.0, 2.0)  # box centres of the encoder and decoder columns, in the figure's x units
BOX_WIDTH, BOX_HEIGHT = 1.6, 0.78  # in x units and rows


DIAGRAM_WIDTH = 720  # px: two columns of boxes whose lines (up to ~45 characters at 12 px) fit inside them
# On a phone the decoder stands on the encoder, one column as wide as the screen: its lines at a smaller size, the
# keys and values taken up a rail at the right to each encoder–decoder attention.
PHONE_FONT, PHONE_ROW_HEIGHT = 10.5, 76
RAIL_X = COLUMN_X[0] + BOX_WIDTH / 2 + 0.22  # the rail's x, in the figure's x units, right of the column's frame


def stacked(diagram: Diagram) -> Diagram:
    """The diagram for a phone: the decoder's rows above the encoder's, one row apart (drawn in one column), each
    encoder–decoder attention box saying where its keys and values come from (the rail has no room for words)."""
    top = max(b.row for b in diagram.boxes if b.column == 0)
    memory = {z: label for _, z, label in diagram.arrows if label.startswith("keys, values")}
    boxes = tuple(
        Box(
            b.name,
            b.column,
            b.row + (top + 2 if b.column == 1 else 0),
            b.lines + ((f"{memory[b.name]}: the encoder's output",) if b.name in memory else ()),
            b.fill,
        )
        for b in diagram.boxes
    )
    return Diagram(boxes, diagram.arrows)


def diagram_figure(diagram: Diagram, *, row_height: int = 70) -> go.Figure:
    """The diagram drawn with Plotly shapes and annotations (every line HTML-escaped: it holds typed text); on a
    phone (:data:`lessons.common.grids.NARROW`) in one column (:func:`stacked`), as wide as the screen.

    Shapes and annotations are collected first and the figure is built once: ``add_annotation`` one by one
    re-validates the whole list each time, which would take most of the page's run."""
    phone = NARROW.get()
    if phone:
        diagram, row_height = stacked(diagram), PHONE_ROW_HEIGHT
    font = PHONE_FONT if phone else 12

    def x_of(column: int) -> float:  # the centre of a stack's boxes: its column, or the one column on a phone
        return COLUMN_X[0 if phone else column]

    shapes, notes = [], []
    rows = max(b.row for b in diagram.boxes) + 1
    for stack, (name, color) in enumerate((("encoder", "#4c78a8"), ("decoder", "#e45756"))):
        inner = [b.row for b in diagram.boxes if b.column == stack and b.fill != ENDS_FILL and b.name != "out"]
        x = x_of(stack)
        shapes.append(
            {
                "type": "rect",
                "x0": x - BOX_WIDTH / 2 - 0.1,
                "x1": x + BOX_WIDTH / 2 + 0.1,
                "y0": min(inner) - 0.5,
                "y1": max(inner) + 0.5,
                "line": {"color": color, "width": 1.5},
                "fillcolor": "rgba(0,0,0,0)",
                "layer": "below",
            }
        )
        notes.append(
            {
                "x": x - BOX_WIDTH / 2 - 0.05,
                "y": min(inner) - 0.45,
                "text": name,
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "bottom",
                "font": {"color": color, "size": 11},
            }
        )
    for b in diagram.boxes:
        x = x_of(b.column)
        shapes.append(
            {
                "type": "rect",
                "x0": x - BOX_WIDTH / 2,
                "x1": x + BOX_WIDTH / 2,
                "y0": b.row - BOX_HEIGHT / 2,
                "y1": b.row + BOX_HEIGHT / 2,
                "line": {"color": "#333333", "width": 1},
                "fillcolor": b.fill,
            }
        )
        notes.append(
            {
                "x": x,
                "y": b.row,
                "text": "<br>".join(safe_label(line, max_chars=70) for line in b.lines),
                "showarrow": False,
                "font": {"size": font, "color": "#1f1f1f"},
            }
        )
    for start, end, label in diagram.arrows:
        a, z = diagram.box(start), diagram.box(end)
        xa, xz = x_of(a.column), x_of(z.column)
        across = a.column != z.column  # the encoder's output to a decoder layer's encoder–decoder attention
        if not across:  # up the column, from the top of one box to the bottom of the next
            tail, head = (xa, a.row + BOX_HEIGHT / 2), (xz, z.row - BOX_HEIGHT / 2)
        elif phone:  # out to the rail, up it, and in from the right
            edge = xa + BOX_WIDTH / 2
            shapes.append(_line([(edge, a.row), (RAIL_X, a.row), (RAIL_X, z.row)], "#4c78a8"))
            tail, head = (RAIL_X, z.row), (edge, z.row)
            label = ""  # said in the box
        else:
            tail, head = (xa + BOX_WIDTH / 2, a.row), (xz - BOX_WIDTH / 2, z.row)
        notes.append(
            {
                "x": head[0],
                "y": head[1],
                "ax": tail[0],
                "ay": tail[1],
                "xref": "x",
                "yref": "y",
                "axref": "x",
                "ayref": "y",
                "text": "",
                "showarrow": True,
                "arrowhead": 2,
                "arrowsize": 1.2,
                "arrowwidth": 1.3,
                "arrowcolor": "#4c78a8" if across else "#555555",
            }
        )
        if label:
            middle = ((tail[0] + head[0]) / 2, (tail[1] + head[1]) / 2)
            notes.append(
                {
                    "x": middle[0] + (0.04 if not across else 0),
                    "y": middle[1],
                    "text": safe_label(label, 40),
                    "showarrow": False,
                    "xanchor": "left" if not across else "center",
                    "yanchor": "middle" if not across else "bottom",
                    "font": {"size": 10, "color": "#444444"},
                }
            )
    left, right = (
        (COLUMN_X[0] - BOX_WIDTH / 2 - 0.15, RAIL_X + 0.05) if phone else (COLUMN_X[0] - 1.0, COLUMN_X[1] + 1.0)
    )
    layout = {
        "shapes": shapes,
        "annotations": notes,
        "xaxis": {"visible": False, "range": [left, right], "fixedrange": True},
        "yaxis": {"visible": False, "range": [-0.6, rows - 0.4], "fixedrange": True},
        "height": row_height * rows + 20,
        "width": None if phone else DIAGRAM_WIDTH,  # two columns' text needs it: it scrolls sideways where narrower
        "margin": {"l": 0, "r": 0, "t": 10, "b": 10},
        "plot_bgcolor": "white",
        "showlegend": False,
        "hovermode": False,
    }
    return figure([], layout)


def _line(points: list[tuple[float, float]], color: str) -> dict:
    """A shape: straight segments through ``points`` (x units, rows)."""
    path = "M " + " L ".join(f"{x:.3f},{y:.3f}" for x, y in points)
    return {"type": "path", "path": path, "line": {"color": color, "width": 1.3}, "layer": "below"}


def maps_caption(config: TransformerConfig) -> str:
    """The caption under section 1's diagram: how many maps one sentence makes, and of which kinds."""
    return (
        f"{maps_per_sentence(config)} attention maps in all for one sentence: {config.n_heads} heads in each of "
        f"{config.encoder_layers} encoder self-attention, {config.decoder_layers} masked self-attention and "
        f"{config.decoder_layers} encoder–decoder attention sublayers. Section 2 shows every one."
    )
