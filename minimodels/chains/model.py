r"""An encoder–decoder built from two layer chains (Domhan, "How much attention do you need?", ACL 2018).

Every layer maps a sequence of vectors to another of the same size, ``(B, T, d) -> (B, T, d)``, so any chain of
them is a model: the encoder chain reads the embedded source, the decoder chain reads the embedded target so
far and reaches the source only through its source-attention layers, and a linear layer turns the decoder's
last vectors into next-token scores. The layers (``language.LAYERS``):

* ``pos`` adds the fixed sinusoids of Vaswani et al. §3.5, ``learn_pos`` a learned vector per position;
  ``norm`` is layer normalisation, ``bnorm`` batch normalisation over the real positions (encoder only);
  ``dropout``; ``act`` an activation; ``id`` the identity;
* ``ff(n)``: :math:`\max(0, xW_1 + b_1)W_2 + b_2` with n hidden units; ``linear``: :math:`xW + b`;
* ``rnn``/``birnn``: a GRU or LSTM (``ChainConfig.cell``), the bidirectional one d/2 per direction;
* ``cnn(k)``: a gated convolution, :math:`\mathrm{GLU}(\mathrm{conv}_k(x)) = A \otimes \sigma(B)`
  (Gehring et al. 2017), centred in the encoder and looking only left in the decoder;
* ``[mh_]dot_self_att``, ``[mh_]dot_src_att``: :class:`~minimodels.attention.MultiHeadAttention` with ``h``
  heads (one for the ``dot_`` ones). In the decoder, self-attention is causal (masked).

``repeat(n, l)`` builds n *independent* copies of ``l`` (their own weights), ``res(l)`` is :math:`x + l(x)`,
``highway(l)`` is :math:`t \odot l(x) + (1 - t) \odot x` with :math:`t = \sigma(xW_t + b_t)` (Srivastava et al.
2015), ``parallel(l_1 | l_2)`` is :math:`[l_1(x); l_2(x)]W + b` and ``parallel_add(l_1 | l_2)`` is
:math:`l_1(x) + l_2(x)`.
With the same sizes, the pre-LN Transformer chains (:data:`TRANSFORMER_ENCODER`, :data:`TRANSFORMER_DECODER`)
have exactly :class:`~minimodels.transformer.TinyTransformer`'s parameters.

The model speaks ``minimodels.models``'s protocol, so ``train.train`` and ``decode.greedy`` drive it. Attention
maps are named like a TinyTransformer's: the i-th self-attention layer of a side is ``"encoder.{i}.self"``
``(B, h, S, S)`` / ``"decoder.{i}.self"`` ``(B, h, T, T)``, the i-th source attention ``"decoder.{i}.cross"``
``(B, h, T, S)``. A decoder step re-runs the whole prefix (an RNN's or a CNN's state would need a cache of its
own; the sequences here are a few dozen tokens).

Letters: B batch, S source positions, T target positions, d d_model, h heads, V target vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..attention import MultiHeadAttention, causal_mask, padding_mask
from ..models import ModelOutput, StepOutput
from ..positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding
from ..transformer import FeedForward, TransformerMemory
from .language import (
    LIMITS,
    Chain,
    ChainError,
    Highway,
    Layer,
    Limits,
    Parallel,
    Repeat,
    Residual,
    parse_chain,
    walk,
)

__all__ = [
    "TRANSFORMER_ENCODER",
    "TRANSFORMER_DECODER",
    "CELLS",
    "MAX_PARAMETERS",
    "ChainConfig",
    "ChainModel",
    "chain_parameters",
    "check_config",
]

TRANSFORMER_ENCODER = "pos->repeat(2,res(norm->mh_dot_self_att)->res(norm->ff))->norm"
TRANSFORMER_DECODER = "pos->repeat(2,res(norm->mh_dot_self_att)->res(norm->mh_dot_src_att)->res(norm->ff))->norm"
CELLS = ("gru", "lstm")
MAX_PARAMETERS = 2_000_000  # a whole model, embeddings included: ~8 MB of float32, trains on one core
SOURCE_ATTENTION = ("dot_src_att", "mh_dot_src_att")


@dataclass(frozen=True)
class ChainConfig:
    """How a :class:`ChainModel` is built. Tiny defaults: a 2-layer Transformer that learns ``dates`` in seconds."""

    encoder: str = TRANSFORMER_ENCODER  # the encoder's chain, in the paper's language
    decoder: str = TRANSFORMER_DECODER  # the decoder's chain; it must contain a source attention
    source_vocab_size: int = 64  # source token ids, specials included
    target_vocab_size: int = 64  # target token ids, specials included
    d_model: int = 64  # d, the size of every vector between layers
    n_heads: int = 4  # heads of an mh_* layer written without (h)
    d_ff: int = 128  # hidden width of ff written without (n)
    kernel_width: int = 3  # width of a cnn written without (k)
    cell: str = "gru"  # rnn and birnn: "gru" | "lstm"
    dropout: float = 0.1  # rate of the dropout layers the chains name (none are added behind your back)
    max_len: int = 128  # longest source or target that pos covers


# ---------------------------------------------------------------------------------------- checks, counts
def _heads(layer: Layer, config: ChainConfig) -> int:
    if layer.name.startswith("mh_"):
        return layer.option or config.n_heads
    return 1


def _gates(config: ChainConfig) -> int:
    return 3 if config.cell == "gru" else 4


def _layer_parameters(layer: Layer, config: ChainConfig) -> int:
    """Parameters of one layer, counted from the sizes alone (nothing is built)."""
    d, name = config.d_model, layer.name
    if name in ("pos", "dropout", "act", "id"):
        return 0
    if name == "learn_pos":
        return config.max_len * d
    if name in ("norm", "bnorm"):
        return 2 * d
    if name == "ff":
        hidden = layer.option or config.d_ff
        return d * hidden + hidden + hidden * d + d
    if name == "linear":
        return d * d + d
    if name in ("rnn", "birnn"):
        directions = 2 if name == "birnn" else 1
        hidden = d // directions
        return directions * _gates(config) * (d * hidden + hidden * hidden + 2 * hidden)
    if name == "cnn":
        return 2 * d * d * (layer.option or config.kernel_width) + 2 * d
    return 4 * (d * d + d)  # attention: W_q, W_k, W_v, W_o


def chain_parameters(chain: Chain, config: ChainConfig) -> int:
    """Parameters of a chain, repeats counted by multiplication (so a huge request is refused unbuilt)."""
    total = 0
    for node in chain:
        if isinstance(node, Repeat):
            total += node.count * chain_parameters(node.body, config)
        elif isinstance(node, Residual):
            total += chain_parameters(node.body, config)
        elif isinstance(node, Highway):  # the gate's W_t, b_t
            total += config.d_model * config.d_model + config.d_model + chain_parameters(node.body, config)
        elif isinstance(node, Parallel):  # concatenation: a linear map from k·d back to d
            merge = 0 if node.add else len(node.branches) * config.d_model**2 + config.d_model
            total += merge + sum(chain_parameters(branch, config) for branch in node.branches)
        else:
            total += _layer_parameters(node, config)
    return total


def check_config(config: ChainConfig, limits: Limits = LIMITS, max_parameters: int = MAX_PARAMETERS):
    """Parse and check both chains for ``config``'s sizes; returns ``(encoder, decoder, parameters)``.

    Raises :class:`ChainError` for anything that cannot or must not be built, before any weight exists.
    """
    if config.cell not in CELLS:
        raise ChainError(f"cell must be one of {', '.join(CELLS)}, not {config.cell!r}")
    if not 0.0 <= config.dropout < 1.0:
        raise ChainError(f"dropout must be in [0, 1), not {config.dropout}")
    if not 2 <= config.d_model <= 512 or config.d_model % 2:
        raise ChainError(f"d_model must be even and 2–512, not {config.d_model}")
    chains = {}
    for side, text in (("encoder", config.encoder), ("decoder", config.decoder)):
        try:
            chain = parse_chain(text, side, limits)
        except ChainError as error:
            raise ChainError(error.reason, error.position, text, side) from None
        for layer in walk(chain):
            heads = _heads(layer, config)
            if "att" in layer.name and config.d_model % heads:
                divisors = ", ".join(str(h) for h in range(1, 17) if config.d_model % h == 0)
                message = (
                    f"{layer.name} has {heads} heads, which do not divide d_model {config.d_model}; "
                    f"expected one of {divisors}"
                )
                raise ChainError(message, layer.position, text, side)
        chains[side] = chain
    if not any(layer.name in SOURCE_ATTENTION for layer in walk(chains["decoder"])):
        raise ChainError("it never reads the source; add dot_src_att or mh_dot_src_att", side="decoder")
    embeddings = (config.source_vocab_size + 2 * config.target_vocab_size) * config.d_model + config.target_vocab_size
    parameters = embeddings + sum(chain_parameters(c, config) for c in chains.values())
    if parameters > max_parameters:
        raise ChainError(f"the model would have {parameters:,} parameters; at most {max_parameters:,} are built")
    return chains["encoder"], chains["decoder"], parameters


# -------------------------------------------------------------------------------------------------- layers
@dataclass
class _Context:
    """What a layer may need besides its input: the masks and, in the decoder, the encoder's output."""

    mask: torch.Tensor | None  # (B, T) True at real positions (encoder); None in the decoder (padding is last)
    lengths: torch.Tensor | None  # (B,) real positions per row (encoder)
    causal: bool  # True in the decoder: no layer may read a later position
    memory: torch.Tensor | None = None  # (B, S, d) the encoder's output (decoder only)
    memory_mask: torch.Tensor | None = None  # (B, S) True at real source positions


