"""Section 5 of the masking lesson: next, the decoder that reads a source.

A trained translator (the course's shipped Transformer, or the student's own from the "Your own data" page)
translates the student's sentence one token at a time; its translation is then fed back all at once, as in
training, and its decoder's self-attention read: exactly 0 above the diagonal in every layer and head, and the same
rows as it computed while generating. Layer 1's same scores without the mask show what the mask removes.

Letters: L decoder layers, h heads per layer (lesson 9), T the decoder's input positions, S the source's, d_k the
size of a key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_heatmap
from lessons.masking.causal import future_weight
from lessons.queries_keys_values.trained_weights import model_parser as model_parser  # the Q/K/V lesson's parser
from lessons.queries_keys_values.trained_weights import trained_note
from minimodels.attention import causal_mask
from minimodels.decode import MAX_SECONDS, greedy
from minimodels.tokenizers import BOS_ID, EOS_ID

TITLE = "5 · Next: the decoder that reads a source"
NEXT_TEXT = (
    "A decoder that translates also reads the *source* sentence, not only its own output so far: in lesson 10 the "
    "decoder also reads the source through cross-attention, with the same causal mask on its own positions."
)
TRANSLATOR = ("toy-translation", "transformer")  # the course's shipped translator (lesson 10's Transformer)
TRANSLATOR_SENTENCE = "Jane visits Africa in September"
TRANSLATOR_TEXT = (
    "Here is one: a trained translator (the whole model is lesson 10), the course's or yours. It translates your "
    "sentence one token at a time; then its translation is fed back in **all at once**, as in training, and we "
    "read its decoder's self-attention over its own output. Rows: the position predicting the next token; "
    "columns: the positions it reads."
)


@dataclass(frozen=True)
class TranslatorView:
    """A translator's decoder self-attention on its own translation of one sentence."""

    translation: str  # what it wrote
    fed: list[str]  # T decoder inputs: <s>, then its own tokens but the last
    attention: np.ndarray  # (layers, h, T, T) fed the whole translation at once; the model applies its mask
    stepwise: np.ndarray  # (layers, h, T, T) the same rows as it generated, one token at a time (zero-padded)
    unmasked: np.ndarray  # (h, T, T) layer 1's same scores through a softmax without the mask
    causal: bool  # the model's own setting
    message: str | None = None  # the tokenizer's note (unknown characters), if any

    def future(self, layer: int) -> float:
        """Mean over rows and heads of layer ``layer``'s weight on later positions (0 for a causal decoder)."""
        return future_weight(self.attention[layer])

    @property
    def largest_future(self) -> float:
        """The largest weight on any later position, any row, head or layer."""
        T = self.attention.shape[-1]
        return float(np.abs(self.attention[..., ~causal_mask(T).numpy()]).max()) if T > 1 else 0.0

    @property
    def step_difference(self) -> float:
        """Largest difference between the rows computed all at once and those computed while generating."""
        return float(np.abs(self.attention - self.stepwise).max())


@torch.inference_mode()
def translator_view(model, task, text: str) -> TranslatorView | str:
    """Translate ``text`` greedily, then feed the translation back at once: the decoder's self-attention maps (every
    layer and head) with the model's own mask, the rows it computed while generating, and layer 1's scores without
    the mask. A message when there is nothing to read."""

    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    source = torch.tensor([[*encoded.ids, EOS_ID]])  # (1, S)
    lengths = torch.tensor([source.size(1)])  # (1,)
    decoded = greedy(model, source, lengths, 2 * task.max_target_len + 1, max_seconds=MAX_SECONDS)  # a page's bound
    tokens = decoded.tokens[0, : int(decoded.lengths[0])].tolist()  # its tokens, EOS last when it ended
    fed = torch.tensor([[BOS_ID, *tokens[:-1]]])  # (1, T)
    maps = model(source, lengths, fed).attention  # "decoder.{i}.self" (1, h, T, T)
    n = len(model.decoder_layers)
    attention = np.stack([maps[f"decoder.{i}.self"][0].double().numpy() for i in range(n)])  # (L, h, T, T)
    stepwise = np.stack([decoded.attention[f"decoder.{i}.self"][0].double().numpy() for i in range(n)])
    first = model.decoder_layers[0]
    y = model._embed(fed, model.target_embedding, model.target_position)  # (1, T, d)
    h = first.residual1.norm(y) if model.config.norm_first else y  # what layer 1's W^Q, W^K multiply
    sa = first.self_attention
    q, k = sa._split(sa.W_q(h)), sa._split(sa.W_k(h))  # (1, h, T, d_k) each
    unmasked = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(sa.d_k), dim=-1)[0]  # (h, T, T)
    target = task.target_tokenizer
    return TranslatorView(
        target.decode([t for t in tokens if t != EOS_ID]),
        ["<s>", *(target.id_to_piece(t) for t in tokens[:-1])],
        attention,
        stepwise,
        unmasked.double().numpy(),
        bool(model.config.causal),
        encoded.message,
    )


translator_note = trained_note  # the shipped translator's caption: the Q/K/V lesson's
TRANSLATOR_TITLES = ("causal_mask(T): 1 = allowed", "decoder layer {layer}: weights (mean)")


def translator_figures(view: TranslatorView, layer: int) -> dict[str, go.Figure]:
    """The causal mask and the chosen decoder layer's weights (the mean of its heads), on the fed tokens: two maps,
    side by side on a wide screen, one above the other on a phone."""
    T = len(view.fed)
    return {
        "mask": attention_heatmap(
            causal_mask(T).double(), view.fed, view.fed, title=TRANSLATOR_TITLES[0], value_name="allowed"
        ),
        "weights": attention_heatmap(
            view.attention[layer].mean(0), view.fed, view.fed, title=TRANSLATOR_TITLES[1].format(layer=layer + 1)
        ),
    }


def translator_caption(view: TranslatorView, layer: int) -> str:
    """Under the maps: what they show, from the numbers."""
    heads = view.attention.shape[1]
    if view.largest_future == 0:
        zero = (
            "Above the diagonal every weight is exactly 0, in every row of every layer and all "
            f"{heads} of each layer's parallel attentions (heads, lesson 9; the map shows their mean)."
        )
    else:
        zero = (
            f"This decoder puts weight on later positions (up to {view.largest_future:.3f}): it was trained "
            "without the causal mask."
        )
    same = (
        f"Fed all at once, its rows are the ones it computed while generating, when the later tokens did not exist "
        f"yet (largest difference {view.step_difference:.1e}): with the mask, training on whole sentences computes "
        "what generating will."
        if view.step_difference <= 1e-5
        else f"Fed all at once, its rows differ from those it computed while generating (by up to "
        f"{view.step_difference:.3f}): without the mask, training reads what generating cannot."
    )
    unmasked = (
        f"Without the mask, layer 1's same scores would put {future_weight(view.unmasked):.0%} of each row's weight "
        "(mean) on later positions."
    )
    return f"{zero} {unmasked} {same}" + (f" {view.message}" if view.message else "")
