"""Section 1, one output token at a time: Bahdanau's step computed by the model's own parts (the score e, the
weights α, the context c, the decoder state s and the next token's probabilities), shown step by step; and the
exercises on that step (a softmax and one additive score by hand, the score function's parameters)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.bahdanau_attention.decoding import Decoding
from lessons.bahdanau_attention.wording import as_code, as_tuple, percent
from lessons.common import charts
from lessons.common.exercises import Exercise
from minimodels.seq2seq import Seq2Seq
from minimodels.tasks import Task
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID

TITLE = "1 · One output token at a time"
TEXT = (
    "Each step below is computed by the chosen model's own parts (its score, its GRU cell, its output layer), "
    "on the tokens it wrote itself (greedy decoding, not the gold translation). The output layer reads cₜ as "
    "well as sₜ (Luong et al. 2015's attentional state, a small departure from the paper's maxout layer)."
)
TOP_K = 5  # the predicted tokens shown for one step


@dataclass(frozen=True)
class Walk:
    """Every quantity of Bahdanau's step, at each step of the model's greedy output (one row per step t)."""

    source: list[str]  # S source pieces, "</s>" last
    previous: list[str]  # T: y_{t-1}, the token fed in at step t ("<s>" at the first)
    scores: np.ndarray  # (T, S) e_{t,i}
    weights: np.ndarray  # (T, S) α_{t,i} = softmax_i e_{t,i}
    contexts: np.ndarray  # (T, D) c_t
    states: np.ndarray  # (T + 1, D) s_0 … s_T (s_0: the encoder's final state)
    top_tokens: list[list[str]]  # (T, k) the k most probable next tokens, best first (PAD and BOS never written)
    top_probs: np.ndarray  # (T, k) their p(y_t | y_<t, x)

    @property
    def written(self) -> list[str]:
        """y_t: what greedy decoding wrote at each step (the most probable token)."""
        return [tokens[0] for tokens in self.top_tokens]


@torch.inference_mode()
def walk(model: Seq2Seq, task: Task, text: str, k: int = TOP_K, max_len: int | None = None) -> Walk | str:
    """Greedy decoding of ``text`` driven through the model's own parts, keeping every quantity of each step.

    At step t: e = ``model.scores`` of s_{t-1}; then ``model._previous_step`` (the model's step: α, c_t and
    s_t = GRU([E y_{t-1}; c_t], s_{t-1})); then ``model._logits`` → p(y_t | ·). The tokens are the greedy
    output of :func:`decode` (a test checks both, and α against the model's attention). A message instead
    when the text is unusable.
    """
    if model.config.query != "previous":
        raise ValueError("walk follows Bahdanau's step: the model must attend with s_{t-1}")
    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    source = torch.tensor([[*encoded.ids, EOS_ID]])  # (1, S)
    memory = model.encode(source, torch.tensor([source.size(1)]))
    state = model.initial_state(memory)
    hidden = state[0] if isinstance(state, tuple) else state  # (1, D) s_0
    target = task.target_tokenizer
    prev = torch.tensor([BOS_ID])  # (1,)
    never = torch.tensor([PAD_ID, BOS_ID])
    rows: dict[str, list] = {name: [] for name in ("previous", "scores", "weights", "contexts", "tokens", "probs")}
    states = [hidden[0]]
    for _ in range(max_len or 2 * task.max_target_len + 1):
        scores = model.scores(hidden.unsqueeze(1), memory)[:, 0]  # (1, 1, D) query -> (1, S)
        hidden, context, weights, state = model._previous_step(model.target_embedding(prev), state, memory)
        probs = torch.softmax(model._logits(hidden, context), dim=-1)[0]  # (V,)
        top = probs.index_fill(0, never, -1.0).topk(min(k, probs.numel() - 2))
        rows["previous"].append(target.id_to_piece(int(prev)))
        rows["scores"].append(scores[0])
        rows["weights"].append(weights[0])
        rows["contexts"].append(context[0])
        rows["tokens"].append([target.id_to_piece(int(i)) for i in top.indices])
        rows["probs"].append(top.values)
        states.append(hidden[0])
        prev = top.indices[:1]  # greedy: the most probable token is fed back
        if int(prev) == EOS_ID:
            break
    stack = lambda name: torch.stack(rows[name]).float().numpy()  # noqa: E731
    return Walk(
        source=[*encoded.pieces, task.source_tokenizer.id_to_piece(EOS_ID)],
        previous=rows["previous"],
        scores=stack("scores"),
        weights=stack("weights"),
        contexts=stack("contexts"),
        states=torch.stack(states).float().numpy(),
        top_tokens=rows["tokens"],
        top_probs=stack("probs"),
    )


def _entries(vector: np.ndarray, n: int = 4) -> str:
    return "(" + ", ".join(f"{x:+.2f}" for x in vector[:n]) + (", …)" if len(vector) > n else ")")


def score_rows(steps: Walk, t: int) -> list[dict]:
    """Step ``t`` (1-based), one row per source token: its score e_{t,i} and its weight α_{t,i}."""
    return [
        {"source token hᵢ": token, "score eₜ,ᵢ": float(e), "αₜ,ᵢ = softmax(e)": float(a)}
        for token, e, a in zip(steps.source, steps.scores[t - 1], steps.weights[t - 1], strict=True)
    ]


def vector_rows(steps: Walk, t: int) -> list[dict]:
    """Step ``t``'s vectors: the context it read and the decoder state before and after, a few entries and the norm."""
    D = steps.contexts.shape[1]
    named = (
        ("cₜ = Σᵢ αₜ,ᵢ hᵢ", steps.contexts[t - 1]),
        ("sₜ₋₁ (before)", steps.states[t - 1]),
        ("sₜ (after the GRU)", steps.states[t]),
    )
    return [
        {"vector": name, f"first entries (of {D})": _entries(v), "‖·‖": float(np.linalg.norm(v))} for name, v in named
    ]


def top_rows(steps: Walk, t: int) -> list[dict]:
    """Step ``t``'s most probable next tokens, best first, with p(y_t | y_<t, x)."""
    return [
        {"rank": rank, "token yₜ": token, "p(yₜ | y₍<t₎, x)": float(p)}
        for rank, (token, p) in enumerate(zip(steps.top_tokens[t - 1], steps.top_probs[t - 1], strict=True), start=1)
    ]


def step_sentence(steps: Walk, t: int) -> str:
    """What step ``t`` did, in one sentence computed from its numbers."""
    weights = steps.weights[t - 1]
    i = int(weights.argmax())
    p = steps.top_probs[t - 1]
    runner_up = f", ahead of {as_code(steps.top_tokens[t - 1][1])} ({percent(p[1])})" if len(p) > 1 else ""
    return (
        f"Step {t} fed in {as_code(steps.previous[t - 1])}, put α = {weights[i]:.2f} on {as_code(steps.source[i])}, "
        f"and wrote {as_code(steps.written[t - 1])} with p = {percent(p[0])}{runner_up}."
    )


def step_figures(decoding: Decoding, t: int):
    """Decoder step ``t`` (1-based): the bars of its α over the source, and the strip of its context c_t."""
    alpha = charts.weight_bars(
        decoding.source, decoding.weights[t - 1], title=f"α at step {t} over the source", value_name="α"
    )
    alpha.update_layout(height=90 + 30 * len(decoding.source))  # a tick label for every source token
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


SOFTMAX_SCORES = (2.0, 1.0, 0.1)  # e_{t,1..3}
SCORE_W = ((0.5, 0.0), (-1.0, 0.0))  # W_q (2 × 2)
SCORE_U = ((0.0, 0.5), (0.0, 1.0))  # W_k (2 × 2)
SCORE_V = (2.0, -1.0)
SCORE_S, SCORE_H = (1.0, 0.0), (0.0, 1.0)  # s_{t-1}, h_i


def _softmax_exercise() -> Exercise:
    e = np.array(SOFTMAX_SCORES)
    exps = np.exp(e)
    alpha = exps / exps.sum()
    terms = " + ".join(f"{x:.3f}" for x in exps)
    return Exercise(
        key="bahdanau_attention.ex1",
        prompt=(
            f"By hand: a decoder step scores three source tokens e = {as_tuple(e)}. What is α for the first token "
            "(the softmax of the scores)? Three decimals."
        ),
        answer=round(float(alpha[0]), 3),
        tolerance=0.002,
        explanation=(
            f"Exponentiate: exp e = ({', '.join(f'{x:.3f}' for x in exps)}); their sum is {terms} = "
            f"{exps.sum():.3f}; α₁ = {exps[0]:.3f} / {exps.sum():.3f} = {alpha[0]:.3f} (and α = "
            f"({', '.join(f'{x:.3f}' for x in alpha)}), which sums to 1)."
        ),
        hint="Divide exp(e₁) by the sum of all three exponentials, not e₁ by the sum of the scores.",
    )


def _score_exercise() -> Exercise:
    W, U, v = np.array(SCORE_W), np.array(SCORE_U), np.array(SCORE_V)
    s, h = np.array(SCORE_S), np.array(SCORE_H)
    inside = W @ s + U @ h
    squashed = np.tanh(inside)
    e = float(v @ squashed)
    return Exercise(
        key="bahdanau_attention.ex5",
        prompt=(
            f"By hand, one additive score e = vᵀ tanh(W s + U h) with s = {as_tuple(s)}, h = {as_tuple(h)}, W = "
            f"[{as_tuple(W[0])}, {as_tuple(W[1])}] (rows), U = [{as_tuple(U[0])}, {as_tuple(U[1])}] (rows) "
            f"and v = {as_tuple(v)}. (tanh 1 ≈ {np.tanh(1):.3f}.) Two decimals."
        ),
        answer=round(e, 3),
        tolerance=0.01,
        explanation=(
            f"W s = {as_tuple(W @ s)} (W's first column), U h = {as_tuple(U @ h)} (U's second column); their sum is "
            f"{as_tuple(inside)}; tanh of it is ({', '.join(f'{x:.3f}' for x in squashed)}); vᵀ times that is "
            f"{' + '.join(f'({a:g})·{b:.3f}' for a, b in zip(v, squashed, strict=True))} = {e:.3f}."
        ),
        hint="Add W s and U h before the tanh; the tanh acts on each entry.",
    )


def _parameters_exercise(model: nn.Module) -> Exercise:
    """About the shipped model: how many parameters the additive score has, read off its sizes."""
    D, A = model.config.decoder_size, model.config.attention_size
    return Exercise(
        key="bahdanau_attention.ex2",
        prompt=(
            f"The additive score is vᵀ tanh(W_q s + W_k h + b) with decoder and encoder states of size "
            f"D = {D} and a hidden layer of A = {A}. How many parameters does the score function have?"
        ),
        answer=additive_parameters(model),
        tolerance=0,
        explanation=(
            f"W_q is A×D = {A * D}, W_k is A×D = {A * D} plus a bias of A = {A}, v has A = {A} entries: "
            f"2AD + 2A = {2 * A * D + 2 * A}."
        ),
        hint="Count the bias of W_k and the vector v too.",
    )
