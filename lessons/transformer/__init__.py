r"""Lesson: the Transformer, the whole encoder–decoder (Part 2).

Follows the Transformer lecture ("Overall architecture": an encoder stack and a decoder stack of identical
layers; "Self-Attention: focus on other words in the input sentence", "Encoder-Decoder Attention: focus on
relevant parts of the input sentence"; "Masking"; "Residual") and Vaswani et al. 2017, §3. Each sublayer of
``minimodels.transformer.TinyTransformer`` sits in a residual connection with layer normalisation:

.. math:: x + \mathrm{Sublayer}(\mathrm{LN}(x)) \;\text{(pre-LN, the course's default)} \qquad
          \mathrm{LN}(x + \mathrm{Sublayer}(x)) \;\text{(post-LN, the paper's)}

What is computed here, all from a trained model or from measurements:

* one sentence through the model (:func:`walk`): every attention map of every layer and head, with the shapes
  a block diagram (:func:`block_diagram`, drawn with Plotly by :func:`diagram_figure`) labels its boxes with;
* the lecture's "it" sentence checked against what the toy model can read (:func:`lecture_it`), and what the
  model does with the "it" its grammar has (:func:`pronoun_check`);
* the residual, layer-norm and feed-forward ablations: shipped measurements (``scripts/transformer_results.py``,
  :func:`load_results`) and a live training run of any variant (:func:`new_training`);
* why the feed-forward network: every attention output checked to be a convex combination of the value vectors
  (:func:`convex_check`, drawn by :func:`convex_figure`);
* the depth argument measured: a small model at 1–8 layers a stack, with and without residuals and layer norm
  (``--experiment depth``, :func:`load_depth_results`, :func:`depth_observations`);
* training and decoding: one teacher-forced pass (:func:`teacher_forcing`) and beam search on the student's
  sentence, its tree and scores drawn (:func:`beam_view`, :func:`beam_figure`).

Letters: S source positions (EOS included), T decoded positions, d d_model, h heads. Never imports streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.charts import GridRow, attention_heatmap, figure, head_grid, safe_label
from lessons.common.comparison import Comparison, Run, Spread, curves_chart, first_reached
from lessons.common.comparison import verdict as comparison_verdict
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from minimodels.decode import BeamResult, Translation, translate
from minimodels.tasks import Task, get_task, lecture_examples
from minimodels.tokenizers import EOS_ID
from minimodels.train import TrainConfig, build_model, default_train_config, model_config, train
from minimodels.transformer import TransformerConfig

RESULTS = ROOT / "assets" / "results" / "transformer.json"

MODEL = "transformer"
TASKS = {
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}
DEFAULT_TEXT = {"toy-translation": "I see it", "dates": "Sunday, November 22, 2026"}
SPACE = "␣"  # a space character as an axis label (a blank tick label would be invisible)
MAX_LABEL = 24  # characters of the student's text shown in one diagram box


# ------------------------------------------------------------------------------------ the three attentions
@dataclass(frozen=True)
class Kind:
    """One of the Transformer's three kinds of attention, and how its maps are named and read."""

    key: str
    label: str
    stack: str  # "encoder" | "decoder": whose layers have it
    suffix: str  # "self" | "cross": the map name is f"{stack}.{layer}.{suffix}"
    rows: str  # what a row (query) is
    columns: str  # what a column (key) is
    note: str  # one sentence for the page


KINDS: tuple[Kind, ...] = (
    Kind(
        "encoder_self",
        "Encoder self-attention",
        "encoder",
        "self",
        "source token (query)",
        "source token (key)",
        "Every source token looks at every source token, itself included: the whole sentence at once.",
    ),
    Kind(
        "decoder_self",
        "Decoder masked self-attention",
        "decoder",
        "self",
        "output position (fed token)",
        "earlier output position (fed token)",
        "Each output position looks only at the positions fed so far: the causal mask zeroes the future "
        "(above the diagonal), so the model cannot read the answer it is writing.",
    ),
    Kind(
        "cross",
        "Encoder–decoder attention",
        "decoder",
        "cross",
        "output token written",
        "source token",
        "Queries come from the decoder, keys and values from the encoder's output: which source tokens each "
        "output token reads. This is Bahdanau's alignment, once per layer and head.",
    ),
)
KIND = {k.key: k for k in KINDS}


def map_name(kind: Kind | str, layer: int) -> str:
    """The model's name for a map: ``"encoder.0.self"``, ``"decoder.1.cross"`` (layers count from 0)."""
    kind = KIND[kind] if isinstance(kind, str) else kind
    return f"{kind.stack}.{layer}.{kind.suffix}"


def layer_count(config: TransformerConfig, kind: Kind | str) -> int:
    kind = KIND[kind] if isinstance(kind, str) else kind
    return config.encoder_layers if kind.stack == "encoder" else config.decoder_layers


def maps_per_sentence(config: TransformerConfig) -> int:
    """Attention maps (one per layer, head and kind) a model with ``config`` computes for one sentence:
    h × (encoder layers + 2 × decoder layers), counted from the kinds above."""
    return sum(layer_count(config, kind) * config.n_heads for kind in KINDS)


def maps_caption(config: TransformerConfig) -> str:
    """The caption under section 1's diagram: how many maps one sentence makes, and of which kinds."""
    return (
        f"{maps_per_sentence(config)} attention maps in all for one sentence: {config.n_heads} heads in each of "
        f"{config.encoder_layers} encoder self-attention, {config.decoder_layers} masked self-attention and "
        f"{config.decoder_layers} encoder–decoder attention sublayers. Section 2 shows every one."
    )


def layer_norm_note() -> str:
    """The caption under the layer equations: where the layer norm sits, and the recipe read from the training
    config. It states no result: section 4 measures one (:func:`warmup_sentence`)."""
    recipe = default_train_config(MODEL)
    return (
        "The course's models put the layer norm *before* each sublayer (pre-LN, Xiong et al. 2020); the paper puts "
        "it after the residual sum (post-LN), which Xiong et al. report needs a careful learning-rate warm-up. The "
        f"course trains every Transformer at a peak learning rate of {recipe.lr:g} after a {recipe.warmup_steps}-step "
        "warm-up. Section 4 trains both arrangements with that one recipe, and the same model without its residuals, "
        "its layer norms or its feed-forward networks, and says whether the short warm-up held post-LN back here."
    )


def display_token(token: str) -> str:
    return SPACE if token == " " else token


INTRO = (
    "Put every piece of the last lessons together and you have the Transformer (Vaswani et al. 2017). An "
    "**encoder** of identical layers reads the whole source at once: in each layer every token looks at every "
    "other (*self-attention*: “focus on other words in the input sentence”, as the lecture puts it), then "
    "each token goes alone through a small feed-forward network. A **decoder** of identical layers writes "
    "the output one token at a time: *masked* self-attention over what it has written so far, "
    "*encoder–decoder attention* over the source (“focus on relevant parts of the input sentence”), then its "
    "own feed-forward network. Every sublayer sits in a **residual connection** with **layer normalisation**. "
    "No recurrence anywhere: the only way information moves between positions is attention."
)

ABLATION_TEXT = (
    "The lecture's reason for residual connections: “when the model goes deeper, gradient vanishing, gradient "
    "explosion, and saturation may occur.” A residual lets each sublayer learn only a *change* to its input, "
    "and gives gradients a straight path down; layer norm keeps every sublayer's input at a steady scale. And the "
    "lecture's question, “Why feed forward NN?”: an attention head's output is Σⱼ αᵢⱼ vⱼ with weights αᵢⱼ ≥ 0 "
    "that sum to 1, a *convex combination* of the value vectors. It can only land inside their convex hull (the "
    "figure: your sentence's values and outputs, drawn on the values' two main directions, a linear view that keeps "
    "the hull). Mixing is all attention does; the feed-forward network transforms each token. Switch one piece off "
    "and train the same model again: same seeds, same batches, same number of steps."
)

DEPTH_TEXT = (
    "The lecture backs residuals with He et al.'s plain networks: at 56 layers they train *worse* than at 20, "
    "training error included, so it is not overfitting. Here the same argument is measured on a smaller "
    "Transformer (d_model 32), at 1, 2, 4 and 8 layers a stack, as shipped, without residuals and without layer "
    "norm, three seeds each: does adding layers help, and which variant stops being trainable as it deepens?"
)

DECODING_TEXT = (
    "The lecture's last slide: the model is trained to give P(next word | the words before and the source), and "
    "“beam search is used to generate meaningful sentences”. In training the decoder is **teacher forced**: at "
    "every position it is fed the *correct* previous token, whatever it would have written, so all positions are "
    "trained in one pass. At inference there is no correct token to feed: the model feeds back its own. Greedy "
    "decoding keeps the single likeliest token at each step; **beam search** keeps the *k* likeliest partial "
    "outputs by log p(output so far | source), extends each by every token, and keeps the best *k* again."
)


