"""The attention maps one sentence makes: the Transformer's three kinds of attention, their names and counts,
and the grid of heatmaps sections 2 and 7 draw them in.

The encoder's self-attention, the decoder's masked self-attention and the decoder's encoder–decoder attention
(the lecture's "Self-Attention", "Masking" and "Encoder-Decoder Attention"), each once per layer and head. A map
is ``(h, rows, columns)``: h heads, a query per row, a key per column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from lessons.common.grids import GridRow, head_grid
from minimodels.transformer import TransformerConfig


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


def heads_grid(
    panels: Sequence[tuple[str, np.ndarray, Sequence[str], Sequence[str]]],
    *,
    row_height: int = 260,
    value_name: str = "weight",
) -> go.Figure:
    """Rows of heatmaps, one row per panel and one column per head: ``panels`` holds
    ``(title, weights (h, rows, columns), row labels, column labels)``. Every map shares one colour scale 0–1.
    Drawn by :func:`lessons.common.grids.head_grid`: the heads of a row share one pair of axes (with a pair per map,
    ``make_subplots`` and its per-axis updates, the grid costs seconds to build and draw)."""
    if not panels:
        raise ValueError("no attention maps to draw")
    rows = []
    for title, weights, row_labels, column_labels in panels:
        weights = np.asarray(weights, dtype=float)
        if weights.ndim != 3 or weights.shape[1:] != (len(row_labels), len(column_labels)):
            raise ValueError(f"weights of shape {weights.shape} do not match {len(row_labels)} × {len(column_labels)}")
        rows.append(GridRow(title, weights, column_labels, row_labels))
    return head_grid(rows, value_name=value_name, row_height=row_height)
