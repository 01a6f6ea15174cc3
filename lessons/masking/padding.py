"""Section 1 of the masking lesson: the padding mask.

A batch is one tensor, so its sentences are padded with ``<pad>`` to the longest one's length S. Without a mask the
padding takes a share of every row's weight, and a sentence's result depends on its batch-mates; with the padding
mask ("padded element attention to −inf") each ``<pad>`` key gets exactly 0 and a sentence gives the same result
as alone. Q, K and V are the Q/K/V lesson's (:func:`lessons.queries_keys_values.self_attention`): the mechanism,
not a trained model.

Letters: B sentences in the batch, S positions after padding, L_b the words of sentence b, d_k the size of a key.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import torch

from lessons.common.charts import attention_heatmap
from lessons.common.exercises import Exercise
from lessons.common.sentences import MAX_TOKEN_CHARS
from lessons.masking.side_by_side import pair_figure
from lessons.queries_keys_values.matrix_form import self_attention
from minimodels.attention import masked_softmax, padding_mask, scaled_dot_product_attention

TITLE = "1 · The padding mask"
TEXT = (
    "A batch is one tensor, so its sentences are padded with `<pad>` to the longest one's length. The padding "
    "is a token like any other to the attention: it has an embedding, hence a key, and without a mask it takes "
    "a share of every row's weight. Worse, how much padding a sentence gets depends on *which other sentences "
    "share its batch*, so its result would too. Q, K and V below are the Q/K/V lesson's (a fixed random "
    "vector per word, seeded random W^Q, W^K, W^V): the mechanism, not a trained model."
)

PAD = "<pad>"
ROUNDING = 1e-5  # a difference up to this is float rounding (float32 attention: ≈1e-7)
MAX_SENTENCES = 6
MAX_WORDS = 12  # per sentence: the padded batch stays small enough to read on a projector
MAX_CHARS = 2000  # the whole text box
DEFAULT_SENTENCES = "I like pizza\nJane visits Africa in September\nHello"


@dataclass(frozen=True)
class ParsedBatch:
    sentences: tuple[tuple[str, ...], ...]  # words of each sentence
    error: str | None = None  # why the text was refused; the page then keeps the last good batch


def parse_batch(text: str) -> ParsedBatch:
    """One sentence per line, words split on whitespace; refuse what the lesson cannot show, with a message.

    Any characters are accepted as words (HTML, emoji, right-to-left script): charts escape them and the page
    never renders them as HTML.
    """
    if not isinstance(text, str) or not text.strip():
        return ParsedBatch((), "Type at least one sentence (one per line).")
    if len(text) > MAX_CHARS:
        return ParsedBatch((), f"That is {len(text)} characters; this lesson takes at most {MAX_CHARS}.")
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_SENTENCES:
        return ParsedBatch((), f"That is {len(lines)} sentences; this lesson takes at most {MAX_SENTENCES}.")
    for number, words in enumerate(lines, 1):
        if len(words) > MAX_WORDS:
            return ParsedBatch((), f"Sentence {number} has {len(words)} words; at most {MAX_WORDS} each.")
        if any(len(w) > MAX_TOKEN_CHARS for w in words):
            return ParsedBatch((), f"Words longer than {MAX_TOKEN_CHARS} characters are not accepted.")
    return ParsedBatch(tuple(tuple(words) for words in lines))


@dataclass(frozen=True)
class PaddingDemo:
    """A batch of sentences padded to one length S, attended with the padding mask off and on."""

    sentences: tuple[tuple[str, ...], ...]  # B sentences, unpadded
    tokens: tuple[tuple[str, ...], ...]  # B rows of S tokens, PAD after each sentence
    lengths: torch.Tensor  # (B,) words per sentence
    mask: torch.Tensor  # (B, S) bool: True at real tokens (the padding mask)
    weights_off: torch.Tensor  # (B, S, S) softmax(QKᵀ/√d_k), padding attended like any word
    weights_on: torch.Tensor  # (B, S, S) the same with the padding mask: exactly 0 on PAD columns
    outputs_off: torch.Tensor  # (B, S, d_k)
    outputs_on: torch.Tensor  # (B, S, d_k)
    alone: tuple[torch.Tensor, ...]  # B × (L_b, d_k): each sentence's output computed on its own, no padding

    def pad_weight(self, masked: bool) -> torch.Tensor:
        """``(B, S)``: the weight each query row gives to PAD keys in total."""
        weights = self.weights_on if masked else self.weights_off
        return (weights * ~self.mask[:, None, :]).sum(-1)  # (B, S, S) -> (B, S)

    def change_from_padding(self, masked: bool) -> list[float]:
        """Per sentence: the largest change padding makes to its real words' outputs, against the sentence
        attended alone. With the mask this is float rounding (≈1e-7); without it, padding changes the result."""
        outputs = self.outputs_on if masked else self.outputs_off
        return [float((outputs[b, : len(alone)] - alone).abs().max()) for b, alone in enumerate(self.alone)]

    def leak(self, b: int, masked: bool) -> float:
        """Sentence ``b``: the weight its words' rows give to ``<pad>``, on average (0 with the mask)."""
        return float(self.pad_weight(masked)[b][self.mask[b]].mean())

    def labels(self) -> list[str]:
        """How the page names each sentence: "2: Jane visits Africa…"."""
        return [f"{b + 1}: {' '.join(s)}" for b, s in enumerate(self.sentences)]

    def table(self) -> dict[str, list[str]]:
        """The padded batch as a table: one row per sentence, one column per position."""
        S = len(self.tokens[0])
        rows = [f"sentence {b + 1}" for b in range(len(self.tokens))]
        return {"": rows, **{f"position {j + 1}": [row[j] for row in self.tokens] for j in range(S)}}

    def note(self, b: int) -> str:
        """What the page says under sentence ``b``'s two maps."""
        pads = len(self.tokens[b]) - int(self.lengths[b])  # every sentence is padded to the batch's length S
        if not pads:
            return (
                "This sentence is the longest, so it has no padding and both maps are the same. Pick a shorter one, "
                "or add a longer sentence to the batch and watch this one get padded."
            )
        on, off = self.change_from_padding(True)[b], self.change_from_padding(False)[b]
        zero = bool((self.pad_weight(True)[b][self.mask[b]] == 0).all())
        masked = (
            f"each `<pad>` column is {'exactly 0' if zero else 'not 0'} and the words' outputs differ from the "
            f"sentence attended alone by at most {on:.0e}".replace("0e+00", "0")
            + (" (float rounding)" if on <= ROUNDING else "")
        )
        unmasked = (
            f"they differ by up to {off:.2g}: the result depends on the batch"
            if off > ROUNDING
            else f"they differ by at most {off:.0e}: here the padding happens to change nothing"
        )
        return (
            f"This sentence carries **{pads}** `<pad>`. With the mask, {masked}. Without it, {unmasked}. The `<pad>` "
            "*rows* are computed either way and thrown away (the training loss ignores them)."
        )