def teacher_forcing_text(forced: TeacherForcing) -> str:
    """Above the teacher-forcing table: which example, and how many of its positions the model gets right when fed
    the gold prefix (computed)."""
    right = sum(r["model's best guess"] == r["should write"] for r in forced.rows)
    return (
        f"The training example *{forced.source}* → *{forced.target}*, one teacher-forced pass of the model: row t is "
        f"fed the gold token before it. Its best guess is the gold token at {right} of {len(forced.rows)} positions; "
        "the loss trained is −log p(gold) summed over the rows."
    )


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


# ------------------------------------------------------------------------------------- the student's text
@dataclass(frozen=True)
class ParsedSentence:
    """What ``ui.sentence_input`` keeps: the words of a sentence the model can read, or why not."""

    tokens: tuple[str, ...]
    error: str | None = None


def parse_sentence(task_name: str | Task, text: str) -> ParsedSentence:
    """The student's text as words, refused (with the reason) when it is empty or longer than the model reads.

    Unknown characters are allowed: the model sees them as ``<unk>`` and the page says so. ``task_name``: a task's
    name, or the task itself (a student's own data, ``minimodels.own_data.PairsTask``).
    """
    words = tuple(text.split()) if isinstance(text, str) else ()
    if not words:
        return ParsedSentence((), "Type a sentence first.")
    task = get_task(task_name) if isinstance(task_name, str) else task_name
    encoded = task.encode_source(" ".join(words))
    if encoded.truncated:
        return ParsedSentence(
            (),
            f"That is more than {task.max_source_len} tokens for this model: it reads at most "
            f"{task.max_source_len}, the longest sentence it was trained on.",
        )
    return ParsedSentence(words)


def parser(task_name: str | Task):
    """``parse(text)`` for ``ui.sentence_input`` on ``task_name`` (a name or a task)."""
    return partial(parse_sentence, task_name)


# ------------------------------------------------------------------------------------- one sentence through
@dataclass(frozen=True)
class Walk:
    """One sentence through a trained model, greedily decoded, with every attention map it computed."""

    text: str
    translation: Translation
    maps: dict[str, np.ndarray]  # name -> (h, rows, columns); see KINDS for what rows and columns are
    config: TransformerConfig

    @property
    def source(self) -> list[str]:
        """One label per source position, ``</s>`` last."""
        return [display_token(p) for p in self.translation.source_pieces]

    @property
    def output(self) -> list[str]:
        """One label per decoded position: the token it wrote (``</s>`` last when the model ended)."""
        return [display_token(p) for p in self.translation.target_pieces]

    @property
    def fed(self) -> list[str]:
        """What each decoder position was fed: ``<s>``, then every token written before it."""
        return ["<s>", *self.output[:-1]]

    def labels(self, kind: Kind | str) -> tuple[list[str], list[str]]:
        """``(row labels, column labels)`` of a map of ``kind``."""
        kind = KIND[kind] if isinstance(kind, str) else kind
        if kind.key == "encoder_self":
            return self.source, self.source
        if kind.key == "decoder_self":
            return self.fed, self.fed
        return self.output, self.source

    def weights(self, kind: Kind | str, layer: int) -> np.ndarray:
        """``(h, rows, columns)`` weights of ``kind`` in ``layer`` (0-based)."""
        return self.maps[map_name(kind, layer)]


@torch.inference_mode()
def walk(model: nn.Module, task: Task, text: str) -> Walk | str:
    """Translate ``text`` greedily and keep every map; a message for the student when there is nothing to read."""
    result = translate(model, task, text)
    if not result.source_pieces:
        return result.message or "Type a sentence first."
    maps = {name: w.float().numpy() for name, w in result.attention.items()}  # (h, rows, columns)
    return Walk(text, result, maps, model.config)


def head_summary(w: Walk, kind: Kind | str, layer: int) -> list[dict]:
    """One row per head: for each query row, the column it attends to most ("→"), and how peaked the head is."""
    rows, columns = w.labels(kind)
    weights = w.weights(kind, layer)
    out = []
    for head, m in enumerate(weights):
        m = m[: len(rows)]
        out.append(
            {
                "head": head + 1,
                "each row's strongest column": " · ".join(
                    f"{r}→{columns[int(row.argmax())]}" for r, row in zip(rows, m, strict=True)
                ),
                "mean largest weight": round(float(m.max(axis=-1).mean()), 3),
            }
        )
    return out


# ------------------------------------------------------------------------------------------- the diagram
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
            boxes.append(Box(f"e{i}_ff", 0, row, (f"layer {i + 1} feed-forward {d} → {c.d_ff} → {d}",
                                                  _sublayer(c, "FFN"))))  # fmt: skip
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
            Box(f"d{i}_self", 1, row, (f"layer {i + 1} masked self-attention, {h} heads", _sublayer(c, "MultiHead"),
                f"{h} maps of {T} × {T} (future masked)"), ATTENTION_FILL["decoder_self"]),
            Box(f"d{i}_cross", 1, row + 1, (f"layer {i + 1} encoder–decoder attention, {h} heads",
                _sublayer(c, "MultiHead"), f"{h} maps of {T} × {S}"), ATTENTION_FILL["cross"]),
        ]  # fmt: skip
        arrows += [
            (previous, f"d{i}_self", f"{T} × {d}"),
            (f"d{i}_self", f"d{i}_cross", f"queries {T} × {d}"),
            (memory, f"d{i}_cross", f"keys, values {S} × {d}"),
        ]
        previous, row = f"d{i}_cross", row + 2
        if c.feed_forward:
            boxes.append(Box(f"d{i}_ff", 1, row, (f"layer {i + 1} feed-forward {d} → {c.d_ff} → {d}",
                                                  _sublayer(c, "FFN"))))  # fmt: skip
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


def diagram_figure(diagram: Diagram, *, row_height: int = 70) -> go.Figure:
    """The diagram drawn with Plotly shapes and annotations (every line HTML-escaped: it holds typed text).

    Shapes and annotations are collected first and the figure is built once: ``add_annotation`` one by one
    re-validates the whole list each time, and that was 60% of the Transformer page's run (py-spy)."""
    shapes, notes = [], []
    rows = max(b.row for b in diagram.boxes) + 1
    for column, (name, color) in enumerate((("encoder", "#4c78a8"), ("decoder", "#e45756"))):
        inner = [b.row for b in diagram.boxes if b.column == column and b.fill != ENDS_FILL and b.name != "out"]
        x = COLUMN_X[column]
        shapes.append(
            {"type": "rect", "x0": x - BOX_WIDTH / 2 - 0.1, "x1": x + BOX_WIDTH / 2 + 0.1, "y0": min(inner) - 0.5,
             "y1": max(inner) + 0.5, "line": {"color": color, "width": 1.5}, "fillcolor": "rgba(0,0,0,0)",
             "layer": "below"}
        )  # fmt: skip
        notes.append(
            {"x": x - BOX_WIDTH / 2 - 0.05, "y": min(inner) - 0.45, "text": name, "showarrow": False,
             "xanchor": "left", "yanchor": "bottom", "font": {"color": color, "size": 11}}
        )  # fmt: skip
    for b in diagram.boxes:
        x = COLUMN_X[b.column]
        shapes.append(
            {"type": "rect", "x0": x - BOX_WIDTH / 2, "x1": x + BOX_WIDTH / 2, "y0": b.row - BOX_HEIGHT / 2,
             "y1": b.row + BOX_HEIGHT / 2, "line": {"color": "#333333", "width": 1}, "fillcolor": b.fill}
        )  # fmt: skip
        notes.append(
            {"x": x, "y": b.row, "text": "<br>".join(safe_label(line, max_chars=70) for line in b.lines),
             "showarrow": False, "font": {"size": 12, "color": "#1f1f1f"}}
        )  # fmt: skip
    for start, end, label in diagram.arrows:
        a, z = diagram.box(start), diagram.box(end)
        xa, xz = COLUMN_X[a.column], COLUMN_X[z.column]
        if a.column == z.column:  # up the column, from the top of one box to the bottom of the next
            tail, head = (xa, a.row + BOX_HEIGHT / 2), (xz, z.row - BOX_HEIGHT / 2)
        else:  # across, from the encoder's output to a decoder layer's encoder–decoder attention
            tail, head = (xa + BOX_WIDTH / 2, a.row), (xz - BOX_WIDTH / 2, z.row)
        notes.append(
            {"x": head[0], "y": head[1], "ax": tail[0], "ay": tail[1], "xref": "x", "yref": "y", "axref": "x",
             "ayref": "y", "text": "", "showarrow": True, "arrowhead": 2, "arrowsize": 1.2, "arrowwidth": 1.3,
             "arrowcolor": "#4c78a8" if a.column != z.column else "#555555"}
        )  # fmt: skip
        if label:
            middle = ((tail[0] + head[0]) / 2, (tail[1] + head[1]) / 2)
            notes.append(
                {"x": middle[0] + (0.04 if a.column == z.column else 0), "y": middle[1], "text": safe_label(label, 40),
                 "showarrow": False, "xanchor": "left" if a.column == z.column else "center",
                 "yanchor": "middle" if a.column == z.column else "bottom", "font": {"size": 10, "color": "#444444"}}
            )  # fmt: skip
    layout = {
        "shapes": shapes,
        "annotations": notes,
        "xaxis": {"visible": False, "range": [COLUMN_X[0] - 1.0, COLUMN_X[1] + 1.0], "fixedrange": True},
        "yaxis": {"visible": False, "range": [-0.6, rows - 0.4], "fixedrange": True},
        "height": row_height * rows + 20,
        "width": DIAGRAM_WIDTH,  # the boxes' text needs it: on a phone the diagram scrolls sideways in its box
        "margin": {"l": 0, "r": 0, "t": 10, "b": 10},
        "plot_bgcolor": "white",
        "showlegend": False,
        "hovermode": False,
    }
    return figure([], layout)


