r"""A tiny encoder–decoder Transformer (Vaswani et al. 2017) that returns every attention map it computes.

Each encoder layer is self-attention then a position-wise feed-forward network; each decoder layer is *masked*
self-attention (a position may look only at earlier ones), cross-attention to the encoder's output, then a
feed-forward network. Each sublayer sits in a residual connection with layer normalisation:

.. math:: x + \mathrm{Sublayer}(\mathrm{LN}(x)) \;\; \text{(pre-LN, the default)} \qquad
          \mathrm{LN}(x + \mathrm{Sublayer}(x)) \;\; \text{(post-LN, the paper's §3.1)}

Pre-LN (Xiong et al. 2020, "On Layer Normalization in the Transformer Architecture") trains at a large
learning rate with no warm-up, which is what training live in class needs; ``norm_first=False`` gives the
paper's arrangement for comparison. All attention is the foundation's :class:`MultiHeadAttention`, so each
layer's weights come back: ``"encoder.{i}.self"`` ``(B, h, S, S)``, ``"decoder.{i}.self"`` ``(B, h, T, T)``,
``"decoder.{i}.cross"`` ``(B, h, T, S)``.

Embeddings are **not** multiplied by √d_model by default (the paper's §3.4 does): with PyTorch's N(0, 1)
embedding initialisation the scaled embeddings drown the positional encoding, and on ``dates`` the model took
about 60 s instead of about 10 s to reach 95% exact match. ``scale_embeddings=True`` restores the paper's
choice for the lesson that shows the difference.

Letters: B batch, S source positions, T target positions, d d_model, h heads, V target vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from .attention import MultiHeadAttention, causal_mask, padding_mask, scaled_dot_product_attention
from .models import ModelOutput, StepOutput
from .positional import positional_layer

__all__ = ["POSITIONALS", "TransformerConfig", "TransformerMemory", "DecoderState", "TinyTransformer"]

POSITIONALS = ("sinusoidal", "learned", "none")

Sublayer = Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor | None]]


@dataclass(frozen=True)
class TransformerConfig:
    """How a :class:`TinyTransformer` is built. Tiny defaults: trains on ``dates`` in seconds on a CPU."""

    source_vocab_size: int = 64  # source token ids, specials included (a task's source_tokenizer.vocab_size)
    target_vocab_size: int = 64  # target token ids, specials included (target_tokenizer.vocab_size)
    d_model: int = 64  # d, the size of every token's vector between sublayers
    n_heads: int = 4  # h, attention heads per attention sublayer; d_model must divide by it
    d_ff: int = 128  # hidden width of the position-wise feed-forward network (the paper uses 4 d)
    encoder_layers: int = 2  # N, stacked encoder layers
    decoder_layers: int = 2  # stacked decoder layers
    positional: str = "sinusoidal"  # "sinusoidal" (fixed, §3.5) | "learned" | "none" (order-blind)
    max_len: int = 128  # longest source or target the positional encoding covers
    dropout: float = 0.0  # dropout after each sublayer and on embeddings; 0 for tiny, fast, exact runs
    norm_first: bool = True  # pre-LN (trains at a large lr without warm-up) or the paper's post-LN
    scale_embeddings: bool = False  # × √d_model as in §3.4; off: 10 s instead of 60 s to 95% on dates
    causal: bool = True  # decoder self-attention sees only earlier positions; False: the masking lesson's
    #                      "cheating decoder", which reads the answer under teacher forcing
    residual: bool = True  # x + Sublayer(x); False drops every skip connection (the Transformer lesson's ablation)
    layer_norm: bool = True  # LayerNorm around each sublayer and after each stack; False drops them all (ablation)
    feed_forward: bool = True  # the position-wise FFN sublayer of every layer; False drops it (the Transformer
    #                            lesson's "why a feed-forward network?" ablation: attention alone, then W^O)

    def __post_init__(self):
        if self.positional not in POSITIONALS:
            raise ValueError(f"positional must be one of {', '.join(POSITIONALS)}; got {self.positional!r}")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")


@dataclass
class TransformerMemory:
    """The encoder's output for a batch of sentences, read by every decoder step."""

    states: torch.Tensor  # (B, S, d) the encoder stack's output: keys and values of cross-attention
    mask: torch.Tensor  # (B, S) bool, True at real source tokens (EOS included)
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # "encoder.{i}.self" -> (B, h, S, S)

    def select(self, index: torch.Tensor) -> TransformerMemory:
        """The memory of sentences ``index`` (beam search keeps one row per hypothesis)."""
        return TransformerMemory(
            states=self.states.index_select(0, index),
            mask=self.mask.index_select(0, index),
            attention={k: v.index_select(0, index) for k, v in self.attention.items()},
        )


