r"""Turning a trained model into output text: teacher forcing, greedy decoding and beam search.

A seq2seq model defines :math:`p(y_t \mid y_{<t}, x)`; decoding chooses the output sequence.

* **Teacher forcing** feeds the *gold* previous token at every step: what training sees (one fused pass).
* **Greedy** feeds back its own best guess, :math:`\hat y_t = \arg\max p(y_t \mid \hat y_{<t}, x)`, until EOS.
* **Beam search** keeps the ``k`` best partial outputs by :math:`\log p(y_{\le t} \mid x)` and expands each by
  every next token, so a choice that looked second-best early can still win ("beam search is used to
  generate meaningful sentences", the Transformer lecture's last slide). ``k = 1`` is greedy.

Every function returns the attention used at each step, so a page can draw the heatmap of what the model
*wrote* (not of the gold target), and beam search returns its whole tree of hypotheses. All of them work on
a batch (evaluation) or a single sentence (a page's text box: :func:`translate`). They neither switch the
model between train/eval mode nor keep state: callers own the model.

Decoding is bounded: at most :data:`MAX_STEPS` steps whatever ``max_len`` a caller (or a model file's record) asks
for, and, when ``max_seconds`` is given, no new step after that many seconds. A page's sentence (:func:`translate`)
is decoded within :data:`MAX_SECONDS`: a model that never writes its end token costs a page run seconds, not hours,
and the run's thread ends with it.

Letters: B batch, S source positions, T decoded steps, V target vocabulary, h heads.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from .models import ModelOutput
from .tokenizers import BOS_ID, EOS_ID, PAD_ID

__all__ = [
    "Decoded",
    "BeamNode",
    "Hypothesis",
    "BeamResult",
    "Translation",
    "teacher_forced",
    "greedy",
    "beam_search",
    "translate",
    "one_hot_override",
    "MAX_STEPS",
    "MAX_SECONDS",
]

MAX_STEPS = 1025  # decoder steps at most, for any caller: twice the longest target a model file may state, and EOS
MAX_SECONDS = 10.0  # a page's sentence (translate) gets no new decoder step after this long

Override = dict[int, "int | torch.Tensor"]  # decoder step -> source index to force, or weights (S,)/(B, S)


@dataclass
class Decoded:
    """A batch of decoded outputs, with the attention of every step.

    ``attention`` has the model's keys (see :class:`~minimodels.models.ModelOutput`); row ``t`` is step ``t``:
    ``"cross"`` ``(B, T, S)``; ``"decoder.{i}.cross"`` ``(B, h, T, S)``; ``"decoder.{i}.self"``
    ``(B, h, T, T)``; ``"encoder.{i}.self"`` ``(B, h, S, S)``. Rows after a sentence's EOS are zeros.
    """

    tokens: torch.Tensor  # (B, T) long: output tokens, EOS included, PAD after it
    lengths: torch.Tensor  # (B,) long: tokens up to and including EOS (T for a row that never ended)
    log_prob: torch.Tensor  # (B,) sum of the log-probabilities of those tokens
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # name -> map, see the docstring

    def sequences(self) -> list[list[int]]:
        """Each row's tokens before EOS, as plain lists."""
        rows = zip(self.tokens.tolist(), self.lengths.tolist(), strict=True)
        return [row[: n - int(n > 0 and row[n - 1] == EOS_ID)] for row, n in rows]


def _stack_rows(rows: list[torch.Tensor]) -> torch.Tensor:
    """Stack per-step rows ``(..., K_t)`` into a map ``(..., T, K)``, zero-padding growing rows to K = max K_t."""
    width = max(r.size(-1) for r in rows)
    return torch.stack([F.pad(r, (0, width - r.size(-1))) for r in rows], dim=-2)  # (..., T, K)