# ----------------------------------------------------------------------------------------------- figures
def heads_grid(
    panels: Sequence[tuple[str, np.ndarray, Sequence[str], Sequence[str]]],
    *,
    row_height: int = 260,
    value_name: str = "weight",
) -> go.Figure:
    """Rows of heatmaps, one row per panel and one column per head: ``panels`` holds
    ``(title, weights (h, rows, columns), row labels, column labels)``. Every map shares one colour scale 0–1.
    Drawn by :func:`lessons.common.charts.head_grid`: the heads of a row share one pair of axes (with a pair per map,
    ``make_subplots`` and its per-axis updates, the grid cost seconds to build and draw)."""
    if not panels:
        raise ValueError("no attention maps to draw")
    rows = []
    for title, weights, row_labels, column_labels in panels:
        weights = np.asarray(weights, dtype=float)
        if weights.ndim != 3 or weights.shape[1:] != (len(row_labels), len(column_labels)):
            raise ValueError(f"weights of shape {weights.shape} do not match {len(row_labels)} × {len(column_labels)}")
        rows.append(GridRow(title, weights, column_labels, row_labels))
    return head_grid(rows, value_name=value_name, row_height=row_height)


ALL_HEADS, MEAN = "all heads", "average of the heads"  # section 2's head choices besides "head j"


def head_choices(config: TransformerConfig) -> list[str]:
    return [ALL_HEADS, *(f"head {j + 1}" for j in range(config.n_heads)), MEAN]


def layer_figure(w: Walk, kind: Kind | str, layer: int, head: str) -> go.Figure:
    """Section 2's figure: every head of one layer side by side (:data:`ALL_HEADS`), or one head (or their mean)
    drawn large."""
    kind = KIND[kind] if isinstance(kind, str) else kind
    rows, columns = w.labels(kind)
    weights = w.weights(kind, layer)
    if head == ALL_HEADS:
        return heads_grid([(f"layer {layer + 1}", weights, rows, columns)])
    single = weights.mean(axis=0) if head == MEAN else weights[head_choices(w.config).index(head) - 1]
    return attention_heatmap(single, columns, rows, x_title=kind.columns, y_title=kind.rows,
                             title=f"{kind.label}, layer {layer + 1}, {head}")  # fmt: skip


DECODER_ROWS_NOTE = (  # the caption under section 2's maps
    "Decoder rows: in masked self-attention a row is the token *fed* at that position (`<s>`, then what was "
    "written), and it sees only itself and earlier ones; in encoder–decoder attention a row is labelled by the "
    "token that position *wrote*. Hover a cell for its exact weight."
)


def layer_panels(w: Walk, kind: Kind | str) -> list[tuple[str, np.ndarray, list[str], list[str]]]:
    """Every layer of one kind, as :func:`heads_grid` panels."""
    kind = KIND[kind] if isinstance(kind, str) else kind
    rows, columns = w.labels(kind)
    return [
        (f"{kind.label}, layer {i + 1}", w.weights(kind, i), rows, columns) for i in range(layer_count(w.config, kind))
    ]


def every_map(w: Walk) -> list[tuple[str, np.ndarray, list[str], list[str]]]:
    """All of the model's maps for this sentence: encoder layers, then each decoder layer's two kinds."""
    panels = layer_panels(w, "encoder_self")
    for i in range(w.config.decoder_layers):
        for key in ("decoder_self", "cross"):
            panels.append(layer_panels(w, key)[i])
    return panels


def probe_panels(snapshot) -> list[tuple[str, np.ndarray, list[str], list[str]]]:
    """The last decoder layer's cross-attention, head by head, on a training run's fixed example (a
    ``Progress``): one row of heatmaps, light enough to redraw a few times a second on a busy class server."""
    source = [display_token(t) for t in snapshot.source_tokens]
    target = [display_token(t) for t in snapshot.target_tokens]
    names = [n for n in snapshot.attention_maps if n.startswith("decoder.") and n.endswith(".cross")]
    last = max(names, key=lambda n: int(n.split(".")[1]))
    return [(f"encoder–decoder, layer {int(last.split('.')[1]) + 1}", snapshot.attention_maps[last], target, source)]


# ------------------------------------------------------------------------------------- "it", honestly
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


def shipped_note(model: nn.Module, info: Mapping) -> str:
    """The caption under the model picker: the shipped model's shape and how it was trained."""
    c, training = model.config, info.get("training", {})
    return (
        f"Shipped model: {c.encoder_layers} encoder and {c.decoder_layers} decoder layers, {c.n_heads} heads, "
        f"d_model {c.d_model}, d_ff {c.d_ff}, {sum(p.numel() for p in model.parameters()):,} parameters, trained "
        f"{training.get('seconds', 0):.0f} s ({training.get('steps', '?')} steps) on one CPU thread to "
        f"{training.get('test_exact_match', 0):.1%} exact match on held-out test sentences."
    )


# --------------------------------------------------------------------------------------- the ablations
VARIANTS: dict[str, dict] = {
    "full": {},
    "post-LN": {"norm_first": False},
    "no residual": {"residual": False},
    "no layer norm": {"layer_norm": False},
    "no FFN": {"feed_forward": False},
}
VARIANT_LABELS = {
    "full": "full (pre-LN): x + Sublayer(LN(x))",
    "post-LN": "post-LN, the paper's: LN(x + Sublayer(x))",
    "no residual": "no residual: Sublayer(LN(x))",
    "no layer norm": "no layer norm: x + Sublayer(x)",
    "no FFN": "no FFN: attention sublayers only, no feed-forward network",
}
COLORS = {
    "full": "#1f77b4",
    "post-LN": "#2ca02c",
    "no residual": "#d62728",
    "no layer norm": "#ff7f0e",
    "no FFN": "#9467bd",
}
ABLATION_TASK = "dates"
LEVEL = 0.9  # the results table's "steps to" level


def results_config(steps: int, seed: int = 0, threads: int = 1) -> TrainConfig:
    """The shipped ablation's recipe: the Transformer's default training (peak lr 1e-2 after a 50-step
    warm-up, then inverse-square-root decay), a fixed step budget so every variant gets the same: no stopping at
    a target (with the weight average the shipped variant reached 98% at step 250 and stopped short of the others)."""
    return default_train_config(
        MODEL, max_steps=steps, max_seconds=None, target_exact_match=None, report_every=25, seed=seed, threads=threads
    )


# The shipped ablation is a :class:`~lessons.common.comparison.Comparison`: one variant per arrangement, one run per
# seed, each run's final metrics named as the table's columns.
RESULT_SCRIPT = "scripts/transformer_results.py"
STEPS_TO, SECONDS_TO = f"steps to {LEVEL:.0%}", f"seconds to {LEVEL:.0%}"
TABLE = {  # final metric -> its format in the table
    STEPS_TO: ".0f", SECONDS_TO: ".1f", "final loss": ".4f", "held-out exact": ".1%", "test exact": ".1%",
    "steps": ".0f", "seconds": ".1f",
}  # fmt: skip


