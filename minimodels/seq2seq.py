r"""An RNN encoder–decoder with attention: the model the attention lectures start from.

The encoder reads the source into states :math:`h_1,\dots,h_S`; the decoder writes the target one token at a
time. The lecture's "problem 2, a fixed-size sequence embedding" is ``attention="none"``: the decoder sees only
the encoder's final state, the same context vector at every step (Sutskever et al. 2014; Cho et al. 2014).
Every other choice lets the decoder look back at *all* the encoder states, with a distribution over source
positions that changes at every step (the lecture's "I like pizza" → "mi piace la pizza"):

.. math:: \alpha_{t} = \mathrm{softmax}_i\, \mathrm{sim}(q_t, h_i), \qquad c_t = \sum_i \alpha_{t,i}\, h_i

with ``sim`` one of the foundation's scores: ``additive`` (MLP, Bahdanau et al. 2015), ``dot``, ``scaled_dot``
or ``bilinear`` (Luong et al. 2015's "dot" and "general").

Two places to attend from (``Seq2SeqConfig.attention_query``), both in the literature:

* ``"previous"`` — **Bahdanau et al. 2015**: the query is the previous decoder state :math:`s_{t-1}`; the
  context :math:`c_t` is fed into the RNN, :math:`s_t = \mathrm{RNN}([E y_{t-1}; c_t], s_{t-1})`. The decoder
  must run step by step even when the target is known (training), because each step's input depends on
  the attention, which depends on the previous step.
* ``"current"`` — **Luong et al. 2015** (without input feeding): the RNN runs first,
  :math:`s_t = \mathrm{RNN}(E y_{t-1}, s_{t-1})`, and the query is :math:`s_t`. In training the whole target is
  known, so the RNN runs fused over all ``T`` steps and attention is one batched matmul — much faster.

``"auto"`` (the default) uses ``"previous"`` for ``additive`` (as Bahdanau published it) and ``"current"`` for
the others (as Luong did). Either way the prediction reads :math:`\tilde s_t = \tanh(W_c[c_t; s_t])`,
:math:`p(y_t) = \mathrm{softmax}(W_o \tilde s_t)` (Luong's attentional hidden state).

The decoder is written as ``step(...)`` so that greedy/beam search can drive it, and a lesson can *force* the
attention of one step (``attention_override``) to see what the model writes when it looks elsewhere.

Letters: B batch, S source positions, T target positions, E embedding size, H encoder size per direction,
D = H × directions the decoder's state size (the keys' size too), A the additive score's hidden size,
V target vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .attention import (
    AdditiveAttention,
    BilinearAttention,
    DotProductAttention,
    ScaledDotProductAttention,
    masked_softmax,
    padding_mask,
)
from .models import ModelOutput, StepOutput, select_rows

__all__ = ["CELLS", "ATTENTIONS", "Seq2SeqConfig", "Seq2SeqMemory", "Seq2Seq"]

CELLS = ("rnn", "gru", "lstm")
ATTENTIONS = ("none", "additive", "dot", "scaled_dot", "bilinear")
QUERIES = ("auto", "previous", "current")

_FUSED = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}
_CELL = {"rnn": nn.RNNCell, "gru": nn.GRUCell, "lstm": nn.LSTMCell}

State = torch.Tensor | tuple[torch.Tensor, torch.Tensor]  # h (B, D), or (h, c) for an LSTM


@dataclass(frozen=True)
class Seq2SeqConfig:
    """How a :class:`Seq2Seq` is built. Tiny defaults: a few seconds of CPU training on ``dates``."""

    source_vocab_size: int = 64  # source token ids, specials included (a task's source_tokenizer.vocab_size)
    target_vocab_size: int = 64  # target token ids, specials included (target_tokenizer.vocab_size)
    cell: str = "gru"  # recurrent cell of encoder and decoder: "rnn" | "gru" | "lstm"
    attention: str = "additive"  # "none" (fixed context vector) | "additive" | "dot" | "scaled_dot" | "bilinear"
    attention_query: str = "auto"  # "previous" s_{t-1} (Bahdanau) | "current" s_t (Luong) | "auto", see module
    bidirectional: bool = False  # the encoder also reads the source right to left; D doubles
    embedding_size: int = 32  # E, size of each source and target token embedding
    hidden_size: int = 64  # H, encoder state size per direction
    attention_size: int = 64  # A, hidden layer of the additive score's MLP (unused by the other scores)

    def __post_init__(self):
        for name, value, allowed in (
            ("cell", self.cell, CELLS),
            ("attention", self.attention, ATTENTIONS),
            ("attention_query", self.attention_query, QUERIES),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")

    @property
    def decoder_size(self) -> int:
        """D: the decoder's state size, equal to an encoder state's size so that dot scores are defined."""
        return self.hidden_size * (2 if self.bidirectional else 1)

    def describe(self) -> str:
        """What the model is, in words a page labels it with: "bidirectional GRU encoder (H = 64 per direction,
        D = 128) + GRU decoder, additive attention"."""
        cell = self.cell.upper()
        if self.bidirectional:
            encoder = f"bidirectional {cell} encoder (H = {self.hidden_size} per direction, D = {self.decoder_size})"
        else:
            encoder = f"unidirectional {cell} encoder (D = {self.decoder_size})"
        reads = "no attention (one context vector)" if self.attention == "none" else f"{self.attention} attention"
        return f"{encoder} + {cell} decoder, {reads.replace('_', ' ')}"

    @property
    def query(self) -> str:
        """Where attention reads its query: ``"previous"``, ``"current"``, or ``"none"`` without attention."""
        if self.attention == "none":
            return "none"
        if self.attention_query == "auto":
            return "previous" if self.attention == "additive" else "current"
        return self.attention_query


