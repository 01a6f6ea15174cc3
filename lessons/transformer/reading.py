"""The model reading the student's sentence, which every section of the page shows.

The page's top picks a task and its trained model (shipped, the student's own, or one trained in section 7), takes a
sentence, refuses one the model cannot read (:func:`parse_sentence`), and translates it greedily keeping every
attention map (:func:`walk`). Sections 1 and 2 draw that :class:`Walk`; section 3 walks the lecture's "I see it";
the exercises walk the task's probe sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import torch
from torch import nn

from lessons.transformer.maps import KIND, Kind, map_name
from minimodels.decode import Translation, translate
from minimodels.tasks import Task, get_task
from minimodels.transformer import TransformerConfig

MODEL = "transformer"
TASKS = {
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}
DEFAULT_TEXT = {"toy-translation": "I see it", "dates": "Sunday, November 22, 2026"}


def _shape(model: nn.Module) -> str:
    """A model's layers, heads and sizes, and the parts an ablation took out of it."""
    c = model.config
    parts = {"residual": c.residual, "layer norm": c.layer_norm, "feed-forward": c.feed_forward}
    removed = [name for name, kept in parts.items() if not kept]
    without = f", without {' or '.join(removed)} sublayers" if removed else ""
    return (
        f"{c.encoder_layers} encoder and {c.decoder_layers} decoder layers, {c.n_heads} heads, d_model {c.d_model}, "
        f"d_ff {c.d_ff}{without}, {sum(p.numel() for p in model.parameters()):,} parameters"
    )


def shipped_note(model: nn.Module, info: Mapping) -> str:
    """The caption under the model picker: the shipped model's shape and how it was trained."""
    training = info.get("training", {})
    return (
        f"Shipped model: {_shape(model)}, trained {training.get('seconds', 0):.0f} s ({training.get('steps', '?')} "
        f"steps) on one CPU thread to {training.get('test_exact_match', 0):.1%} exact match on held-out test "
        "sentences."
    )


def model_note(model: nn.Module, shipped: nn.Module, info: Mapping, last=None) -> str:
    """The caption under the model picker, of the model the sections show: the shipped one's (:func:`shipped_note`),
    or the student's own, with its run's last report (``minimodels.train.Progress``: steps, seconds, exact match on
    the held-out sentences it was checked on) when there is one."""
    if model is shipped:
        return shipped_note(shipped, info)
    if last is None:
        return f"Your model, trained on this page: {_shape(model)}."
    return (
        f"Your model, trained on this page: {_shape(model)}, trained {last.seconds:.0f} s ({last.step} steps) to "
        f"{last.exact_match:.1%} exact match on the held-out sentences checked during its training."
    )


SPACE = "␣"  # a space character as an axis label (a blank tick label would be invisible)


def display_token(token: str) -> str:
    return SPACE if token == " " else token


@dataclass(frozen=True)
class ParsedSentence:
    """What ``ui.sentence_input`` keeps: the words of a sentence the model can read, or why not."""

    tokens: tuple[str, ...]
    error: str | None = None


def parse_sentence(task_name: str | Task, text: str) -> ParsedSentence:
    """The student's text as words, refused (with the reason) when it is empty or longer than the model reads.

    Unknown characters are allowed: the model sees them as ``<unk>`` and the page says so. ``task_name``: a task's
    name, or the task itself (a student's own data, ``minimodels.own_data.PairsTask``).
    """
    words = tuple(text.split()) if isinstance(text, str) else ()
    if not words:
        return ParsedSentence((), "Type a sentence first.")
    task = get_task(task_name) if isinstance(task_name, str) else task_name
    encoded = task.encode_source(" ".join(words))
    if encoded.truncated:
        return ParsedSentence(
            (),
            f"That is more than {task.max_source_len} tokens for this model: it reads at most "
            f"{task.max_source_len}, the longest sentence it was trained on.",
        )
    return ParsedSentence(words)


def parser(task_name: str | Task):
    """``parse(text)`` for ``ui.sentence_input`` on ``task_name`` (a name or a task)."""
    return partial(parse_sentence, task_name)


@dataclass(frozen=True)
class Walk:
    """One sentence through a trained model, greedily decoded, with every attention map it computed."""

    text: str
    translation: Translation
    maps: dict[str, np.ndarray]  # name -> (h, rows, columns); see maps.KINDS for what rows and columns are
    config: TransformerConfig

    @property
    def source(self) -> list[str]:
        """One label per source position, ``</s>`` last."""
        return [display_token(p) for p in self.translation.source_pieces]

    @property
    def output(self) -> list[str]:
        """One label per decoded position: the token it wrote (``</s>`` last when the model ended)."""
        return [display_token(p) for p in self.translation.target_pieces]

    @property
    def fed(self) -> list[str]:
        """What each decoder position was fed: ``<s>``, then every token written before it."""
        return ["<s>", *self.output[:-1]]

    def labels(self, kind: Kind | str) -> tuple[list[str], list[str]]:
        """``(row labels, column labels)`` of a map of ``kind``."""
        kind = KIND[kind] if isinstance(kind, str) else kind
        if kind.key == "encoder_self":
            return self.source, self.source
        if kind.key == "decoder_self":
            return self.fed, self.fed
        return self.output, self.source

    def weights(self, kind: Kind | str, layer: int) -> np.ndarray:
        """``(h, rows, columns)`` weights of ``kind`` in ``layer`` (0-based)."""
        return self.maps[map_name(kind, layer)]


@torch.inference_mode()
def walk(model: nn.Module, task: Task, text: str) -> Walk | str:
    """Translate ``text`` greedily and keep every map; a message for the student when there is nothing to read."""
    result = translate(model, task, text)
    if not result.source_pieces:
        return result.message or "Type a sentence first."
    maps = {name: w.float().numpy() for name, w in result.attention.items()}  # (h, rows, columns)
    return Walk(text, result, maps, model.config)
