r"""Lesson: multi-head attention (Part 2).

Follows the Transformer lecture's "What is multi-head self-attention": the input *Thinking Machines* is embedded,
"split into 8 heads" (each head multiplies X by its own W_i^Q, W_i^K, W_i^V), each head computes attention, and
"the resulting Z matrices" are concatenated and multiplied by W^O. Why: "it expands the model's ability to focus
on different positions" and "gives the attention layer multiple representation subspaces". Vaswani et al. 2017,
§3.2.2:

.. math:: \mathrm{MultiHead}(Q,K,V) = \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O,\quad
          \mathrm{head}_i = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)

Three things are computed here:

* the split by hand, head by head, on the student's words (:func:`heads_by_hand`), checked against
  :class:`minimodels.attention.MultiHeadAttention` and ``torch.nn.MultiheadAttention`` on the page itself;
* every head of every layer of a trained :class:`~minimodels.transformer.TinyTransformer` on the student's
  sentence (:func:`read_sentence`), with numbers that say what each head does (:func:`head_rows`);
* 1, 2, 4 and 8 heads trained with the same budget (``assets/results/multi_head_attention.json``, written by
  ``scripts/multi_head_attention_results.py``), and the same training live for one student.

Letters: S tokens (source), T output tokens, d = d_model, h heads, d_k = d / h. This module never imports
streamlit.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.charts import (
    DIVERGING_COLORSCALE,
    GridRow,
    attention_heatmap,
    figure,
    head_grid,
    safe_label,
)
from lessons.common.comparison import Comparison, Run, curve_of, curves_chart, first_reached, verdict
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.common.reading import ReadsSentence
from lessons.queries_keys_values import ParsedSentence, parse_sentence, word_embedding
from minimodels.attention import MultiHeadAttention, scaled_dot_product_attention
from minimodels.coreference import ItConfig, ItResolver
from minimodels.coreference import accuracy as resolver_accuracy
from minimodels.coreference import load as load_resolver
from minimodels.coreference import train as train_resolver
from minimodels.decode import Translation, translate
from minimodels.tasks import Task, coreference, get_task
from minimodels.train import Progress, TrainConfig, alignment_accuracy, build_model, default_train_config, evaluate
from minimodels.train import train as train_model

RESULTS = ROOT / "assets" / "results" / "multi_head_attention.json"

# ------------------------------------------------------------------------------------------------------
# 1. The split, by hand
# ------------------------------------------------------------------------------------------------------
D_MODEL_CHOICES: tuple[int, ...] = (8, 16, 32, 64, 128, 256, 512)
HEAD_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16)
LECTURE_D_MODEL, LECTURE_HEADS = 512, 8  # the paper's base model, and the lecture's "split into 8 heads"
DEFAULT_SENTENCE = "Thinking Machines"
MAX_TOKENS = 12  # the per-head maps stay readable side by side


def head_choices(d_model: int) -> tuple[int, ...]:
    """The head counts offered for ``d_model``: those that divide it (d_k = d_model / h must be whole)."""
    return tuple(h for h in HEAD_CHOICES if d_model % h == 0)


def parse(text: str) -> ParsedSentence:
    """The student's words (whitespace-split), or a message when there are none or too many."""
    return parse_sentence(text, MAX_TOKENS)


@dataclass(frozen=True)
class HeadsByHand:
    """Multi-head self-attention of one sentence, computed head by head the way the lecture draws it."""

    X: torch.Tensor  # (S, d) the words' embeddings
    Q: torch.Tensor  # (h, S, d_k) Q_i = X W_i^Q + b_i^Q, one slice of columns of XW^Q per head
    K: torch.Tensor  # (h, S, d_k)
    V: torch.Tensor  # (h, S, d_k)
    weights: torch.Tensor  # (h, S, S) A_i = softmax(Q_i K_iᵀ / √d_k)
    Z: torch.Tensor  # (h, S, d_k) Z_i = A_i V_i
    concat: torch.Tensor  # (S, h·d_k) = (S, d) Concat(Z_1, ..., Z_h)
    output: torch.Tensor  # (S, d) Concat(...) W^O + b^O

    @property
    def n_heads(self) -> int:
        return int(self.Q.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.X.shape[1])

    @property
    def d_k(self) -> int:
        return int(self.Q.shape[2])


@torch.inference_mode()
def heads_by_hand(mha: MultiHeadAttention, X: torch.Tensor) -> HeadsByHand:
    """The lecture's steps 3 to 5 for ``X (S, d)``, one head at a time, with ``mha``'s own weights.

    ``nn.Linear`` stores W as (out, in) and computes x Wᵀ + b, so the lecture's W^Q (d × d) is
    ``mha.W_q.weight.T``; head i's W_i^Q is its columns i·d_k … (i+1)·d_k − 1. No reshape trick: each head's
    matrices are cut out and used as they are.
    """
    h, d_k = mha.n_heads, mha.d_k
    W = {name: getattr(mha, name).weight.T for name in ("W_q", "W_k", "W_v", "W_o")}  # (d, d) each, x @ W
    b = {name: _bias(getattr(mha, name)) for name in ("W_q", "W_k", "W_v", "W_o")}  # (d,) each
    per_head = {"Q": [], "K": [], "V": [], "A": [], "Z": []}
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        Q_i = X @ W["W_q"][:, cols] + b["W_q"][cols]  # (S, d) @ (d, d_k) -> (S, d_k)
        K_i = X @ W["W_k"][:, cols] + b["W_k"][cols]  # (S, d_k)
        V_i = X @ W["W_v"][:, cols] + b["W_v"][cols]  # (S, d_k)
        Z_i, A_i = scaled_dot_product_attention(Q_i, K_i, V_i)  # (S, d_k), (S, S)
        for name, value in zip("QKVAZ", (Q_i, K_i, V_i, A_i, Z_i), strict=True):
            per_head[name].append(value)
    concat = torch.cat(per_head["Z"], dim=-1)  # h × (S, d_k) -> (S, h·d_k)
    output = concat @ W["W_o"] + b["W_o"]  # (S, d) @ (d, d) -> (S, d)
    stacked = {name: torch.stack(values) for name, values in per_head.items()}  # (h, S, ·)
    return HeadsByHand(X, stacked["Q"], stacked["K"], stacked["V"], stacked["A"], stacked["Z"], concat, output)


def _bias(linear: nn.Linear) -> torch.Tensor:
    return linear.bias if linear.bias is not None else torch.zeros(linear.out_features)


@dataclass(frozen=True)
class SplitExample:
    """The split on the student's words, with the two references it is checked against."""

    tokens: tuple[str, ...]
    heads: HeadsByHand
    module_output: torch.Tensor  # (S, d) minimodels' MultiHeadAttention(X, X, X)
    module_weights: torch.Tensor  # (h, S, S)
    torch_output: torch.Tensor  # (S, d) torch.nn.MultiheadAttention(X, X, X)
    torch_weights: torch.Tensor  # (h, S, S)
    parameters: dict[str, int]  # "W^Q" … "W^O" -> learned numbers (weights and bias), counted on the module

    @property
    def differences(self) -> dict[str, float]:
        """Largest absolute difference between the hand-made output (and weights) and each reference."""
        by_hand = self.heads
        return {
            "MultiHeadAttention": float((by_hand.output - self.module_output).abs().max()),
            "nn.MultiheadAttention": float((by_hand.output - self.torch_output).abs().max()),
            "nn.MultiheadAttention, α": float((by_hand.weights - self.torch_weights).abs().max()),
        }


def check_split(d_model: int, n_heads: int) -> str | None:
    """A message for the student when ``n_heads`` cannot split ``d_model``, or None."""
    if d_model not in D_MODEL_CHOICES:
        return f"d_model must be one of {', '.join(map(str, D_MODEL_CHOICES))}; got {d_model}."
    if n_heads not in head_choices(d_model):
        return f"{n_heads} heads cannot split d_model = {d_model} into whole heads: d_k = d_model / h must be whole."
    return None