@dataclass
class Seq2SeqMemory:
    """What the encoder leaves for the decoder: computed once per source sentence, read at every step."""

    states: torch.Tensor  # (B, S, D) encoder states h_i: the values, and the keys of dot scores
    keys: torch.Tensor | None  # (B, S, A) W_k h_i (additive) or (B, S, D) W h_i (bilinear); else None
    mask: torch.Tensor  # (B, S) bool, True at real source tokens (EOS included), False at padding
    final: State  # the encoder's last state: the decoder's s_0, and the fixed context vector of "none"

    def select(self, index: torch.Tensor) -> Seq2SeqMemory:
        """The memory of the sentences ``index`` (beam search keeps one row per hypothesis)."""
        return Seq2SeqMemory(
            states=self.states.index_select(0, index),
            keys=select_rows(self.keys, index),
            mask=self.mask.index_select(0, index),
            final=select_rows(self.final, index),
        )

    @property
    def context(self) -> torch.Tensor:
        """The fixed-size context vector ``(B, D)``: the encoder's final hidden state."""
        return self.final[0] if isinstance(self.final, tuple) else self.final


def _score_module(config: Seq2SeqConfig) -> nn.Module | None:
    D = config.decoder_size
    return {
        "none": lambda: None,
        "additive": lambda: AdditiveAttention(D, D, config.attention_size),
        "dot": DotProductAttention,
        "scaled_dot": ScaledDotProductAttention,
        "bilinear": lambda: BilinearAttention(D, D),
    }[config.attention]()


def _hidden(state: State) -> torch.Tensor:
    """The part of a recurrent state that is the decoder's output: ``h`` (an LSTM also carries ``c``)."""
    return state[0] if isinstance(state, tuple) else state


