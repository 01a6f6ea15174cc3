r"""Lesson: Bahdanau (additive) attention, decoded one token at a time.

Follows the NLP lecture's "I like pizza" → "mi piace la pizza" and Bahdanau et al. 2015:

.. math:: e_{t,t'} = v^\top \tanh(W[s_{t-1}; h_{t'}]),\quad
          \alpha_{t,t'} = \mathrm{softmax}_{t'}(e_{t,t'}),\quad c_t = \sum_{t'} \alpha_{t,t'} h_{t'}

The model is ``minimodels.seq2seq.Seq2Seq`` with ``attention="additive"``, which attends with the previous
decoder state :math:`s_{t-1}` before each step, exactly as above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common import charts
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.common.reading import ReadsSentence
from minimodels.decode import Translation, translate
from minimodels.tasks import Task, get_task, lecture_examples
from minimodels.tokenizers import EOS_ID
from minimodels.train import TrainConfig, build_model, default_train_config, train

MODEL = "gru-additive"
TASKS = {
    "toy-translation-it": "English → Italian-like (“I like pizza”)",
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}
MAX_BEAM = 5


def default_text(task_name: str) -> str:
    """The lecture's sentence for the translation tasks; a date written out for ``dates``."""
    if task_name == "toy-translation-it":
        return lecture_examples("it")[0].source
    if task_name == "toy-translation":
        return next(ex.source for ex in lecture_examples("fr") if "Africa" in ex.source)
    return "Sunday, November 22, 2026"


# ------------------------------------------------------------------------------------------- decoding
@dataclass(frozen=True)
class Decoding(ReadsSentence):
    """One sentence through the model, with what each step looked at."""

    translation: Translation
    weights: np.ndarray  # (T, S) α: row t is the attention used to write output token t
    contexts: np.ndarray  # (T, D) c_t = Σ_t' α_{t,t'} h_t'


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
    return Decoding(result, weights, contexts)


def beam_rows(decoding: Decoding, task: Task) -> list[dict]:
    """The beam's finished hypotheses, best first: output text, log-probability and length."""
    beam = decoding.translation.beam
    if beam is None:
        return []
    return [
        {
            "rank": rank,
            "output": task.target_tokenizer.decode(h.tokens),
            "log p(y | x)": round(h.log_prob, 4),
            "tokens": len(h.tokens),
            "finished": h.finished,
        }
        for rank, h in enumerate(beam.hypotheses, start=1)
    ]


def most_attended(decoding: Decoding, step: int) -> str:
    """The source token that output step ``step`` attends to most."""
    return decoding.source[int(decoding.weights[step].argmax())]


def beam_note(beam: Decoding, greedy: Decoding) -> str:
    """Whether the beam's best hypothesis is the greedy output, said from the two decodings."""
    if beam.translation.text == greedy.translation.text:
        return "The best beam hypothesis is the greedy output."
    return "Beam search found a different output than greedy decoding."


def shipped_caption(model: nn.Module, info: dict) -> str:
    """What the shipped model is, read off the model and its checkpoint's training record."""
    training = info.get("training", {})
    return (
        f"Shipped model: GRU encoder–decoder with additive attention, {sum(p.numel() for p in model.parameters()):,} "
        f"parameters, trained {training.get('seconds', 0):.0f} s ({training.get('steps', '?')} steps) to "
        f"{training.get('exact_match', 0):.0%} held-out exact match."
    )


# -------------------------------------------------------------------------------------------- figures
def _alignment(weights, source: list[str], target: list[str], title: str):
    """An α heatmap: output tokens down, source tokens across, the exact α on hover."""
    return charts.attention_heatmap(
        weights, source, target, x_title="source token", y_title="output token", value_name="α", title=title
    )


def alignment_figure(decoding: Decoding, title: str):
    """The alignment of one decoding: row t is the α that wrote output token t."""
    return _alignment(decoding.weights, decoding.source, decoding.target, title)


def snapshot_figure(snapshot):
    """The alignment of the training run's fixed example at one report (``minimodels.train.Progress``)."""
    title = f"α on a fixed example after {snapshot.step} steps"
    return _alignment(snapshot.attention, snapshot.source_tokens, snapshot.target_tokens, title)