def ablation_run(variant: str, seed: int, measured: Mapping) -> Run:
    """One run of the ablation from what one training measured: ``{"parameters", "steps", "seconds", "exact_match",
    "test_exact_match", "history": [{"step", "seconds", "loss", "exact_match"}, …]}``."""
    history = list(measured["history"])
    final = {
        STEPS_TO: first_reached(history, "exact_match", LEVEL),
        SECONDS_TO: first_reached(history, "exact_match", LEVEL, x="seconds"),
        "final loss": history[-1]["loss"], "held-out exact": measured["exact_match"],
        "test exact": measured["test_exact_match"], "steps": measured["steps"], "seconds": measured["seconds"],
        "parameters": measured["parameters"],
    }  # fmt: skip
    return Run(variant, seed, dict(VARIANTS[variant]), tuple(history), final)


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped measurements; ``FileNotFoundError`` or ``ValueError`` naming the script when unusable."""
    c = Comparison.load(path or RESULTS, script=RESULT_SCRIPT)
    unknown = sorted(set(c.variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"the results file has unknown variants: {', '.join(unknown)}: run python {RESULT_SCRIPT}")
    return c


def table_rows(c: Comparison) -> list[dict]:
    """One row per variant: steps and seconds to :data:`LEVEL`, and where the fixed budget left it."""
    return c.table(TABLE, missing="never")


def _value(c: Comparison, metric: str, variant: str, fmt: str) -> str:
    """``metric`` of ``variant``: one run's value as it is, several runs' as mean ± sd (n)."""
    spread = c.spread(metric, variant)
    if spread.total > 1:
        return spread.text(fmt, missing="never")
    return "never" if spread.mean is None else format(spread.mean, fmt)


def observations(c: Comparison) -> list[str]:
    """What the table says, in sentences computed from it (each variant against the full model)."""
    if "full" not in c.variants:
        return []
    lines = []
    for variant in ("no residual", "no layer norm", "post-LN"):
        if variant not in c.variants or not c.runs_of(variant):
            continue
        ours, theirs = c.spread(STEPS_TO, "full"), c.spread(STEPS_TO, variant)
        if theirs.n == 0:
            pace = f"never reached {LEVEL:.0%} in {c.spread('steps', variant).max:.0f} steps"
        elif ours.n == 0:
            pace = f"reached {LEVEL:.0%} at step {_value(c, STEPS_TO, variant, '.0f')}, which the full model never did"
        else:
            pace = (
                f"reached {LEVEL:.0%} at step {_value(c, STEPS_TO, variant, '.0f')} (full model: step "
                f"{_value(c, STEPS_TO, 'full', '.0f')})"
            )
        text = (
            f"**{variant}** {pace}; it ended at {_value(c, 'test exact', variant, '.1%')} test exact match against the "
            f"full model's {_value(c, 'test exact', 'full', '.1%')}, with a final loss of "
            f"{_value(c, 'final loss', variant, '.3f')} against {_value(c, 'final loss', 'full', '.3f')}."
        )
        verdict = c.compare(variant, "full", "test exact")
        if verdict.clear:
            side = "ahead of" if verdict.outcome == "better" else "behind"
            text += f" On test exact match it is {side} the full model by more than the spread over seeds."
        elif len(c.seeds) > 1:
            text += f" On test exact match the two are too close to call ({verdict.why('.1%')})."
        lines.append(text)
    if (ffn := ffn_sentence(c)) is not None:
        lines.append(ffn)
    if lines and (warmup := warmup_sentence(c)) is not None:
        lines.append(warmup)
    if lines and len(c.seeds) == 1:
        lines.append(
            f"One seed ({c.seeds[0]}) per variant: each line is a single run, so no gap here is measured against the "
            "spread over seeds."
        )
    return lines


CHART_HEIGHT = 380  # pixels for a curve chart on the page, its title and legend included (the spec's is its plot's)


def ablation_curves(c: Comparison, x: str = "step", height: int = 240) -> tuple[dict, dict]:
    """Training loss and held-out exact match, one line per variant (mean ± sd where there are several seeds),
    against ``x``: two Vega-Lite specs."""
    if x not in ("step", "seconds"):
        raise ValueError(f"x must be 'step' or 'seconds', not {x!r}")
    x_title = "training step" if x == "step" else "seconds"

    def points(metric: str) -> list[dict]:  # the legend names the variant, the table its arrangement
        return [p | {"label": p["variant"]} for p in c.curve_points(metric, x=x)]

    loss = curves_chart(points("loss"), y_title="training loss", x_title=x_title, title="Loss (log scale)",
                        height=height, log_y=True, colors=COLORS)  # fmt: skip
    accuracy = curves_chart(points("exact_match"), y_title="held-out exact match", x_title=x_title,
                            title="Exact match", height=height, percent=True, colors=COLORS)  # fmt: skip
    return loss, accuracy


def provenance_note(meta: Mapping) -> str:
    """What the provenance caption adds for the ablation: the task, the budget, the checks and the one recipe."""
    return (
        f"Task `{meta.get('task', '?')}`, {meta.get('max_steps', '?')} steps each; held-out exact match on 200 "
        f"validation sentences every 25 steps, test exact match on the {meta.get('test_size', '?')} test sentences "
        "at the end. The machine was shared, so the seconds are slower than on a quiet one; the steps are not "
        f"affected. One recipe for all four ({_recipe(meta)}), the one tuned for the full model: a variant might do "
        "better with its own learning rate or warm-up, so this compares the pieces, not their best runs."
    )


def _recipe(meta: Mapping) -> str:
    """The shipped ablation's learning rate and warm-up, read from its ``meta["train_config"]``."""
    config = meta.get("train_config") or {}
    return f"peak learning rate {config.get('lr', '?')} after a {config.get('warmup_steps', '?')}-step warm-up"


def warmup_sentence(c: Comparison) -> str | None:
    """Whether post-LN, trained with the pre-LN model's short warm-up, fell behind it: computed from the loaded
    runs (test exact match, with the verdict's spread rule), so a run where it did says so. None without both."""
    if not {"full", "post-LN"} <= set(c.variants):
        return None
    verdict = c.compare("post-LN", "full", "test exact")
    numbers = f"{c.spread('test exact', 'post-LN').text('.1%')} against {c.spread('test exact', 'full').text('.1%')}"
    recipe = _recipe(c.meta)
    if verdict.outcome == "worse":
        return (
            f"With the same {recipe}, post-LN ends behind pre-LN on test exact match ({numbers}): here the short "
            "warm-up that suits pre-LN does not suit the paper's arrangement."
        )
    if verdict.outcome == "better":
        return (
            f"With the same {recipe}, post-LN ends ahead of pre-LN on test exact match ({numbers}): at {_depth()} "
            "the short warm-up did not hold it back."
        )
    return (
        f"With the same {recipe}, post-LN and pre-LN are too close to call on test exact match ({numbers}; "
        f"{verdict.why('.1%')}): at {_depth()} the short warm-up did not visibly hold post-LN back. This run says "
        "nothing about deeper stacks, where the warm-up trouble was reported."
    )


def _depth() -> str:
    """The ablation model's depth, read from the config it is built with: "2 + 2 layers"."""
    c = model_config(MODEL, get_task(ABLATION_TASK))
    return f"{c.encoder_layers} + {c.decoder_layers} layers"


# ---------------------------------------------------------------------------------------------- depth sweep
# The lecture's depth argument ("when the model goes deeper, gradient vanishing, gradient explosion, and saturation
# may occur"; He et al.'s 20- and 56-layer plain nets) measured here: the same small Transformer at 1, 2, 4 and 8
# encoder and decoder layers, with and without residuals and layer norm, every seed and depth on the same batches.
DEPTH_RESULTS = ROOT / "assets" / "results" / "transformer_depth.json"
DEPTH_VARIANTS: dict[str, dict] = {k: VARIANTS[k] for k in ("full", "no residual", "no layer norm")}
DEPTHS = (1, 2, 4, 8)  # encoder layers = decoder layers
DEPTH_MODEL = {"d_model": 32, "n_heads": 2, "d_ff": 64}  # small, so that 8 + 8 layers train in seconds
DEPTH_METRICS = {"final loss": ".3f", "held-out exact": ".1%"}  # the sweep's two final metrics and their formats


def depth_overrides(variant: str, depth: int) -> dict:
    """The ``build_model`` overrides of one point of the sweep: the small model, ``depth`` layers a stack."""
    if variant not in DEPTH_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(DEPTH_VARIANTS)}")
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    return {**DEPTH_MODEL, **DEPTH_VARIANTS[variant], "encoder_layers": depth, "decoder_layers": depth}


def depth_config(steps: int, seed: int = 0, threads: int = 1) -> TrainConfig:
    """The sweep's recipe: the Transformer's default (as the ablation), smaller batches, a fixed step budget."""
    return default_train_config(
        MODEL, max_steps=steps, max_seconds=None, target_exact_match=None, report_every=50, batch_size=64, seed=seed,
        threads=threads,
    )  # fmt: skip


def depth_run(variant: str, seed: int, depth: int, measured: Mapping) -> Run:
    """One point of the sweep from one training: ``{"parameters", "steps", "seconds", "exact_match", "history"}``."""
    history = list(measured["history"])
    final = {"final loss": history[-1]["loss"], "held-out exact": measured["exact_match"], "steps": measured["steps"],
             "seconds": measured["seconds"], "parameters": measured["parameters"]}  # fmt: skip
    return Run(variant, seed, {"depth": depth}, tuple(history), final)


def load_depth_results(path: Path | str | None = None) -> Comparison:
    """The shipped depth sweep; ``FileNotFoundError`` or ``ValueError`` naming the script when unusable."""
    c = Comparison.load(path or DEPTH_RESULTS, script=DEPTH_SCRIPT)
    unknown = sorted(set(c.variants) - set(DEPTH_VARIANTS))
    if unknown:
        raise ValueError(f"the depth sweep has unknown variants: {', '.join(unknown)}: run python {DEPTH_SCRIPT}")
    if not c.param_values("depth"):
        raise ValueError(f"the depth sweep has no depths: run python {DEPTH_SCRIPT}")
    return c


