"""Section 1: split into h heads, with real shapes.

The lecture's five steps on the student's words ("split into 8 heads", each head multiplies X by its own W_i^Q,
W_i^K, W_i^V, attends, and the Z_i are concatenated and multiplied by W^O), computed head by head
(:func:`heads_by_hand`) with untrained weights drawn by ``torch.nn.MultiheadAttention``, and checked on the page
against :class:`minimodels.attention.MultiHeadAttention` and PyTorch's module. Then the layer's learned numbers,
counted on the module for every h: the heads add none. The figures are drawn by
:mod:`lessons.multi_head_attention.split_heatmaps`.

Letters: S tokens, d = d_model, h heads, d_k = d / h.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from lessons.common.exercises import Exercise
from lessons.common.sentences import ParsedSentence, parse_sentence, word_embedding
from minimodels.attention import MultiHeadAttention, scaled_dot_product_attention

TITLE = "1 · Split into h heads, with real shapes"
TEXT = (
    "The lecture's recipe on *Thinking Machines*: (1) the sentence, (2) embed each word, (3) split into 8 heads, "
    "multiplying X by each head's weight matrices, (4) attention in each head with its own Q/K/V, (5) concatenate "
    "the Z matrices and multiply by W^O. Here it runs on your words, head by head, with untrained weights drawn "
    "by `torch.nn.MultiheadAttention` (seeded): the maps show the mechanism, not what a trained model learns "
    "(that comes in section 2). Change d_model and h and watch the shapes; under the figures, the learned numbers "
    "of the layer are counted on the module for your d_model and every h."
)
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


PREDICT_HEADS = (1, 8)  # the split prediction: from one head to this many, at the lecture's d_model


def split_prediction() -> Exercise:
    """Predict, before moving section 1's sliders: what going from one head to several does to the count."""
    d, (one, many) = LECTURE_D_MODEL, PREDICT_HEADS
    counts = {h: projection_parameters(d, h) for h in PREDICT_HEADS}
    ratios = {1.0: 0, one * 1.0 / many: 1, many / one: 2, (one / many) ** 2: 3}
    choices = (
        "stay the same",
        f"shrink {many // one} times",
        f"grow {many // one} times",
        f"shrink {(many // one) ** 2} times",
    )
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


def split_sentence(example: SplitExample, d_model: int) -> str:
    """Above the split's table: d_k from the widgets' d_model and h."""
    h, d_k = example.heads.n_heads, example.heads.d_k
    return (
        f"**d_k = d_model / h = {d_model} / {h} = {d_k}.** Each head sees {d_k} of the {d_model} numbers of every "
        "word's query, key and value."
    )


def shape_text(t: torch.Tensor) -> str:
    """A tensor's shape as the page writes it: ``"2 × 512"``."""
    return " × ".join(str(n) for n in t.shape)


def shape_rows(example: SplitExample) -> list[dict]:
    """The lecture's five steps with the shapes of the tensors this example really computed."""
    hb = example.heads
    h, S, d, d_k = hb.n_heads, hb.X.shape[0], hb.d_model, hb.d_k
    p = example.parameters
    return [
        {"step": "1 · embed each word", "computes": "X", "shape": shape_text(hb.X), "learned numbers": 0},
        {
            "step": f"2 · project, {h} head{'s' * (h > 1)}",
            "computes": "Qᵢ = X Wᵢ^Q,  Kᵢ = X Wᵢ^K,  Vᵢ = X Wᵢ^V",
            "shape": f"{h} × ({S} × {d_k}) each, Wᵢ {d} × {d_k}",
            "learned numbers": p["W^Q"] + p["W^K"] + p["W^V"],
        },
        {
            "step": "3 · attend in every head",
            "computes": "Aᵢ = softmax(Qᵢ Kᵢᵀ / √d_k)",
            "shape": f"{shape_text(hb.weights)}, √d_k = {math.sqrt(d_k):.3g}",
            "learned numbers": 0,
        },
        {"step": "", "computes": "Zᵢ = Aᵢ Vᵢ", "shape": shape_text(hb.Z), "learned numbers": 0},
        {
            "step": "4 · concatenate",
            "computes": "Concat(Z₁, …, Zₕ)",
            "shape": f"{shape_text(hb.concat)} (h · d_k = {h} · {d_k})",
            "learned numbers": 0,
        },
        {
            "step": "5 · mix with W^O",
            "computes": "Concat(…) W^O",
            "shape": f"{shape_text(hb.output)}, W^O {d} × {d}",
            "learned numbers": p["W^O"],
        },
    ]


def parity_metrics(example: SplitExample) -> list[tuple[str, str, str | None]]:
    """Under the split: ``(label, value, help)`` for the parameter count and each difference from a reference."""
    count = [("parameters of W^Q, W^K, W^V, W^O", f"{sum(example.parameters.values()):,}", None)]
    return count + [
        (f"vs {name}", f"{value:.1e}", f"Largest absolute difference from {name}")
        for name, value in example.differences.items()
    ]


PARITY_CAPTION = (  # under the parameter count and the differences of SplitExample
    "The hand-made computation (head by head, concatenate, W^O) against `minimodels.attention.MultiHeadAttention` "
    "(which reshapes instead of slicing) and PyTorch's own `nn.MultiheadAttention` with the same weights: equal "
    "up to float rounding."
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
    return [
        {"heads h": h, "d_k = d_model / h": d_model // h, "learned numbers in W^Q, W^K, W^V, W^O": n}
        for h, n in counts.items()
    ]


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


# The computations by hand of the check-yourself section (the page's tail).
BIG_D_MODEL, BIG_HEADS = 1024, 16  # the paper's "big" model (Table 3): not on the page's sliders, so worked by hand
# ex1's heads: with 16, d_k would be the paper's 64, which the page states; 32 heads give a d_k it never shows
DK_HEADS = 32


@functools.cache
def by_hand() -> tuple[Exercise, ...]:
    """The computations by hand (the check-yourself section): d_k and the layer's learned numbers of a model the
    page's sliders do not offer, so neither can be read off a figure. Answers counted on the modules, once per
    process: making two modules of d_model = 1024 on every page run would cost about a fifth of the run's CPU."""
    d, h = BIG_D_MODEL, DK_HEADS
    d_k = MultiHeadAttention(d, h).d_k
    count = projection_parameters(d, h)
    return (
        Exercise(
            key="multi_head_attention.ex1",
            prompt=f"A model has d_model = {d} and h = {h} heads (neither the page's sliders nor the paper's models). "
            "What is d_k, the size of one head's queries, keys and values?",
            answer=d_k,
            explanation=f"The heads share d_model between them: d_k = d_model / h = {d} / {h} = {d_k}. More heads "
            "at the same d_model means smaller heads, not more numbers.",
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
