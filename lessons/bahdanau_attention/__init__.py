r"""Lesson: Bahdanau (additive) attention, decoded one token at a time.

Follows the NLP lecture's "I like pizza" → "mi piace la pizza" and Bahdanau et al. 2015:

.. math:: e_{t,t'} = v^\top \tanh(W[s_{t-1}; h_{t'}]),\quad
          \alpha_{t,t'} = \mathrm{softmax}_{t'}(e_{t,t'}),\quad c_t = \sum_{t'} \alpha_{t,t'} h_{t'}

The model is ``minimodels.seq2seq.Seq2Seq`` with ``attention="additive"``, which attends with the previous
decoder state :math:`s_{t-1}` before each step, exactly as above.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lessons.common import charts
from lessons.common.comparison import Spread, curves_chart, verdict
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.common.reading import ReadsSentence
from minimodels.decode import Translation, translate
from minimodels.seq2seq import Seq2Seq, Seq2SeqConfig
from minimodels.tasks import Task, get_task, lecture_examples
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID
from minimodels.train import TrainConfig, build_model, default_train_config, train

MODEL = "gru-additive"
TASKS = {
    "toy-translation-it": "English → Italian-like (“I like pizza”)",
    "toy-translation": "English → French-like (“Jane visits Africa in September”)",
    "dates": "Written dates → ISO dates (character by character)",
}
MAX_BEAM = 5
TOP_K = 5  # the predicted tokens shown for one step
JANE = "Jane visits Africa in September"  # the lecture's example, in the toy-translation training split

INTRO = (
    "A seq2seq model without attention must squeeze the whole source sentence into one vector. Bahdanau, Cho "
    "and Bengio (2015) let the decoder **look back**: before writing output token t it scores every encoder "
    "state hᵢ against its own previous state sₜ₋₁ (eₜ,ᵢ), turns the scores into a distribution α with a "
    "softmax, reads the weighted sum cₜ, and only then updates its state and predicts the token. The α's are "
    "the alignment the model learned, with no one telling it which word translates which. The shipped models' "
    "encoders are **bidirectional**: one RNN reads the sentence left to right, another right to left, and hᵢ is "
    "the two states of token i side by side, so hᵢ knows the words on both sides of i. A decoder reading the "
    "encoder's states this way is what the Transformer lecture calls **encoder–decoder attention**, or "
    "cross-attention: the same idea, with other scores, comes back in every later lesson that translates."
)
# Bahdanau's step, one line per equation (so that each fits a phone's width), with the model's own letters
EQUATIONS = (
    r"h_i = [\overrightarrow{h}_i;\ \overleftarrow{h}_i] \quad\text{(bidirectional encoder)}",
    r"e_{t,i} = v^\top \tanh\!\big(W_q\, s_{t-1} + W_k\, h_i\big)",
    r"\alpha_{t,i} = \frac{\exp(e_{t,i})}{\sum_{j} \exp(e_{t,j})}",
    r"c_t = \sum_{i} \alpha_{t,i}\, h_i",
    r"s_t = \mathrm{GRU}\big([E\,y_{t-1};\ c_t],\ s_{t-1}\big)",
    r"\tilde s_t = \tanh\!\big(W_c[c_t;\ s_t]\big)",
    r"p(y_t \mid y_{<t}, x) = \mathrm{softmax}(W_o\, \tilde s_t)",
)


def equations() -> str:
    """Bahdanau's step as one LaTeX block (one ``st.latex``), an equation per line: each fits a phone's width."""
    return r"\begin{gathered}" + r" \\[6pt] ".join(EQUATIONS) + r"\end{gathered}"


STEP_TEXT = (
    "Each step below is computed by the chosen model's own parts (its score, its GRU cell, its output layer), "
    "on the tokens it wrote itself (greedy decoding, not the gold translation). The output layer reads cₜ as "
    "well as sₜ (Luong et al. 2015's attentional state, a small departure from the paper's maxout layer)."
)
JANE_TEXT = (
    "The lecture draws c⟨1⟩ = α⟨1,1⟩a⟨1⟩ + … + α⟨1,5⟩a⟨5⟩ for *Jane visite l'Afrique en septembre*. Here is "
    "that sum in the trained English → French-like model: each row is one encoder state hᵢ (the lecture's a⟨i⟩) "
    "scaled by its weight αₜ,ᵢ, coloured dimension by dimension; the last row is their sum, the context cₜ. "
    "Change the sentence or the output step."
)
BEAM_TEXT = (
    "Greedy decoding keeps the single best token at each step. Beam search keeps the *k* best partial "
    "outputs by log p(y | x), so a choice that looked second-best early can still win. Width 1 is greedy."
)
WHAT_IF_TEXT = (
    "Force the attention of one step onto a source token of your choice (a one-hot α) and decode again, "
    "and see whether the output follows: the decoder state carries information too, so attention need not "
    "be the whole explanation."
)
COST_TEXT = (
    "At every output step attention reads all T_x encoder states, so one sentence costs T_x · T_y scores and "
    "keeps a T_y × T_x table of weights; a decoder without attention reads one vector per step. Both decoders "
    "below are timed on this server, with source and output of the same length T, a batch of "
    "{batch} sentences at a time, {repeats} repeats."
)


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


def alignment_note(decoding: Decoding) -> str:
    """How the most-attended source position moves from one output token to the next, counted from the α's."""
    path = decoding.weights.argmax(axis=1)  # (T,) the most-attended source position of each output step
    back = [t for t in range(1, len(path)) if path[t] < path[t - 1]]
    if not back:
        return (
            "Hover a cell for its exact α. The most-attended source token moves left to right (or stays) at every step."
        )
    steps = ", ".join(_code(decoding.target[t]) for t in back)
    return (
        f"Hover a cell for its exact α. The most-attended source token moves back {len(back)} time"
        f"{'s' if len(back) > 1 else ''} (writing {steps}): a word-order change the model learned by itself."
    )