@torch.inference_mode()
def split_example(tokens: Sequence[str], d_model: int, n_heads: int, seed: int = 0) -> SplitExample:
    """Multi-head self-attention of the student's words with untrained weights drawn from ``seed``.

    The weights are PyTorch's own ``nn.MultiheadAttention`` initialisation; ``MultiHeadAttention.from_torch``
    copies them, and :func:`heads_by_hand` recomputes the output head by head. Raises ``ValueError`` on a split
    the lesson does not offer (see :func:`check_split`).
    """
    message = check_split(d_model, n_heads) or (None if tokens else "Type at least one word.")
    if message:
        raise ValueError(message)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        reference = nn.MultiheadAttention(d_model, n_heads, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(reference).eval()
    X = torch.stack([word_embedding(t, d_model) for t in tokens])  # (S, d)
    x = X[None]  # (1, S, d)
    module_output, module_weights = ours(x, x, x)  # (1, S, d), (1, h, S, S)
    torch_output, torch_weights = reference(x, x, x, need_weights=True, average_attn_weights=False)
    parameters = {
        label: sum(p.numel() for p in getattr(ours, name).parameters())
        for label, name in (("W^Q", "W_q"), ("W^K", "W_k"), ("W^V", "W_v"), ("W^O", "W_o"))
    }
    return SplitExample(
        tuple(tokens),
        heads_by_hand(ours, X),
        module_output[0],
        module_weights[0],
        torch_output[0],
        torch_weights[0],
        parameters,
    )


@functools.cache  # a page run asks for the same few counts each time: a module of d_model = 1024 takes ~10 ms to make
def projection_parameters(d_model: int, n_heads: int) -> int:
    """Learned numbers in W^Q, W^K, W^V and W^O (biases included), counted on a fresh module (once per process and
    sizes)."""
    return sum(p.numel() for p in MultiHeadAttention(d_model, n_heads).parameters())


def parameter_counts(d_model: int) -> dict[int, int]:
    """h -> the learned numbers of ``MultiHeadAttention(d_model, h)``, for every h that splits ``d_model``: each
    counted on a real module, never by formula."""
    return {h: projection_parameters(d_model, h) for h in head_choices(d_model)}


def parameter_rows(d_model: int, counts: Mapping[int, int] | None = None) -> list[dict]:
    """One row per head count at this d_model: d_k and the module's learned numbers (:func:`parameter_counts`)."""
    counts = parameter_counts(d_model) if counts is None else counts
    return [{"heads h": h, "d_k = d_model / h": d_model // h, "learned numbers in W^Q, W^K, W^V, W^O": n}
            for h, n in counts.items()]  # fmt: skip


def parameter_sentence(d_model: int, counts: Mapping[int, int], other: tuple[int, int] | None = None) -> str:
    """What the count table says, computed from it: whether the count moves with h at this d_model, and (``other``:
    ``(d_model′, its count)``) that it does move with d_model. A table whose counts differ across h says so."""
    heads = ", ".join(str(h) for h in counts)
    values = set(counts.values())
    if len(values) == 1:
        text = (
            f"At d_model = {d_model}, every h ({heads}) gives the same **{values.pop():,}** learned numbers: the heads "
            "cut W^Q, W^K and W^V into slices of d_k columns, they add none."
        )
    else:
        low, high = min(counts, key=counts.get), max(counts, key=counts.get)
        text = (
            f"At d_model = {d_model} the count changes with h: {counts[low]:,} at h = {low}, {counts[high]:,} at "
            f"h = {high}."
        )
    if other is not None:
        d_other, n_other = other
        here = next(iter(counts.values()))
        verb = "changes it" if n_other != here else "leaves it"
        formula = f" = 4 · ({d_other}² + {d_other})" if n_other == 4 * (d_other * d_other + d_other) else ""
        text += f" Changing d_model {verb}: d_model = {d_other} has {n_other:,}{formula}."
    return text


def other_d_model(d_model: int) -> int:
    """The d_model the count sentence compares with: the next smaller choice (the next larger for the smallest)."""
    i = D_MODEL_CHOICES.index(d_model)
    return D_MODEL_CHOICES[i - 1] if i > 0 else D_MODEL_CHOICES[1]


def parameter_table(d_model: int) -> tuple[list[dict], str]:
    """Section 1's count: the rows for the student's d_model and every h, and the sentence computed from them."""
    counts, other = parameter_counts(d_model), other_d_model(d_model)
    return parameter_rows(d_model, counts), parameter_sentence(
        d_model, counts, (other, projection_parameters(other, 1))
    )


def _shape(t: torch.Tensor) -> str:
    return " × ".join(str(n) for n in t.shape)


def shape_rows(example: SplitExample) -> list[dict]:
    """The lecture's five steps with the shapes of the tensors this example really computed."""
    hb = example.heads
    h, S, d, d_k = hb.n_heads, hb.X.shape[0], hb.d_model, hb.d_k
    p = example.parameters
    return [
        {"step": "1 · embed each word", "computes": "X", "shape": _shape(hb.X), "learned numbers": 0},
        {
            "step": f"2 · project, {h} head{'s' * (h > 1)}",
            "computes": "Qᵢ = X Wᵢ^Q,  Kᵢ = X Wᵢ^K,  Vᵢ = X Wᵢ^V",
            "shape": f"{h} × ({S} × {d_k}) each, Wᵢ {d} × {d_k}",
            "learned numbers": p["W^Q"] + p["W^K"] + p["W^V"],
        },
        {
            "step": "3 · attend in every head",
            "computes": "Aᵢ = softmax(Qᵢ Kᵢᵀ / √d_k)",
            "shape": f"{_shape(hb.weights)}, √d_k = {math.sqrt(d_k):.3g}",
            "learned numbers": 0,
        },
        {"step": "", "computes": "Zᵢ = Aᵢ Vᵢ", "shape": _shape(hb.Z), "learned numbers": 0},
        {
            "step": "4 · concatenate",
            "computes": "Concat(Z₁, …, Zₕ)",
            "shape": f"{_shape(hb.concat)} (h · d_k = {h} · {d_k})",
            "learned numbers": 0,
        },
        {
            "step": "5 · mix with W^O",
            "computes": "Concat(…) W^O",
            "shape": f"{_shape(hb.output)}, W^O {d} × {d}",
            "learned numbers": p["W^O"],
        },
    ]


def _strips(
    matrices: Sequence[tuple[str, torch.Tensor]], tokens: Sequence[str], hb: HeadsByHand, split_rows: int
) -> go.Figure:
    """Matrices ``(S, d)`` stacked on one pair of axes, each under its name and shape, one colour scale; the first
    ``split_rows`` are cut into the heads' blocks of columns, with "head i" over the top one.

    One pair of axes, not a subplot per matrix: the browser draws every axis of a figure on every move of
    d_model or h (three subplots drew slower than one axis). The lines between the heads' blocks are one line
    trace (its segments split by gaps): one layout shape per line cost more than the rest of the figure.
    Built from one dict (:func:`lessons.common.charts.figure`).
    """
    S, d = len(tokens), hb.d_model
    bound = max(float(m.abs().max()) for _, m in matrices) or 1.0
    labels = [safe_label(t, 16) for t in tokens]
    block = S + 1  # each matrix: a blank row that carries its name, then its S rows
    data, tickvals, annotations, xs, ys = [], [], [], [], []
    for r, (name, m) in enumerate(matrices):
        top = r * block + 1  # y of the matrix's first row
        data.append(
            {"type": "heatmap", "z": m.numpy(), "y": list(range(top, top + S)), "name": name,
             "coloraxis": "coloraxis",  # the row's word is its tick label: no per-cell hover text to send
             "hovertemplate": f"{name}<br>column %{{x}}<br>value = %{{z:.3f}}<extra></extra>"}
        )  # fmt: skip
        tickvals += range(top, top + S)
        annotations.append(
            {"text": f"<b>{name}</b>  {_shape(m)}", "x": 0, "xref": "x domain", "xanchor": "left", "y": top - 1,
             "yref": "y", "yanchor": "middle", "showarrow": False, "font": {"size": 12}}
        )  # fmt: skip
        if r < split_rows:
            xs += [x for i in range(1, hb.n_heads) for x in (i * hb.d_k - 0.5, i * hb.d_k - 0.5, None)]
            ys += [y for _ in range(1, hb.n_heads) for y in (top - 0.5, top + S - 0.5, None)]
    annotations += [
        {"x": (i + 0.5) * hb.d_k - 0.5, "y": 1.0, "xref": "x", "yref": "y domain", "yanchor": "bottom",
         "showarrow": False, "text": f"head {i + 1}" if hb.n_heads <= 8 else str(i + 1), "font": {"size": 11}}
        for i in range(hb.n_heads)
    ]  # fmt: skip
    data.append(
        {"type": "scatter", "x": xs, "y": ys, "mode": "lines", "line": {"color": "#222", "width": 2},
         "hoverinfo": "skip", "showlegend": False}
    )  # fmt: skip
    layout = {
        "annotations": annotations,
        "coloraxis": {"colorscale": DIVERGING_COLORSCALE, "cmid": 0.0, "cmin": -bound, "cmax": bound,
                      "colorbar": {"thickness": 12}},
        "height": 70 + len(matrices) * (50 + 22 * S),
        "margin": {"l": 10, "r": 10, "t": 30, "b": 40},
        "xaxis": {"title": {"text": f"column (0 … {d - 1})"}, "range": [-0.5, d - 0.5], "showgrid": False,
                  "zeroline": False},
        "yaxis": {"tickmode": "array", "tickvals": tickvals, "ticktext": labels * len(matrices),
                  "range": [len(matrices) * block - 0.5, -0.5], "showgrid": False, "zeroline": False},
    }  # fmt: skip
    return figure(data, layout)


def projection_figure(example: SplitExample) -> go.Figure:
    """Q, K and V of the whole layer (S × d), cut into h blocks of d_k columns: each block is one head's."""
    hb = example.heads
    joined = [("Q = XW^Q", _join(hb.Q)), ("K = XW^K", _join(hb.K)), ("V = XW^V", _join(hb.V))]
    return _strips(joined, example.tokens, hb, split_rows=3)


PROJECTION_CAPTION = (
    "Steps 2–3: the three projections of the whole layer, one row per word. The black lines cut the columns "
    "into heads: head i's Qᵢ is nothing but its own block of d_k columns (hover for values)."
)


def concat_figure(example: SplitExample) -> go.Figure:
    """Concat(Z₁ … Zₕ) (S × d, head blocks marked) and the layer's output Concat(…) W^O (S × d), where W^O has
    mixed every head into every column: no blocks any more."""
    hb = example.heads
    return _strips([("Concat(Zᵢ)", hb.concat), ("× W^O", hb.output)], example.tokens, hb, split_rows=1)


CONCAT_CAPTION = (
    "Step 5: the heads' Zᵢ side by side, then W^O mixes them back into one d_model vector per word: every "
    "output column reads every head, so the output has no head blocks any more."
)
PARITY_CAPTION = (  # under the parameter count and the differences of SplitExample
    "The hand-made computation (head by head, concatenate, W^O) against `minimodels.attention.MultiHeadAttention` "
    "(which reshapes instead of slicing) and PyTorch's own `nn.MultiheadAttention` with the same weights: equal "
    "up to float rounding."
)


def _join(per_head: torch.Tensor) -> torch.Tensor:
    """``(h, S, d_k)`` back to ``(S, h·d_k)``: head i's block is columns i·d_k … (i+1)·d_k − 1."""
    h, S, d_k = per_head.shape
    return per_head.transpose(0, 1).reshape(S, h * d_k)  # (S, h, d_k) -> (S, d)


# ------------------------------------------------------------------------------------------------------
# A grid of per-head maps (shared by the three sections)
# ------------------------------------------------------------------------------------------------------
def split_grid(example: SplitExample) -> go.Figure:
    """Each head's own A_i on the student's words (untrained weights)."""
    hb = example.heads
    row = GridRow("Aᵢ", hb.weights.numpy(), example.tokens, example.tokens)
    return head_grid([row], title=f"Aᵢ = softmax(QᵢKᵢᵀ / √{hb.d_k}): {hb.n_heads} × ({_shape(hb.weights[0])})")


SPLIT_GRID_CAPTION = "Step 4: each head scores its own Qᵢ against its own Kᵢ, so each has its own map. Rows sum to 1."


def split_sentence(example: SplitExample, d_model: int) -> str:
    """Above the split's table: d_k from the widgets' d_model and h."""
    h, d_k = example.heads.n_heads, example.heads.d_k
    return (
        f"**d_k = d_model / h = {d_model} / {h} = {d_k}.** Each head sees {d_k} of the {d_model} numbers of every "
        "word's query, key and value."
    )


def parity_metrics(example: SplitExample) -> list[tuple[str, str, str | None]]:
    """Under the split: ``(label, value, help)`` for the parameter count and each difference from a reference."""
    count = [("parameters of W^Q, W^K, W^V, W^O", f"{sum(example.parameters.values()):,}", None)]
    return count + [(f"vs {name}", f"{value:.1e}", f"Largest absolute difference from {name}")
                    for name, value in example.differences.items()]  # fmt: skip


def split_figures(example: SplitExample) -> list[tuple[str, go.Figure, str]]:
    """Section 1's figures in the lecture's order, each as ``(key, figure, caption)``: the projections (steps 2–3),
    each head's own map (step 4), the concatenation and W^O (step 5)."""
    return [
        ("projections", projection_figure(example), PROJECTION_CAPTION),
        ("split.heads", split_grid(example), SPLIT_GRID_CAPTION),
        ("concat", concat_figure(example), CONCAT_CAPTION),
    ]


# ------------------------------------------------------------------------------------------------------
# 2. A trained model, every head of every layer
# ------------------------------------------------------------------------------------------------------
MODEL = "transformer"
TASKS = {
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}
KINDS = {
    "all": "every sublayer",
    "encoder": "encoder self-attention",
    "decoder": "decoder self-attention",
    "cross": "cross-attention",
}


def default_text(task_name: str) -> str:
    if task_name == "dates":
        return "Sunday, November 22, 2026"
    return "Jane visits Africa in September"


@dataclass(frozen=True)
class Reading(ReadsSentence):
    """One sentence through a trained Transformer: the output and every head's map."""

    translation: Translation
    maps: dict[str, np.ndarray]  # "encoder.i.self" (h, S, S), "decoder.i.self" (h, T, T), "decoder.i.cross" (h, T, S)

    @property
    def decoder_inputs(self) -> list[str]:
        """What the decoder reads at each step: BOS, then its own previous outputs."""
        return ["<s>", *self.target[:-1]]


@torch.inference_mode()
def read_sentence(model: nn.Module, task: Task, text: str) -> Reading | str:
    """Greedy-decode ``text`` and keep every map; a message for the student when the text is unusable."""
    result = translate(model, task, text)
    if not result.source_pieces:
        return result.message or "Type a sentence first."
    if not result.target_pieces:
        return "The model wrote nothing for this text."
    return Reading(result, {name: m.float().numpy() for name, m in result.attention.items()})


def sublayers(names: Sequence[str], kind: str = "all") -> list[str]:
    """Map names in reading order (encoder layers, then each decoder layer's self- and cross-attention)."""

    def order(name: str) -> tuple:
        part, layer, what = name.split(".")
        return (part != "encoder", int(layer), what != "self")

    chosen = sorted(names, key=order)
    if kind == "all":
        return chosen
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    wanted = {"encoder": ("encoder", "self"), "decoder": ("decoder", "self"), "cross": ("decoder", "cross")}[kind]
    return [n for n in chosen if (n.split(".")[0], n.split(".")[2]) == wanted]


def sublayer_label(name: str) -> str:
    """``"decoder.1.cross"`` -> ``"decoder layer 2 · cross-attention"``."""
    part, layer, what = name.split(".")
    kind = {"self": "masked self-attention" if part == "decoder" else "self-attention", "cross": "cross-attention"}
    return f"{part} layer {int(layer) + 1} · {kind[what]}"


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
GRID_CAPTION = (  # under the grid of every sublayer's heads
    "Encoder rows: each source token (down) reads the source (across). Decoder self-attention: each output "
    "step reads what the decoder has written so far (never the future: the upper triangle is empty). "
    "Cross-attention: each output token reads the source. Hover a cell for its exact weight."
)


def head_alignment(model: nn.Module, task: Task) -> dict[str, list[float]]:
    """For each cross-attention sublayer: the gold-alignment accuracy of each head, then of their mean, on the
    test split (how often a head's largest weight falls on a source token the output token comes from)."""
    found = alignment_accuracy(model, task, "test")
    if not found:
        return {}
    maps = found["maps"]
    out = {}
    for name in sublayers([k for k in maps if k.count(".") == 2]):
        heads = sorted((k for k in maps if k.startswith(name + ".h")), key=lambda k: int(k.rsplit("h", 1)[1]))
        out[name] = [maps[k] for k in heads] + [maps[name]]
    return out


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


def yours_label(own: nn.Module | None) -> str:
    """The model picker's name for the student's own model: how many heads it has."""
    heads = own.config.n_heads if own is not None else 0
    return f"yours, trained on this page ({heads} head{'s' * (heads > 1)})"


def read_text(model: nn.Module, task_name: str | Task, text: str) -> Reading | str:
    """:func:`read_sentence` by the task's name (what the page caches for the shipped model), or by the task itself
    (a student's own data)."""
    return read_sentence(model, get_task(task_name) if isinstance(task_name, str) else task_name, text)


def task_alignment(model: nn.Module, task_name: str) -> dict[str, list[float]]:
    """:func:`head_alignment` by the task's name (what the page caches for the shipped model)."""
    return head_alignment(model, get_task(task_name))


def enlarged_figure(reading: Reading, name: str, head: int | str) -> go.Figure:
    """One head of sublayer ``name`` (``"mean"``: the heads' mean map) drawn large."""
    weights = reading.maps[name].mean(0) if head == "mean" else reading.maps[name][head]
    x, y, x_title, y_title = axes(reading, name)
    return attention_heatmap(weights, x, y, x_title=x_title, y_title=y_title, value_name="α",
                             title=f"{sublayer_label(name)} · {head_label(head)}")  # fmt: skip


def head_label(head: int | str) -> str:
    return "mean of the heads" if head == "mean" else f"head {head + 1}"


# ------------------------------------------------------------------------------------------------------
# 3. 1, 2, 4, 8 heads with the same budget
# ------------------------------------------------------------------------------------------------------
RESULT_TASK = "toy-translation"
RESULT_HEADS: tuple[int, ...] = (1, 2, 4, 8)
RESULT_D_MODEL = 64
LEVELS: tuple[float, ...] = (0.9, 0.95)
REPORT_EVERY = 25
HEAD_COLORS = {1: "#1f77b4", 2: "#2ca02c", 4: "#ff7f0e", 8: "#d62728", 16: "#9467bd"}


def results_config(seed: int, steps: int, threads: int | None = 1, **overrides) -> TrainConfig:
    """The shipped comparison's recipe: the Transformer's measured one, a fixed step budget, no early stop."""
    return default_train_config(
        MODEL, seed=seed, max_steps=steps, max_seconds=None, target_exact_match=None, report_every=REPORT_EVERY,
        threads=threads, **overrides,
    )  # fmt: skip


def new_model(task: Task, heads: int, seed: int) -> nn.Module:
    """The TinyTransformer of this lesson (d_model 64) with ``heads`` heads, initial weights from ``seed``."""
    return build_model(MODEL, task, seed=seed, d_model=RESULT_D_MODEL, n_heads=heads)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


# The shipped comparison is a :class:`~lessons.common.comparison.Comparison`: one variant per head count
# ("h = 1" … "h = 8"), one run per seed, each run's final metrics named as the table's columns.
RESULT_SCRIPT = "scripts/multi_head_attention_results.py"
STEPS_TO = {level: f"steps to {level:.0%}" for level in LEVELS}  # level -> final metric
WORST, AVERAGED = "alignment, worst head", "alignment, heads averaged"
TABLE = {  # final metric -> its format in the table (every cell: mean ± sd over the seeds, and n)
    **{name: ".0f" for name in STEPS_TO.values()}, "CPU s": ".1f", "wall s": ".1f", "held-out exact": ".1%",
    "test exact": ".1%", AVERAGED: ".1%", "alignment, best head": ".1%", WORST: ".1%",
}  # fmt: skip


def variant(heads: int) -> str:
    """The comparison's name (and label) of ``heads`` heads: ``"h = 4"``."""
    return f"h = {heads}"


def head_run(heads: int, seed: int, *, steps: int, seconds: float, cpu_seconds: float, exact_match: float,
             test_exact_match: float, head_alignment: Sequence[float], alignment: float, parameters: int,
             curve: Sequence[Mapping], probe: Mapping | None = None) -> Run:  # fmt: skip
    """One run of the comparison, from what one training measured (the script's and the shipped file's figures)."""
    final = {
        **{name: first_reached(curve, "exact_match", level) for level, name in STEPS_TO.items()},
        "CPU s": cpu_seconds, "wall s": seconds, "held-out exact": exact_match, "test exact": test_exact_match,
        AVERAGED: alignment, "alignment, best head": max(head_alignment), WORST: min(head_alignment),
        "steps": steps, "parameters": parameters,
    }  # fmt: skip
    extra = {"head_alignment": list(head_alignment), **({"probe": dict(probe)} if probe else {})}
    return Run(variant(heads), seed, {"heads": heads, "d_k": RESULT_D_MODEL // heads}, tuple(curve), final, extra)


def measure_heads(task: Task, heads: int, seed: int, steps: int, threads: int = 1) -> Run:
    """Train one model of the comparison and check it (test split, alignment): its run, probe maps in ``extra``."""
    model = new_model(task, heads, seed)
    cpu = time.process_time()
    result = train_model(model, task, results_config(seed, steps, threads))
    cpu = time.process_time() - cpu
    with torch.inference_mode():
        test = evaluate(model, task.encoded("test"))
    alignment = head_alignment(model, task)
    last = sublayers(list(alignment))[-1]
    final = result.history[-1]
    probe = {
        "seed": seed,
        "step": final.step,
        "source": list(final.source_tokens),
        "target": list(final.target_tokens),
        "prediction": final.prediction,
        "maps": {name: np.round(m, 4).tolist() for name, m in final.attention_maps.items() if name.endswith("cross")},
    }
    return head_run(
        heads, seed, steps=result.steps, seconds=round(result.seconds, 3), cpu_seconds=round(cpu, 3),
        exact_match=result.exact_match, test_exact_match=test, alignment=round(alignment[last][-1], 4),
        head_alignment=[round(v, 4) for v in alignment[last][:-1]], parameters=parameter_count(model),
        curve=curve_of(result.history), probe=probe,
    )  # fmt: skip


def load_results(path: Path | str | None = None) -> Comparison:
    """Read the shipped comparison; ``ValueError``/``FileNotFoundError`` name the script that makes it."""
    return Comparison.load(path or RESULTS, script=RESULT_SCRIPT)


def results_rows(c: Comparison) -> list[dict]:
    """One row per head count: d_k, parameters and steps, then every measure as mean ± sd over the seeds."""
    rows = []
    for row, name in zip(c.table(TABLE, variant_header="heads h"), c.variants, strict=True):
        first = c.runs_of(name)[0]
        size = {
            "d_k": first.params["d_k"],
            "parameters": int(first.final["parameters"]),
            "steps": int(first.final["steps"]),
        }
        rows.append({"heads h": row.pop("heads h"), **size, **row})
    return rows


SHARED_NOTE = (  # after the comparison's provenance
    "The machine was shared, so wall seconds are inflated by waiting for the cores; CPU seconds count this "
    "process's own compute, and steps do not depend on the machine."
)
RESULTS_CAPTION = (  # under results_rows' table
    f"Mean ± sd over the seeds (n: how many). “Steps to 90%”: the first check (every "
    f"{REPORT_EVERY} steps, 200 held-out sentences) at or above it. Test exact: the 500 test "
    "sentences at the end. Alignment: how often the last decoder layer's cross-attention puts its largest weight "
    "on a source token the output token comes from (test split), for the heads' average map and for the best "
    "and worst single head."
)


def curves(c: Comparison, height: int = 260) -> tuple[dict, dict]:
    """Training loss and held-out exact match against steps: mean over seeds, ± sd band, each seed faint."""
    colors = {variant(h): color for h, color in HEAD_COLORS.items()}
    loss = curves_chart(c.curve_points("loss"), y_title="training loss", x_title="training step", title="Loss",
                        height=height, log_y=True, colors=colors)  # fmt: skip
    accuracy = curves_chart(c.curve_points("exact_match"), y_title="held-out exact match", x_title="training step",
                            title="Exact match", height=height, percent=True, colors=colors)  # fmt: skip
    return loss, accuracy


def _means(c: Comparison, metric: str) -> dict[str, float]:
    """Variant -> mean of ``metric``, for the variants where every seed has a value."""
    return {v: s.mean for v, s in c.spreads(metric).items() if not s.missing}


def _gap(verdict, fmt: str) -> str:
    return "a gap larger than the spread over seeds" if verdict.clear else f"too close to call, {verdict.why(fmt)}"


def observations(c: Comparison) -> list[str]:
    """What the shipped table says, in sentences computed from it (each comparison by ``Comparison.compare``)."""
    lines = []
    metric = STEPS_TO[LEVELS[0]]
    done = _means(c, metric)
    if done:
        fast, slow = min(done, key=done.get), max(done, key=done.get)
        text = (
            f"Fewest steps to {LEVELS[0]:.0%}: **{c.label(fast)}**, {c.spread(metric, fast).text('.0f')}; most: "
            f"{c.label(slow)}, {c.spread(metric, slow).text('.0f')}"
        )
        lines.append(
            text + (f": {_gap(c.compare(fast, slow, metric, higher_is_better=False), '.0f')}." if fast != slow else ".")
        )
    test = _means(c, "test exact")
    best, worst = max(test, key=test.get), min(test, key=test.get)
    verdict = c.compare(best, worst, "test exact")
    text = (
        f"At the end of the budget, test exact match runs from {test[worst]:.1%} ({c.label(worst)}) to "
        f"{test[best]:.1%} ({c.label(best)})"
    )
    if verdict.clear:
        lines.append(f"{text}: {c.label(best)} is ahead by more than the spread over seeds.")
    else:
        lines.append(f"{text}: {_gap(verdict, '.1%')}. On this toy task the number of heads hardly matters.")
    lowest, averaged = _means(c, WORST), _means(c, AVERAGED)
    text = (
        "Following the gold alignment, the worst single head of the last cross-attention layer: "
        + ", ".join(f"{c.label(v)}: {m:.0%}" for v, m in lowest.items())
        + "; the heads' average map: "
        + ", ".join(f"{m:.0%}" for m in averaged.values())
        + "."
    )
    few, many = c.variants[0], c.variants[-1]
    drift = c.compare(few, many, WORST)
    if drift.outcome == "better":
        best_head = c.spread("alignment, best head", many).mean
        text += (
            " With more heads, some heads drift away from the alignment"
            + (
                " while their average still follows it"
                if averaged.get(many, 0.0) >= best_head
                else " and so does their average"
            )
            + ": those heads are free to do something else (what, this table cannot say)."
        )
    else:
        text += f" With more heads, the worst single head does not clearly drift further from it: {_gap(drift, '.0%')}."
    lines.append(text)
    per_step = {
        v: float(np.mean([r.value("CPU s") / max(r.value("steps"), 1) for r in c.runs_of(v)])) for v in c.variants
    }
    lines.append(
        "CPU time per step, checks included: "
        + ", ".join(f"{c.label(v)}: {1000 * s:.0f} ms" for v, s in per_step.items())
        + ". The arithmetic is the same for every h; more heads mean more, smaller matrix products."
    )
    params = {v: int(c.runs_of(v)[0].value("parameters")) for v in c.variants}
    if len(set(params.values())) == 1:
        lines.append(
            f"Every model has exactly {params[c.variants[0]]:,} parameters: splitting d_model into heads is free."
        )
    else:
        counts = ", ".join(f"{c.label(v)}: {n:,}" for v, n in params.items())
        lines.append(f"The models' parameter counts differ: {counts}.")
    return lines


def comparison_text(c: Comparison | None) -> str:
    """Section 3's text: the head counts and their d_k from the lesson's settings, the budget and the parameter
    counts from the loaded results (none stated when they are missing)."""
    heads = (
        RESULT_HEADS if c is None else tuple(sorted(r.params["heads"] for r in (c.runs_of(v)[0] for v in c.variants)))
    )
    d_k = ", ".join(str(RESULT_D_MODEL // h) for h in heads)
    text = (
        f"The same Transformer (d_model = {RESULT_D_MODEL}) with {either(heads)} heads, so d_k = {d_k}: same seeds, "
        "same batches, same number of steps, trained on English → French-like sentences."
    )
    if c is not None:
        counts = {int(r.value("parameters")) for r in c.runs}
        text += (
            f" Every one has {counts.pop():,} parameters: as section 1 counted, the heads cost nothing."
            if len(counts) == 1
            else " Their parameter counts differ: the table lists them."
        )
    return text + " Predict first, then open the measured results."


def either(values: Sequence) -> str:
    """``(1, 2, 4, 8)`` -> "1, 2, 4 or 8"."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


COMPARISON_TITLE = f"3 · {either(RESULT_HEADS)} heads for the same budget"
INTRO = (
    "One attention layer gives every word **one** distribution over the others. But a word may need several "
    "things at once: the word before it, the subject of its verb, the source word it translates. Multi-head "
    "attention runs h attentions side by side, each in its own smaller space: d_model is cut into h heads of "
    "d_k = d_model / h numbers, each head has its own Wᵢ^Q, Wᵢ^K, Wᵢ^V and its own attention map, and the h "
    "results are concatenated and mixed by one more matrix, W^O. In the lecture's words, it “expands the model's "
    "ability to focus on different positions” and gives the layer multiple “representation subspaces”."
)
EQUATIONS = (  # short lines, centred, so a phone's narrow column holds them
    r"\begin{gathered}\mathrm{MultiHead}(Q,K,V) = \\ \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O \\"
    r"\mathrm{head}_i = \mathrm{Attention}(QW_i^Q,\, KW_i^K,\, VW_i^V) \\"
    r"d_k = d_\text{model} / h\end{gathered}"
)
SPLIT_TEXT = (
    "The lecture's recipe on *Thinking Machines*: (1) the sentence, (2) embed each word, (3) split into 8 heads, "
    "multiplying X by each head's weight matrices, (4) attention in each head with its own Q/K/V, (5) concatenate "
    "the Z matrices and multiply by W^O. Here it runs on your words, head by head, with untrained weights drawn "
    "by `torch.nn.MultiheadAttention` (seeded): the maps show the mechanism, not what a trained model learns "
    "(that comes in section 2). Change d_model and h and watch the shapes; under the figures, the learned numbers "
    "of the layer are counted on the module for your d_model and every h."
)
EVERY_HEAD_TEXT = (
    "A shipped Transformer reads your sentence (its shape is under the task picker, read from the model). Every "
    "map it computed is below: one row per attention sublayer, one column per head. Pick one to enlarge it."
)


def probe(c: Comparison, name: str) -> Mapping:
    """The probe kept with ``name``'s first run that has one: ``{"seed", "step", "source", "target", "maps"}``."""
    found = next((r.extra["probe"] for r in c.runs_of(name) if "probe" in r.extra), None)
    if found is None:
        raise KeyError(f"no run of {name} kept its probe maps")
    return found


def probe_variants(c: Comparison) -> list[str]:
    """The head counts whose probe maps were kept."""
    return [v for v in c.variants if any("probe" in r.extra for r in c.runs_of(v))]


def probe_rows(c: Comparison, name: str) -> list[GridRow]:
    """The shipped model's cross-attention heads on the task's probe sentence, one grid row per layer."""
    kept = probe(c, name)
    return [
        GridRow(sublayer_label(layer), np.asarray(m, dtype=float), kept["source"], kept["target"])
        for layer, m in sorted(kept["maps"].items())
    ]


def probe_grid(c: Comparison, name: str) -> go.Figure:
    """:func:`probe_rows` drawn as a grid, titled with the head count and the seed of the run that kept them."""
    return head_grid(probe_rows(c, name), title=f"{name}, seed {probe(c, name)['seed']}")


# ------------------------------------------------------------------------------------------- live training
LIVE_TASK = RESULT_TASK
LIVE_TARGET = 0.98
LIVE_BUDGET = 60.0  # seconds at most of one student's training


def live_text() -> str:
    """Above the train-it-yourself panel: what the student trains and what to predict before pressing Train."""
    return (
        "Train a fresh model with the number of heads you choose, for you alone (at most "
        f"{LIVE_BUDGET:g} s, or until {LIVE_TARGET:.0%} of held-out sentences come out right). Before you press "
        "Train, predict: will every head's cross-attention on the fixed example end up on the word being "
        "translated, or only some of them? Then watch it; afterwards, your model can read your sentence in section 2."
    )


def live_config(seed: int, budget_seconds: float) -> TrainConfig:
    return default_train_config(
        MODEL, seed=seed, max_seconds=budget_seconds, max_steps=None, report_every=REPORT_EVERY,
        target_exact_match=LIVE_TARGET, threads=THREADS_PER_RUN,
    )  # fmt: skip


def new_training(heads: int, seed: int, budget_seconds: float) -> tuple[nn.Module, Callable]:
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``."""
    task = get_task(LIVE_TASK)
    model = new_model(task, heads, seed)
    config = live_config(seed, budget_seconds)
    return model, lambda on_progress: train_model(model, task, config, on_progress)


def new_run(heads: int, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s model and trainer, named for its head count."""
    fresh, train_fn = new_training(heads, seed, budget_seconds)
    return TrainingRun(train_fn, model=fresh, name=f"multihead-h{heads}")


def snapshot_rows(snapshot: Progress) -> list[GridRow]:
    """A training report's probe maps: every cross-attention layer, head by head."""
    return [
        GridRow(sublayer_label(name), m, snapshot.source_tokens, snapshot.target_tokens)
        for name, m in sorted(snapshot.attention_maps.items())
        if name.endswith("cross")
    ]


def snapshot_grid(snapshot: Progress) -> go.Figure:
    """:func:`snapshot_rows` drawn as a grid, titled with the training step it was reported at."""
    title = f"cross-attention heads on a fixed example after {snapshot.step} steps"
    return head_grid(snapshot_rows(snapshot), title=title)


# ------------------------------------------------------------------------------------------------------
# 4. Which head resolves "it"? (the lecture's "The animal didn't cross the street because it was too tired")
# ------------------------------------------------------------------------------------------------------
IT_RESULTS = ROOT / "assets" / "results" / "multi_head_attention_it.json"
IT_SCRIPT = "scripts/multi_head_attention_coreference.py"
IT_CHECKPOINT = ROOT / "assets" / "multi_head_attention" / "it-resolver"
IT_LAYERS: tuple[int, ...] = (1, 2)  # the compared depths; the shipped model is the deepest
IT_HEADS, IT_STEPS = 4, 800
IT_DEFAULT = "the animal didn't cross the street because it was too tired"
IT_TITLE = "4 · Which head resolves “it”?"
IT_TEXT = (
    "The lecture asks of *The animal didn't cross the street because **it** was too tired*: animal? street? End "
    "it with *…too wide* and “it” is the street. A model that translates into French must decide: *il* (l'animal) "
    "or *elle* (la rue). The model here learned exactly that on a small grammar (10 creatures, 10 places, 12 "
    "adjectives, 5 word orders; every noun has its French gender): it reads the sentence with "
    f"{IT_HEADS}-head self-attention layers (embeddings and sinusoidal positions, nothing else), and a last "
    "linear layer reads the vector at “it” and says il or elle. Type a sentence of its words and see each head's "
    "weights from “it”. In layer 1 the query of “it” is made from “it” and its position only, so it cannot know "
    "the adjective yet; layer 2's query is what layer 1 wrote at “it”, and its keys and values are the words again."
)
IT_MAX_CHARS = 300
ACCURACY = "il/elle right, nouns of two genders"
PREFER_GAP = 0.05  # a best head's rate must beat layer 1's by more than this (and the spread) to count as linking
PREFERS, LARGEST, FLIPS = "prefers the referent", "largest weight on the referent", "flips with the ending"
IT_TABLE = {"test " + ACCURACY: ".1%", **{f"layer {n}, best head: {m}": ".0%" for n in IT_LAYERS
            for m in (PREFERS, FLIPS)}, "CPU s": ".1f"}  # fmt: skip


def it_variant(layers: int) -> str:
    """The comparison's name of a model with ``layers`` layers: ``"2 layers"``."""
    return f"{layers} layer{'s' * (layers != 1)}"


@dataclass(frozen=True)
class ParsedIt:
    """The student's sentence as the grammar's words, or the reason it cannot be read (``error``)."""

    tokens: tuple[str, ...] = ()
    error: str | None = None


def _shown(word: str) -> str:
    """A word the student typed, quoted for a message: no backticks, control characters or length to break it."""
    cleaned = "".join(ch if ch.isprintable() and ch != "`" else "�" for ch in word)
    return f"`{cleaned[:20]}{'…' * (len(cleaned) > 20)}`"


def parse_it(text: str) -> ParsedIt:
    """Lower-cased words of the grammar's vocabulary, one "it", at most ``max_len`` of them; a message otherwise."""
    if not isinstance(text, str) or not text.strip():
        return ParsedIt(error="Type a sentence, e.g. “" + IT_DEFAULT + "”.")
    if len(text) > IT_MAX_CHARS:
        return ParsedIt(error=f"That is {len(text):,} characters; this model reads at most {IT_MAX_CHARS}.")
    words = text.lower().replace("’", "'").replace(".", " ").replace(",", " ").split()
    if len(words) > ItConfig().max_len:
        return ParsedIt(error=f"That is {len(words)} words; the model was built for at most {ItConfig().max_len}.")
    unknown = list(dict.fromkeys(w for w in words if w not in coreference.INDEX or w == coreference.PAD))
    if unknown:
        shown = ", ".join(_shown(w) for w in unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        return ParsedIt(error=f"The model knows only its grammar's words, not {shown}. {IT_WORDS_NOTE}")
    if words.count(coreference.IT) != 1:
        return ParsedIt(error=f"The sentence needs exactly one “it” (it has {words.count(coreference.IT)}).")
    return ParsedIt(tuple(words))


IT_WORDS_NOTE = (
    "Creatures: " + ", ".join(coreference.CREATURES) + ". Places: " + ", ".join(coreference.PLACES) + ". Their "
    "adjectives: " + ", ".join(coreference.CREATURE_ADJECTIVES) + " / " + ", ".join(coreference.PLACE_ADJECTIVES)
    + ". Other words: " + ", ".join(coreference.FUNCTION_WORDS) + "."
)  # fmt: skip


def referent_of(tokens: Sequence[str]) -> tuple[int, int] | None:
    """``(referent, other)`` positions by the grammar's rule (one creature, one place, one adjective after "it":
    the noun of the adjective's kind), or None when the rule names none."""
    creatures = [i for i, w in enumerate(tokens) if w in coreference.CREATURES]
    places = [i for i, w in enumerate(tokens) if w in coreference.PLACES]
    it = tokens.index(coreference.IT)
    adjectives = [w for w in tokens[it:] if w in coreference.SWAPS]
    if len(creatures) != 1 or len(places) != 1 or len(adjectives) != 1:
        return None
    c, p = creatures[0], places[0]
    return (c, p) if adjectives[0] in coreference.CREATURE_ADJECTIVES else (p, c)


@dataclass(frozen=True)
class ItReading:
    """One sentence through the resolver: every head's weights from "it", and its answer."""

    tokens: tuple[str, ...]
    it: int
    weights: dict[str, np.ndarray]  # "layer 1" -> (h, T) each head's weights from "it"
    p_elle: float  # the model's probability that "it" is "elle"
    referent: tuple[int, int] | None  # (referent, other) by the grammar's rule

    @property
    def answer(self) -> str:
        return coreference.PRONOUNS[int(self.p_elle > 0.5)]


@torch.inference_mode()
def read_it(model: ItResolver, tokens: Sequence[str]) -> ItReading:
    """The resolver on one parsed sentence (:func:`parse_it`)."""
    ids = torch.tensor([[coreference.INDEX[w] for w in tokens]])  # (1, T)
    it = tokens.index(coreference.IT)
    out = model(ids, torch.tensor([len(tokens)]), torch.tensor([it]))
    weights = {name: w[0, :, it].numpy() for name, w in out.attention.items()}  # (h, T) each
    p = float(torch.softmax(out.logits[0], -1)[1])
    return ItReading(tuple(tokens), it, weights, p, referent_of(tuple(tokens)))


def it_answer(reading: ItReading) -> str:
    """What the model says, and whether the grammar agrees, in one markdown line."""
    p = max(reading.p_elle, 1 - reading.p_elle)
    text = f"The model translates “it” as **{reading.answer}** (probability {p:.0%})."
    if reading.referent is None:
        return text + " This sentence has no referent by the grammar's rule (one creature, one place, one adjective)."
    noun = reading.tokens[reading.referent[0]]
    right = coreference.PRONOUNS[int(coreference.GENDERS[noun] == "f")]
    verdict = "right" if right == reading.answer else "wrong"
    return text + f" By the grammar, “it” is the **{noun}** ({right}): the model is {verdict}."


def it_figure(reading: ItReading) -> go.Figure:
    """Every head's weights from "it" (one row per layer and head, one column per word), the referent's column
    outlined."""
    rows = [
        (f"layer {name.split()[-1]} · head {j + 1}", w)
        for name, ws in reading.weights.items()
        for j, w in enumerate(ws)
    ]
    labels = [f"{t} ({i})" if reading.tokens.count(t) > 1 else t for i, t in enumerate(reading.tokens)]
    fig = attention_heatmap(np.stack([w for _, w in rows]), labels, [r for r, _ in rows], value_name="α from “it”",
                            x_title="word (attended to by “it”)", y_title="", height=120 + 30 * len(rows))  # fmt: skip
    if reading.referent is not None:
        r = reading.referent[0]
        fig.add_shape(
            type="rect", x0=r - 0.5, x1=r + 0.5, y0=-0.5, y1=len(rows) - 0.5, line={"color": "#d62728", "width": 3}
        )
    return fig


IT_FIGURE_CAPTION = (
    "Each row: one head's weights from “it” over your sentence (they sum to 1); red outline: the noun “it” means "
    "by the grammar. Layer 1's queries are made from “it” and its position alone; layer 2's from what layer 1 "
    "wrote at “it”, its keys and values from the words."
)


def load_it_model(path: Path | str | None = None) -> tuple[ItResolver, dict]:
    """The shipped resolver and its record; ``OSError``/``ValueError`` name the script that makes it."""
    try:
        return load_resolver(path or IT_CHECKPOINT)
    except (OSError, KeyError) as error:
        raise OSError(f"{error}. Make it with `python {IT_SCRIPT}`.") from error


def head_measures(model: ItResolver, sentences: Sequence[coreference.ItSentence]) -> dict[str, dict[str, list[float]]]:
    """Per layer, per head, over ``sentences`` and each one's twin with the other ending (tired <-> wide):
    how often the head gives the referent more weight from "it" than the other noun (``PREFERS``), how often its
    largest weight from "it" falls on the referent (``LARGEST``), and how often it prefers the referent in both
    twins, i.e. moves from one noun to the other when the ending changes (``FLIPS``). Also ``"ratio change"``: the
    largest change of log(α_noun1 / α_noun2) between twins (layer 1: 0 up to float rounding)."""
    twins = [coreference.swapped(s) for s in sentences]
    out = {}
    with torch.inference_mode():
        read = [_from_it(model, coreference.encode(batch)) for batch in (list(sentences), twins)]
    for name in read[0]:
        (w, ref, oth), (_, ref2, oth2) = read[0][name], read[1][name]  # (B, h, T), (B, h), (B, h)
        prefers, prefers2 = ref > oth, ref2 > oth2
        on_ref = w.argmax(-1) == torch.as_tensor([s.referent for s in sentences])[:, None]
        ratio = (torch.log(ref / oth) + torch.log(ref2 / oth2)).abs()  # ref/oth swap roles between the twins
        out[name] = {PREFERS: prefers.float().mean(0).tolist(), LARGEST: on_ref.float().mean(0).tolist(),
                     FLIPS: (prefers & prefers2).float().mean(0).tolist(),
                     "ratio change": ratio.max(0).values.tolist()}  # fmt: skip
    return out


def _from_it(model: ItResolver, batch: Mapping[str, torch.Tensor]) -> dict[str, tuple[torch.Tensor, ...]]:
    """Layer -> (weights from "it" (B, h, T), weight on the referent (B, h), weight on the other noun (B, h))."""
    out = model(batch["tokens"], batch["lengths"], batch["it"])
    rows = torch.arange(len(batch["it"]))
    found = {}
    for name, w in out.attention.items():
        from_it = w[rows, :, batch["it"]]  # (B, h, T)
        found[name] = (from_it, from_it[rows, :, batch["referent"]], from_it[rows, :, batch["other"]])  # (B, h) each
    return found


@functools.cache
def shipped_resolver() -> tuple[ItResolver, dict]:
    """:func:`load_it_model` once per process: every student reads the same model (eval mode; never train it)."""
    return load_it_model()


def shipped_reading_it(tokens: tuple[str, ...]) -> ItReading:
    """:func:`read_it` by the shipped resolver (what the page caches for every student)."""
    return read_it(shipped_resolver()[0], tokens)


@functools.cache
def shipped_head_rows() -> list[dict]:
    """The shipped resolver's heads measured on the test split (:func:`head_measures`), one row each; once per
    process (~50 ms), the same for every student."""
    return head_measure_rows(head_measures(shipped_resolver()[0], coreference.it_task().split("test")))


def it_shipped_note(info: Mapping) -> str:
    """The caption under the shipped model's per-head table: which run it is and how it was chosen."""
    run = info.get("info", {})
    return (
        f"Per head of the shipped {IT_HEADS}-head model (seed {run.get('seed', '?')}, {run.get('steps', '?')} steps; "
        f"{run.get('test_accuracy', 0):.1%} il/elle right on the test sentences whose nouns differ in gender), on "
        "the 600 test sentences and each one's twin with the other ending. Of the seeds measured below, it is the "
        "median by its best last-layer head: a typical model, not the luckiest. Head numbers are this model's own: "
        "another seed's head 1 is a different head."
    )


def head_measure_rows(measures: Mapping[str, Mapping[str, Sequence[float]]]) -> list[dict]:
    """One row per head of the shipped model: :func:`head_measures`' three rates."""
    return [
        {"layer · head": f"{name} · head {j + 1}", **{m: f"{values[m][j]:.0%}" for m in (PREFERS, LARGEST, FLIPS)}}
        for name, values in measures.items() for j in range(len(values[PREFERS]))
    ]  # fmt: skip


def measure_it(layers: int, seed: int, steps: int = IT_STEPS) -> tuple[Run, ItResolver]:
    """Train one resolver of the comparison (``layers`` layers of ``IT_HEADS`` heads) and measure it on the test
    split (noun pairs it never saw together): its run, and the model."""
    task = coreference.it_task()
    torch.manual_seed(seed)
    model = ItResolver(ItConfig(n_heads=IT_HEADS, n_layers=layers))
    trained = train_resolver(model, task, seed=seed, steps=steps)
    test = task.split("test")
    measures = head_measures(model, test)
    final = {"test " + ACCURACY: resolver_accuracy(model, coreference.encode(test)), "steps": steps,
             "CPU s": round(trained.cpu_seconds, 3), "wall s": round(trained.seconds, 3),
             "parameters": sum(p.numel() for p in model.parameters())}  # fmt: skip
    for name, values in measures.items():
        for m in (PREFERS, LARGEST, FLIPS):
            final[f"{name}, best head: {m}"] = round(max(values[m]), 4)
        final[f"{name}, ratio change"] = max(values["ratio change"])
    extra = {"heads": {n: {m: [round(x, 4) for x in v] for m, v in values.items()} for n, values in measures.items()}}
    run = Run(it_variant(layers), seed, params={"layers": layers, "heads": IT_HEADS}, curve=trained.curve,
              final=final, extra=extra)  # fmt: skip
    return run, model


def median_seed(c: Comparison, layers: int) -> int:
    """The seed whose deepest layer's best head prefers the referent the median amount: the model the page ships
    (a typical one, not the luckiest)."""
    runs = sorted(
        c.runs_of(it_variant(layers)), key=lambda r: (r.value(f"layer {layers}, best head: {PREFERS}"), r.seed)
    )
    return runs[(len(runs) - 1) // 2].seed


def load_it_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison of 1 and 2 layers; ``ValueError``/``FileNotFoundError`` name the script."""
    return Comparison.load(path or IT_RESULTS, script=IT_SCRIPT)


def it_rows(c: Comparison) -> list[dict]:
    """One row per depth, every measure as mean ± sd over the seeds ("no such layer" where the model has none)."""
    rows = []
    for v in c.variants:
        runs = c.runs_of(v)
        row = {"model": c.label(v), "n": len(runs)}
        for metric, fmt in IT_TABLE.items():
            has = all(r.final.get(metric) is not None for r in runs)
            row[metric] = c.spread(metric, v).text(fmt, with_n=False) if has else "no such layer"
        rows.append(row)
    return rows


IT_ROWS_CAPTION = (
    "Mean ± sd over the seeds (n), test split: 600 sentences whose two nouns never appeared together in training. "
    "il/elle is scored on those whose nouns differ in gender (elsewhere either noun gives the same word). Best "
    "head: the head of that layer with the highest rate; “prefers”: more weight from “it” on the referent than on "
    "the other noun; “flips”: prefers the referent with both endings (tired and wide), so it moved between nouns."
)


def it_curves(c: Comparison, height: int = 260) -> tuple[dict, dict]:
    """Training loss and held-out il/elle accuracy against the step, mean ± sd over seeds, each seed faint."""
    loss = curves_chart(c.curve_points("loss"), y_title="training loss", x_title="training step", title="Loss",
                        height=height, log_y=True)  # fmt: skip
    right = curves_chart(c.curve_points("accuracy"), y_title="held-out il/elle right", x_title="training step",
                         title="Held-out accuracy", height=height, percent=True)  # fmt: skip
    return loss, right


def it_observations(c: Comparison) -> list[str]:
    """The sentences of the comparison, each computed from it (a verdict or a count that can say the opposite)."""
    deep, shallow = it_variant(max(IT_LAYERS)), it_variant(min(IT_LAYERS))
    acc = "test " + ACCURACY
    v = c.compare(deep, shallow, acc)
    lines = [f"il/elle right on the test sentences: {v.sentence('.1%')}" if v.clear else
             f"il/elle right on the test sentences: {c.label(deep)} {v.a_spread.text('.1%')}, {c.label(shallow)} "
             f"{v.b_spread.text('.1%')}; {v.why('.1%')}: one layer resolves “it” about as well."]  # fmt: skip
    flips = [r.value(f"layer 1, best head: {FLIPS}") for r in c.runs]
    ratio = max(r.value("layer 1, ratio change") for r in c.runs)
    lines.append(
        f"Layer 1: in {sum(f == 0 for f in flips)} of {len(flips)} runs no head ever moved from one noun to the other "
        f"when the ending changed (largest change of a head's log(α_noun1 / α_noun2): {ratio:.1e}"
        + (", float rounding)." if ratio < 1e-4 else ").")
        + (" Its query is made from “it” alone, so it cannot." if all(f == 0 for f in flips) else "")
    )
    n = max(IT_LAYERS)
    best, first = c.spread(f"layer {n}, best head: {PREFERS}", deep), c.spread(f"layer 1, best head: {PREFERS}", deep)
    outcome, _ = verdict(best, first, min_gap=PREFER_GAP)
    gap = best.mean - first.mean
    said = {"better": "prefers the referent more often than", "worse": "prefers the referent less often than",
            "too close": "is too close to call against"}[outcome]  # fmt: skip
    lines.append(
        f"In the {n}-layer model, the best head of layer {n} {said} layer 1's best head: {best.text('.0%')} of the "
        f"test sentences against {first.text('.0%')}, a gap of {gap:.0%} (clear only when larger than the two sds "
        f"together and than {PREFER_GAP:.0%}); its seeds range from {best.min:.0%} to {best.max:.0%}, and "
        f"{sum(x >= 0.9 for x in best.present)} of {best.n} seeds have a head in layer {n} that prefers the referent "
        "in 90% or more."
    )
    return lines


IT_HAND_SENTENCE = coreference.sentence(2, "hen", "tunnel", "sleepy")  # not the page's default: worked by hand
SWITCH_CHOICES = ("some head of layer 1, none of layer 2", "some head of layer 2, none of layer 1",
                  "heads of both layers", "no head of either layer")  # fmt: skip


def _nouns(reading: ItReading, layer: str, head: int) -> tuple[float, float]:
    """``(α on the referent, α on the other noun)`` of one head of ``layer`` from "it"."""
    ref, other = reading.referent
    return float(reading.weights[layer][head, ref]), float(reading.weights[layer][head, other])


def it_switch_prediction(model: ItResolver) -> Exercise:
    """Predict, before switching the default sentence's ending to its partner (tired -> wide): which heads will move
    from preferring one noun to preferring the other? The answer is the model's, head by head."""
    before = read_it(model, tuple(IT_DEFAULT.split()))
    after = read_it(model, coreference.swapped(coreference.sentence(0, "animal", "street", before.tokens[-1])).tokens)
    noun, other = (before.tokens[i] for i in before.referent)
    moved, lines = {}, []
    for layer in before.weights:
        for j in range(model.config.n_heads):
            (a0, o0), (o1, a1) = _nouns(before, layer, j), _nouns(after, layer, j)  # after: the other noun is referent
            moved[layer, j] = a0 > o0 and o1 > a1
            lines.append(f"{layer} head {j + 1}: {noun} {a0:.3g} / {other} {o0:.3g} → {a1:.3g} / {o1:.3g}"
                         + (" (moved)" if moved[layer, j] else ""))  # fmt: skip
    first = any(v for (layer, _), v in moved.items() if layer == "layer 1")
    later = any(v for (layer, _), v in moved.items() if layer != "layer 1")
    answer = {(True, False): 0, (False, True): 1, (True, True): 2, (False, False): 3}[first, later]
    why = {
        1: "A layer-2 query is what layer 1 wrote at “it”, the adjective included, so a layer-2 head can look for "
        "the other noun; layer 1's cannot.",
        3: "Layer 1 cannot; layer 2 could (its query has read the adjective through layer 1), but on this sentence "
        "none of its heads does: the model resolves “it” without a head moving between the nouns here.",
    }.get(answer, "Layer 1 moved, which its equations forbid: check the model.")
    return Exercise(
        key="multi_head_attention.ex5",
        prompt=f"**Predict before you change the ending.** Section 4's first sentence ends “{before.tokens[-1]}”: “it” "
        f"is the {noun}. Change it to “{after.tokens[-1]}”, so that “it” means the {other}. Which heads will move from "
        f"giving “{noun}” more weight from “it” than “{other}” to giving “{other}” more?",
        choices=SWITCH_CHOICES,
        answer=answer,
        explanation="Run by the shipped model, α from “it” on the two nouns before → after the change: "
        + "; ".join(lines)
        + f". Every layer-1 head keeps its ratio α({noun}) / α({other}): its query is made from “it” and its position "
        "alone, and neither noun's key changes. " + why,
        hint="Where does each layer's query come from, and what has it read by then?",
    )


def shipped_switch_prediction() -> Exercise:
    """:func:`it_switch_prediction` on the shipped resolver (what the page caches)."""
    return it_switch_prediction(shipped_resolver()[0])


def it_by_hand(model: ItResolver) -> Exercise:
    """Compute by hand: a layer-1 head's weight on one noun after the ending changes, from the ratio that cannot
    change. Numbers from the shipped model on a sentence the page does not show; the answer from them."""
    s, t = IT_HAND_SENTENCE, coreference.swapped(IT_HAND_SENTENCE)
    before, after = read_it(model, s.tokens), read_it(model, t.tokens)
    c, p = s.creature, s.place
    head = int(np.argmax(before.weights["layer 1"][:, [c, p]].min(-1)))  # the head that reads both nouns most
    a, b = (round(float(before.weights["layer 1"][head, i]), 4) for i in (c, p))
    a2, b2 = round(float(after.weights["layer 1"][head, c]), 4), float(after.weights["layer 1"][head, p])
    answer = round(b * a2 / a, 4)
    creature, place = s.tokens[c], s.tokens[p]
    return Exercise(
        key="multi_head_attention.ex6",
        prompt=f"“{' '.join(s.tokens)}”: in the shipped model, head {head + 1} of layer 1 gives “{creature}” "
        f"α = {a} and “{place}” α = {b} from “it”. End the sentence with “{t.tokens[-1]}” instead: its weight on "
        f"“{creature}” becomes {a2}. What is its weight on “{place}” now (3 decimals)?",
        answer=answer,
        tolerance=0.002,
        explanation=f"A layer-1 query is made from “it” and its position only, and the two nouns' keys do not "
        f"change, so α({place}) / α({creature}) = e^((q·k_{place} − q·k_{creature}) / √d_k) stays {b} / {a} = "
        f"{b / a:.4f}. Only the total they share changes (the adjective's key is new). So α({place}) = {a2} × "
        f"{b / a:.4f} = {answer:.4f}; the model computes {b2:.4f}.",
        hint="Which of the scores q·k changes when only the last word changes?",
    )


# ------------------------------------------------------------------------------------------- exercises
BIG_D_MODEL, BIG_HEADS = 1024, 16  # the paper's "big" model (Table 3): not on the page's sliders, so worked by hand
PREDICT_HEADS = (1, 8)  # the split prediction: from one head to this many, at the lecture's d_model


@functools.cache
def by_hand() -> tuple[Exercise, ...]:
    """The computations by hand (the check-yourself section): d_k and the layer's learned numbers of a model the
    page's sliders do not offer, so neither can be read off a figure. Answers counted on the modules, once per
    process (two modules of d_model = 1024 made on every page run were ~20% of its CPU)."""
    d, h = BIG_D_MODEL, BIG_HEADS
    d_k = MultiHeadAttention(d, h).d_k
    count = projection_parameters(d, h)
    return (
        Exercise(
            key="multi_head_attention.ex1",
            prompt=f"The paper's big model has d_model = {d} and h = {h} heads. What is d_k, the size of one head's "
            "queries, keys and values?",
            answer=d_k,
            explanation=f"The heads share d_model between them: d_k = d_model / h = {d} / {h} = {d_k}, the same d_k "
            "as the base model (512 / 8), so each head's softmax sees scores of the same size.",
            hint="The heads share d_model between them.",
        ),
        Exercise(
            key="multi_head_attention.ex2",
            prompt=f"How many learned numbers do W^Q, W^K, W^V and W^O hold together for d_model = {d}, h = {h}, "
            "each with its bias?",
            answer=count,
            explanation=f"The {h} heads' Wᵢ^Q side by side make one {d} × {d} matrix, so h does not enter. Each of "
            f"the four is {d} × {d} = {d * d:,} weights plus a bias of {d}: 4 · ({d * d:,} + {d}) = {count:,} "
            f"(counted on `MultiHeadAttention({d}, {h})`).",
            hint="The h heads' W_i^Q side by side make one d_model × d_model matrix.",
        ),
    )


def split_prediction() -> Exercise:
    """Predict, before moving section 1's sliders: what going from one head to several does to the count."""
    d, (one, many) = LECTURE_D_MODEL, PREDICT_HEADS
    counts = {h: projection_parameters(d, h) for h in PREDICT_HEADS}
    ratios = {1.0: 0, one * 1.0 / many: 1, many / one: 2, (one / many) ** 2: 3}
    choices = ("stay the same", f"shrink {many // one} times", f"grow {many // one} times",
               f"shrink {(many // one) ** 2} times")  # fmt: skip
    ratio = counts[many] / counts[one]
    answer = ratios.get(ratio)
    if answer is None:
        raise ValueError(f"{many} heads hold {ratio:g} times one head's numbers: none of the choices")
    d_k = d // many
    return Exercise(
        key="multi_head_attention.ex3",
        prompt=f"**Predict before you move the sliders.** At d_model = {d}, go from h = {one} to h = {many} heads. "
        "The learned numbers of W^Q, W^K, W^V and W^O together…",
        choices=choices,
        answer=answer,
        explanation=f"Counted on the modules: {counts[one]:,} with {one} head, {counts[many]:,} with {many}. Each head "
        f"i uses its own d_k = {d} / {many} = {d_k} columns of the same {d} × {d} W^Q (and W^K, W^V), so {many} heads "
        f"× {d_k} columns = {d} columns, exactly one head's. What h changes is how those columns are grouped into "
        "softmaxes, not how many there are. Check it in the table under the figures.",
        hint="Count the columns of W^Q: does it depend on h?",
    )


ALIGNMENT_CHOICES = ("more often than the one head of h = 1", "about as often (too close to call)",
                     "less often than the one head of h = 1")  # fmt: skip


def alignment_prediction(results: Comparison) -> Exercise:
    """Predict, before opening section 3's results: does the worst single head of the most-headed model follow the
    gold alignment more or less often than the one head of h = 1? The answer is the shipped comparison's verdict."""
    few, many = results.variants[0], results.variants[-1]
    verdict = results.compare(many, few, WORST)
    answer = {"better": 0, "too close": 1, "worse": 2}[verdict.outcome]
    heads = results.runs_of(many)[0].params["heads"]
    gap = "a gap larger than the spread over seeds" if verdict.clear else verdict.why(".0%")
    why = {
        "worse": f"The average of its heads still scores {results.spread(AVERAGED, many).text('.0%')}: with several "
        "heads the loss only needs *some* of them to find the source word, and the others are free to read "
        "something else.",
        "too close": "Here the heads did not visibly divide the work.",
        "better": "Here even its worst head aligns better than a lone head: the heads did not divide the work.",
    }[verdict.outcome]
    return Exercise(
        key="multi_head_attention.ex4",
        prompt=f"**Predict before you open the results.** Trained on the same budget, the model with {heads} heads: "
        "the *worst* single head of its last cross-attention layer puts its largest weight on the source word being "
        "translated…",
        choices=ALIGNMENT_CHOICES,
        answer=answer,
        explanation=f"Measured over the seeds, worst head: {results.label(many)} "
        f"{results.spread(WORST, many).text('.0%')}, against {results.label(few)} "
        f"{results.spread(WORST, few).text('.0%')}; {gap}. " + why,
        hint="With one head, that head must do all the aligning; with many, must every one of them?",
    )


@functools.cache
def shipped_it_by_hand() -> Exercise:
    """:func:`it_by_hand` of the shipped resolver, once per process (two forward passes it made on every page run).
    Raises what loading the resolver raises."""
    return it_by_hand(shipped_resolver()[0])


def tail_exercises() -> list[Exercise]:
    """The check-yourself section: :func:`by_hand`, and the "it" computation when the shipped resolver loads."""
    try:
        return [*by_hand(), shipped_it_by_hand()]
    except (OSError, ValueError):
        return [*by_hand()]


def exercises(results: Comparison | None = None, resolver: ItResolver | None = None) -> list[Exercise]:
    """Every exercise of the lesson: the computations by hand, the split prediction and, when the shipped results
    are loaded, the alignment prediction; with the shipped resolver, the "it" prediction and its hand computation.
    Every answer is computed by the modules, from the results or by the model."""
    found = [*by_hand(), split_prediction(), *([alignment_prediction(results)] if results is not None else [])]
    return found + ([it_switch_prediction(resolver), it_by_hand(resolver)] if resolver is not None else [])
