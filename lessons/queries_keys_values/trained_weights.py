"""Section 6: the same product with a trained model's own W^Q, W^K, W^V.

The course's shipped Transformer translator (or the student's own, from the "Your own data" page): its encoder
layer's input X is recomputed as its forward computes it, one head's block of W^Q, W^K, W^V multiplies it, and
softmax(QKᵀ/√d_k) is computed by hand, then checked against the map the model's own layer returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lessons.common import charts, colorscales, grids
from lessons.common.sentences import ParsedSentence
from minimodels.attention import padding_mask
from minimodels.tokenizers import EOS_ID

TRAINED_MODEL = ("toy-translation", "transformer")  # the course's shipped translator (the Transformer lesson's)
TRAINED_SENTENCE = "Jane visits Africa in September"  # the lecture's sentence, in the toy language the model reads
TITLE = "6 · The same product with a trained model's W^Q, W^K, W^V"
TEXT = (
    "Section 5's W^Q, W^K, W^V were random. Here they are a **trained** translator's: its encoder's self-attention "
    "learned them while learning to translate, and we multiply by them ourselves. X is the layer's input, one row "
    "per token of your sentence (the model's own tokens: pieces of words, ▁ where a word starts; what else goes into "
    "X, the token's position and a normalisation, is lessons 8 and 10). The model cuts its W^Q, W^K, W^V into a few "
    "parallel attentions of d_k columns each, called heads (lesson 9); pick one. Then we check our "
    "softmax(QKᵀ/√d_k) against the map the model's own layer returns."
)
SPACE = "␣"  # a space piece as an axis label (a blank tick label would be invisible)


def parse_model_sentence(task, text: str) -> ParsedSentence:
    """The student's text for a trained model with ``task``'s tokenizer: refused (with the reason) when it is empty
    or longer than the model reads. Unknown characters are allowed: the model reads them as ``<unk>``."""
    tokens = tuple(text.split()) if isinstance(text, str) else ()
    if not tokens:
        return ParsedSentence((), "Type a sentence of at least one word.")
    if task.encode_source(" ".join(tokens)).truncated:
        return ParsedSentence(
            (),
            f"That is more than {task.max_source_len} tokens: the model reads at most "
            f"{task.max_source_len}, the longest sentence it was trained on.",
        )
    return ParsedSentence(tokens)


def model_parser(task):
    """``parse(text)`` for ``ui.sentence_input`` on a trained model's ``task``."""
    return lambda text: parse_model_sentence(task, text)


@dataclass(frozen=True)
class TrainedAttention:
    """One encoder self-attention of a trained Transformer on one sentence, recomputed from its own weights."""

    tokens: tuple[str, ...]  # S labels: the source pieces, </s> last
    layer: int  # 0-based encoder layer
    head: int  # 0-based head: columns head·d_k … (head+1)·d_k − 1 of W^Q, W^K, W^V
    n_heads: int
    X: torch.Tensor  # (S, d) what the layer's W^Q, W^K, W^V multiply
    Q: torch.Tensor  # (S, d_k)
    K: torch.Tensor  # (S, d_k)
    V: torch.Tensor  # (S, d_k)
    scores: torch.Tensor  # (S, S) Q Kᵀ / √d_k
    weights: torch.Tensor  # (S, S) softmax of each row: computed here
    model_weights: torch.Tensor  # (S, S) the same head's map, as the model's own layer returns it
    message: str | None = None  # the tokenizer's note (unknown characters), if any

    @property
    def d_k(self) -> int:
        return int(self.Q.shape[1])

    @property
    def difference(self) -> float:
        """Largest absolute difference between our weights and the model's own."""
        return float((self.weights - self.model_weights).abs().max())


def layer_input(model, source: torch.Tensor, layer: int) -> torch.Tensor:
    """``(S, d)``: what encoder layer ``layer``'s W^Q, W^K, W^V multiply for ``source (1, S)``: the embedded
    tokens run through the layers below it, then the layer's own normalisation (pre-LN), as its forward does."""
    lengths = torch.tensor([source.size(1)])  # (1,)
    allowed = padding_mask(lengths, source.size(1))[:, None, None, :]  # (1, 1, 1, S): one sentence, no padding
    x = model._embed(source, model.source_embedding, model.source_position)  # (1, S, d)
    for below in model.encoder_layers[:layer]:
        x, _ = below(x, allowed)  # (1, S, d)
    block = model.encoder_layers[layer]
    return (block.residual1.norm(x) if model.config.norm_first else x)[0]  # (S, d)


def project(X: torch.Tensor, linear: torch.nn.Linear, head: int, d_k: int) -> torch.Tensor:
    """``X (S, d)`` times one head's block of a projection: x W + b with W = ``linear.weight``ᵀ, its columns
    head·d_k … (head+1)·d_k − 1 (``nn.Linear`` stores W as (out, in)). Returns ``(S, d_k)``."""
    cols = slice(head * d_k, (head + 1) * d_k)
    bias = linear.bias[cols] if linear.bias is not None else 0.0
    return X @ linear.weight.T[:, cols] + bias  # (S, d) @ (d, d_k) -> (S, d_k)