class FeedForward(nn.Module):
    r"""Position-wise feed-forward network (§3.3): :math:`\mathrm{FFN}(x) = \max(0, xW_1 + b_1)W_2 + b_2`."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(torch.relu(self.linear1(x)))  # (B, T, d) -> (B, T, d_ff) -> (B, T, d)


class _Residual(nn.Module):
    """Shared by both layer kinds: wrap a sublayer in its residual connection and layer norm."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.norm = nn.LayerNorm(config.d_model) if config.layer_norm else nn.Identity()
        self.dropout = nn.Dropout(config.dropout) if config.dropout else nn.Identity()
        self.norm_first = config.norm_first
        self.residual = config.residual

    def forward(self, x: torch.Tensor, sublayer: Sublayer) -> tuple[torch.Tensor, torch.Tensor | None]:
        skip = x if self.residual else 0.0  # the ablation without residuals keeps only the sublayer's output
        if self.norm_first:
            out, weights = sublayer(self.norm(x))
            return skip + self.dropout(out), weights
        out, weights = sublayer(x)
        return self.norm(skip + self.dropout(out)), weights


def _project(attention: MultiHeadAttention, linear: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    """``x (B, T, d)`` through one of the attention's projections, split into heads: ``(B, h, T, d_k)``."""
    return attention._split(linear(x))


def _attend_projected(
    attention: MultiHeadAttention,
    x: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """:class:`MultiHeadAttention` with keys and values already projected (cached): ``x (B, Tq, d)``.

    The same arithmetic as ``attention(x, kv, kv, mask)`` when ``keys``/``values`` are ``kv``'s projections
    (the decoder's step-vs-forward parity test checks it). Returns ``(B, Tq, d)`` and ``(B, h, Tq, Tk)``.
    """
    B, Tq, d = x.shape
    q = _project(attention, attention.W_q, x)  # (B, h, Tq, d_k)
    heads, weights = scaled_dot_product_attention(q, keys, values, mask)  # (B, h, Tq, d_k), (B, h, Tq, Tk)
    return attention.W_o(heads.transpose(1, 2).reshape(B, Tq, d)), weights  # (B, Tq, d)


@dataclass
class DecoderState:
    """What step-by-step decoding keeps between steps, so that each step costs one position, not the prefix.

    Keys and values of every earlier target position (self-attention) and of the source (cross-attention,
    projected once per sentence), per decoder layer: the usual key/value cache of incremental decoding.
    """

    length: int  # t, target positions fed so far (BOS included)
    self_keys: list[torch.Tensor]  # per layer (B, h, t, d_k)
    self_values: list[torch.Tensor]  # per layer (B, h, t, d_k)
    cross_keys: list[torch.Tensor]  # per layer (B, h, S, d_k)
    cross_values: list[torch.Tensor]  # per layer (B, h, S, d_k)
    prefix: torch.Tensor | None = None  # (B, t) tokens fed so far; kept only by a non-causal decoder (no cache)

    def select(self, index: torch.Tensor) -> DecoderState:
        """The states of rows ``index`` (beam search)."""

        def pick(tensors):
            return [x.index_select(0, index) for x in tensors]

        prefix = None if self.prefix is None else self.prefix.index_select(0, index)
        return DecoderState(
            self.length,
            pick(self.self_keys),
            pick(self.self_values),
            pick(self.cross_keys),
            pick(self.cross_values),
            prefix,
        )


class EncoderLayer(nn.Module):
    """Self-attention over the source, then the feed-forward network (§3.1, "Encoder")."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.self_attention = MultiHeadAttention(config.d_model, config.n_heads)
        self.feed_forward = FeedForward(config.d_model, config.d_ff) if config.feed_forward else None
        self.residual1 = _Residual(config)
        self.residual2 = _Residual(config) if config.feed_forward else None

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x (B, S, d)``, ``mask`` broadcastable to ``(B, h, S, S)``; returns ``x`` and ``(B, h, S, S)``."""
        x, weights = self.residual1(x, lambda h: self.self_attention(h, h, h, mask))
        if self.feed_forward is not None:
            x, _ = self.residual2(x, lambda h: (self.feed_forward(h), None))
        return x, weights


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention to the encoder, then the feed-forward network (§3.1, "Decoder")."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.self_attention = MultiHeadAttention(config.d_model, config.n_heads)
        self.cross_attention = MultiHeadAttention(config.d_model, config.n_heads)
        self.feed_forward = FeedForward(config.d_model, config.d_ff) if config.feed_forward else None
        self.residual1 = _Residual(config)
        self.residual2 = _Residual(config)
        self.residual3 = _Residual(config) if config.feed_forward else None

    def _feed_forward(self, y: torch.Tensor) -> torch.Tensor:
        """The third sublayer, or ``y`` as it is in a model built without feed-forward networks."""
        if self.feed_forward is None:
            return y
        return self.residual3(y, lambda h: (self.feed_forward(h), None))[0]

    def forward(
        self,
        y: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor,
        cross_mask: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``y (B, T, d)``, ``memory (B, S, d)``; returns ``y``, self ``(B, h, T, T)``, cross ``(B, h, T, S)``."""
        y, self_weights = self.residual1(y, lambda h: self.self_attention(h, h, h, self_mask))
        y, cross_weights = self.residual2(y, lambda h: self.cross_attention(h, memory, memory, cross_mask))
        return self._feed_forward(y), self_weights, cross_weights

    def step(
        self, y: torch.Tensor, state: DecoderState, i: int, cross_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One new position ``y (B, 1, d)`` as layer ``i``; appends its key and value to ``state``'s cache.

        Returns ``y (B, 1, d)``, self ``(B, h, 1, t)`` and cross ``(B, h, 1, S)`` weights.
        """
        sa = self.self_attention

        def self_sublayer(h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            state.self_keys[i] = torch.cat([state.self_keys[i], _project(sa, sa.W_k, h)], dim=2)  # (B, h, t, d_k)
            state.self_values[i] = torch.cat([state.self_values[i], _project(sa, sa.W_v, h)], dim=2)
            return _attend_projected(sa, h, state.self_keys[i], state.self_values[i])  # earlier ones only: causal

        y, self_weights = self.residual1(y, self_sublayer)
        y, cross_weights = self.residual2(
            y,
            lambda h: _attend_projected(
                self.cross_attention, h, state.cross_keys[i], state.cross_values[i], cross_mask
            ),
        )
        return self._feed_forward(y), self_weights, cross_weights


def _positional(config: TransformerConfig) -> nn.Module | None:
    return positional_layer(config.positional, config.d_model, config.max_len)


class TinyTransformer(nn.Module):
    """Encoder–decoder Transformer built from :class:`MultiHeadAttention`; see the module docstring."""

    kind = "transformer"

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        d = config.d_model
        self.source_embedding = nn.Embedding(config.source_vocab_size, d)
        self.target_embedding = nn.Embedding(config.target_vocab_size, d)
        self.source_position = _positional(config)
        self.target_position = _positional(config)
        self.embedding_dropout = nn.Dropout(config.dropout) if config.dropout else nn.Identity()
        self.encoder_layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.decoder_layers))
        # pre-LN leaves the residual stream un-normalised: one last norm on each stack (as nn.Transformer)
        final_norm = config.norm_first and config.layer_norm
        self.encoder_norm = nn.LayerNorm(d) if final_norm else nn.Identity()
        self.decoder_norm = nn.LayerNorm(d) if final_norm else nn.Identity()
        self.out = nn.Linear(d, config.target_vocab_size)

    def _embed(
        self, tokens: torch.Tensor, embedding: nn.Embedding, position: nn.Module | None, offset: int = 0
    ) -> torch.Tensor:
        x = embedding(tokens)  # (B, T, d)
        if self.config.scale_embeddings:
            x = x * math.sqrt(self.config.d_model)
        if position is not None:
            x = position(x, offset)  # (B, T, d) + (T, d), positions offset .. offset + T - 1
        return self.embedding_dropout(x)

    def encode(self, source: torch.Tensor, source_lengths: torch.Tensor) -> TransformerMemory:
        """Run the encoder over ``source (B, S)`` (PAD-padded; lengths ``(B,)`` count EOS)."""
        mask = padding_mask(source_lengths.to(source.device), source.size(1))  # (B, S)
        attention_mask = mask[:, None, None, :]  # (B, 1, 1, S): every head, every query
        x = self._embed(source, self.source_embedding, self.source_position)  # (B, S, d)
        maps = {}
        for i, layer in enumerate(self.encoder_layers):
            x, maps[f"encoder.{i}.self"] = layer(x, attention_mask)  # (B, S, d), (B, h, S, S)
        return TransformerMemory(states=self.encoder_norm(x), mask=mask, attention=maps)

    def decode(
        self, target_in: torch.Tensor, memory: TransformerMemory
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Decoder over ``target_in (B, T)`` (BOS + target); returns logits ``(B, T, V)`` and its maps."""
        T = target_in.size(1)
        # (T, T), broadcast to (B, h, T, T); None lets every position read every other (the cheating decoder)
        self_mask = causal_mask(T, device=target_in.device) if self.config.causal else None
        cross_mask = memory.mask[:, None, None, :]  # (B, 1, 1, S)
        y = self._embed(target_in, self.target_embedding, self.target_position)  # (B, T, d)
        maps = {}
        for i, layer in enumerate(self.decoder_layers):
            y, maps[f"decoder.{i}.self"], maps[f"decoder.{i}.cross"] = layer(
                y, memory.states, self_mask, cross_mask
            )  # (B, T, d), (B, h, T, T), (B, h, T, S)
        return self.out(self.decoder_norm(y)), maps  # (B, T, V)

    def forward(self, source: torch.Tensor, source_lengths: torch.Tensor, target_in: torch.Tensor) -> ModelOutput:
        """Teacher-forced pass: logits ``(B, T, V)`` and every layer's attention (keys in the module docstring)."""
        memory = self.encode(source, source_lengths)
        logits, maps = self.decode(target_in, memory)
        return ModelOutput(logits, {**memory.attention, **maps})

    # ---------------------------------------------------------------------- step-by-step decoding
    def initial_state(self, memory: TransformerMemory) -> DecoderState:
        """An empty key/value cache, with the source's cross-attention keys and values projected once."""
        B, d = memory.states.size(0), self.config.d_model
        empty = memory.states.new_zeros(B, self.config.n_heads, 0, d // self.config.n_heads)  # (B, h, 0, d_k)
        layers = list(self.decoder_layers)
        return DecoderState(
            length=0,
            self_keys=[empty] * len(layers),
            self_values=[empty] * len(layers),
            cross_keys=[_project(l.cross_attention, l.cross_attention.W_k, memory.states) for l in layers],
            cross_values=[_project(l.cross_attention, l.cross_attention.W_v, memory.states) for l in layers],
        )

    @staticmethod
    def select_state(state: DecoderState, index: torch.Tensor) -> DecoderState:
        """The decoder states of rows ``index``."""
        return state.select(index)

    def step(
        self,
        prev_tokens: torch.Tensor,
        state: DecoderState,
        memory: TransformerMemory,
        attention_override: torch.Tensor | None = None,
    ) -> StepOutput:
        """Feed ``prev_tokens (B,)`` at the next position and predict the token after it.

        Only the new position is computed: earlier positions' keys and values come from the cache in
        ``state`` (a new state is returned; the one passed in is left as it was). Returns the new position's
        rows: ``"decoder.{i}.self"`` ``(B, h, t)``, ``"decoder.{i}.cross"`` ``(B, h, S)``. Forced attention is
        a :class:`Seq2Seq` experiment: ``attention_override`` is rejected.
        """
        if attention_override is not None:
            raise ValueError("attention_override is supported by Seq2Seq only (one attention map per step)")
        if not self.config.causal:
            return self._step_without_cache(prev_tokens, state, memory)
        state = DecoderState(
            state.length + 1, list(state.self_keys), list(state.self_values), state.cross_keys, state.cross_values
        )
        y = self._embed(prev_tokens.unsqueeze(1), self.target_embedding, self.target_position, state.length - 1)
        cross_mask = memory.mask[:, None, None, :]  # (B, 1, 1, S)
        rows = {}
        for i, layer in enumerate(self.decoder_layers):
            y, self_weights, cross_weights = layer.step(y, state, i, cross_mask)  # (B, 1, d), (B, h, 1, ·)
            rows[f"decoder.{i}.self"] = self_weights[:, :, 0]  # (B, h, t)
            rows[f"decoder.{i}.cross"] = cross_weights[:, :, 0]  # (B, h, S)
        logits = self.out(self.decoder_norm(y))[:, 0]  # (B, V)
        return StepOutput(logits, state, rows)

    def _step_without_cache(
        self, prev_tokens: torch.Tensor, state: DecoderState, memory: TransformerMemory
    ) -> StepOutput:
        """A non-causal decoder: earlier positions' states change when a token is added, so nothing can be cached.

        The whole prefix is run again; when generating, the future it was trained to read does not exist yet.
        """
        fed = prev_tokens.unsqueeze(1)  # (B, 1)
        prefix = fed if state.prefix is None else torch.cat([state.prefix, fed], dim=1)  # (B, t)
        logits, maps = self.decode(prefix, memory)  # (B, t, V)
        rows = {name: weights[:, :, -1] for name, weights in maps.items()}  # the newest position's rows
        new_state = DecoderState(
            state.length + 1, state.self_keys, state.self_values, state.cross_keys, state.cross_values, prefix
        )
        return StepOutput(logits[:, -1], new_state, rows)