def padding_attention(
    sentences: tuple[tuple[str, ...], ...], d_model: int = 16, d_k: int = 8, seed: int = 0
) -> PaddingDemo:
    """Self-attention over a padded batch, without and with the padding mask.

    Q, K and V come from :func:`lessons.queries_keys_values.self_attention` (seeded random W, a fixed random vector
    per word, ``<pad>`` included, as a real embedding table has a row for it), so a sentence alone gets exactly the
    Q/K/V lesson's numbers. The mask hides PAD *keys* (columns): PAD query rows are still computed, and a model
    throws them away (their loss is ignored).
    """
    if not sentences or not all(sentences):
        raise ValueError("padding_attention needs at least one sentence, each of at least one word")
    S = max(len(s) for s in sentences)
    tokens = tuple(tuple(s) + (PAD,) * (S - len(s)) for s in sentences)
    padded = [self_attention(row, d_model=d_model, d_k=d_k, seed=seed) for row in tokens]
    Q, K, V = (torch.stack([getattr(p, name) for p in padded]) for name in "QKV")  # (B, S, d_k) each
    lengths = torch.tensor([len(s) for s in sentences])  # (B,)
    mask = padding_mask(lengths, S)  # (B, S)
    outputs_off, weights_off = scaled_dot_product_attention(Q, K, V)  # (B, S, d_k), (B, S, S)
    outputs_on, weights_on = scaled_dot_product_attention(Q, K, V, mask[:, None, :])  # keys masked per sentence
    alone = tuple(self_attention(tuple(s), d_model=d_model, d_k=d_k, seed=seed).Z for s in sentences)
    return PaddingDemo(
        tuple(map(tuple, sentences)), tokens, lengths, mask, weights_off, weights_on, outputs_off, outputs_on, alone
    )


def padding_mask_figure(demo: PaddingDemo) -> go.Figure:
    """The batch's padding mask as a map: one row per sentence, 1 where a position holds a real word."""
    S, rows = len(demo.tokens[0]), [f"sentence {b + 1}" for b in range(len(demo.tokens))]
    return attention_heatmap(
        demo.mask.float(),
        [str(j + 1) for j in range(S)],
        rows,
        title="padding_mask(lengths, S)",
        value_name="allowed",
        x_title="position",
        y_title="sentence",
        height=160 + 34 * len(rows),
    )


def padding_pair_figure(demo: PaddingDemo, b: int) -> go.Figure:
    """Sentence ``b``'s self-attention with the padding mask off and on, side by side."""
    maps = [
        ("padding mask OFF: weight leaks onto <pad>", demo.weights_off[b]),
        ("padding mask ON: <pad> columns exactly 0", demo.weights_on[b]),
    ]
    return pair_figure(maps, demo.tokens[b], demo.tokens[b])


def pad_weight_exercise() -> Exercise:
    """By hand: the weight a one-word sentence's row gives its ``<pad>`` keys without the mask, when every score is
    the same (computed on the default batch with the same functions the figures use)."""
    demo = padding_attention(parse_batch(DEFAULT_SENTENCES).sentences)
    hello = len(demo.sentences) - 1  # "Hello": one word, the most padding
    S, pads = len(demo.tokens[hello]), demo.tokens[hello].count(PAD)
    equal = masked_softmax(torch.zeros(S), torch.ones(S, dtype=torch.bool))  # (S,) every score the same
    on_pads = float(equal[demo.mask[hello].logical_not()].sum())
    return Exercise(
        key="masking.ex1",
        prompt=(
            f"In the default batch, *Hello* is padded to S = {S} positions: 1 word and {pads} `<pad>`. Suppose its "
            "query scored every key the same. With the padding mask **off**, what total weight would its row give "
            "to the `<pad>` keys? (two decimals)"
        ),
        answer=on_pads,
        tolerance=0.01,
        explanation=(
            f"Equal scores make the softmax uniform: e⁰ / ({S} · e⁰) = 1/{S} = {1 / S:.2f} per key. The {pads} "
            f"`<pad>` keys get {pads} × 1/{S} = {on_pads:.2f}, and the one real word only {1 / S:.2f}. With the "
            "mask on, the `<pad>` scores are −∞, e^−∞ = 0, and the word gets all of it: 1."
        ),
        hint="Equal scores: the softmax gives every key the same share.",
    )
