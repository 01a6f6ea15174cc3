"""The check-yourself exercises at the page's end, every answer computed by code.

Four on the model (:func:`model_exercises`): two counts on the paper's base model, whose numbers the page never shows,
one map's size on the shipped model's probe sentence, and what the causal mask zeroes. Two computed by hand
(:func:`hand_exercises`): how far a weighted average of value vectors can reach (section 4's convex combination) and
a two-step beam search (section 6). The predictions about the shipped results are asked in sections 4 and 5.
"""

from __future__ import annotations

from dataclasses import replace

from torch import nn

from lessons.common.exercises import Exercise
from lessons.transformer.maps import maps_per_sentence
from lessons.transformer.reading import walk
from minimodels.attention import causal_mask
from minimodels.tasks import Task
from minimodels.transformer import FeedForward, TransformerConfig


def feed_forward_parameters(config: TransformerConfig) -> int:
    """Parameters of one position-wise feed-forward network, counted on a module built from ``config``."""

    return sum(p.numel() for p in FeedForward(config.d_model, config.d_ff).parameters())


BASE = {"encoder_layers": 6, "decoder_layers": 6, "n_heads": 8, "d_model": 512, "d_ff": 2048}  # the paper's base


def model_exercises(model: nn.Module, task: Task) -> list[Exercise]:
    """The computations on a model, their answers computed by code: on the paper's base model (whose counts the page
    never shows, so none is read off it) and on ``model``'s probe sentence (the shipped model's, on the page)."""
    c = model.config
    base = replace(c, **BASE)
    maps = maps_per_sentence(base)
    probe = task.probe or task.valid[0]
    w = walk(model, task, probe.source)
    S, T = len(w.source), len(w.output)
    ffn = feed_forward_parameters(base)
    d, d_ff = base.d_model, base.d_ff
    return [
        Exercise(
            key="transformer.ex1",
            prompt=(
                f"The paper's base model has {base.encoder_layers} encoder layers, {base.decoder_layers} decoder "
                f"layers and {base.n_heads} heads in every attention sublayer. How many attention maps (one per layer, "
                "head and kind of attention) does it compute for one sentence?"
            ),
            answer=maps,
            explanation=(
                f"Encoder: {base.encoder_layers} layers × {base.n_heads} heads = {base.encoder_layers * base.n_heads} "
                f"self-attention maps. Decoder: each of its {base.decoder_layers} layers has two attention sublayers "
                f"(masked self-attention and encoder–decoder attention), so 2 × {base.decoder_layers} × {base.n_heads} "
                f"= {2 * base.decoder_layers * base.n_heads}. In all {maps}."
            ),
            hint="Each decoder layer has two attention sublayers, each encoder layer one.",
        ),
        Exercise(
            key="transformer.ex2",
            prompt=(
                f"The shipped model reads *{probe.source}* as {S - 1} source tokens plus `</s>`, and writes {T} "
                "output tokens for it (`</s>` included). How many weights are in **one head's** encoder–decoder "
                "attention map for it?"
            ),
            answer=int(w.weights("cross", 0)[0].size),
            explanation=(
                f"One row per output token written, one column per source token read, `</s>` included on both "
                f"sides: {T} × {S} = {T * S}. Each row is one softmax and sums to 1."
            ),
            hint="Rows: output tokens written. Columns: source tokens read.",
        ),
        Exercise(
            key="transformer.ex3",
            prompt=(
                f"How many parameters does one position-wise feed-forward network of the paper's base model have, "
                f"with d_model = {d} and d_ff = {d_ff}? (FFN(x) = max(0, xW₁ + b₁)W₂ + b₂)"
            ),
            answer=ffn,
            explanation=(
                f"W₁ is {d} × {d_ff} = {d * d_ff:,}, b₁ has {d_ff}, W₂ is {d_ff} × {d} = {d * d_ff:,}, b₂ has {d}: "
                f"2 · {d * d_ff:,} + {d_ff} + {d} = {ffn:,} (counted on `FeedForward({d}, {d_ff})`)."
            ),
            hint="Two weight matrices and two bias vectors.",
        ),
        Exercise(
            key="transformer.ex4",
            prompt=f"By hand: the decoder has written T = {MASKED_T} tokens. In its masked self-attention map (rows "
            "and columns: positions), how many of the weights **can** be other than 0?",
            answer=int(causal_mask(MASKED_T).sum()),
            explanation=f"Row t may read positions 1 … t; the causal mask sets the later ones to −∞ before the "
            f"softmax, and e^−∞ = 0, whatever the model learned. So row t has t weights that can be nonzero: "
            f"1 + 2 + … + {MASKED_T} = {MASKED_T}·{MASKED_T + 1}/2 = {int(causal_mask(MASKED_T).sum())}, the "
            "diagonal and below.",
            hint="What must a decoder not read while it writes position t? Count row by row.",
        ),
    ]