DEPTH_SCRIPT = f"{RESULT_SCRIPT} --experiment depth"


def depth_curves(c: Comparison, height: int = 240) -> tuple[dict, dict]:
    """Final training loss and held-out exact match against depth (log₂ axis), one line per variant: the mean over
    seeds with a ± sd band, and each seed faintly."""

    def points(metric: str) -> list[dict]:
        return [p | {"label": p["variant"]} for p in c.sweep_points(metric, "depth")]

    loss = curves_chart(points("final loss"), y_title="final training loss", x_title="layers per stack", log_x=True,
                        title="Final loss (log scale)", height=height, log_y=True, colors=COLORS)  # fmt: skip
    exact = curves_chart(points("held-out exact"), y_title="held-out exact match", x_title="layers per stack",
                         title="Exact match", height=height, log_x=True, percent=True, colors=COLORS)  # fmt: skip
    depths = list(c.param_values("depth"))
    return _seed_points(loss, depths), _seed_points(exact, depths)


def _seed_points(spec: dict, depths: list[int]) -> dict:
    """The chart with a dot on each seed's faint line at every depth (a sweep has few x, each one a measurement),
    and a tick at each depth measured."""
    spec["encoding"]["x"]["axis"] = {"values": depths}
    for layer in spec.get("layer", ()):
        if any("datum.kind === 'seed'" in t.get("filter", "") for t in layer.get("transform", ())):
            layer["mark"] = {**layer["mark"], "point": {"size": 14, "filled": True, "opacity": 0.5}}
    return spec


def depth_rows(c: Comparison) -> list[dict]:
    """One row per variant and depth: the two final metrics, mean ± sd (n)."""
    return [
        {"variant": variant, "layers": depth}
        | {m: c.spread(m, variant, {"depth": depth}).text(f, with_n=False) for m, f in DEPTH_METRICS.items()}
        | {"n": c.spread("final loss", variant, {"depth": depth}).total}
        for variant in c.variants
        for depth in c.param_values("depth")
    ]


def _direction(a: Spread, b: Spread, higher_is_better: bool) -> str:
    """Whether it is "better", "worse" or "too close" for ``a`` against ``b``, by the comparison's own rule."""
    return comparison_verdict(a, b, higher_is_better=higher_is_better)[0]


def depth_observations(c: Comparison) -> list[str]:
    """What the sweep shows, computed from it: for each variant, how its held-out exact match moves from the
    shallowest to the deepest stack; and at each depth, whether it is ahead of or behind the full model."""
    depths = c.param_values("depth")
    if len(depths) < 2:
        return []
    low, high = depths[0], depths[-1]
    lines = []
    for variant in c.variants:
        a, b = c.spread("held-out exact", variant, {"depth": high}), c.spread("held-out exact", variant, {"depth": low})
        moves = {"better": "rises", "worse": "falls", "too close": "does not clearly move"}
        deep, shallow = (
            c.spread("final loss", variant, {"depth": high}),
            c.spread("final loss", variant, {"depth": low}),
        )
        text = (
            f"**{variant}**: held-out exact match {moves[_direction(a, b, True)]} from {b.text('.1%')} at {low} "
            f"layer{'s' * (low > 1)} a stack to {a.text('.1%')} at {high} layers, and the final loss "
            f"{moves[_direction(deep, shallow, True)]} from {shallow.text('.3f', with_n=False)} to "
            f"{deep.text('.3f', with_n=False)}"
        )
        if variant != "full" and "full" in c.variants:
            spread = partial(c.spread, "held-out exact")
            against = {d: _direction(spread(variant, {"depth": d}), spread("full", {"depth": d}), True) for d in depths}
            behind = [d for d in depths if against[d] == "worse"]
            ahead = [d for d in depths if against[d] == "better"]
            text += f"; behind the full model by more than the spread at {_depth_list(behind)}"
            if ahead:
                text += f", ahead of it at {_depth_list(ahead)}"
        lines.append(text + ".")
    return lines


