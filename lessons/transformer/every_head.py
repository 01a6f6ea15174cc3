"""Section 2: every attention map of the student's sentence, one kind, layer and head at a time, or all at once.

The three kinds (:data:`lessons.transformer.maps.KINDS`) as the model computed them for the sentence the page's top
read (:class:`lessons.transformer.reading.Walk`); a table of each head's strongest column per row says what each
head picks, so heads of one layer can be compared.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lessons.common.charts import attention_heatmap
from lessons.transformer.maps import KIND, Kind, heads_grid, layer_count
from lessons.transformer.reading import Walk
from minimodels.transformer import TransformerConfig

TITLE = "2 · Every layer, every head"
TEXT = (
    "Pick a kind of attention and a layer. Rows are queries, columns keys; each row is a softmax and sums to 1. "
    "Heads of one layer run side by side on the same input, each with its own W^Q, W^K, W^V: compare what they "
    "pick."
)


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
    return attention_heatmap(
        single, columns, rows, x_title=kind.columns, y_title=kind.rows, title=f"{kind.label}, layer {layer + 1}, {head}"
    )


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


def layer_panels(w: Walk, kind: Kind | str) -> list[tuple[str, np.ndarray, list[str], list[str]]]:
    """Every layer of one kind, as :func:`~lessons.transformer.maps.heads_grid` panels."""
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


DECODER_ROWS_NOTE = (  # the caption under section 2's maps
    "Decoder rows: in masked self-attention a row is the token *fed* at that position (`<s>`, then what was "
    "written), and it sees only itself and earlier ones; in encoder–decoder attention a row is labelled by the "
    "token that position *wrote*. Hover a cell for its exact weight."
)
