"""Reading a trained Transformer of this lesson, shared by sections 2 and 3: one sentence through the model with
every head's map kept (:func:`read_sentence`), the attention sublayers' names in reading order, each head's
agreement with the gold alignment, and the model's size.

Letters: S source tokens, T output tokens, h heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common.reading import ReadsSentence
from minimodels.decode import Translation, translate
from minimodels.tasks import Task, get_task
from minimodels.train import alignment_accuracy

MODEL = "transformer"  # the kind of pretrained model every section reads (a TinyTransformer)
KINDS = {
    "all": "every sublayer",
    "encoder": "encoder self-attention",
    "decoder": "decoder self-attention",
    "cross": "cross-attention",
}


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


def read_text(model: nn.Module, task_name: str | Task, text: str) -> Reading | str:
    """:func:`read_sentence` by the task's name (what the page caches for the shipped model), or by the task itself
    (a student's own data)."""
    return read_sentence(model, get_task(task_name) if isinstance(task_name, str) else task_name, text)


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


def task_alignment(model: nn.Module, task_name: str) -> dict[str, list[float]]:
    """:func:`head_alignment` by the task's name (what the page caches for the shipped model)."""
    return head_alignment(model, get_task(task_name))


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