def _depth_list(depths: Sequence[int]) -> str:
    """ "1, 2 and 4 layers", "8 layers", "no depth"."""
    if not depths:
        return "no depth"
    words = [str(d) for d in depths]
    return (", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]) + " layers"


def depth_provenance_note(meta: Mapping) -> str:
    """What the provenance caption adds for the sweep: the model, the task, the budget and the recipe."""
    m, batch = meta.get("model") or {}, (meta.get("train_config") or {}).get("batch_size", "?")
    return (
        f"Task `{meta.get('task', '?')}`, d_model {m.get('d_model', '?')}, {m.get('n_heads', '?')} heads, d_ff "
        f"{m.get('d_ff', '?')}, {meta.get('max_steps', '?')} steps of {batch} examples each ({_recipe(meta)}); "
        "held-out exact match on 200 validation sentences at the end. A smaller model and budget than the ablation "
        "above, so that 8 + 8 layers fit: its numbers are not the shipped model's."
    )


# ------------------------------------------------------------------------------- why a feed-forward network
@dataclass(frozen=True)
class ConvexCheck:
    """Layer 1's encoder self-attention on one sentence, checked against "every output is a weighted average of the
    value vectors" (weights ≥ 0 that sum to 1, so the output lies in the values' convex hull), over every head."""

    tokens: list[str]  # source labels, "</s>" last
    heads: int
    d_k: int
    min_weight: float  # smallest attention weight of any head (≥ 0)
    max_sum_error: float  # largest |Σ_j α_ij − 1| over every row of every head
    max_reconstruction_error: float  # largest |z_i − Σ_j α_ij v_j| over every coordinate
    outside: int  # output coordinates beyond the smallest or largest value coordinate (0: inside the box)
    coordinates: int  # output coordinates checked: h × S × d_k
    values_2d: np.ndarray  # (S, 2) head 1's value vectors projected on their two principal directions
    outputs_2d: np.ndarray  # (S, 2) head 1's outputs, the same projection (linear: the hull is kept)
    relu_zero_share: float  # share of layer 1's FFN hidden units that ReLU sets to 0 for this sentence's tokens
    d_ff: int


@torch.inference_mode()
def convex_check(model: nn.Module, task: Task, text: str) -> ConvexCheck | str:
    """Run ``text`` through the embeddings and layer 1's self-attention by hand, keeping each head's value vectors
    ``v (h, S, d_k)``, weights ``α (h, S, S)`` and outputs ``z = α v`` (before W^O), and check the convex-combination
    claim numerically. A message for the student when there is nothing to read."""
    from minimodels.attention import scaled_dot_product_attention

    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    device = next(model.parameters()).device
    source = torch.tensor([[*encoded.ids, EOS_ID]], device=device)  # (1, S)
    layer = model.encoder_layers[0]
    x = model._embed(source, model.source_embedding, model.source_position)  # (1, S, d)
    h = layer.residual1.norm(x) if model.config.norm_first else x  # what the sublayer reads
    att = layer.self_attention
    q, k, v = (att._split(w(h)) for w in (att.W_q, att.W_k, att.W_v))  # (1, h, S, d_k) each
    z, alpha = scaled_dot_product_attention(q, k, v)  # (1, h, S, d_k), (1, h, S, S)
    v, z, alpha = v[0].double(), z[0].double(), alpha[0].double()
    lo, hi = v.min(dim=1, keepdim=True).values, v.max(dim=1, keepdim=True).values  # (h, 1, d_k)
    tolerance = 1e-5 * (1 + v.abs().max())
    outside = int(((z < lo - tolerance) | (z > hi + tolerance)).sum())
    values_2d, outputs_2d = _principal_plane(v[0].numpy(), z[0].numpy())
    hidden = torch.relu(layer.feed_forward.linear1(layer.residual2.norm(x))) if layer.feed_forward is not None else None
    return ConvexCheck(
        tokens=[display_token(task.source_tokenizer.id_to_piece(i)) for i in source[0].tolist()],
        heads=alpha.size(0),
        d_k=v.size(-1),
        min_weight=float(alpha.min()),
        max_sum_error=float((alpha.sum(-1) - 1).abs().max()),
        max_reconstruction_error=float((z - alpha @ v).abs().max()),
        outside=outside,
        coordinates=z.numel(),
        values_2d=values_2d,
        outputs_2d=outputs_2d,
        relu_zero_share=float((hidden == 0).double().mean()) if hidden is not None else float("nan"),
        d_ff=model.config.d_ff if hidden is not None else 0,
    )


def _principal_plane(values: np.ndarray, outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values (S, d_k)`` and ``outputs (S, d_k)`` on the values' two principal directions (centred on their mean).
    A linear map sends a weighted average to the same weighted average of the images: the hull survives."""
    mean = values.mean(axis=0)
    _, _, directions = np.linalg.svd(values - mean, full_matrices=False)  # rows: principal directions
    plane = directions[:2].T  # (d_k, 2)
    return (values - mean) @ plane, (outputs - mean) @ plane


def convex_hull(points: np.ndarray) -> list[int]:
    """Indices of the 2-D convex hull of ``points (n, 2)``, counter-clockwise (Andrew's monotone chain)."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))

    def cross(o: int, a: int, b: int) -> float:
        (ox, oy), (ax, ay), (bx, by) = points[o], points[a], points[b]
        return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)

    def chain(indices: list[int]) -> list[int]:
        out: list[int] = []
        for i in indices:
            while len(out) >= 2 and cross(out[-2], out[-1], i) <= 0:
                out.pop()
            out.append(i)
        return out

    if len(order) < 3:
        return order
    lower, upper = chain(order), chain(order[::-1])
    return lower[:-1] + upper[:-1]


def inside_hull(point: np.ndarray, points: np.ndarray, tolerance: float = 1e-9) -> bool:
    """Whether ``point`` lies in the convex hull of ``points`` (2-D), on its edge included."""
    hull = convex_hull(points)
    if len(hull) < 3:
        return False
    scale = tolerance * (1 + float(np.abs(points).max()))
    for a, b in zip(hull, hull[1:] + hull[:1], strict=True):
        (ax, ay), (bx, by) = points[a], points[b]
        if (bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax) < -scale:
            return False
    return True


def convex_figure(check: ConvexCheck, height: int = 360) -> go.Figure:
    """Head 1's value vectors (dots), their convex hull (shaded) and its outputs (crosses), on the values' two
    principal directions: every cross lies inside the shaded polygon."""
    v, z = check.values_2d, check.outputs_2d
    hull = convex_hull(v)
    ring = hull + hull[:1]
    labels = [safe_label(t, 12) for t in check.tokens]
    data = [
        {"type": "scatter", "x": v[ring, 0].tolist(), "y": v[ring, 1].tolist(), "mode": "lines", "fill": "toself",
         "fillcolor": "rgba(76,120,168,0.15)", "line": {"color": "#4c78a8", "width": 1},
         "name": "convex hull of the values",
         "hoverinfo": "skip"},
        {"type": "scatter", "x": v[:, 0].tolist(), "y": v[:, 1].tolist(), "mode": "markers+text", "text": labels,
         "textposition": "top center", "marker": {"size": 9, "color": "#4c78a8"}, "name": "value vⱼ of each token",
         "hovertemplate": "value of %{text}<extra></extra>"},
        {"type": "scatter", "x": z[:, 0].tolist(), "y": z[:, 1].tolist(), "mode": "markers", "text": labels,
         "marker": {"size": 10, "symbol": "x", "color": "#e45756"}, "name": "output zᵢ = Σⱼ αᵢⱼ vⱼ",
         "hovertemplate": "output at %{text}<extra></extra>"},
    ]  # fmt: skip
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "title": {"text": "Layer 1 self-attention, head 1: values and outputs"},
        "xaxis": {"title": {"text": "1st principal direction of the values"}, "zeroline": False},
        "yaxis": {"title": {"text": "2nd"}, "zeroline": False},
        "legend": {"orientation": "h", "y": -0.2},
        "plot_bgcolor": "white",
    }
    return figure(data, layout)


def convex_text(check: ConvexCheck) -> str:
    """What the check found, in numbers (it can also say that an output fell outside)."""
    verdict = (
        "every one of them lies within the smallest and largest value of its coordinate"
        if check.outside == 0
        else f"**{check.outside}** of them fall outside that range"
    )
    relu = (
        f" The feed-forward network after it is the layer's only non-linear step on each token alone: for your "
        f"sentence ReLU sets **{check.relu_zero_share:.0%}** of its {check.d_ff} hidden units to 0, a different "
        "set for each token."
        if check.d_ff
        else ""
    )
    return (
        f"Measured on your sentence, layer 1 of the encoder, all {check.heads} heads: the smallest weight is "
        f"{check.min_weight:.2g} (never negative), every row sums to 1 within {check.max_sum_error:.1e}, and each "
        f"output equals Σⱼ αᵢⱼ vⱼ within {check.max_reconstruction_error:.1e}. Of the {check.coordinates} output "
        f"coordinates (heads × tokens × d_k = {check.heads} × {len(check.tokens)} × {check.d_k}), {verdict}.{relu}"
    )


def ffn_sentence(c: Comparison) -> str | None:
    """The no-FFN ablation in one sentence, from the loaded runs (None without both variants): which side of the
    full model it ends on by the verdict's rule, and the parameter counts, since removing the FFN also shrinks it."""
    if not {"full", "no FFN"} <= set(c.variants):
        return None
    verdict = c.compare("no FFN", "full", "test exact")
    side = {
        "worse": "ends behind the full model on test exact match by more than the spread over seeds",
        "better": "ends ahead of the full model on test exact match by more than the spread over seeds",
        "too close": "and the full model are too close to call on test exact match",
    }[verdict.outcome]
    numbers = f"{_value(c, 'test exact', 'no FFN', '.1%')} against {_value(c, 'test exact', 'full', '.1%')}"
    loss = f"final loss {_value(c, 'final loss', 'no FFN', '.3f')} against {_value(c, 'final loss', 'full', '.3f')}"
    small, full = c.spread("parameters", "no FFN").mean, c.spread("parameters", "full").mean
    return (
        f"**no FFN** {side} ({numbers}; {loss}). It also has {1 - small / full:.0%} fewer parameters ({small:,.0f} "
        f"against {full:,.0f}), so this run cannot tell “no per-token transformation” from “a smaller model”."
    )


# ------------------------------------------------------------------------- teacher forcing and beam search
@dataclass(frozen=True)
class TeacherForcing:
    """One training example as training sees it: the gold previous token fed at every position."""

    source: str
    target: str
    rows: list[dict]  # one per position: fed, the gold next token, the model's best guess, p(gold)


@torch.inference_mode()
def teacher_forcing(model: nn.Module, task: Task, example=None) -> TeacherForcing:
    """``example`` (default: the task's probe) through one teacher-forced pass: what the decoder is fed at each
    position (``<s>``, then the *gold* tokens, whatever the model would have written) and what it predicts."""
    from minimodels.tasks.core import make_batch

    example = example or task.probe or task.valid[0]
    batch = make_batch([example], task).to(next(model.parameters()).device)
    probs = model(batch.source, batch.source_lengths, batch.target_in).logits[0].softmax(-1)  # (T, V)
    piece = task.target_tokenizer.id_to_piece
    rows = []
    for t, (fed, gold) in enumerate(zip(batch.target_in[0].tolist(), batch.target_out[0].tolist(), strict=True)):
        best = int(probs[t].argmax())
        rows.append({"position": t + 1, "fed (gold)": display_token(piece(fed)),
                     "should write": display_token(piece(gold)), "model's best guess": display_token(piece(best)),
                     "p(gold)": round(float(probs[t, gold]), 4)})  # fmt: skip
    return TeacherForcing(example.source, example.target, rows)


@dataclass(frozen=True)
class BeamView:
    """Beam search on the student's sentence: the tree it kept, and its hypotheses best first."""

    width: int
    result: BeamResult
    pieces: dict[int, str]  # node id -> its token as a label
    texts: list[str]  # each hypothesis decoded


@torch.inference_mode()
def beam_view(model: nn.Module, task: Task, text: str, width: int) -> BeamView | str:
    """Beam search of ``width`` on ``text`` (``minimodels.decode.beam_search``); a message when there is no text."""
    if not 1 <= int(width) <= MAX_BEAM:
        return f"Pick a beam width from 1 to {MAX_BEAM}."
    result = translate(model, task, text, method="beam", width=int(width))
    if result.beam is None:
        return result.message or "Type a sentence first."
    piece = task.target_tokenizer.id_to_piece
    pieces = {n.id: display_token(piece(n.token)) for n in result.beam.nodes}  # the root's is <s>
    texts = [task.target_tokenizer.decode(h.tokens) for h in result.beam.hypotheses]
    return BeamView(int(width), result.beam, pieces, texts)


MAX_BEAM = 8


def beam_rows(view: BeamView) -> list[dict]:
    """The final hypotheses, best first: output, log-probability, probability, whether it ended with </s>."""
    return [
        {"rank": i + 1, "output": text, "log p": round(h.log_prob, 4), "p": round(float(np.exp(h.log_prob)), 4),
         "ended with </s>": h.finished}
        for i, (h, text) in enumerate(zip(view.result.hypotheses, view.texts, strict=True))
    ]  # fmt: skip


def beam_figure(view: BeamView, height: int = 380) -> go.Figure:
    """Every partial output the beam kept, step by step: x the step, y its score log p(prefix | source), each
    labelled with the token it added and joined to the one it extends, from ``<s>`` at step 0; the best
    hypothesis's path in red, outputs that ended with </s> as squares."""
    nodes = view.result.nodes
    best = {0} | {n.id for n in view.result.path(view.result.best.node)}  # the root (<s>, score 0) starts every path
    edge_x, edge_y = [], []
    for n in nodes[1:]:
        parent = nodes[n.parent]
        edge_x += [parent.step + 1, n.step + 1, None]
        edge_y += [parent.log_prob, n.log_prob, None]
    data = [{"type": "scatter", "x": edge_x, "y": edge_y, "mode": "lines", "line": {"color": "#bbbbbb", "width": 1},
             "hoverinfo": "skip", "showlegend": False}]  # fmt: skip
    for name, keep, color in (("kept in the beam", False, "#4c78a8"), ("the best output's path", True, "#e45756")):
        chosen = [n for n in nodes if (n.id in best) == keep]
        data.append(
            {"type": "scatter", "x": [n.step + 1 for n in chosen], "y": [n.log_prob for n in chosen],
             "mode": "markers+text", "text": [safe_label(view.pieces[n.id], 8) for n in chosen],
             "textposition": "middle right", "name": name,
             "marker": {"size": 9, "color": color, "symbol": ["square" if n.finished else "circle" for n in chosen]},
             "customdata": [round(n.log_prob, 4) for n in chosen],
             "hovertemplate": "step %{x}: %{text}, log p = %{customdata}<extra></extra>"}
        )  # fmt: skip
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "title": {"text": f"Beam search, width {view.width}: every partial output kept"},
        "xaxis": {
            "title": {"text": "decoder step"},
            "dtick": 1,  # room on the right for the last step's labels
            "range": [-0.3, max(n.step for n in nodes) + 1.9],
        },
        "yaxis": {"title": {"text": "log p(output so far | source)"}},
        "legend": {"orientation": "h", "y": -0.2},
        "plot_bgcolor": "white",
    }
    return figure(data, layout)


