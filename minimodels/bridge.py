r"""The attention bridge: language-specific encoders and decoders joined by one shared inner-attention layer.

Vázquez, Raganato, Tiedemann & Creutz, "Multilingual NMT with a language-independent attention bridge"
(RepL4NLP 2019). Each language has its own embedding and bidirectional GRU encoder (the paper uses a BiLSTM
and notes the bridge does not depend on it), giving source states :math:`H \in \mathbb{R}^{n \times d_h}`.
The bridge, shared by every language, reads them with k attention heads (eq. 1, 2):

.. math::  A = \mathrm{softmax}(W_2\, \mathrm{ReLU}(W_1 H^\top)) \in \mathbb{R}^{k \times n}, \qquad M = A H

so every sentence, whatever its language and length, becomes the same fixed k × d_h matrix M. Each language's
GRU decoder starts from the mean of M's rows and attends over M (Luong et al.'s bilinear "general" score,
:class:`minimodels.attention.BilinearAttention`) instead of over the encoder states. The loss adds (eq. 3)

.. math::  \lVert A A^\top - I \rVert_F^2

which is 0 exactly when each head puts all its weight on one word and no two heads share a word, and grows
as heads look at the same words (redundancy).

Letters in shape comments: B batch, S source positions (EOS included), T target positions, k bridge heads,
d_h = 2 × encoder size per direction, d_a the bridge's hidden size, E embedding size, V a vocabulary.

The paper's bilingual baselines are plain attention models, with no bridge: ``BridgeConfig(bridge=False)`` builds
that model from the same parts. Its M is the encoder's states H themselves (S rows, padding masked), the decoder
starts from their masked mean and attends over them (Bahdanau et al.; Luong et al.), and there is no A and no
penalty (A has 0 rows, the penalty is 0).

Training (:func:`train_bridge`) rotates over translation directions, one direction per minibatch, as the
paper's language-rotating scheduler does; identity pairs (en → en, ...) are the paper's "monolingual data".
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from minimodels.adam import Adam, scheduled
from minimodels.attention import BilinearAttention, masked_softmax
from minimodels.bleu import corpus_bleu
from minimodels.tasks.multilingual import MultilingualCorpus, PairBatch, WordTokenizer, encode_sentences
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID
from minimodels.train import stop_requested

Pair = tuple[str, str]  # (source language, target language)


@dataclass(frozen=True)
class BridgeConfig:
    """How a :class:`BridgeModel` is built. Tiny defaults: a minute of CPU training on the toy languages."""

    vocab_sizes: tuple[tuple[str, int], ...] = (("en", 64), ("fr", 64))  # (language, ids incl. specials) each
    embedding_size: int = 32  # E, every language's token embeddings
    encoder_size: int = 32  # per direction of each BiGRU encoder; d_h = 2 × this
    heads: int = 6  # k, rows of M (the paper: 10 for sentences of 13 tokens on average; ours have ~7)
    bridge_hidden: int = 64  # d_a (the paper's d_w), rows of W_1
    penalty_weight: float = 0.1  # λ on ||AAᵀ − I||²_F per sentence; 0 turns the penalty off (see train_bridge)
    bridge: bool = True  # False: no bridge, the decoder attends over the encoder's states (the plain baseline)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(lang for lang, _ in self.vocab_sizes)

    @property
    def d_h(self) -> int:
        return 2 * self.encoder_size


@dataclass
class BridgeOutput:
    """A teacher-forced pass: next-token scores and every attention map, named (none stored on a module)."""

    logits: torch.Tensor  # (B, T, V_target)
    bridge: torch.Tensor  # (B, k, S) A: each head's weights over the source words; 0 on padding; (B, 0, S) no bridge
    cross: torch.Tensor  # (B, T, k) each target step's attention over the k rows of M; (B, T, S) over H, no bridge
    penalty: torch.Tensor  # (B,) ||A Aᵀ − I||²_F per sentence; 0 without a bridge


def redundancy(A: torch.Tensor) -> torch.Tensor:
    r"""Eq. 3's penalty :math:`\lVert A A^\top - I \rVert_F^2` for ``A`` of shape (..., k, S): one per matrix."""
    gram = A @ A.transpose(-2, -1)  # (..., k, k)
    eye = torch.eye(A.shape[-2], dtype=A.dtype, device=A.device)
    return ((gram - eye) ** 2).sum(dim=(-2, -1))