def forced_note(forced: Decoding, original: Decoding, step: int, source_index: int) -> str:
    """Whether forcing step ``step`` (0-based) onto one source token changed the output, said from the decodings."""
    what = f"Forcing step {step + 1} onto {_code(original.source[source_index])}"
    if forced.translation.text == original.translation.text:
        return f"{what} left the output unchanged."
    same = sum(a == b for a, b in zip(forced.target, original.target, strict=False))
    return f"{what} changed the output ({same} of {len(original.target)} tokens still the same, position by position)."


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


# ------------------------------------------------------------------------------------- one whole step
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


def _code(piece: str) -> str:
    """A model's token as inline code in markdown (its pieces come from a fixed vocabulary)."""
    return "`" + piece.replace("`", "ʼ") + "`"


def _pct(p: float) -> str:
    """A probability or weight as a percentage, tiny ones in scientific notation rather than a misleading 0%."""
    return f"{p:.1%}" if p >= 0.001 else f"{p:.1e}"


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
    named = (("cₜ = Σᵢ αₜ,ᵢ hᵢ", steps.contexts[t - 1]), ("sₜ₋₁ (before)", steps.states[t - 1]),
             ("sₜ (after the GRU)", steps.states[t]))  # fmt: skip
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
    runner_up = f", ahead of {_code(steps.top_tokens[t - 1][1])} ({_pct(p[1])})" if len(p) > 1 else ""
    return (
        f"Step {t} fed in {_code(steps.previous[t - 1])}, put α = {weights[i]:.2f} on {_code(steps.source[i])}, "
        f"and wrote {_code(steps.written[t - 1])} with p = {_pct(p[0])}{runner_up}."
    )


# --------------------------------------------------------------------------- c⟨t⟩ as a weighted sum
def weighted_sum_figure(decoding: Decoding, t: int):
    """Step ``t`` (1-based): one row αₜ,ᵢ·hᵢ per source token, and their sum cₜ as the last row."""
    weights = decoding.weights[t - 1]
    rows = weights[:, None] * decoding.states  # (S, 1) * (S, D) -> (S, D)
    labels = [f"{a:.2f} · h({token})" for a, token in zip(weights, decoding.source, strict=True)]
    return charts.vector_strip(
        np.vstack([rows, decoding.contexts[t - 1]]),
        [*labels, f"= c⟨{t}⟩"],
        title=f"c⟨{t}⟩ = Σᵢ α⟨{t},i⟩ hᵢ, writing “{decoding.target[t - 1]}”",
    )


