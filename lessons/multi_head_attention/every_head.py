"""Section 2: every head of a trained Transformer.

A shipped :class:`~minimodels.transformer.TinyTransformer` (or the student's own) reads the student's sentence
(:mod:`lessons.multi_head_attention.transformer_maps` keeps every map); the page draws every head of every attention
sublayer, enlarges one, and says in numbers what each head does (:func:`head_rows`) and whether the heads divide the
work (:func:`specialisation_notes`).

Letters: S source tokens, T output tokens, h heads.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from torch import nn

from lessons.common.charts import attention_heatmap
from lessons.common.grids import GridRow
from lessons.multi_head_attention.transformer_maps import Reading, parameter_count, sublayer_label, sublayers

TITLE = "2 · Every head of a trained Transformer"
TEXT = (
    "A shipped Transformer (the whole model is lesson 10's) reads your sentence (its shape is under the task "
    "picker, read from the model). Every "
    "map it computed is below: one row per attention sublayer, one column per head. Pick one to enlarge it."
)

TASKS = {
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}


def yours_label(own: nn.Module | None) -> str:
    """The model picker's name for the student's own model: how many heads it has."""
    heads = own.config.n_heads if own is not None else 0
    return f"yours, trained on this page ({heads} head{'s' * (heads > 1)})"


def default_text(task_name: str) -> str:
    if task_name == "dates":
        return "Sunday, November 22, 2026"
    return "Jane visits Africa in September"


def model_shape(model: nn.Module) -> str:
    """A Transformer's shape in words, read from its config: "2 encoder layers, 2 decoder layers, d_model = 64, 4
    heads in each of its 6 attention sublayers"."""
    c = model.config
    sublayers = c.encoder_layers + 2 * c.decoder_layers  # self-attention per encoder layer; self + cross per decoder
    return (
        f"{c.encoder_layers} encoder layer{'s' * (c.encoder_layers != 1)}, {c.decoder_layers} decoder "
        f"layer{'s' * (c.decoder_layers != 1)}, d_model = {c.d_model}, {c.n_heads} head{'s' * (c.n_heads != 1)} in "
        f"each of its {sublayers} attention sublayers"
    )


def shipped_note(model: nn.Module, info: Mapping) -> str:
    """The caption under the model picker: the shipped model's shape and size and how it was trained."""
    training = info.get("training", {})
    return (
        f"Shipped model: {model_shape(model)}; {parameter_count(model):,} parameters, trained "
        f"{training.get('seconds', 0):.0f} s ({training.get('steps', '?')} steps) to "
        f"{training.get('test_exact_match', 0):.0%} test exact match."
    )


def axes(reading: Reading, name: str) -> tuple[list[str], list[str], str, str]:
    """``(x_labels, y_labels, x_title, y_title)`` of map ``name``."""
    part, _, what = name.split(".")
    if part == "encoder":
        return reading.source, reading.source, "source token (attended to)", "source token (attending)"
    if what == "self":
        return reading.decoder_inputs, reading.target, "decoder input (attended to)", "output token (written)"
    return reading.source, reading.target, "source token", "output token (written)"


def grid_rows(reading: Reading, names: Sequence[str]) -> list[GridRow]:
    rows = []
    for name in names:
        x, y, _, _ = axes(reading, name)
        rows.append(GridRow(sublayer_label(name), reading.maps[name], x, y))
    return rows


GRID_CAPTION = (  # under the grid of every sublayer's heads
    "Encoder rows: each source token (down) reads the source (across). Decoder self-attention: each output "
    "step reads what the decoder has written so far (never the future: the upper triangle is empty). "
    "Cross-attention: each output token reads the source. Hover a cell for its exact weight."
)


def enlarged_figure(reading: Reading, name: str, head: int | str) -> go.Figure:
    """One head of sublayer ``name`` (``"mean"``: the heads' mean map) drawn large."""
    weights = reading.maps[name].mean(0) if head == "mean" else reading.maps[name][head]
    x, y, x_title, y_title = axes(reading, name)
    return attention_heatmap(
        weights,
        x,
        y,
        x_title=x_title,
        y_title=y_title,
        value_name="α",
        title=f"{sublayer_label(name)} · {head_label(head)}",
    )


def head_label(head: int | str) -> str:
    return "mean of the heads" if head == "mean" else f"head {head + 1}"