class Seq2Seq(nn.Module):
    """Embedding → encoder RNN → decoder RNN with attention (see the module docstring for the two designs)."""

    kind = "seq2seq"

    def __init__(self, config: Seq2SeqConfig):
        super().__init__()
        self.config = config
        E, H, D = config.embedding_size, config.hidden_size, config.decoder_size
        self.source_embedding = nn.Embedding(config.source_vocab_size, E)
        self.target_embedding = nn.Embedding(config.target_vocab_size, E)
        self.encoder = _FUSED[config.cell](E, H, batch_first=True, bidirectional=config.bidirectional)
        self.attention = _score_module(config)
        if config.query == "previous":  # context is part of each step's input: one cell, stepped
            self.decoder = _CELL[config.cell](E + D, D)
        elif config.query == "current":  # input is the previous token only: fused over the target
            self.decoder = _FUSED[config.cell](E, D, batch_first=True)
        else:  # "none": the same context vector is part of every step's input: fused
            self.decoder = _FUSED[config.cell](E + D, D, batch_first=True)
        self.readout = nn.Linear(2 * D, D)  # W_c in tanh(W_c [c_t; s_t])
        self.out = nn.Linear(D, config.target_vocab_size)  # W_o

    # ----------------------------------------------------------------------------------------- encoder
    def encode(self, source: torch.Tensor, source_lengths: torch.Tensor) -> Seq2SeqMemory:
        """Read ``source (B, S)`` (PAD-padded, lengths ``(B,)`` counting EOS) into a :class:`Seq2SeqMemory`.

        A unidirectional GRU/RNN runs over the padded batch and its final state is read at each sentence's
        last real token (the padding after it cannot change earlier states). An LSTM (whose cell state is
        not among the outputs) or a bidirectional encoder (whose backward direction would read the padding
        first) packs the batch instead, which is slower but exact.
        """
        B, S = source.shape
        lengths = source_lengths.to(source.device)
        mask = padding_mask(lengths, S)  # (B, S)
        x = self.source_embedding(source)  # (B, S, E)
        ragged = bool((lengths != S).any())
        if ragged and (self.config.cell == "lstm" or self.config.bidirectional):
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
            states, last = self.encoder(packed)
            states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=S)  # (B, S, D)
            final = self._join_directions(last)
        else:
            states, last = self.encoder(x)  # (B, S, D), (directions, B, H)
            if ragged:  # unidirectional GRU/RNN: the state after each sentence's last real token
                final = states[torch.arange(B, device=states.device), lengths - 1]  # (B, D)
            else:
                final = self._join_directions(last)
        keys = None
        if self.config.attention == "additive":
            keys = self.attention.W_k(states)  # (B, S, A): W_k h_i, once per sentence
        elif self.config.attention == "bilinear":
            keys = self.attention.W(states)  # (B, S, D): W h_i, once per sentence
        return Seq2SeqMemory(states=states, keys=keys, mask=mask, final=final)

    def _join_directions(self, last: State) -> State:
        """``(directions, B, H)`` final states → ``(B, D)``: forward's last and backward's first, side by side."""
        if isinstance(last, tuple):
            return tuple(self._join_directions(part) for part in last)
        return torch.cat(list(last), dim=-1)  # (B, H * directions)

    # -------------------------------------------------------------------------------------- attention
    def scores(self, query: torch.Tensor, memory: Seq2SeqMemory) -> torch.Tensor:
        """Raw scores ``(B, Tq, S)`` of queries ``(B, Tq, D)`` against the memory.

        The same function as the score module's ``score(query, states)`` (a parity test checks it), with the
        key projection of additive and bilinear scores read from the memory instead of recomputed per step.
        """
        if self.config.attention == "additive":
            hidden = torch.tanh(self.attention.W_q(query).unsqueeze(2) + memory.keys.unsqueeze(1))  # (B,Tq,S,A)
            return self.attention.v(hidden).squeeze(-1)  # (B, Tq, S)
        if self.config.attention == "bilinear":
            return query @ memory.keys.transpose(1, 2)  # (B, Tq, D) @ (B, D, S) -> (B, Tq, S)
        return self.attention.score(query, memory.states)  # (B, Tq, S)

    def attend(
        self,
        query: torch.Tensor,
        memory: Seq2SeqMemory,
        attention_override: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Context ``(B, Tq, D)`` and weights ``(B, Tq, S)`` for queries ``(B, Tq, D)``.

        ``attention_override`` (broadcastable to ``(B, Tq, S)``) replaces the weights the model computed: the
        context is then the override's weighted sum of the encoder states.
        """
        weights = masked_softmax(self.scores(query, memory), memory.mask.unsqueeze(1))  # (B, Tq, S)
        if attention_override is not None:
            weights = attention_override.to(weights).expand_as(weights)  # (B, Tq, S)
        return weights @ memory.states, weights  # (B, Tq, S) @ (B, S, D) -> (B, Tq, D)

    # ---------------------------------------------------------------------------------------- decoder
    def initial_state(self, memory: Seq2SeqMemory) -> State:
        """The decoder's :math:`s_0`: the encoder's final state (directions side by side)."""
        return memory.final

    @staticmethod
    def select_state(state: State, index: torch.Tensor) -> State:
        """The decoder states of rows ``index``."""
        return select_rows(state, index)

    def _fused(self, x: torch.Tensor, state: State) -> tuple[torch.Tensor, State]:
        """Run the fused decoder RNN over ``x (B, T, ·)`` from ``state``; outputs ``(B, T, D)``."""
        layered = tuple(s.unsqueeze(0) for s in state) if isinstance(state, tuple) else state.unsqueeze(0)
        outputs, last = self.decoder(x, layered)  # (B, T, D), (1, B, D)
        last = tuple(s.squeeze(0) for s in last) if isinstance(last, tuple) else last.squeeze(0)
        return outputs, last

    def _previous_step(
        self,
        embedded: torch.Tensor,
        state: State,
        memory: Seq2SeqMemory,
        attention_override: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, State]:
        """One Bahdanau step: attend with s_{t-1}, then s_t = RNN([E y_{t-1}; c_t], s_{t-1}).

        ``embedded`` is ``(B, E)``; returns s_t ``(B, D)``, c_t ``(B, D)``, weights ``(B, S)``, new state.
        """
        override = None if attention_override is None else attention_override.unsqueeze(1)  # (B, 1, S)
        context, weights = self.attend(_hidden(state).unsqueeze(1), memory, override)  # (B,1,D), (B,1,S)
        context, weights = context.squeeze(1), weights.squeeze(1)  # (B, D), (B, S)
        state = self.decoder(torch.cat([embedded, context], dim=-1), state)  # (B, D) or (h, c)
        return _hidden(state), context, weights, state

    def _logits(self, decoder_states: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """Luong's attentional state tanh(W_c [c_t; s_t]) → next-token scores; works on ``(B, ·)`` or ``(B, T, ·)``."""
        return self.out(torch.tanh(self.readout(torch.cat([context, decoder_states], dim=-1))))  # (..., V)

    def step(
        self,
        prev_tokens: torch.Tensor,
        state: State,
        memory: Seq2SeqMemory,
        attention_override: torch.Tensor | None = None,
    ) -> StepOutput:
        """One decoder step from the previous tokens ``(B,)``.

        ``attention_override`` ``(B, S)`` (or ``(S,)``), if given, replaces this step's attention weights, e.g.
        a one-hot row on a chosen source token: the "forced attention" experiment. A model without attention
        (``"none"``) rejects it.
        """
        embedded = self.target_embedding(prev_tokens)  # (B, E)
        query = self.config.query
        if attention_override is not None:
            if query == "none":
                raise ValueError("a Seq2Seq with attention='none' has no attention to override")
            attention_override = attention_override.expand(prev_tokens.size(0), -1)  # (B, S)
        if query == "previous":
            s, context, weights, state = self._previous_step(embedded, state, memory, attention_override)
            return StepOutput(self._logits(s, context), state, {"cross": weights})
        if query == "current":
            s, state = self._fused(embedded.unsqueeze(1), state)  # (B, 1, D)
            override = None if attention_override is None else attention_override.unsqueeze(1)  # (B, 1, S)
            context, weights = self.attend(s, memory, override)  # (B, 1, D), (B, 1, S)
            logits = self._logits(s.squeeze(1), context.squeeze(1))  # (B, V)
            return StepOutput(logits, state, {"cross": weights.squeeze(1)})
        context = memory.context  # (B, D)
        s, state = self._fused(torch.cat([embedded, context], dim=-1).unsqueeze(1), state)  # (B, 1, D)
        return StepOutput(self._logits(s.squeeze(1), context), state, {})

    def forward(self, source: torch.Tensor, source_lengths: torch.Tensor, target_in: torch.Tensor) -> ModelOutput:
        """Teacher-forced pass: ``source (B, S)``, lengths ``(B,)``, ``target_in (B, T)`` = BOS + target.

        Returns logits ``(B, T, V)`` and ``attention["cross"]`` ``(B, T, S)`` (none for ``"none"``).
        """
        memory = self.encode(source, source_lengths)
        embedded = self.target_embedding(target_in)  # (B, T, E)
        query = self.config.query
        if query == "current":
            s, _ = self._fused(embedded, memory.final)  # (B, T, D): all decoder states at once
            context, weights = self.attend(s, memory)  # (B, T, D), (B, T, S): one batched matmul
            return ModelOutput(self._logits(s, context), {"cross": weights})
        if query == "none":
            T = target_in.size(1)
            context = memory.context.unsqueeze(1).expand(-1, T, -1)  # (B, T, D): the same c at every step
            s, _ = self._fused(torch.cat([embedded, context], dim=-1), memory.final)  # (B, T, D)
            return ModelOutput(self._logits(s, context), {})
        if self.config.cell == "gru" and self.config.attention == "additive":
            s, context, weights = self._teacher_forced_gru_additive(embedded, memory)  # (B, T, ·)
            return ModelOutput(self._logits(s, context), {"cross": weights})
        state = memory.final
        steps = []
        for embedded_t in embedded.unbind(1):  # (B, E) per step
            s, context, weights, state = self._previous_step(embedded_t, state, memory)
            steps.append((s, context, weights))
        s, context, weights = (torch.stack(parts, dim=1) for parts in zip(*steps, strict=True))  # (B, T, ·)
        return ModelOutput(self._logits(s, context), {"cross": weights})

    def _teacher_forced_gru_additive(
        self, embedded: torch.Tensor, memory: Seq2SeqMemory
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        r"""The Bahdanau loop of :meth:`forward` for a GRU with additive attention, in half the operations.

        The same arithmetic as :meth:`_previous_step` at every step (a parity test checks it), the GRU cell
        written out (PyTorch's ``nn.GRUCell`` on a CPU is itself a chain of small operations):

        .. math:: r, z = \sigma(W_{i\{r,z\}}[E y_{t-1}; c_t] + W_{h\{r,z\}} s_{t-1}), \quad
                  n = \tanh(W_{in}[E y_{t-1}; c_t] + r \odot W_{hn} s_{t-1}), \quad s_t = n + z \odot (s_{t-1} - n)

        (biases omitted). What does not depend on the step is done once for the whole target: the
        embeddings' share of the input projection (one matmul over all T positions), the padding as an
        additive −∞ that the softmax turns into exact zeros, and one matmul of :math:`s_{t-1}` that gives both
        the GRU's :math:`W_h s_{t-1}` and the score's :math:`W_q s_{t-1}`.

        The score's tanh, over a ``(B, S, A)`` tensor at every step, is the largest piece of arithmetic, and on a
        CPU ``torch.tanh`` costs several times ``torch.sigmoid``. Since :math:`\tanh x = 2\sigma(2x) - 1`,

        .. math:: e_{t,i} = v^\top \tanh(W_q s_{t-1} + W_k h_i)
                  = (2v)^\top \sigma(2 W_q s_{t-1} + 2 W_k h_i) - \textstyle\sum_j v_j

        and the constant :math:`\sum_j v_j` drops out of the softmax, so the weights are computed from the
        sigmoid form, with the factors 2 folded into the weights once per batch.

        ``embedded`` is ``(B, T, E)``; returns the decoder states, contexts ``(B, T, D)`` and weights ``(B, T, S)``.
        """
        cell, score = self.decoder, self.attention
        E, D, A = self.config.embedding_size, self.config.decoder_size, self.config.attention_size
        from_tokens = nn.functional.linear(embedded, cell.weight_ih[:, :E], cell.bias_ih)  # (B, T, 3D)
        W_c = cell.weight_ih[:, E:].t()  # (D, 3D): the context's share of the input projection
        W_s = torch.cat([cell.weight_hh, 2 * score.W_q.weight])  # (3D + A, D): W_h and 2 W_q, stacked
        b_s = torch.cat([cell.bias_hh, cell.bias_hh.new_zeros(A)])  # (3D + A,)
        keys = 2 * memory.keys  # (B, S, A): 2 W_k h_i
        v = 2 * score.v.weight.squeeze(0)  # (A,)
        padding = torch.zeros_like(memory.mask, dtype=embedded.dtype).masked_fill(~memory.mask, float("-inf"))
        s = memory.final  # (B, D): s_0
        steps = []
        for from_token in from_tokens.unbind(1):  # (B, 3D) per step; one gradient for all of them, not T
            rz_s, n_s, query = nn.functional.linear(s, W_s, b_s).split([2 * D, D, A], dim=-1)  # (B, 2D), (B, D), (B, A)
            scores = torch.sigmoid(query.unsqueeze(1) + keys) @ v  # (B, S, A) @ (A,) -> (B, S): e_t + Σv
            weights = torch.softmax(scores + padding, dim=-1)  # (B, S), exactly 0 on padding
            context = (weights.unsqueeze(1) @ memory.states).squeeze(1)  # (B, 1, S) @ (B, S, D) -> (B, D)
            rz_i, n_i = torch.addmm(from_token, context, W_c).split([2 * D, D], dim=-1)  # (B, 2D), (B, D)
            r, z = torch.sigmoid(rz_i + rz_s).chunk(2, dim=-1)  # (B, D) each
            n = torch.tanh(n_i + r * n_s)  # (B, D)
            s = n + z * (s - n)  # (B, D): (1 - z) n + z s_{t-1}
            steps.append((s, context, weights))
        s, context, weights = (torch.stack(parts, dim=1) for parts in zip(*steps, strict=True))  # (B, T, ·)
        return s, context, weights