def step_figures(decoding: Decoding, t: int):
    """Decoder step ``t`` (1-based): the bars of its α over the source, and the strip of its context c_t."""
    alpha = charts.weight_bars(
        decoding.source, decoding.weights[t - 1], title=f"α at step {t} over the source", value_name="α"
    )
    context = charts.vector_strip(
        decoding.contexts[t - 1],
        [f"c_{t}"],
        title=f"context vector c_{t} (D = {decoding.contexts.shape[1]})",
        height=140,
    )
    return alpha, context


def additive_parameters(model: nn.Module) -> int:
    """Parameters of the score function alone: W_q, W_k (with its bias) and v."""
    return sum(p.numel() for p in model.attention.parameters())


# -------------------------------------------------------------------------------------- live training
def budget_seconds(task_name: str) -> float:
    """A student's training budget: the dates task learns in seconds, the translations need longer."""
    return 15.0 if task_name == "dates" else 90.0


def live_config(budget_seconds: float) -> TrainConfig:
    """The measured recipe for ``gru-additive`` (batch 128, Adam 1.25e-2 with the weights averaged, clipping at
    1: ``minimodels.train.default_train_config``), reporting often enough to watch."""
    return default_train_config(
        MODEL, max_seconds=budget_seconds, report_every=10, target_exact_match=0.98, threads=THREADS_PER_RUN
    )


def new_training(task_name: str, seed: int, budget_seconds: float):
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``."""
    task = get_task(task_name)
    model = build_model(MODEL, task, seed=seed)
    config = live_config(budget_seconds)
    return model, lambda on_progress: train(model, task, config, on_progress)


def new_run(task_name: str, seed: int, budget_seconds: float) -> TrainingRun:
    """One student's run, not yet started: a fresh model of their own and the thread that will train it."""
    model, train_fn = new_training(task_name, seed, budget_seconds)
    return TrainingRun(train_fn, model=model, name=f"bahdanau-{task_name}")


# ------------------------------------------------------------------------------------------ exercises
def exercises(model: nn.Module) -> list[Exercise]:
    """Questions about the shipped Italian-like model, their answers read off that model."""
    task = get_task("toy-translation-it")
    decoding = decode(model, task, default_text("toy-translation-it"))
    target = decoding.target
    pizza_step = next((t for t, piece in enumerate(target) if "pizza" in piece), len(target) - 1)
    looked_at = most_attended(decoding, pizza_step)
    choices = tuple(dict.fromkeys(decoding.source))  # distinct source pieces, in order
    D, A = model.config.decoder_size, model.config.attention_size
    return [
        Exercise(
            key="bahdanau_attention.ex1",
            prompt=(
                f"The shipped model translates *{default_text('toy-translation-it')}*. When it writes the output "
                f"token `{target[pizza_step]}`, which source token gets the largest α? (Decode step by step above "
                "to check.)"
            ),
            choices=choices,
            answer=choices.index(looked_at),
            explanation=f"Row {pizza_step + 1} of the heatmap peaks on `{looked_at}`.",
            hint="Step to that output token and read the α bars.",
        ),
        Exercise(
            key="bahdanau_attention.ex2",
            prompt=(
                f"The additive score is vᵀ tanh(W_q s + W_k h + b) with decoder and encoder states of size "
                f"D = {D} and a hidden layer of A = {A}. How many parameters does the score function have?"
            ),
            answer=additive_parameters(model),
            tolerance=0,
            explanation="W_q is A×D, W_k is A×D plus a bias of A, v has A entries: 2AD + 2A.",
        ),
        Exercise(
            key="bahdanau_attention.ex3",
            prompt="Every row of the alignment heatmap sums to…",
            choices=(
                "1, because α is a softmax over the source tokens",
                "the number of source tokens",
                "1, because α is a softmax over the output tokens",
                "anything: α is unnormalised",
            ),  # fmt: skip
            answer=0,
            explanation="α_{t,·} = softmax over t' (source positions), so each output step spreads exactly 1.",
            hint="Over which index does the softmax run?",
        ),
    ]