def beam_text(view: BeamView, greedy_text: str) -> str:
    """What the search found against greedy decoding, computed (the two agree at width 1)."""
    best = view.result.best
    same = view.texts[0] == greedy_text
    kept = len(view.result.nodes) - 1
    return (
        f"Width {view.width} kept {kept} partial outputs over {max(n.step for n in view.result.nodes) + 1} steps. "
        f"Its best output, *{view.texts[0] or '(nothing)'}*, has log p = {best.log_prob:.3f} "
        f"(p = {np.exp(best.log_prob):.3f}); it is {'the same as' if same else '**not** the same as'} the greedy "
        f"output *{greedy_text or '(nothing)'}* of section 1."
    )


# ------------------------------------------------------------------------------------------ live training
LIVE_TARGET = 0.98  # held-out exact match at which a student's run stops


def live_config(budget_seconds: float, seed: int) -> TrainConfig:
    """The shipped recipe, stopped by the student's budget or at :data:`LIVE_TARGET` held-out exact match, reported
    often."""
    return default_train_config(
        MODEL, max_seconds=budget_seconds, report_every=10, target_exact_match=LIVE_TARGET, threads=THREADS_PER_RUN,
        seed=seed,
    )  # fmt: skip


def new_training(task_name: str, variant: str, seed: int, budget_seconds: float):
    """A fresh model of ``variant`` for one student and the function that trains it: ``(model, train_fn)``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    task = get_task(task_name)
    model = build_model(MODEL, task, seed=seed, **VARIANTS[variant])
    config = live_config(budget_seconds, seed)
    return model, lambda on_progress: train(model, task, config, on_progress)


def new_run(task_name: str, variant: str, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s model and trainer, named for the task."""
    fresh, train_fn = new_training(task_name, variant, seed, float(budget_seconds))
    return TrainingRun(train_fn, model=fresh, name=f"transformer-{task_name}")


# ---------------------------------------------------------------------------------------------- exercises
def feed_forward_parameters(config: TransformerConfig) -> int:
    """Parameters of one position-wise feed-forward network, counted on a module built from ``config``."""
    from minimodels.transformer import FeedForward

    return sum(p.numel() for p in FeedForward(config.d_model, config.d_ff).parameters())


BASE = {"encoder_layers": 6, "decoder_layers": 6, "n_heads": 8, "d_model": 512, "d_ff": 2048}  # the paper's base


def exercises(model: nn.Module, task: Task) -> list[Exercise]:
    """The computations by hand (the check-yourself section), their answers computed by code: on the paper's base
    model (whose counts the page never shows, so none is read off it) and on the shipped model's probe sentence."""
    c = model.config
    base = replace(c, **BASE)
    maps = maps_per_sentence(base)
    probe = task.probe or task.valid[0]
    w = walk(model, task, probe.source)
    S, T = len(w.source), len(w.output)
    ffn = feed_forward_parameters(base)
    d, d_ff = base.d_model, base.d_ff
    return [
        Exercise(
            key="transformer.ex1",
            prompt=(
                f"The paper's base model has {base.encoder_layers} encoder layers, {base.decoder_layers} decoder "
                f"layers and {base.n_heads} heads in every attention sublayer. How many attention maps (one per layer, "
                "head and kind of attention) does it compute for one sentence?"
            ),
            answer=maps,
            explanation=(
                f"Encoder: {base.encoder_layers} layers × {base.n_heads} heads = {base.encoder_layers * base.n_heads} "
                f"self-attention maps. Decoder: each of its {base.decoder_layers} layers has two attention sublayers "
                f"(masked self-attention and encoder–decoder attention), so 2 × {base.decoder_layers} × {base.n_heads} "
                f"= {2 * base.decoder_layers * base.n_heads}. In all {maps}."
            ),
            hint="Each decoder layer has two attention sublayers, each encoder layer one.",
        ),
        Exercise(
            key="transformer.ex2",
            prompt=(
                f"The shipped model reads *{probe.source}* as {S - 1} source tokens plus `</s>`, and writes {T} "
                "output tokens for it (`</s>` included). How many weights are in **one head's** encoder–decoder "
                "attention map for it?"
            ),
            answer=int(w.weights("cross", 0)[0].size),
            explanation=(
                f"One row per output token written, one column per source token read, `</s>` included on both "
                f"sides: {T} × {S} = {T * S}. Each row is one softmax and sums to 1."
            ),
            hint="Rows: output tokens written. Columns: source tokens read.",
        ),
        Exercise(
            key="transformer.ex3",
            prompt=(
                f"How many parameters does one position-wise feed-forward network of the paper's base model have, "
                f"with d_model = {d} and d_ff = {d_ff}? (FFN(x) = max(0, xW₁ + b₁)W₂ + b₂)"
            ),
            answer=ffn,
            explanation=(
                f"W₁ is {d} × {d_ff} = {d * d_ff:,}, b₁ has {d_ff}, W₂ is {d_ff} × {d} = {d * d_ff:,}, b₂ has {d}: "
                f"2 · {d * d_ff:,} + {d_ff} + {d} = {ffn:,} (counted on `FeedForward({d}, {d_ff})`)."
            ),
            hint="Two weight matrices and two bias vectors.",
        ),
        Exercise(
            key="transformer.ex4",
            prompt="In the decoder's masked self-attention map (rows: positions, columns: positions), which weights "
            "are always exactly 0?",
            choices=(
                "those above the diagonal: later positions, not yet written",
                "those below the diagonal: earlier positions",
                "the diagonal: a position never attends to itself",
                "none: the mask only scales the scores",
            ),
            answer=0,
            explanation="Row t may read positions 1 … t. The causal mask sets the scores of later positions (columns "
            "after t, above the diagonal) to −∞ before the softmax, and e^−∞ = 0: exactly 0 weight, whatever the "
            "model learned.",
            hint="What must a decoder not read while it writes position t?",
        ),
        *hand_exercises(),
    ]


RESIDUAL_CHOICES = (
    "about as well as the full model (too close to call)",
    "clearly worse, but it learns part of the task",
    "it learns almost nothing (under 10% test exact match)",
)


def residual_prediction(c: Comparison) -> Exercise | None:
    """Predict, before section 4's results: how the model without residual connections ends, trained with the same
    recipe and budget. The answer is computed from the loaded runs; None when they lack either variant."""
    if not {"full", "no residual"} <= set(c.variants):
        return None
    verdict = c.compare("no residual", "full", "test exact")
    mean = c.spread("test exact", "no residual").mean
    answer = 0 if not verdict.clear else 2 if mean < 0.1 else 1
    return Exercise(
        key="transformer.ex5",
        prompt=(
            "**Predict before you open the results.** The same Transformer, trained with the same recipe, seeds and "
            "steps, but with every residual connection removed (each sublayer computes Sublayer(LN(x)), no “x +”). "
            "It ends…"
        ),
        choices=RESIDUAL_CHOICES,
        answer=answer,
        explanation=(
            f"{verdict.sentence('.1%', 'test exact match')} "
            + (
                "Without the “x +”, a token's own embedding (and its position) reaches the output only through every "
                "sublayer in turn, and the gradient only back through all of them: the straight path the lecture's "
                "“Residual” slide is about is gone."
                if verdict.outcome == "worse"
                else "At this depth the residuals were not needed to learn the task within the budget."
            )
        ),
        hint="Without “x +”, how does the input reach the top of the stack, and the gradient the bottom?",
    )