def weighted_sum_sentence(decoding: Decoding, t: int) -> str:
    """Which encoder states make up c⟨t⟩, computed from the weights (the shares of the whole weight)."""
    weights = decoding.weights[t - 1]
    order = np.argsort(-weights)
    first, second = int(order[0]), int(order[1]) if len(order) > 1 else None
    share = float(weights[first])
    what = "most of" if share >= 0.5 else "the largest share of"
    rest = f"; next comes h({decoding.source[second]}) with {_pct(weights[second])}" if second is not None else ""
    return (
        f"c⟨{t}⟩, read to write {_code(decoding.target[t - 1])}, is {what} h({decoding.source[first]}): "
        f"α = {_pct(share)}{rest}."
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


# ---------------------------------------------------------------------------------- what it costs
COST_LENGTHS = (16, 32, 64, 128, 256)
COST_BATCH = 16
COST_REPEATS = 3
COST_VARIANTS = {"additive": "with attention", "none": "without attention (one context vector)"}


@dataclass(frozen=True)
class Cost:
    """Decoding time and memory vs sentence length, with and without attention, measured on this machine."""

    rows: tuple[dict, ...]  # {"variant", "repeat", "length", "ms" per sentence, "alpha_bytes", "read_bytes"}
    threads: int  # torch threads it ran with
    batch: int
    repeats: int
    models: dict  # variant -> config.describe()

    def values(self, variant: str, length: int, field: str = "ms") -> list[float]:
        return [r[field] for r in self.rows if r["variant"] == variant and r["length"] == length]

    @property
    def lengths(self) -> list[int]:
        return sorted({r["length"] for r in self.rows})


@torch.inference_mode()
def _decode_fixed(model: Seq2Seq, source: torch.Tensor, steps: int) -> tuple[float, int, int]:
    """Greedy decoding of ``source (B, S)`` for exactly ``steps`` steps (no early stop): seconds, the bytes of the
    attention weights it produced, and the bytes of what the decoder reads at every step.

    Seconds of CPU time of this thread (torch computes in the calling thread at one thread), not wall time:
    on a shared server another process's work would otherwise be counted as the decoder's."""
    B, S = source.shape
    start = time.thread_time()
    memory = model.encode(source, torch.full((B,), S))
    state = model.initial_state(memory)
    prev = torch.full((B,), BOS_ID)
    alpha_bytes = 0
    for _ in range(steps):
        out = model.step(prev, state, memory)
        state, prev = out.state, out.logits.argmax(-1)  # (B,)
        alpha_bytes += sum(w.nelement() * w.element_size() for w in out.attention.values())  # (B, S) per step
    seconds = time.thread_time() - start
    read = [memory.states, memory.keys] if model.config.attention != "none" else [memory.context]
    return seconds, alpha_bytes, sum(x.nelement() * x.element_size() for x in read)


def measure_cost(
    config: Seq2SeqConfig, lengths=COST_LENGTHS, batch: int = COST_BATCH, repeats: int = COST_REPEATS
) -> Cost:
    """Time a greedy decoder with additive attention and one without (``config`` otherwise), source and output of
    the same length T, ``batch`` sentences at a time, ``repeats`` times in alternation (the weights are random:
    time does not depend on them). Per sentence: milliseconds, the attention weights' bytes (T_y·T_x floats) and
    the bytes the decoder reads at each step (encoder states and keys with attention, one vector without)."""
    models = {v: Seq2Seq(dataclasses.replace(config, attention=v)).eval() for v in COST_VARIANTS}
    generator = torch.Generator().manual_seed(0)
    sources = {T: torch.randint(4, config.source_vocab_size, (batch, T), generator=generator) for T in lengths}
    for model in models.values():  # warm up: the first call of each shape pays for allocation
        _decode_fixed(model, sources[min(lengths)], min(lengths))
    rows = []
    for repeat in range(repeats):
        for T in lengths:
            for variant, model in models.items():
                seconds, alpha, read = _decode_fixed(model, sources[T], T)
                rows.append({"variant": variant, "repeat": repeat, "length": T, "ms": 1000 * seconds / batch,
                             "alpha_bytes": alpha / batch, "read_bytes": read / batch})  # fmt: skip
    described = {v: m.config.describe() for v, m in models.items()}
    return Cost(tuple(rows), torch.get_num_threads(), batch, repeats, described)


def cost_charts(cost: Cost) -> tuple[dict, dict]:
    """Time per sentence (mean ± sd over repeats) and memory per sentence vs length, both on log–log axes."""
    order = list(COST_VARIANTS)
    timed = [{"variant": r["variant"], "label": COST_VARIANTS[r["variant"]], "order": order.index(r["variant"]),
              "seed": r["repeat"], "x": r["length"], "y": r["ms"]} for r in cost.rows]  # fmt: skip
    first = [r for r in cost.rows if r["repeat"] == 0]
    memory = [
        {"variant": "alpha", "label": "α weights (attention): T_y·T_x", "order": 0, "seed": 0, "x": r["length"],
         "y": r["alpha_bytes"]} for r in first if r["variant"] == "additive"
    ] + [
        {"variant": f"read-{r['variant']}", "order": 1 + order.index(r["variant"]), "seed": 0, "x": r["length"],
         "y": r["read_bytes"], "label": "read every step: " + ("states + keys" if r["variant"] == "additive"
                                                              else "one context vector")}
        for r in first
    ]  # fmt: skip
    x_title = "sentence length T (T_x = T_y)"
    x_axis = {"type": "log", "domain": [min(cost.lengths), max(cost.lengths)], "nice": False}
    time_chart = curves_chart(timed, y_title="ms per sentence", x_title=x_title, title="Decoding time",
                              log_x=True, log_y=True)  # fmt: skip
    memory_chart = curves_chart(memory, y_title="bytes per sentence", x_title=x_title, title="Memory",
                                log_x=True, log_y=True)  # fmt: skip
    for chart in (time_chart, memory_chart):  # the measured lengths, not a decade either side
        chart["encoding"]["x"] |= {"scale": x_axis, "axis": {"values": cost.lengths}}
    return time_chart, memory_chart


def _growth(cost: Cost, variant: str) -> Spread:
    """Per repeat: time at the longest length over time at the shortest."""
    short, long = cost.values(variant, min(cost.lengths)), cost.values(variant, max(cost.lengths))
    return Spread(tuple(b / a for a, b in zip(short, long, strict=True)))


def cost_sentence(cost: Cost) -> str:
    """The measured growth of both decoders' time and of the attention weights, said from the numbers."""
    lo, hi = min(cost.lengths), max(cost.lengths)
    with_attention, without = _growth(cost, "additive"), _growth(cost, "none")
    outcome, why = verdict(with_attention, without, higher_is_better=True)
    said = {
        "better": "the attention decoder's time grew clearly faster: its T_x · T_y scores weigh more the longer the "
        "sentence, on top of the T steps both decoders take",
        "too close": f"the two grew by about as much ({why})",
        "worse": f"the decoder without attention grew faster ({why}), against what T_x · T_y predicts",
    }[outcome]
    alpha = cost.values("additive", hi, "alpha_bytes")[0] / cost.values("additive", lo, "alpha_bytes")[0]
    ratio = {T: Spread(tuple(a / b for a, b in zip(cost.values("additive", T), cost.values("none", T), strict=True)))
             for T in (lo, hi)}  # fmt: skip
    power = {name: math.log(g.mean) / math.log(hi / lo) for name, g in (("with", with_attention), ("without", without))}
    return (
        f"From T = {lo} to T = {hi} ({hi // lo}× longer), one sentence took {with_attention.mean:.0f}× longer to "
        f"decode with attention (time ∝ T^{power['with']:.2f}) and {without.mean:.0f}× longer without "
        f"(∝ T^{power['without']:.2f}; T^1 is in proportion to the length, T^2 to T_x · T_y), mean of "
        f"{cost.repeats} repeats: {said}. Attention costs {ratio[lo].mean:.1f}× the time at T = {lo} and "
        f"{ratio[hi].mean:.1f}× at T = {hi}. Its weights grew {alpha:.0f}× "
        f"({_size(cost.values('additive', hi, 'alpha_bytes')[0])} per sentence at T = {hi}); the decoder without "
        f"attention reads {_size(cost.values('none', hi, 'read_bytes')[0])} at every step, whatever the length."
    )


def _size(n: float) -> str:
    units = ("B", "KiB", "MiB", "GiB")
    power = min(int(math.log(max(n, 1), 1024)), len(units) - 1)
    return f"{n / 1024**power:.0f} {units[power]}" if power else f"{n:.0f} B"


def cost_caption(cost: Cost) -> str:
    """What was timed: the two models (from their configs), batch, repeats and threads."""
    return (
        f"Measured on this server when the page was first opened: CPU time of the decoding thread "
        f"({cost.threads} torch thread{'s' if cost.threads != 1 else ''}, batches of {cost.batch}, "
        f"{cost.repeats} repeats; band: ± sd; random weights). With: {cost.models['additive']}. "
        f"Without: {cost.models['none']}."
    )


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


BIDIRECTIONAL_LABEL = "Bidirectional encoder, like the shipped models"


def train_text(budget: float) -> str:
    """What the train-it-yourself panel does, with this task's budget."""
    return (
        f"Train a fresh GRU + additive attention model on this task, for you alone (at most {budget:g} s, or until "
        "98% of held-out sentences come out exactly right), with a unidirectional encoder or a bidirectional one "
        "like the shipped models'. Watch the alignment of a fixed example sharpen from a uniform blur into a "
        "path; afterwards, replay the run and use your model in the sections above."
    )


def new_training(task_name: str, seed: int, budget_seconds: float, bidirectional: bool = False):
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``.

    ``bidirectional``: the encoder also reads right to left (hᵢ = [h⃗ᵢ; h⃖ᵢ], D = 2H), as the shipped models'."""
    task = get_task(task_name)
    model = build_model(MODEL, task, seed=seed, bidirectional=bidirectional)
    config = live_config(budget_seconds)
    return model, lambda on_progress: train(model, task, config, on_progress)


def new_run(task_name: str, seed: int, budget_seconds: float, bidirectional: bool = False) -> TrainingRun:
    """One student's run, not yet started: a fresh model of their own and the thread that will train it."""
    model, train_fn = new_training(task_name, seed, budget_seconds, bidirectional)
    return TrainingRun(train_fn, model=model, name=f"bahdanau-{task_name}")


# ------------------------------------------------------------------------------------------ exercises
SOFTMAX_SCORES = (2.0, 1.0, 0.1)  # e_{t,1..3}
LECTURE_WEIGHTS = (0.60, 0.35, 0.05)  # the NLP lecture's "I like pizza" weights
CONTEXT_STATES = ((1.0, 2.0), (3.0, 0.0), (-2.0, 4.0))  # h_I, h_like, h_pizza
SCORE_W = ((0.5, 0.0), (-1.0, 0.0))  # W_q (2 × 2)
SCORE_U = ((0.0, 0.5), (0.0, 1.0))  # W_k (2 × 2)
SCORE_V = (2.0, -1.0)
SCORE_S, SCORE_H = (1.0, 0.0), (0.0, 1.0)  # s_{t-1}, h_i


def _vec(values) -> str:
    return "(" + ", ".join(f"{x:g}" for x in values) + ")"


def _softmax_exercise() -> Exercise:
    e = np.array(SOFTMAX_SCORES)
    exps = np.exp(e)
    alpha = exps / exps.sum()
    terms = " + ".join(f"{x:.3f}" for x in exps)
    return Exercise(
        key="bahdanau_attention.ex1",
        prompt=(
            f"By hand: a decoder step scores three source tokens e = {_vec(e)}. What is α for the first token "
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


def _context_exercise() -> Exercise:
    alpha, states = np.array(LECTURE_WEIGHTS), np.array(CONTEXT_STATES)
    c = alpha @ states  # (3,) @ (3, 2) -> (2,)
    words = ("I", "like", "pizza")
    given = "; ".join(f"h({w}) = {_vec(h)}" for w, h in zip(words, states, strict=True))
    steps = " + ".join(f"{a:g}·{h[1]:g}" for a, h in zip(alpha, states, strict=True))
    return Exercise(
        key="bahdanau_attention.ex4",
        prompt=(
            f"By hand, with the lecture's weights for *I like pizza*: α = {_vec(alpha)} on *I*, *like*, *pizza*, "
            f"whose encoder states are {given}. What is the **second** entry of the context c = Σᵢ αᵢhᵢ?"
        ),
        answer=round(float(c[1]), 4),
        tolerance=0.01,
        explanation=f"Second entries, weighted and added: {steps} = {c[1]:g}. The whole context is c = {_vec(c)}.",
        hint="Weight each state's second entry by its α, then add the three.",
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
            f"By hand, one additive score e = vᵀ tanh(W s + U h) with s = {_vec(s)}, h = {_vec(h)}, W = "
            f"[{_vec(W[0])}, {_vec(W[1])}] (rows), U = [{_vec(U[0])}, {_vec(U[1])}] (rows) and v = {_vec(v)}. "
            f"(tanh 1 ≈ {np.tanh(1):.3f}.) Two decimals."
        ),
        answer=round(e, 3),
        tolerance=0.01,
        explanation=(
            f"W s = {_vec(W @ s)} (W's first column), U h = {_vec(U @ h)} (U's second column); their sum is "
            f"{_vec(inside)}; tanh of it is ({', '.join(f'{x:.3f}' for x in squashed)}); vᵀ times that is "
            f"{' + '.join(f'({a:g})·{b:.3f}' for a, b in zip(v, squashed, strict=True))} = {e:.3f}."
        ),
        hint="Add W s and U h before the tanh; the tanh acts on each entry.",
    )


COST_EXERCISE = {"source": 20, "output": 25}  # T_x and T_y: lengths the cost chart does not show


def _cost_exercise() -> Exercise:
    """By hand: how many attention weights one sentence costs; the answer counted by running a real decoder."""
    T_x, T_y = COST_EXERCISE.values()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = Seq2Seq(Seq2SeqConfig(hidden_size=8, embedding_size=8, attention_size=8)).eval()
        source = torch.randint(4, model.config.source_vocab_size, (1, T_x))
    _, alpha_bytes, _ = _decode_fixed(model, source, T_y)
    weights = alpha_bytes // torch.empty(0).element_size()  # bytes of float32 weights -> how many
    return Exercise(
        key="bahdanau_attention.ex7",
        prompt=(
            f"Compute by hand. A decoder with attention translates a sentence of Tₓ = {T_x} source tokens into "
            f"T_y = {T_y} output tokens. How many attention weights α does it compute for this sentence?"
        ),
        answer=weights,
        explanation=(
            f"At each of the T_y = {T_y} output steps it scores all Tₓ = {T_x} source tokens and softmaxes them: "
            f"{T_y} × {T_x} = {T_y * T_x} weights (counted here by running a real decoder for {T_y} steps on "
            f"{T_x} tokens). The cost is O(Tₓ · T_y): double both lengths and it quadruples, while a decoder "
            "without attention reads one fixed vector at every step."
        ),
        hint="One softmax over the source at every output step.",
    )


def exercises(model: nn.Module) -> list[Exercise]:
    """By hand (softmax, context, one additive score) and about the shipped Italian-like model's sizes; every
    answer computed here, from the given numbers or the model."""
    D, A, H = model.config.decoder_size, model.config.attention_size, model.config.hidden_size
    directions = 2 if model.config.bidirectional else 1
    return [
        _softmax_exercise(),
        _context_exercise(),
        _score_exercise(),
        _cost_exercise(),
        Exercise(
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
        ),
        Exercise(
            key="bahdanau_attention.ex6",
            prompt=(
                f"The shipped model's encoder {'reads both ways' if directions == 2 else 'reads left to right'}, "
                f"with H = {H} numbers per direction. How many numbers does each context vector cₜ have?"
            ),
            answer=D,
            tolerance=0,
            explanation=(
                f"cₜ is a weighted sum of encoder states hᵢ, so it has their size: hᵢ = [h⃗ᵢ; h⃖ᵢ] joins "
                f"{directions} direction{'s' if directions > 1 else ''} of H = {H}: {directions} × {H} = {D}."
                if directions == 2
                else f"cₜ has the size of the encoder states it sums: H = {D}."
            ),
            hint="A weighted sum of vectors has the size of the vectors; a bidirectional state joins two.",
        ),
        Exercise(
            key="bahdanau_attention.ex3",
            prompt="Before you look: every row of the alignment heatmap sums to…",
            choices=(
                "1, because α is a softmax over the source tokens",
                "the number of source tokens",
                "1, because α is a softmax over the output tokens",
                "anything: α is unnormalised",
            ),  # fmt: skip
            answer=0,
            explanation="α_{t,·} = softmax over i (source positions), so each output step spreads exactly 1.",
            hint="Over which index does the softmax run?",
        ),
    ]