def entropy_bits(weights: np.ndarray) -> np.ndarray:
    """Entropy of each row of ``(..., C)`` in bits: 0 when one token takes everything, log₂ C when uniform."""
    w = np.clip(np.asarray(weights, dtype=float), 1e-12, 1.0)
    return -(np.asarray(weights, dtype=float) * np.log2(w)).sum(-1)


def head_distance(weights: np.ndarray) -> float:
    """How different a sublayer's heads are: the total-variation distance ½ Σ|a − b| between two heads' rows,
    averaged over rows and over every pair of heads. 0: the heads attend identically; 1: never to the same token.
    """
    h = weights.shape[0]
    if h < 2:
        return 0.0
    pairs = [0.5 * np.abs(weights[i] - weights[j]).sum(-1).mean() for i, j in itertools.combinations(range(h), 2)]
    return float(np.mean(pairs))


def _pattern(weights: np.ndarray, part: str, what: str) -> tuple[str, int]:
    """The commonest place a head's rows put their largest weight, and in how many rows."""
    R, C = weights.shape
    argmax = weights.argmax(-1)
    names = []
    for r, c in enumerate(argmax):
        if what == "cross":
            names.append("</s>" if c == C - 1 else "a source word")
        elif c == r:
            names.append("itself")
        elif c == r - 1:
            names.append("the previous token")
        elif c == r + 1:
            names.append("the next token")
        elif part == "encoder" and c == C - 1:
            names.append("</s>")
        elif c == 0:
            names.append("the first token")
        else:
            names.append("another token")
    best = max(set(names), key=lambda n: (names.count(n), n))
    return best, names.count(best)


def head_rows(reading: Reading, name: str) -> list[dict]:
    """One row per head of map ``name``: how sharp it is, where it looks, and its most-read token."""
    part, _, what = name.split(".")
    x_labels, _, _, _ = axes(reading, name)
    maps = reading.maps[name]
    rows = []
    for j, weights in enumerate(maps):
        pattern, count = _pattern(weights, part, what)
        rows.append(
            {
                "head": j + 1,
                "entropy (bits)": round(float(entropy_bits(weights).mean()), 2),
                "mean largest α": round(float(weights.max(-1).mean()), 2),
                "most rows look at": f"{pattern} ({count} of {weights.shape[0]})",
                "most-read token": x_labels[int(weights.sum(0).argmax())],
            }
        )
    return rows


HEAD_ROWS_CAPTION = (
    "Per head of this sublayer, on your sentence: entropy of each row (0 bits: all weight on one token), the "
    "mean of each row's largest weight, where most rows put their largest weight, and the token that gets "
    "the most weight in total."
)


def specialisation_notes(reading: Reading, alignment: Mapping[str, Sequence[float]] | None = None) -> list[str]:
    """Plain sentences, computed from the maps, on whether the heads of this model do different things."""
    notes = []
    distances = {name: head_distance(reading.maps[name]) for name in sublayers(list(reading.maps))}
    if distances:
        most, least = max(distances, key=distances.get), min(distances, key=distances.get)
        notes.append(
            f"Heads differ most in **{sublayer_label(most)}** (distance {distances[most]:.2f}) and least in "
            f"**{sublayer_label(least)}** ({distances[least]:.2f}); 0 would mean identical heads, 1 heads that "
            "never read the same token."
        )
    for name, values in (alignment or {}).items():
        heads, mean = values[:-1], values[-1]
        best, worst = int(np.argmax(heads)), int(np.argmin(heads))
        text = (
            f"On the 500 test sentences, the heads of **{sublayer_label(name)}** follow the gold alignment "
            f"{min(heads):.0%}–{max(heads):.0%} of the time (head {best + 1} best, head {worst + 1} worst; their "
            f"average map {mean:.0%})."
        )
        if max(heads) - min(heads) < 0.1:
            text += " They are much alike here: on this toy task the heads do not visibly divide the work."
        else:
            text += " Some heads track the word being translated and others do something else."
        notes.append(text)
    return notes


HEADS_CAUTION = (  # under the specialisation notes
    "Be careful with stories about heads: a tiny model on a toy task needs little of what 8 heads of a "
    "512-wide model do in a real translator. Read the numbers, not only the pictures."
)