def head_overlap(A: torch.Tensor) -> torch.Tensor:
    r"""Head redundancy read directly: the mean cosine similarity of every pair of heads' distributions (rows of
    ``A``, shape (..., k, S)), one per matrix: 0 when no two heads share a word, 1 when all heads are the same.
    NaN for k = 1 (no pair)."""
    rows = nn.functional.normalize(A, dim=-1)  # (..., k, S), each row of unit length
    cosine = rows @ rows.transpose(-2, -1)  # (..., k, k)
    k = A.shape[-2]
    off = cosine.sum(dim=(-2, -1)) - cosine.diagonal(dim1=-2, dim2=-1).sum(-1)  # the k (k - 1) pairs, both ways
    return off / (k * (k - 1)) if k > 1 else torch.full(A.shape[:-2], float("nan"), dtype=A.dtype)


class AttentionBridge(nn.Module):
    r"""The shared inner-attention layer: :math:`A = \mathrm{softmax}(W_2 \mathrm{ReLU}(W_1 H^\top))`, :math:`M = AH`.

    The softmax runs over source positions (each head's weights sum to 1 over the words), padding masked out.
    """

    def __init__(self, d_h: int, hidden: int, heads: int):
        super().__init__()
        self.W1 = nn.Linear(d_h, hidden, bias=False)  # W_1: d_a × d_h
        self.W2 = nn.Linear(hidden, heads, bias=False)  # W_2: k × d_a

    def forward(self, H: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``H`` (B, S, d_h), ``mask`` (B, S) True at real tokens -> (M (B, k, d_h), A (B, k, S))."""
        scores = self.W2(torch.relu(self.W1(H))).transpose(1, 2)  # (B, S, d_a) -> (B, S, k) -> (B, k, S)
        A = masked_softmax(scores, mask.unsqueeze(1))  # (B, k, S)
        return A @ H, A  # (B, k, S) @ (B, S, d_h) -> (B, k, d_h)


class LanguageEncoder(nn.Module):
    """One language's embedding and bidirectional GRU: token ids -> states H (B, S, d_h)."""

    def __init__(self, vocab_size: int, embedding_size: int, encoder_size: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_size, padding_idx=PAD_ID)
        self.rnn = nn.GRU(embedding_size, encoder_size, batch_first=True, bidirectional=True)

    def forward(self, source: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = pack_padded_sequence(self.embedding(source), lengths.cpu(), batch_first=True, enforce_sorted=False)
        states, _ = self.rnn(packed)
        H, _ = pad_packed_sequence(states, batch_first=True, total_length=source.shape[1])  # (B, S, d_h)
        return H


class LanguageDecoder(nn.Module):
    r"""One language's GRU decoder reading the bridge: :math:`s_0 = \mathrm{mean}_j M_j`, then at step t
    :math:`s_t = \mathrm{GRU}(y_{t-1}, s_{t-1})`, :math:`c_t = \mathrm{attn}(s_t, M)`,
    :math:`\tilde h_t = \tanh(W_c [c_t; s_t])`, :math:`p(y_t) = \mathrm{softmax}(W_o \tilde h_t)` (Luong et al.)."""

    def __init__(self, vocab_size: int, embedding_size: int, d_h: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_size, padding_idx=PAD_ID)
        self.rnn = nn.GRU(embedding_size, d_h, batch_first=True)
        self.attention = BilinearAttention(d_h, d_h)
        self.combine = nn.Linear(2 * d_h, d_h)  # W_c
        self.out = nn.Linear(d_h, vocab_size)  # W_o

    def forward(
        self, tokens: torch.Tensor, state: torch.Tensor, M: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``tokens`` (B, T) previous outputs, ``state`` (1, B, d_h), ``M`` (B, k, d_h), ``mask`` (B, k) True at
        rows to attend to (None: all) -> (logits (B, T, V), new state (1, B, d_h), attention over M (B, T, k))."""
        states, state = self.rnn(self.embedding(tokens), state)  # (B, T, d_h), (1, B, d_h)
        if mask is not None:
            mask = mask.unsqueeze(1)  # (B, 1, k): the same rows for every target step
        context, weights = self.attention(states, M, M, mask=mask)  # (B, T, d_h), (B, T, k)
        combined = torch.tanh(self.combine(torch.cat([context, states], dim=-1)))  # (B, T, d_h)
        return self.out(combined), state, weights


class BridgeModel(nn.Module):
    """Per-language encoders and decoders around one shared :class:`AttentionBridge` (see the module docstring)."""

    def __init__(self, config: BridgeConfig):
        super().__init__()
        self.config = config
        sizes = dict(config.vocab_sizes)
        self.encoders = nn.ModuleDict(
            {lang: LanguageEncoder(v, config.embedding_size, config.encoder_size) for lang, v in sizes.items()}
        )
        # None: the plain attention baseline (no bridge parameters at all)
        self.bridge = AttentionBridge(config.d_h, config.bridge_hidden, config.heads) if config.bridge else None
        self.decoders = nn.ModuleDict(
            {lang: LanguageDecoder(v, config.embedding_size, config.d_h) for lang, v in sizes.items()}
        )

    def encode(self, lang: str, source: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Any language's sentences -> (M (B, k, d_h), A (B, k, S)): the language-independent representation.
        Without a bridge: (H (B, S, d_h), zero at padding; an empty A (B, 0, S))."""
        mask = self.source_mask(source, lengths)  # (B, S)
        H = self.encoders[lang](source, lengths)  # (B, S, d_h)
        if self.bridge is None:
            return H * mask.unsqueeze(-1), H.new_zeros(H.shape[0], 0, H.shape[1])
        return self.bridge(H, mask)

    @staticmethod
    def source_mask(source: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(B, S) True at real tokens (EOS included), False at padding."""
        return torch.arange(source.shape[1], device=source.device) < lengths.to(source.device).unsqueeze(1)

    def memory_mask(self, source: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor | None:
        """Which rows of M the decoder may attend to: None with the bridge (all k), the source mask without."""
        return None if self.bridge is not None else self.source_mask(source, lengths)

    @staticmethod
    def initial_state(M: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """The decoder's s_0: the mean of M's rows (the masked mean over real tokens when ``mask`` is given)."""
        if mask is None:
            return M.mean(dim=1).unsqueeze(0)  # (B, k, d_h) -> (1, B, d_h)
        weights = mask.to(M.dtype).unsqueeze(-1)  # (B, S, 1)
        return ((M * weights).sum(dim=1) / weights.sum(dim=1)).unsqueeze(0)  # (B, d_h) -> (1, B, d_h)

    def forward(self, batch: PairBatch) -> BridgeOutput:
        M, A = self.encode(batch.source_lang, batch.source, batch.source_lengths)
        mask = self.memory_mask(batch.source, batch.source_lengths)
        decoder = self.decoders[batch.target_lang]
        logits, _, cross = decoder(batch.target_in, self.initial_state(M, mask), M, mask)
        penalty = redundancy(A) if self.bridge is not None else M.new_zeros(M.shape[0])  # (B,)
        return BridgeOutput(logits=logits, bridge=A, cross=cross, penalty=penalty)

    @torch.no_grad()
    def translate(
        self, source_lang: str, target_lang: str, source: torch.Tensor, lengths: torch.Tensor, max_len: int = 20
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Greedy decoding -> (token ids (B, ≤ max_len), each ending at its EOS then PAD; A (B, k, S))."""
        M, A = self.encode(source_lang, source, lengths)
        mask = self.memory_mask(source, lengths)
        decoder = self.decoders[target_lang]
        state = self.initial_state(M, mask)
        tokens = torch.full((source.shape[0], 1), BOS_ID, dtype=torch.long, device=source.device)
        done = torch.zeros(source.shape[0], dtype=torch.bool, device=source.device)
        out = []
        for _ in range(max_len):
            logits, state, _ = decoder(tokens, state, M, mask)
            tokens = logits[:, -1].argmax(-1, keepdim=True)  # (B, 1)
            tokens = tokens.masked_fill(done.unsqueeze(1), PAD_ID)
            out.append(tokens)
            done |= tokens.squeeze(1) == EOS_ID
            if bool(done.all()):
                break
        return torch.cat(out, dim=1), A

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())


# ------------------------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class PairScore:
    exact_match: float  # share of sentences decoded exactly right
    token_accuracy: float  # share of reference tokens (EOS included) matched at their position
    redundancy: float  # mean ||AAᵀ − I||_F (not squared) over the sentences
    bleu: float = float("nan")  # corpus BLEU (0–100) of the greedy translations, words without EOS


@dataclass(frozen=True)
class SentenceScores:
    """Greedy translations of a split's first sentences, scored one by one."""

    exact: torch.Tensor  # (B,) bool: the whole sentence right
    matches: torch.Tensor  # (B,) reference tokens (EOS included) matched at their position
    lengths: torch.Tensor  # (B,) reference tokens, EOS included
    source_words: torch.Tensor  # (B,) source words, EOS not counted
    A: torch.Tensor  # (B, k, S) the bridge's weights
    predicted: tuple[tuple[int, ...], ...] = ()  # each greedy translation's ids up to its EOS (EOS not kept)
    references: tuple[tuple[int, ...], ...] = ()  # each reference's ids, EOS not kept

    @property
    def bleu(self) -> float:
        """Corpus BLEU (0–100) of the translations against the references (:func:`minimodels.bleu.corpus_bleu`)."""
        return corpus_bleu(self.predicted, self.references).score


def words_of(ids: Sequence[int]) -> tuple[int, ...]:
    """A decoded row's ids up to its first EOS, padding dropped: the words BLEU counts."""
    out = []
    for i in ids:
        if i == EOS_ID:
            break
        if i != PAD_ID:
            out.append(int(i))
    return tuple(out)


@torch.no_grad()
def evaluate_pair(
    model: BridgeModel, corpus: MultilingualCorpus, split: str, source_lang: str, target_lang: str, limit: int = 200
) -> PairScore:
    """Greedy translation of the first ``limit`` sentences of ``split`` from one language into another."""
    s = score_sentences(model, corpus, split, source_lang, target_lang, limit)
    return PairScore(
        exact_match=float(s.exact.float().mean()),
        token_accuracy=float(s.matches.sum() / s.lengths.sum()),
        redundancy=float(redundancy(s.A).sqrt().mean()),
        bleu=s.bleu,
    )


@torch.no_grad()
def score_sentences(
    model: BridgeModel, corpus: MultilingualCorpus, split: str, source_lang: str, target_lang: str, limit: int = 200
) -> SentenceScores:
    """:func:`evaluate_pair` sentence by sentence (for scores by sentence length)."""
    was_training = model.training
    model.eval()
    n = min(limit, len(corpus.split(split)))
    batch = corpus.pair_batch(split, source_lang, target_lang, torch.arange(n))
    predicted, A = model.translate(
        source_lang, target_lang, batch.source, batch.source_lengths, max_len=batch.target_out.shape[1] + 4
    )
    model.train(was_training)
    gold = batch.target_out  # (B, T)
    width = max(gold.shape[1], predicted.shape[1])
    gold = nn.functional.pad(gold, (0, width - gold.shape[1]), value=PAD_ID)
    predicted = nn.functional.pad(predicted, (0, width - predicted.shape[1]), value=PAD_ID)
    real = gold != PAD_ID
    return SentenceScores(
        exact=(predicted == gold).all(dim=1),
        matches=((predicted == gold) & real).sum(dim=1),
        lengths=real.sum(dim=1),
        source_words=batch.source_lengths - 1,
        A=A,
        predicted=tuple(map(words_of, predicted.tolist())),
        references=tuple(map(words_of, gold.tolist())),
    )


# ------------------------------------------------------------------------------------------- training
@dataclass(frozen=True)
class BridgeTrainConfig:
    """One training run: which directions, how long, how often to report."""

    pairs: tuple[Pair, ...]  # directions trained, in rotation (identity pairs = monolingual data)
    held_out: tuple[Pair, ...] = ()  # directions never trained, evaluated zero-shot at every report
    batch_size: int = 64
    learning_rate: float = 3e-3
    max_steps: int = 3000
    max_seconds: float = 60.0
    report_every: int = 100  # steps between reports (each evaluates a few held-out sentences per direction)
    eval_sentences: int = 64  # valid sentences per direction at each report
    seed: int = 0
    threads: int = 1  # torch threads for this run (set in the calling thread)


@dataclass(frozen=True)
class BridgeProgress:
    """One report of :func:`train_bridge`; ``step``/``seconds``/``loss``/``exact_match`` are what the shared
    training panel reads. Everything is numpy or plain Python, safe to hand to another thread."""

    step: int
    seconds: float
    loss: float  # mean cross-entropy per target token since the last report
    penalty: float  # mean ||AAᵀ − I||²_F per sentence since the last report (computed even when λ = 0)
    exact_match: float  # mean held-out exact match over the trained non-identity directions
    zero_shot: dict[str, float] = field(default_factory=dict)  # "src→tgt" -> held-out exact match, untrained pairs
    probe_maps: dict[str, np.ndarray] = field(default_factory=dict)  # language -> A (k, S) of the probe meaning
    probe_tokens: dict[str, list[str]] = field(default_factory=dict)  # language -> the probe's words + "</s>"


def pair_name(pair: Pair) -> str:
    return f"{pair[0]}→{pair[1]}"


def bridge_maps(model: BridgeModel, sentences: dict[str, str], tokenizers: dict[str, WordTokenizer]) -> dict:
    """A (k, S) for one sentence per language, with its token labels: ``{lang: (A, tokens)}``."""
    out = {}
    with torch.no_grad():
        for lang, text in sentences.items():
            enc = encode_sentences([text], tokenizers[lang])
            _, A = model.encode(lang, enc.with_eos, enc.lengths)
            out[lang] = (A[0].numpy(), [*text.split(), "</s>"])
    return out


def train_bridge(
    model: BridgeModel,
    corpus: MultilingualCorpus,
    config: BridgeTrainConfig,
    on_progress: Callable[[BridgeProgress], bool | None] | None = None,
) -> list[BridgeProgress]:
    """Train ``model`` in place, one direction per minibatch in a shuffled rotation; report every few steps.

    The loss is cross-entropy per target token plus ``penalty_weight`` × eq. 3's penalty per sentence. The paper
    sums the cross-entropy over a sentence's tokens and adds the penalty with weight 1, so beside one token's loss
    its penalty weighs 1/n for n tokens; here λ stands where the paper has 1/n, and λ·n is the weight in the
    paper's terms: λ = 0.1 with the toy's n ≈ 7 target tokens is about 0.7 of the paper's
    (``lessons.attention_bridge.penalty.penalty_weight_text``). ``on_progress`` returning False stops the run after
    that report.
    """
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    optimizer = Adam(model.parameters(), lr=config.learning_rate)
    # the learning rate falls linearly to a tenth of itself at max_steps: fast early, settled at the end
    schedule = scheduled(optimizer, lambda s: 1.0 - 0.9 * min(1.0, s / config.max_steps))
    weight = model.config.penalty_weight
    n_train = len(corpus.train)
    supervised = [p for p in config.pairs if p[0] != p[1]] or list(config.pairs)
    rotation: list[Pair] = []
    history: list[BridgeProgress] = []
    start = time.monotonic()
    ce_sum = penalty_sum = 0.0
    since = 0
    model.train()
    for step in range(1, config.max_steps + 1):
        if not rotation:
            rotation = list(config.pairs)
            rng.shuffle(rotation)
        source_lang, target_lang = rotation.pop()
        index = torch.randint(n_train, (config.batch_size,), generator=generator)
        batch = corpus.pair_batch("train", source_lang, target_lang, index)
        out = model(batch)
        ce = nn.functional.cross_entropy(out.logits.transpose(1, 2), batch.target_out, ignore_index=PAD_ID)
        penalty = out.penalty.mean()
        loss = ce + weight * penalty if weight > 0 else ce
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        schedule(step - 1)  # the steps taken before this one
        optimizer.step()
        ce_sum += ce.item()
        penalty_sum += penalty.item()
        since += 1
        if history and stop_requested():  # a page's Stop (minimodels.train.stop_when): end now, no last report
            break
        seconds = time.monotonic() - start
        last = step == config.max_steps or seconds >= config.max_seconds or stop_requested()
        if step % config.report_every == 0 or last:
            report = _report(model, corpus, config, supervised, step, seconds, ce_sum / since, penalty_sum / since)
            history.append(report)
            ce_sum = penalty_sum = 0.0
            since = 0
            if on_progress is not None and on_progress(report) is False:
                break
            if last:
                break
    model.eval()
    return history


def _report(model, corpus, config, supervised, step, seconds, loss, penalty) -> BridgeProgress:
    def exact(pair: Pair) -> float:
        return evaluate_pair(model, corpus, "valid", *pair, limit=config.eval_sentences).exact_match

    model.eval()
    seen = float(np.mean([exact(p) for p in supervised]))
    zero_shot = {pair_name(p): exact(p) for p in config.held_out}
    maps = bridge_maps(model, corpus.probe.sentences, corpus.tokenizers)
    model.train()
    return BridgeProgress(
        step=step,
        seconds=seconds,
        loss=loss,
        penalty=penalty,
        exact_match=seen,
        zero_shot=zero_shot,
        probe_maps={lang: A for lang, (A, _) in maps.items()},
        probe_tokens={lang: tokens for lang, (_, tokens) in maps.items()},
    )


def all_pairs(
    languages: Sequence[str], *, held_out: Sequence[Pair] = (), monolingual: bool = False
) -> tuple[Pair, ...]:
    """Every direction between ``languages`` except ``held_out``; with ``monolingual``, also lang → lang."""
    pairs = [(a, b) for a in languages for b in languages if a != b and (a, b) not in held_out]
    if monolingual:
        pairs += [(a, a) for a in languages]
    return tuple(pairs)


# ------------------------------------------------------------------------------------------- saving
def save_bridge(model: BridgeModel, tokenizers: dict[str, WordTokenizer], directory: str | Path, **info) -> None:
    """``model.pt`` (the weights in float16, half the bytes) and ``config.json`` (config, vocabularies, ``info``)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.half() for k, v in model.state_dict().items()}, directory / "model.pt")
    vocab = {
        lang: [tokenizers[lang].id_to_piece(i) for i in range(4, tokenizers[lang].vocab_size)]
        for lang in model.config.languages
    }
    config = {**asdict(model.config), "vocab_sizes": [list(x) for x in model.config.vocab_sizes]}
    (directory / "config.json").write_text(json.dumps({"config": config, "vocab": vocab, "info": info}, indent=1))


def load_bridge(directory: str | Path) -> tuple[BridgeModel, dict[str, WordTokenizer], dict]:
    """A model saved by :func:`save_bridge`, in eval mode, with its tokenizers and the ``info`` saved with it."""
    directory = Path(directory)
    saved = json.loads((directory / "config.json").read_text())
    raw = saved["config"]
    config = BridgeConfig(**{**raw, "vocab_sizes": tuple((lang, int(v)) for lang, v in raw["vocab_sizes"])})
    model = BridgeModel(config)
    state = torch.load(directory / "model.pt", weights_only=True)
    model.load_state_dict({k: v.float() for k, v in state.items()})
    tokenizers = {lang: WordTokenizer(words, name=lang) for lang, words in saved["vocab"].items()}
    return model.eval(), tokenizers, saved["info"]


def new_bridge(corpus: MultilingualCorpus, **options) -> BridgeModel:
    """A fresh model sized for ``corpus``'s vocabularies; ``options`` override :class:`BridgeConfig` fields."""
    sizes = tuple((lang, corpus.tokenizers[lang].vocab_size) for lang in corpus.languages)
    return BridgeModel(BridgeConfig(vocab_sizes=sizes, **options))