FFN_CHOICES = (
    "about as well as the full model (too close to call)",
    "better than the full model, by more than the spread",
    "a little worse: behind by more than the spread, still above 90% test exact match",
    "far worse: under 90% test exact match",
)


def ffn_prediction(c: Comparison) -> Exercise | None:
    """Predict, before section 4's results: how the model without its feed-forward networks ends. The answer is
    computed from the loaded runs; None when they lack either variant."""
    if not {"full", "no FFN"} <= set(c.variants):
        return None
    verdict = c.compare("no FFN", "full", "test exact")
    mean = c.spread("test exact", "no FFN").mean
    answer = {"too close": 0, "better": 1}.get(verdict.outcome, 2 if mean >= 0.9 else 3)
    why = {
        "worse": "Attention only averages value vectors; without the FFN the only per-token transformation left is "
        "the linear W^O (and the layer norms).",
        "better": "Here the averaging alone, with W^O, was enough, and the smaller model did better.",
        "too close": "At this size and budget the averaging alone, with W^O, was enough for this task.",
    }[verdict.outcome]
    return Exercise(
        key="transformer.ex6",
        prompt=(
            "**Predict before you open the results.** The same Transformer with every feed-forward network removed "
            "(each layer keeps its attention sublayers, residuals and layer norms). It ends…"
        ),
        choices=FFN_CHOICES,
        answer=answer,
        explanation=f"{ffn_sentence(c)} {why}",
        hint="What can a weighted average of value vectors, then one linear map, not compute?",
    )


def depth_prediction(c: Comparison) -> Exercise | None:
    """Predict, before section 5's sweep: from how many layers a stack the model without residuals falls behind the
    full model by more than the spread over seeds. Computed from the sweep; None without both variants."""
    if not {"full", "no residual"} <= set(c.variants) or not c.param_values("depth"):
        return None
    depths = c.param_values("depth")
    spread = partial(c.spread, "held-out exact")
    behind = [d for d in depths if _direction(spread("no residual", {"depth": d}), spread("full", {"depth": d}), True)
              == "worse"]  # fmt: skip
    choices = (*(f"from {d} layer{'s' * (d > 1)} a stack" for d in depths), f"at none of {depths[0]}–{depths[-1]}")
    answer = depths.index(behind[0]) if behind else len(depths)
    numbers = "; ".join(
        f"{d}: {spread('no residual', {'depth': d}).text('.1%', with_n=False)} against "
        f"{spread('full', {'depth': d}).text('.1%', with_n=False)}"
        for d in depths
    )
    return Exercise(
        key="transformer.ex7",
        prompt=(
            f"**Predict before you open the sweep.** The small Transformer is trained at {', '.join(map(str, depths))} "
            "layers a stack, with and without residual connections. From which depth does the model *without* "
            "residuals end behind the full one by more than the spread over seeds (held-out exact match)?"
        ),
        choices=choices,
        answer=answer,
        explanation=(
            f"Held-out exact match, without residuals against the full model, by layers a stack: {numbers}. "
            + (
                f"It is behind from {behind[0]} layer{'s' * (behind[0] > 1)}: every sublayer without “x +” must pass "
                "on everything the layers above need, and the gradient has no straight path back down."
                if behind
                else "It is never clearly behind in this sweep."
            )
        ),
        hint="The shipped ablation in section 4 has 2 layers a stack.",
    )


BEAM_FIRST = {"A": 0.6, "B": 0.4}  # p(first token)
BEAM_SECOND = {"A": {"x": 0.5, "y": 0.5}, "B": {"x": 0.9, "y": 0.1}}  # p(second token | first), then </s> for sure


def two_step_beam(width: int) -> tuple[str, float]:
    """Beam search by hand on :data:`BEAM_FIRST` and :data:`BEAM_SECOND`: the output and its probability."""
    kept = sorted(BEAM_FIRST, key=BEAM_FIRST.get, reverse=True)[:width]
    outputs = {a + b: BEAM_FIRST[a] * p for a in kept for b, p in BEAM_SECOND[a].items()}
    best = max(outputs, key=outputs.get)  # a tie goes to the first in order, as an argmax does
    return best, outputs[best]


CONVEX_VALUES = ((2.0, -1.0), (0.0, 3.0), (-4.0, 1.0))  # three value vectors for the hand exercise


def hand_exercises() -> list[Exercise]:
    """The computations by hand of sections 4 and 6 (their numbers are not on the page): a weighted average's bound
    and a two-step beam search."""
    greedy_output, greedy_p = two_step_beam(1)
    beam_output, beam_p = two_step_beam(2)
    first = [v[0] for v in CONVEX_VALUES]
    vectors = ", ".join(f"v{'₁₂₃'[i]} = ({a:g}, {b:g})" for i, (a, b) in enumerate(CONVEX_VALUES))
    table = "; ".join(
        f"after {a}: " + ", ".join(f"p({b}) = {p:g}" for b, p in BEAM_SECOND[a].items()) for a in BEAM_SECOND
    )
    outputs = {a + b: BEAM_FIRST[a] * p for a in BEAM_FIRST for b, p in BEAM_SECOND[a].items()}
    return [
        Exercise(
            key="transformer.ex8",
            prompt=(
                f"One head's value vectors are {vectors}. Whatever scores the softmax turns into weights, what is the "
                "largest the *first* coordinate of the head's output z = Σⱼ αⱼ vⱼ can get (as close as you like)?"
            ),
            answer=max(first),
            tolerance=0.01,
            explanation=(
                f"The weights are ≥ 0 and sum to 1, so z's first coordinate is a weighted average of "
                f"{', '.join(f'{a:g}' for a in first)}: never above the largest, {max(first):g}, reached as the weight "
                "on that value goes to 1. No setting of the scores pushes an output beyond its values: attention "
                "mixes, it does not transform. The feed-forward network is what transforms each token."
            ),
            hint="An average with weights ≥ 0 that sum to 1 cannot leave the range of what it averages.",
        ),
        Exercise(
            key="transformer.ex9",
            prompt=(
                f"A decoder writes two tokens then </s>. First token: p(A) = {BEAM_FIRST['A']:g}, "
                f"p(B) = {BEAM_FIRST['B']:g}. Second: {table}. Greedy decoding writes {greedy_output} "
                f"(p = {greedy_p:g}). What is the probability of the output beam search of width 2 returns?"
            ),
            answer=round(beam_p, 6),
            tolerance=0.005,
            explanation=(
                "Width 2 keeps both first tokens and scores whole outputs, p(first) × p(second | first): "
                + ", ".join(f"{o} = {p:.2f}" for o, p in outputs.items())
                + f". The best is {beam_output}, p = {beam_p:.2f}, above greedy's {greedy_p:.2f}: greedy chose "
                "A because it was likelier *first*, and could not take it back."
            ),
            hint="Multiply along each path, for all four two-token outputs.",
        ),
    ]


# The layers' equations, one short line each, so that a phone's narrow column holds them
EQUATIONS = (
    r"\begin{aligned}"
    r"&\text{encoder layer:} \\ h &= x + \mathrm{MultiHead}(\mathrm{LN}(x)) \\"
    r"\mathrm{out} &= h + \mathrm{FFN}(\mathrm{LN}(h)) \\[4pt]"
    r"&\text{decoder layer:} \\ a &= y + \mathrm{MaskedMultiHead}(\mathrm{LN}(y)) \\"
    r"b &= a + \mathrm{MultiHead}(Q{=}\mathrm{LN}(a), \\ &\qquad K{=}V{=}\text{encoder output}) \\"
    r"\mathrm{out} &= b + \mathrm{FFN}(\mathrm{LN}(b)) \\[4pt]"
    r"\mathrm{FFN}(x) &= \max(0,\ xW_1 + b_1)\,W_2 + b_2 \\"
    r"\mathrm{LN}(x) &= \gamma \odot \frac{x - \mu(x)}{\sigma(x)} + \beta"
    r"\end{aligned}"
)


def train_text(task_name: str) -> str:
    """Above the train-it-yourself panel: what the student trains and what it shows while it learns."""
    return (
        f"Train a fresh Transformer on **{TASKS[task_name].split(' (')[0]}** for you alone, with or without "
        "residuals, layer norm or feed-forward networks, and watch the last decoder layer's encoder–decoder "
        "attention, head by head, on a fixed example. Predict first: will its heads sharpen from a uniform haze into "
        f"an alignment within your budget, for the variant you picked? It stops at {LIVE_TARGET:.0%} "
        "held-out exact match or at the end of its budget; afterwards, replay the run and use your model in the "
        "sections above."
    )