def one_hot_override(index: int, source_len: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Attention weights ``(S,)`` that put all the weight on source token ``index``."""
    if not 0 <= index < source_len:
        raise ValueError(f"source index {index} is outside 0..{source_len - 1}")
    return F.one_hot(torch.tensor(index, device=device), source_len).float()  # (S,)


def _override_at(override: Override | None, step: int, source_len: int, device) -> torch.Tensor | None:
    if not override or step not in override:
        return None
    value = override[step]
    if isinstance(value, int):
        return one_hot_override(value, source_len, device)  # (S,)
    return torch.as_tensor(value, device=device)


def _never_pad_or_bos(log_probs: torch.Tensor) -> torch.Tensor:
    """Rule out PAD and BOS as outputs; the others keep the model's own (unrenormalised) log-probabilities."""
    return log_probs.index_fill(-1, torch.tensor([PAD_ID, BOS_ID], device=log_probs.device), float("-inf"))


def _device(model: torch.nn.Module) -> torch.device:
    return next(model.parameters()).device


def _steps(max_len: int) -> int:
    """The steps a decoder may take for a caller's ``max_len``: at most :data:`MAX_STEPS`."""
    return max(0, min(int(max_len), MAX_STEPS))


def _deadline(max_seconds: float | None) -> float | None:
    return None if max_seconds is None else time.monotonic() + max_seconds


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


@torch.inference_mode()
def teacher_forced(
    model: torch.nn.Module,
    source: torch.Tensor,
    source_lengths: torch.Tensor,
    target_in: torch.Tensor,
    target_out: torch.Tensor | None = None,
) -> Decoded:
    """The training pass: gold previous tokens in, the model's best next token out at every position.

    ``tokens`` are the argmax predictions ``(B, T)``; ``log_prob`` is the gold target's log-probability
    (when ``target_out`` is given; zeros otherwise); ``attention`` is the model's maps.
    """
    out: ModelOutput = model(source, source_lengths, target_in)
    log_probs = out.logits.log_softmax(-1)  # (B, T, V)
    lengths = (target_in != PAD_ID).sum(1)  # (B,)
    log_prob = torch.zeros(source.size(0), device=source.device)
    if target_out is not None:
        gold = log_probs.gather(-1, target_out.unsqueeze(-1)).squeeze(-1)  # (B, T)
        log_prob = (gold * (target_out != PAD_ID)).sum(1)  # (B,)
    return Decoded(log_probs.argmax(-1), lengths, log_prob, dict(out.attention))


@torch.inference_mode()
def greedy(
    model: torch.nn.Module,
    source: torch.Tensor,
    source_lengths: torch.Tensor,
    max_len: int,
    attention_override: Override | None = None,
    max_seconds: float | None = None,
) -> Decoded:
    """Greedy decoding of a batch ``source (B, S)`` for at most ``max_len`` steps (EOS included; never more than
    :data:`MAX_STEPS`), and no new step after ``max_seconds`` when given.

    ``attention_override`` maps a step ``t`` to a source index (or a weights row ``(S,)`` / ``(B, S)``): at that
    step the model's own attention row is replaced, the "what if it had looked there?" experiment. Only a
    :class:`~minimodels.seq2seq.Seq2Seq` with attention accepts it.
    """
    B, S = source.shape
    deadline = _deadline(max_seconds)
    memory = model.encode(source, source_lengths)
    state = model.initial_state(memory)
    prev = torch.full((B,), BOS_ID, dtype=torch.long, device=source.device)
    finished = torch.zeros(B, dtype=torch.bool, device=source.device)
    log_prob = torch.zeros(B, device=source.device)
    lengths = torch.zeros(B, dtype=torch.long, device=source.device)
    tokens, rows = [], defaultdict(list)
    for t in range(_steps(max_len)):
        if t and _past(deadline):
            break
        out = model.step(prev, state, memory, _override_at(attention_override, t, S, source.device))
        log_probs = _never_pad_or_bos(out.logits.log_softmax(-1))  # (B, V)
        token = log_probs.argmax(-1).masked_fill(finished, PAD_ID)  # (B,)
        alive = ~finished
        log_prob += log_probs.gather(1, token.unsqueeze(1)).squeeze(1).masked_fill(finished, 0.0)
        for name, row in out.attention.items():  # (B, S) or (B, h, K)
            rows[name].append(row * alive.view(B, *[1] * (row.dim() - 1)))
        tokens.append(token)
        lengths += alive
        finished = finished | (token == EOS_ID)
        prev, state = token, out.state
        if bool(finished.all()):
            break
    tokens = torch.stack(tokens, dim=1)  # (B, T)
    attention = dict(getattr(memory, "attention", {}))
    attention.update({name: _stack_rows(r) for name, r in rows.items()})
    return Decoded(tokens, lengths, log_prob, attention)


# ------------------------------------------------------------------------------------------ beam search
@dataclass(frozen=True)
class BeamNode:
    """One node of the beam-search tree: a partial output that was kept in the beam at step ``step``."""

    id: int  # index in BeamResult.nodes; the root (BOS, before any step) is 0
    parent: int | None  # the node this one extends; None for the root
    step: int  # the decoder step that produced ``token`` (-1 for the root)
    token: int  # the token this node adds (BOS for the root)
    tokens: tuple[int, ...]  # every token from the first step to this one (EOS included if it is one)
    log_prob: float  # log p(tokens | source), summed along the path
    token_log_prob: float  # log p(token | parent's tokens, source)
    finished: bool  # True when ``token`` is EOS
    attention: dict[str, torch.Tensor] = field(default_factory=dict, repr=False)  # this step's rows, CPU

    @property
    def score(self) -> float:
        return self.log_prob


@dataclass
class Hypothesis:
    """A complete output of beam search, best first in :attr:`BeamResult.hypotheses`."""

    tokens: list[int]  # output tokens, EOS excluded
    log_prob: float  # log p(tokens + EOS | source)
    score: float  # log_prob divided by the length penalty (= log_prob when length_penalty is 0)
    finished: bool  # ended with EOS (False: cut at max_len)
    node: int  # its last node in BeamResult.nodes
    attention: dict[str, torch.Tensor] = field(default_factory=dict, repr=False)  # maps along its path


@dataclass
class BeamResult:
    """Beam search on one sentence: the best hypotheses and the whole tree that was explored."""

    hypotheses: list[Hypothesis]  # at most ``width``, best score first
    nodes: list[BeamNode]  # the tree: every node kept in the beam at some step, root first
    source_attention: dict[str, torch.Tensor] = field(default_factory=dict, repr=False)  # encoder maps

    @property
    def best(self) -> Hypothesis:
        return self.hypotheses[0]

    def path(self, node: int) -> list[BeamNode]:
        """The nodes from the first step to ``node`` (root excluded)."""
        return _path(self.nodes, node)


def _path(nodes: list[BeamNode], node: int) -> list[BeamNode]:
    out = []
    while nodes[node].parent is not None:
        out.append(nodes[node])
        node = nodes[node].parent
    return out[::-1]


def _length_penalty(length: int, alpha: float) -> float:
    """GNMT's length penalty ((5 + |y|) / 6)^α (Wu et al. 2016); 1 when α = 0."""
    return ((5 + length) / 6) ** alpha if alpha else 1.0


@torch.inference_mode()
def _beam_one(
    model: torch.nn.Module,
    source: torch.Tensor,
    source_lengths: torch.Tensor,
    width: int,
    max_len: int,
    length_penalty: float,
    deadline: float | None = None,
) -> BeamResult:
    memory = model.encode(source, source_lengths)  # batch of 1
    state = model.initial_state(memory)
    root = BeamNode(0, None, -1, BOS_ID, (), 0.0, 0.0, False)
    nodes, alive, finished = [root], [0], []
    for t in range(_steps(max_len)):
        if t and _past(deadline):
            finished += alive  # out of time: the live hypotheses are returned unfinished
            break
        prev = torch.tensor([nodes[i].token for i in alive], device=source.device)  # (n,)
        out = model.step(prev, state, memory)
        log_probs = _never_pad_or_bos(out.logits.float().log_softmax(-1))  # (n, V)
        V = log_probs.size(-1)
        totals = torch.tensor([nodes[i].log_prob for i in alive], device=source.device).unsqueeze(1) + log_probs
        top = totals.flatten().topk(min(2 * width, totals.numel()))  # (2k,) best continuations of all rows
        kept_rows, next_alive = [], []
        for rank, (total, flat) in enumerate(zip(top.values.tolist(), top.indices.tolist(), strict=True)):
            row, token = divmod(flat, V)
            is_eos = token == EOS_ID
            if (is_eos and rank >= width) or (not is_eos and len(next_alive) >= width):
                continue
            parent = nodes[alive[row]]
            node = BeamNode(
                id=len(nodes),
                parent=parent.id,
                step=t,
                token=token,
                tokens=(*parent.tokens, token),
                log_prob=total,
                token_log_prob=float(log_probs[row, token]),
                finished=is_eos,
                attention={name: r[row].cpu() for name, r in out.attention.items()},
            )
            nodes.append(node)
            if is_eos:
                finished.append(node.id)
            else:
                next_alive.append(node.id)
                kept_rows.append(row)
        if len(finished) >= width or not next_alive:
            break
        best_alive = max(nodes[i].log_prob for i in next_alive)
        if not length_penalty and finished and max(nodes[i].log_prob for i in finished) >= best_alive:
            break  # log-probs only fall as outputs grow: no live hypothesis can overtake a finished one
        index = torch.tensor(kept_rows, device=source.device)
        state, memory = model.select_state(out.state, index), memory.select(index)
        alive = next_alive
    else:
        finished += alive  # cut at max_len: the live hypotheses are returned unfinished
    ends = [nodes[i] for i in finished]
    hyps = []
    for end in ends:
        steps = len(end.tokens)
        path = _path(nodes, end.id)
        attention = {name: _stack_rows([n.attention[name] for n in path]) for name in end.attention}
        hyps.append(
            Hypothesis(
                tokens=list(end.tokens[:-1] if end.finished else end.tokens),
                log_prob=end.log_prob,
                score=end.log_prob / _length_penalty(steps, length_penalty),
                finished=end.finished,
                node=end.id,
                attention=attention,
            )
        )
    hyps.sort(key=lambda h: h.score, reverse=True)
    source_attention = {k: v[0].cpu() for k, v in getattr(memory, "attention", {}).items()}
    return BeamResult(hyps[:width], nodes, source_attention)


def beam_search(
    model: torch.nn.Module,
    source: torch.Tensor,
    source_lengths: torch.Tensor,
    width: int = 4,
    max_len: int = 32,
    length_penalty: float = 0.0,
    max_seconds: float | None = None,
) -> list[BeamResult]:
    """Beam search of width ``width`` on each sentence of ``source (B, S)``; one :class:`BeamResult` each.

    At every step each live hypothesis is extended by every token; of the ``2k`` best continuations, those
    ending in EOS among the top ``k`` are finished, and the best ``k`` others stay live. It stops when ``k``
    hypotheses are finished, when (without length penalty) the best finished one outscores every live one,
    or after ``max_len`` steps (at most :data:`MAX_STEPS`), or once ``max_seconds`` have passed (for the whole
    batch; the live hypotheses come back unfinished). ``width=1`` gives exactly the greedy output.
    ``length_penalty`` α > 0 divides scores by ((5 + |y|)/6)^α to stop short outputs winning (Wu et al. 2016).
    """
    if width < 1:
        raise ValueError("beam width must be at least 1")
    deadline = _deadline(max_seconds)
    results = []
    for b in range(source.size(0)):
        n = int(source_lengths[b])
        one = source[b : b + 1, :n], source_lengths[b : b + 1]
        results.append(_beam_one(model, *one, width, max_len, length_penalty, deadline))
    return results


# ------------------------------------------------------------------------------- one user sentence
@dataclass
class Translation:
    """A user's sentence through a trained model: output text, axis labels and attention maps (batch removed)."""

    text: str  # the decoded output
    source_pieces: list[str]  # one label per source position, "</s>" last
    target_pieces: list[str]  # one label per decoded step, "</s>" last when the model ended
    attention: dict[str, torch.Tensor]  # the model's maps without the batch axis, on the CPU
    message: str | None = None  # the tokenizer's note for the user (unknown characters, text cut), if any
    beam: BeamResult | None = None  # the search tree, when ``method="beam"``


def translate(
    model: torch.nn.Module,
    task,
    text: str,
    method: str = "greedy",
    width: int = 4,
    max_len: int | None = None,
    attention_override: Override | None = None,
    length_penalty: float = 0.0,
    max_seconds: float | None = MAX_SECONDS,
) -> Translation:
    """Decode one user sentence with ``method`` ``"greedy"`` or ``"beam"``; never raises on odd text.

    The text is tokenized by ``task.encode_source`` (unknown characters become ``<unk>``, long text is cut,
    both explained in ``message``). ``max_len`` defaults to twice the task's longest target, plus EOS; decoding
    stops at :data:`MAX_STEPS` steps and after ``max_seconds``, and ``message`` says so when the output was cut.
    """
    if method not in ("greedy", "beam"):
        raise ValueError(f"method must be 'greedy' or 'beam', got {method!r}")
    encoded = task.encode_source(text)
    source_pieces = [*encoded.pieces, task.source_tokenizer.id_to_piece(EOS_ID)]
    if encoded.empty:
        return Translation("", [], [], {}, encoded.message)
    device = _device(model)
    source = torch.tensor([[*encoded.ids, EOS_ID]], device=device)  # (1, S)
    lengths = torch.tensor([source.size(1)], device=device)  # (1,)
    max_len = max_len or 2 * task.max_target_len + 1
    beam = None
    if method == "beam":
        beam = beam_search(model, source, lengths, width, max_len, length_penalty, max_seconds)[0]
        tokens, ended = beam.best.tokens, beam.best.finished
        attention = dict(beam.source_attention) | beam.best.attention
    else:
        decoded = greedy(model, source, lengths, max_len, attention_override, max_seconds)
        tokens = decoded.sequences()[0]
        ended = int(decoded.lengths[0]) > len(tokens)
        attention = {k: v[0].cpu() for k, v in decoded.attention.items()}
    target = task.target_tokenizer
    target_pieces = [target.id_to_piece(i) for i in tokens] + ([target.id_to_piece(EOS_ID)] if ended else [])
    message = encoded.message
    if not ended and len(tokens) < _steps(max_len):  # stopped by the clock, not by its length
        cut = f"The output was cut after {len(tokens)} pieces: a sentence is decoded for {max_seconds:g} s at most."
        message = f"{message} {cut}" if message else cut
    return Translation(target.decode(tokens), source_pieces, target_pieces, attention, message, beam)