Maps = dict[str, torch.Tensor]


class _Plain(nn.Module):
    """A layer that maps each position on its own: norm, dropout, ff, linear, pos."""

    def __init__(self, module: nn.Module):
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        return self.module(x), {}


class _Recurrent(nn.Module):
    """``rnn`` / ``birnn``: a GRU or LSTM over the sequence (packed in the encoder, so padding is never read)."""

    def __init__(self, config: ChainConfig, bidirectional: bool):
        super().__init__()
        cls = nn.GRU if config.cell == "gru" else nn.LSTM
        hidden = config.d_model // 2 if bidirectional else config.d_model
        self.rnn = cls(config.d_model, hidden, batch_first=True, bidirectional=bidirectional)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        if ctx.lengths is None:  # decoder: left to right, and padding comes after every real token
            return self.rnn(x)[0], {}
        packed = pack_padded_sequence(x, ctx.lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = pad_packed_sequence(self.rnn(packed)[0], batch_first=True, total_length=x.size(1))
        return out, {}  # (B, S, d)


class _GatedConvolution(nn.Module):
    """``cnn(k)``: a width-k convolution to 2d channels, halved by a gated linear unit (GLU)."""

    def __init__(self, config: ChainConfig, width: int):
        super().__init__()
        self.width = width
        self.conv = nn.Conv1d(config.d_model, 2 * config.d_model, width)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        if ctx.mask is not None:
            x = x * ctx.mask.unsqueeze(-1)  # padding reads as zeros, like the edges
        k = self.width
        pad = (k - 1, 0) if ctx.causal else ((k - 1) // 2, k // 2)  # the decoder looks only left
        h = F.pad(x.transpose(1, 2), pad)  # (B, d, (k - 1) + T)
        return F.glu(self.conv(h), dim=1).transpose(1, 2), {}  # (B, 2d, T) -> (B, d, T) -> (B, T, d)


class _Attention(nn.Module):
    """Self-attention (causal in the decoder) or attention to the source; returns its weights by name."""

    def __init__(self, config: ChainConfig, heads: int, source: bool, name: str):
        super().__init__()
        self.attention = MultiHeadAttention(config.d_model, heads)
        self.source = source
        self.name = name  # the map's key, e.g. "decoder.0.cross" (a label, not a weight: nothing is stored)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        if self.source:
            out, weights = self.attention(x, ctx.memory, ctx.memory, ctx.memory_mask[:, None, None, :])
        elif ctx.causal:
            out, weights = self.attention(x, x, x, causal_mask(x.size(1), device=x.device))  # (T, T) mask
        else:
            out, weights = self.attention(x, x, x, ctx.mask[:, None, None, :])  # (B, 1, 1, S) mask
        return out, {self.name: weights}  # (B, T, d), (B, h, T, ·)


class _Sequence(nn.Module):
    """A chain: each layer reads the previous one's output."""

    def __init__(self, layers: list[nn.Module]):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        maps: Maps = {}
        for layer in self.layers:
            x, new = layer(x, ctx)
            maps.update(new)
        return x, maps


class _Residual(nn.Module):
    """``res(l)``: :math:`x + l(x)`."""

    def __init__(self, body: _Sequence):
        super().__init__()
        self.body = body

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        out, maps = self.body(x, ctx)
        return x + out, maps


class _BatchNorm(nn.Module):
    """``bnorm``: batch normalisation of each feature over the batch's real positions (padding is left out of the
    statistics and stays zero). Encoder only: in a decoder the statistics would carry later tokens."""

    def __init__(self, d: int):
        super().__init__()
        self.norm = nn.BatchNorm1d(d)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        out = torch.zeros_like(x)  # (B, S, d)
        out[ctx.mask] = self.norm(x[ctx.mask])  # (N, d): the N real positions of the batch
        return out, {}


class _Highway(nn.Module):
    r"""``highway(l)``: :math:`t \odot l(x) + (1 - t) \odot x`, :math:`t = \sigma(xW_t + b_t)` (Srivastava et al.
    2015). The gate's bias starts at -1, so the block starts close to carrying its input on."""

    def __init__(self, body: _Sequence, d: int):
        super().__init__()
        self.body = body
        self.gate = nn.Linear(d, d)
        nn.init.constant_(self.gate.bias, -1.0)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        out, maps = self.body(x, ctx)
        t = torch.sigmoid(self.gate(x))  # (B, T, d)
        return t * out + (1 - t) * x, maps


class _Parallel(nn.Module):
    """``parallel(l1 | l2 …)``: every branch reads the same input; their outputs are concatenated and mapped back
    to d by a linear layer, or summed (``parallel_add``)."""

    def __init__(self, branches: list[_Sequence], d: int, add: bool):
        super().__init__()
        self.branches = nn.ModuleList(branches)
        self.merge = None if add else nn.Linear(len(branches) * d, d)

    def forward(self, x: torch.Tensor, ctx: _Context) -> tuple[torch.Tensor, Maps]:
        outs, maps = [], {}
        for branch in self.branches:
            out, new = branch(x, ctx)
            outs.append(out)
            maps.update(new)
        if self.merge is None:
            return torch.stack(outs).sum(0), maps
        return self.merge(torch.cat(outs, dim=-1)), maps  # (B, T, k·d) -> (B, T, d)


_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "gelu": nn.GELU}


def _build_layer(layer: Layer, side: str, config: ChainConfig, counts: dict[str, int]) -> nn.Module:
    d, name = config.d_model, layer.name
    if name == "pos":
        return _Plain(SinusoidalPositionalEncoding(d, config.max_len))
    if name == "learn_pos":
        return _Plain(LearnedPositionalEmbedding(config.max_len, d))
    if name == "norm":
        return _Plain(nn.LayerNorm(d))
    if name == "bnorm":
        return _BatchNorm(d)
    if name == "dropout":
        return _Plain(nn.Dropout(config.dropout))
    if name == "act":
        return _Plain(_ACTIVATIONS[layer.option or "relu"]())
    if name == "id":
        return _Plain(nn.Identity())
    if name == "ff":
        return _Plain(FeedForward(d, layer.option or config.d_ff))
    if name == "linear":
        return _Plain(nn.Linear(d, d))
    if name in ("rnn", "birnn"):
        return _Recurrent(config, bidirectional=name == "birnn")
    if name == "cnn":
        return _GatedConvolution(config, layer.option or config.kernel_width)
    kind = "cross" if name in SOURCE_ATTENTION else "self"
    map_name = f"{side}.{counts[kind]}.{kind}"
    counts[kind] += 1
    return _Attention(config, _heads(layer, config), source=kind == "cross", name=map_name)


def _build(chain: Chain, side: str, config: ChainConfig, counts: dict[str, int]) -> _Sequence:
    modules: list[nn.Module] = []
    for node in chain:
        if isinstance(node, Repeat):
            modules.extend(_build(node.body, side, config, counts) for _ in range(node.count))
        elif isinstance(node, Residual):
            modules.append(_Residual(_build(node.body, side, config, counts)))
        elif isinstance(node, Highway):
            modules.append(_Highway(_build(node.body, side, config, counts), config.d_model))
        elif isinstance(node, Parallel):
            branches = [_build(branch, side, config, counts) for branch in node.branches]
            modules.append(_Parallel(branches, config.d_model, node.add))
        else:
            modules.append(_build_layer(node, side, config, counts))
    return _Sequence(modules)


# --------------------------------------------------------------------------------------------------- model
@dataclass
class ChainState:
    """Step-by-step decoding keeps the tokens fed so far; each step re-runs the decoder over them."""

    prefix: torch.Tensor | None  # (B, t) tokens fed so far, BOS first; None before the first step

    def select(self, index: torch.Tensor) -> ChainState:
        return ChainState(None if self.prefix is None else self.prefix.index_select(0, index))


class ChainModel(nn.Module):
    """Source embedding → encoder chain; target embedding → decoder chain → linear → scores. See the docstring.

    Raises :class:`~minimodels.chains.language.ChainError` (nothing built) for a chain that is malformed, too
    large, or whose decoder never reads the source.
    """

    kind = "chain"

    def __init__(self, config: ChainConfig, limits: Limits = LIMITS, max_parameters: int = MAX_PARAMETERS):
        super().__init__()
        encoder, decoder, _ = check_config(config, limits, max_parameters)
        self.config = config
        d = config.d_model
        self.source_embedding = nn.Embedding(config.source_vocab_size, d)
        self.target_embedding = nn.Embedding(config.target_vocab_size, d)
        self.encoder = _build(encoder, "encoder", config, {"self": 0, "cross": 0})
        counts = {"self": 0, "cross": 0}
        self.decoder = _build(decoder, "decoder", config, counts)
        self.out = nn.Linear(d, config.target_vocab_size)
        self.main_map = f"decoder.{counts['cross'] - 1}.cross"  # the last source attention: what a page draws

    def encode(self, source: torch.Tensor, source_lengths: torch.Tensor) -> TransformerMemory:
        """Run the encoder chain over ``source (B, S)`` (PAD-padded; lengths ``(B,)`` count EOS)."""
        lengths = source_lengths.to(source.device)
        mask = padding_mask(lengths, source.size(1))  # (B, S)
        x, maps = self.encoder(self.source_embedding(source), _Context(mask, lengths, causal=False))  # (B, S, d)
        return TransformerMemory(states=x, mask=mask, attention=maps)

    def decode(self, target_in: torch.Tensor, memory: TransformerMemory) -> tuple[torch.Tensor, Maps]:
        """The decoder chain over ``target_in (B, T)`` (BOS + target); logits ``(B, T, V)`` and its maps."""
        ctx = _Context(None, None, causal=True, memory=memory.states, memory_mask=memory.mask)
        y, maps = self.decoder(self.target_embedding(target_in), ctx)  # (B, T, d)
        return self.out(y), maps  # (B, T, V)

    def forward(self, source: torch.Tensor, source_lengths: torch.Tensor, target_in: torch.Tensor) -> ModelOutput:
        """Teacher-forced pass: logits ``(B, T, V)`` and every attention layer's weights, named."""
        memory = self.encode(source, source_lengths)
        logits, maps = self.decode(target_in, memory)
        return ModelOutput(logits, {**memory.attention, **maps})

    # ---------------------------------------------------------------------- step-by-step decoding
    def initial_state(self, memory: TransformerMemory) -> ChainState:
        return ChainState(None)

    @staticmethod
    def select_state(state: ChainState, index: torch.Tensor) -> ChainState:
        return state.select(index)

    def step(
        self,
        prev_tokens: torch.Tensor,
        state: ChainState,
        memory: TransformerMemory,
        attention_override: torch.Tensor | None = None,
    ) -> StepOutput:
        """Feed ``prev_tokens (B,)`` and predict the next token, re-running the decoder over the prefix.

        Every layer is causal, so the earlier positions come out as they did; only the newest row is returned:
        ``"decoder.{i}.self"`` ``(B, h, t)``, ``"decoder.{i}.cross"`` ``(B, h, S)``.
        """
        if attention_override is not None:
            raise ValueError("attention_override is supported by Seq2Seq only (one attention map per step)")
        fed = prev_tokens.unsqueeze(1)  # (B, 1)
        prefix = fed if state.prefix is None else torch.cat([state.prefix, fed], dim=1)  # (B, t)
        logits, maps = self.decode(prefix, memory)  # (B, t, V)
        rows = {name: weights[:, :, -1] for name, weights in maps.items()}  # the newest position's rows
        return StepOutput(logits[:, -1], ChainState(prefix), rows)