MASKED_T = 30  # ex4: longer than the page's sentences, so the map cannot be counted off a figure
BEAM_FIRST = {"A": 0.6, "B": 0.4}  # p(first token)
BEAM_SECOND = {"A": {"x": 0.5, "y": 0.5}, "B": {"x": 0.9, "y": 0.1}}  # p(second token | first), then </s> for sure


def two_step_beam(width: int) -> tuple[str, float]:
    """Beam search by hand on :data:`BEAM_FIRST` and :data:`BEAM_SECOND`: the output and its probability."""
    kept = sorted(BEAM_FIRST, key=BEAM_FIRST.get, reverse=True)[:width]
    outputs = {a + b: BEAM_FIRST[a] * p for a in kept for b, p in BEAM_SECOND[a].items()}
    best = max(outputs, key=outputs.get)  # a tie goes to the first in order, as an argmax does
    return best, outputs[best]


CONVEX_VALUES = ((2.0, -1.0), (0.0, 3.0), (-4.0, 1.0))  # three value vectors for the hand exercise


def hand_exercises() -> list[Exercise]:
    """The computations by hand of sections 4 and 6 (their numbers are not on the page): a weighted average's bound
    and a two-step beam search."""
    greedy_output, greedy_p = two_step_beam(1)
    beam_output, beam_p = two_step_beam(2)
    first = [v[0] for v in CONVEX_VALUES]
    vectors = ", ".join(f"v{'₁₂₃'[i]} = ({a:g}, {b:g})" for i, (a, b) in enumerate(CONVEX_VALUES))
    table = "; ".join(
        f"after {a}: " + ", ".join(f"p({b}) = {p:g}" for b, p in BEAM_SECOND[a].items()) for a in BEAM_SECOND
    )
    outputs = {a + b: BEAM_FIRST[a] * p for a in BEAM_FIRST for b, p in BEAM_SECOND[a].items()}
    return [
        Exercise(
            key="transformer.ex8",
            prompt=(
                f"One head's value vectors are {vectors}. Whatever scores the softmax turns into weights, what is the "
                "largest the *first* coordinate of the head's output z = Σⱼ αⱼ vⱼ can get (as close as you like)?"
            ),
            answer=max(first),
            tolerance=0.01,
            explanation=(
                f"The weights are ≥ 0 and sum to 1, so z's first coordinate is a weighted average of "
                f"{', '.join(f'{a:g}' for a in first)}: never above the largest, {max(first):g}, reached as the weight "
                "on that value goes to 1. No setting of the scores pushes an output beyond its values: attention "
                "mixes, it does not transform. The feed-forward network is what transforms each token."
            ),
            hint="An average with weights ≥ 0 that sum to 1 cannot leave the range of what it averages.",
        ),
        Exercise(
            key="transformer.ex9",
            prompt=(
                f"A decoder writes two tokens then </s>. First token: p(A) = {BEAM_FIRST['A']:g}, "
                f"p(B) = {BEAM_FIRST['B']:g}. Second: {table}. Greedy decoding writes {greedy_output} "
                f"(p = {greedy_p:g}). What is the probability of the output beam search of width 2 returns?"
            ),
            answer=round(beam_p, 6),
            tolerance=0.005,
            explanation=(
                "Width 2 keeps both first tokens and scores whole outputs, p(first) × p(second | first): "
                + ", ".join(f"{o} = {p:.2f}" for o, p in outputs.items())
                + f". The best is {beam_output}, p = {beam_p:.2f}, above greedy's {greedy_p:.2f}: greedy chose "
                "A because it was likelier *first*, and could not take it back."
            ),
            hint="Multiply along each path, for all four two-token outputs.",
        ),
    ]
