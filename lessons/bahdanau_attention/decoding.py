"""The sentence every section reads: the task, the shipped model of each task, its greedy (or beam, or forced)
decoding of the student's sentence with what each output step looked at, and the caption that says which model it
is (the shipped one or the student's own)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common.reading import ReadsSentence
from minimodels.decode import Translation, translate
from minimodels.tasks import Task, lecture_examples
from minimodels.tokenizers import EOS_ID

MODEL = "gru-additive"
TASKS = {
    "toy-translation-it": "English → Italian-like (“I like pizza”)",
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}


def default_text(task_name: str) -> str:
    """The lecture's sentence for the translation tasks; a date written out for ``dates``."""
    if task_name == "toy-translation-it":
        return lecture_examples("it")[0].source
    if task_name == "toy-translation":
        return next(ex.source for ex in lecture_examples("fr") if "Africa" in ex.source)
    return "Sunday, November 22, 2026"


@dataclass(frozen=True)
class Decoding(ReadsSentence):
    """One sentence through the model, with what each step looked at."""

    translation: Translation
    weights: np.ndarray  # (T, S) α: row t is the attention used to write output token t
    contexts: np.ndarray  # (T, D) c_t = Σ_t' α_{t,t'} h_t'
    states: np.ndarray  # (S, D) the encoder states h_i the contexts are sums of


@torch.inference_mode()
def decode(
    model: nn.Module,
    task: Task,
    text: str,
    *,
    method: str = "greedy",
    width: int = 1,
    force: tuple[int, int] | None = None,
) -> Decoding | str:
    """Translate ``text``; returns the decoding, or a message for the student when the text is unusable.

    ``force=(step, source_index)`` replaces the attention of decoder step ``step`` with a one-hot row on
    source token ``source_index`` (greedy only): the "what if" experiment.
    """
    override = {force[0]: force[1]} if force else None
    result = translate(model, task, text, method=method, width=width, attention_override=override)
    if not result.source_pieces:
        return result.message or "Type a sentence first."
    weights = result.attention["cross"].float().numpy()  # (T, S)
    encoded = task.encode_source(text)
    source = torch.tensor([[*encoded.ids, EOS_ID]])  # (1, S)
    states = model.encode(source, torch.tensor([source.size(1)])).states[0]  # (S, D)
    contexts = (torch.from_numpy(weights) @ states).numpy()  # (T, S) @ (S, D) -> (T, D)
    return Decoding(result, weights, contexts, states.numpy())


def most_attended(decoding: Decoding, step: int) -> str:
    """The source token that output step ``step`` attends to most."""
    return decoding.source[int(decoding.weights[step].argmax())]


def shipped_caption(model: nn.Module, info: dict) -> str:
    """What the shipped model is, read off the model and its checkpoint's training record."""
    training = info.get("training", {})
    return (
        f"Shipped model: {model.config.describe()}; {sum(p.numel() for p in model.parameters()):,} "
        f"parameters, trained {training.get('seconds', 0):.0f} s ({training.get('steps', '?')} steps) to "
        f"{training.get('exact_match', 0):.0%} held-out exact match."
    )


def model_caption(model: nn.Module, shipped: nn.Module, info: dict) -> str:
    """The label of the model the sections use: the shipped one's caption, or the student's own model's."""
    if model is shipped:
        return shipped_caption(shipped, info)
    parameters = sum(p.numel() for p in model.parameters())
    return f"Your model, trained on this page: {model.config.describe()}; {parameters:,} parameters."
