"""Section 1, write an encoder and a decoder: both chains parsed and size-checked for a task (a message, never an
exception, for anything a student typed), the model built from a seed, its parameters and attention layers
counted, and the maps of the untrained model on the task's probe.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import torch

from lessons.architecture_lab.attention_maps import MapView, map_views, probe_tokens
from minimodels.chains import ChainConfig, ChainError, ChainModel, check_config
from minimodels.chains.language import Chain, Highway, Layer, Parallel, Repeat, Residual
from minimodels.chains.model import _layer_parameters
from minimodels.tasks import Task, get_task, make_batch

TITLE = "1 · Write an encoder and a decoder"
TEXT = (
    "Start from one of the paper's combinations, made small (2 layers, d = 64), or write your own. The presets "
    "follow the paper's recipe: a Transformer whose self-attention sublayer is replaced by an RNN or a CNN."
)

TASKS = ("copy", "reverse", "dates", "toy-translation")
SIDES = ("encoder", "decoder")


@dataclass(frozen=True)
class Checked:
    """Both chains checked for a task, before anything is built."""

    config: ChainConfig | None  # None when the chains cannot be built
    parameters: int | None
    error: str | None  # the parser's or the size check's message
    encoder: Chain = ()
    decoder: Chain = ()
    side: str = ""  # the chain the error is in ("" for the model as a whole, e.g. too many parameters)
    line: int | None = None  # where in that chain's text (1-based), when the error has a place
    column: int | None = None


def chain_config(encoder: str, decoder: str, task: Task, cell: str = "gru") -> ChainConfig:
    """The config of a model for ``task``: its vocabularies, positions for its longest sentences, d = 64."""
    longest = max(task.max_source_len, 2 * task.max_target_len) + 2  # room for EOS and long outputs
    return ChainConfig(
        encoder=encoder,
        decoder=decoder,
        source_vocab_size=task.source_tokenizer.vocab_size,
        target_vocab_size=task.target_tokenizer.vocab_size,
        cell=cell,
        max_len=max(ChainConfig.max_len, longest),
    )


def check(encoder: str, decoder: str, task: Task, cell: str = "gru") -> Checked:
    """Parse and size-check both chains; a message instead of an exception for anything a student typed."""
    config = chain_config(encoder, decoder, task, cell)
    try:
        enc, dec, parameters = check_config(config)
    except ChainError as error:
        return Checked(None, None, str(error), side=error.side, line=error.line, column=error.column)
    return Checked(config, parameters, None, enc, dec)


def attention_layers(chain: Chain) -> int:
    """Attention layers once repeats are unrolled: one map each."""
    total = 0
    for node in chain:
        if isinstance(node, Repeat):
            total += node.count * attention_layers(node.body)
        elif isinstance(node, Parallel):
            total += sum(attention_layers(branch) for branch in node.branches)
        elif isinstance(node, Residual | Highway):
            total += attention_layers(node.body)
        else:
            total += "att" in node.name
    return total


def caret(text: str, line: int, column: int) -> str:
    """The line of ``text`` the error is on, with a ``^`` under the column (to be shown as code, verbatim)."""
    shown = text.split("\n")[line - 1]
    return f"{shown}\n{' ' * (column - 1)}^"


_BUILD_LOCK = threading.Lock()  # a seeded build borrows torch's global RNG; one thread at a time


def build(config: ChainConfig, seed: int = 0) -> ChainModel:
    """A fresh :class:`ChainModel`, its initial weights drawn from ``seed`` (same seed, same weights)."""
    with _BUILD_LOCK, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return ChainModel(config)


def parameter_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def layer_parameters(name: str, config: ChainConfig | None = None) -> int:
    """One layer's parameters at ``config``'s sizes (the course's defaults: d = 64, d_ff = 128, 4 heads)."""
    return _layer_parameters(Layer(name), config or ChainConfig())


@torch.inference_mode()
def untrained_views(model: ChainModel, task: Task) -> list[MapView]:
    """Every map of a freshly built (untrained) model on the task's probe, teacher forced: the starting point."""
    example = task.probe or task.valid[0]
    batch = make_batch([example], task)
    model.eval()
    out = model(batch.source, batch.source_lengths, batch.target_in)
    source_tokens, target_tokens = probe_tokens(task)
    return map_views({k: v[0].numpy() for k, v in out.attention.items()}, source_tokens, target_tokens)


UNTRAINED_TITLE = "UNTRAINED (random weights, seed 0): every attention layer on the task's example"

UNTRAINED_CAPTION = (  # under the untrained maps of :func:`untrained_maps`
    "Rows attend to columns; multi-head maps are averaged over heads. Untrained attention is close to uniform over "
    "what each row may see (the decoder's self-attention: only earlier tokens). Train the model below to watch the "
    "maps take shape."
)


def untrained_maps(encoder: str, decoder: str, task_name: str, cell: str = "gru", seed: int = 0) -> list[MapView]:
    """The maps of a freshly built model of these chains on the task's probe (a new model each time: nothing
    shared is ever trained); ``ValueError`` when the chains cannot be built."""
    task = get_task(task_name)
    checked = check(encoder, decoder, task, cell)
    if checked.config is None:
        raise ValueError(checked.error)
    return untrained_views(build(checked.config, seed), task)