@torch.inference_mode()
def trained_attention(model, task, text: str, layer: int = 0, head: int = 0) -> TrainedAttention | str:
    """softmax(QKᵀ/√d_k) of encoder layer ``layer``, head ``head`` of a trained Transformer on ``text``, computed
    from the layer's own W^Q, W^K, W^V, beside the map the model's layer returns; a message when there is nothing
    to read."""
    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    source = torch.tensor([[*encoded.ids, EOS_ID]])  # (1, S)
    mha = model.encoder_layers[layer].self_attention
    d_k = mha.d_k
    X = layer_input(model, source, layer)  # (S, d)
    Q, K, V = (project(X, linear, head, d_k) for linear in (mha.W_q, mha.W_k, mha.W_v))  # (S, d_k) each
    scores = Q @ K.T / math.sqrt(d_k)  # (S, S)
    weights = torch.softmax(scores, dim=-1)  # (S, S)
    own = model.encode(source, torch.tensor([source.size(1)])).attention[f"encoder.{layer}.self"][0, head]  # (S, S)
    pieces = [*encoded.pieces, task.source_tokenizer.id_to_piece(EOS_ID)]
    tokens = tuple(SPACE if p == " " else p for p in pieces)
    return TrainedAttention(tokens, layer, head, mha.n_heads, X, Q, K, V, scores, weights, own, encoded.message)


def trained_figure(view: TrainedAttention):
    """Our softmax(QKᵀ/√d_k) for the trained model's head, tokens on both axes."""
    return charts.attention_heatmap(view.weights, view.tokens, view.tokens, title="softmax(QKᵀ/√d_k), by hand")


def trained_matrices_figure(view: TrainedAttention):
    """Q, K and V of the head in one figure, one above the other (each as wide as a phone allows), one row per token,
    one colour scale centred on 0."""
    ys = [charts.safe_label(t, 12) for t in view.tokens]
    mats = {"Q = XW^Q": view.Q, "K = XW^K": view.K, "V = XW^V": view.V}
    bound = max(float(m.abs().max()) for m in mats.values()) or 1.0
    panel, gap = max(70, 18 * len(ys)), 62  # px: one matrix, and the room for its title and the x ticks above it
    plot = 3 * panel + 2 * gap
    layout = grids.subplot_grid(3, 1, titles=list(mats), vertical_spacing=gap / plot)
    data = []
    for r, (name, m) in enumerate(mats.items()):
        n = grids.panel_axis(r, 0, 1)
        data.append(
            {
                "type": "heatmap",
                "z": m.numpy(),
                "y": list(range(len(ys))),
                "coloraxis": "coloraxis",
                "name": name,
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
                "hovertemplate": f"{name}<br>dimension %{{x}}<br>value = %{{z:.3f}}<extra></extra>",
            }
        )
        layout[f"yaxis{n}"] |= {
            "tickmode": "array",
            "tickvals": list(range(len(ys))),
            "ticktext": ys,
            "autorange": "reversed",
            "tickfont": {"size": 10},
        }
        layout[f"xaxis{n}"] |= {"tickfont": {"size": 10}}
    layout |= {
        "coloraxis": {
            "colorscale": colorscales.DIVERGING_COLORSCALE,
            "cmin": -bound,
            "cmax": bound,
            "cmid": 0.0,
            "colorbar": {"thickness": 10},
        },
        "height": plot + 60,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 30},
    }
    return charts.figure(data, layout)


def trained_sentence(view: TrainedAttention) -> str:
    """What the check found, from the numbers: our map against the model's own (and the tokenizer's note)."""
    if view.difference == 0:
        verdict = f"exactly the same map: not one of its {view.weights.numel()} weights differs"
    elif view.difference <= 1e-5:
        verdict = f"the same map up to float rounding (largest difference {view.difference:.1e})"
    else:
        verdict = f"**different** maps (largest difference {view.difference:.3f})"
    note = f" {view.message}" if view.message else ""
    return (
        f"Q, K and V: {len(view.tokens)} rows (one per token) of d_k = {view.d_k} numbers, from the model's learned "
        f"W^Q, W^K, W^V. Our softmax(QKᵀ/√d_k) and the map the model's encoder layer {view.layer + 1} returns for "
        f"head {view.head + 1} (lesson 9) are {verdict}.{note}"
    )


def trained_note(info) -> str:
    """A caption for the shipped Transformer: what it is and how well it translates."""
    test = (info.get("training") or {}).get("test_exact_match")
    score = f", {test:.0%} exact match on its test sentences" if isinstance(test, float) else ""
    return (
        f"The course's shipped Transformer (lesson 10), trained to translate English into a French-like toy "
        f"language{score}."
    )
