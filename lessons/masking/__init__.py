r"""Lesson: masking (Part 2).

The Transformer lecture's slide "Masking" — *let the model only focus on what it should focus on*:

* **padding mask**: set "padded element attention to −inf", so a sentence padded to its batch's length gives
  exactly 0 weight to its ``<pad>`` tokens and its result does not depend on its batch-mates;
* **sequence (causal) mask**: "bans the decoder from seeing future information" (set "future attention to
  −inf"), so position t reads positions ≤ t only.

.. math:: \mathrm{softmax}\Big(\frac{QK^\top}{\sqrt{d_k}} + M\Big)V,
          \qquad M_{ij} = \begin{cases} 0 & \text{allowed} \\ -\infty & \text{masked} \end{cases}

Masks are bool, True where attention is allowed (:mod:`minimodels.attention`). The causal mask is shown on a
decoder-only model with one self-attention (:class:`minimodels.small.TinyDecoder`, nothing the course has not
taught by lesson 7) that predicts the next character of "word=cipher" sequences. Trained without the mask it is
the *cheating decoder*: it reads the next token from its own input, its training loss falls below what any honest
decoder can reach, and it fails once it must generate. Measured over seeds by ``scripts/masking_results.py``.
This module never imports streamlit.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons import queries_keys_values as qkv
from lessons.common.catalog import ROOT
from lessons.common.charts import attention_coloraxis, attention_heatmap, figure, hover_pairs, safe_label
from lessons.common.comparison import Comparison, Run, curves_chart
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.common.pretrained import load_pretrained
from minimodels.attention import causal_mask, masked_softmax, padding_mask, scaled_dot_product_attention
from minimodels.small import Report, SmallConfig, TinyDecoder, fit, random_strings
from minimodels.tasks import get_task
from minimodels.tokenizers import EOS_ID

RESULTS = ROOT / "assets" / "results" / "masking.json"

# --------------------------------------------------------------------------------------------------
# 1. The padding mask
# --------------------------------------------------------------------------------------------------

PAD = "<pad>"
ROUNDING = 1e-5  # a difference up to this is float rounding (float32 attention: ≈1e-7)
MAX_SENTENCES = 6
MAX_WORDS = 12  # per sentence: the padded batch stays small enough to read on a projector
MAX_CHARS = 2000  # the whole text box
DEFAULT_SENTENCES = "I like pizza\nJane visits Africa in September\nHello"


@dataclass(frozen=True)
class ParsedBatch:
    sentences: tuple[tuple[str, ...], ...]  # words of each sentence
    error: str | None = None  # why the text was refused; the page then keeps the last good batch


def parse_batch(text: str) -> ParsedBatch:
    """One sentence per line, words split on whitespace; refuse what the lesson cannot show, with a message.

    Any characters are accepted as words (HTML, emoji, right-to-left script): charts escape them and the page
    never renders them as HTML.
    """
    if not isinstance(text, str) or not text.strip():
        return ParsedBatch((), "Type at least one sentence (one per line).")
    if len(text) > MAX_CHARS:
        return ParsedBatch((), f"That is {len(text)} characters; this lesson takes at most {MAX_CHARS}.")
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_SENTENCES:
        return ParsedBatch((), f"That is {len(lines)} sentences; this lesson takes at most {MAX_SENTENCES}.")
    for number, words in enumerate(lines, 1):
        if len(words) > MAX_WORDS:
            return ParsedBatch((), f"Sentence {number} has {len(words)} words; at most {MAX_WORDS} each.")
        if any(len(w) > qkv.MAX_TOKEN_CHARS for w in words):
            return ParsedBatch((), f"Words longer than {qkv.MAX_TOKEN_CHARS} characters are not accepted.")
    return ParsedBatch(tuple(tuple(words) for words in lines))


@dataclass(frozen=True)
class PaddingDemo:
    """A batch of sentences padded to one length S, attended with the padding mask off and on."""

    sentences: tuple[tuple[str, ...], ...]  # B sentences, unpadded
    tokens: tuple[tuple[str, ...], ...]  # B rows of S tokens, PAD after each sentence
    lengths: torch.Tensor  # (B,) words per sentence
    mask: torch.Tensor  # (B, S) bool: True at real tokens (the padding mask)
    weights_off: torch.Tensor  # (B, S, S) softmax(QKᵀ/√d_k), padding attended like any word
    weights_on: torch.Tensor  # (B, S, S) the same with the padding mask: exactly 0 on PAD columns
    outputs_off: torch.Tensor  # (B, S, d_k)
    outputs_on: torch.Tensor  # (B, S, d_k)
    alone: tuple[torch.Tensor, ...]  # B × (L_b, d_k): each sentence's output computed on its own, no padding

    def pad_weight(self, masked: bool) -> torch.Tensor:
        """``(B, S)``: the weight each query row gives to PAD keys in total."""
        weights = self.weights_on if masked else self.weights_off
        return (weights * ~self.mask[:, None, :]).sum(-1)  # (B, S, S) -> (B, S)

    def change_from_padding(self, masked: bool) -> list[float]:
        """Per sentence: the largest change padding makes to its real words' outputs, against the sentence
        attended alone. With the mask this is float rounding (≈1e-7); without it, padding changes the result."""
        outputs = self.outputs_on if masked else self.outputs_off
        return [
            float((outputs[b, : len(alone)] - alone).abs().max()) for b, alone in enumerate(self.alone)
        ]  # fmt: skip

    def leak(self, b: int, masked: bool) -> float:
        """Sentence ``b``: the weight its words' rows give to ``<pad>``, on average (0 with the mask)."""
        return float(self.pad_weight(masked)[b][self.mask[b]].mean())

    def labels(self) -> list[str]:
        """How the page names each sentence: "2: Jane visits Africa…"."""
        return [f"{b + 1}: {' '.join(s)}" for b, s in enumerate(self.sentences)]

    def table(self) -> dict[str, list[str]]:
        """The padded batch as a table: one row per sentence, one column per position."""
        S = len(self.tokens[0])
        rows = [f"sentence {b + 1}" for b in range(len(self.tokens))]
        return {"": rows, **{f"position {j + 1}": [row[j] for row in self.tokens] for j in range(S)}}

    def note(self, b: int) -> str:
        """What the page says under sentence ``b``'s two maps."""
        pads = len(self.tokens[b]) - int(self.lengths[b])  # every sentence is padded to the batch's length S
        if not pads:
            return (
                "This sentence is the longest, so it has no padding and both maps are the same. Pick a shorter one, "
                "or add a longer sentence to the batch and watch this one get padded."
            )
        on, off = self.change_from_padding(True)[b], self.change_from_padding(False)[b]
        zero = bool((self.pad_weight(True)[b][self.mask[b]] == 0).all())
        masked = (
            f"each `<pad>` column is {'exactly 0' if zero else 'not 0'} and the words' outputs differ from the "
            f"sentence attended alone by at most {on:.0e}".replace("0e+00", "0")
            + (" (float rounding)" if on <= ROUNDING else "")
        )
        unmasked = (
            f"they differ by up to {off:.2g}: the result depends on the batch"
            if off > ROUNDING
            else f"they differ by at most {off:.0e}: here the padding happens to change nothing"
        )
        return (
            f"This sentence carries **{pads}** `<pad>`. With the mask, {masked}. Without it, {unmasked}. The `<pad>` "
            "*rows* are computed either way and thrown away (the training loss ignores them)."
        )


def padding_attention(
    sentences: tuple[tuple[str, ...], ...], d_model: int = 16, d_k: int = 8, seed: int = 0
) -> PaddingDemo:
    """Self-attention over a padded batch, without and with the padding mask.

    Q, K and V come from :func:`lessons.queries_keys_values.self_attention` (seeded random W, a fixed random vector
    per word,
    ``<pad>`` included, as a real embedding table has a row for it), so a sentence alone gets exactly the
    Q/K/V lesson's numbers. The mask hides PAD *keys* (columns): PAD query rows are still computed, and a model
    throws them away (their loss is ignored).
    """
    if not sentences or not all(sentences):
        raise ValueError("padding_attention needs at least one sentence, each of at least one word")
    S = max(len(s) for s in sentences)
    tokens = tuple(tuple(s) + (PAD,) * (S - len(s)) for s in sentences)
    padded = [qkv.self_attention(row, d_model=d_model, d_k=d_k, seed=seed) for row in tokens]
    Q, K, V = (torch.stack([getattr(p, name) for p in padded]) for name in "QKV")  # (B, S, d_k) each
    lengths = torch.tensor([len(s) for s in sentences])  # (B,)
    mask = padding_mask(lengths, S)  # (B, S)
    outputs_off, weights_off = scaled_dot_product_attention(Q, K, V)  # (B, S, d_k), (B, S, S)
    outputs_on, weights_on = scaled_dot_product_attention(Q, K, V, mask[:, None, :])  # keys masked per sentence
    alone = tuple(qkv.self_attention(tuple(s), d_model=d_model, d_k=d_k, seed=seed).Z for s in sentences)
    return PaddingDemo(
        tuple(tuple(s) for s in sentences), tokens, lengths, mask, weights_off, weights_on, outputs_off, outputs_on,
        alone,
    )  # fmt: skip


def padding_mask_figure(demo: PaddingDemo) -> go.Figure:
    """The batch's padding mask as a map: one row per sentence, 1 where a position holds a real word."""
    S, rows = len(demo.tokens[0]), [f"sentence {b + 1}" for b in range(len(demo.tokens))]
    return attention_heatmap(demo.mask.float(), [str(j + 1) for j in range(S)], rows, title="padding_mask(lengths, S)",
                             value_name="allowed", x_title="position", y_title="sentence",
                             height=160 + 34 * len(rows))  # fmt: skip


def padding_pair_figure(demo: PaddingDemo, b: int) -> go.Figure:
    """Sentence ``b``'s self-attention with the padding mask off and on, side by side."""
    maps = [("padding mask OFF: weight leaks onto <pad>", demo.weights_off[b]),
            ("padding mask ON: <pad> columns exactly 0", demo.weights_on[b])]  # fmt: skip
    return pair_figure(maps, demo.tokens[b], demo.tokens[b])


# --------------------------------------------------------------------------------------------------
# 2. The causal (sequence) mask
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MaskedRow:
    """One query row of random scores, with the future set to −inf, then the softmax."""

    position: int  # t, 0-based: the query's position
    scores: torch.Tensor  # (T,) raw scores
    masked_scores: torch.Tensor  # (T,) −inf after position t
    weights: torch.Tensor  # (T,) masked_softmax: exactly 0 after position t

    def table(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """The row as the page shows it: each key (labelled by ``keys``), its score, masked score and weight."""
        return {
            "key": [f"{j + 1}: {tok}" for j, tok in enumerate(keys)],
            "score": [f"{v:.2f}" for v in self.scores.tolist()],
            "future → −∞": [f"{v:.2f}" for v in self.masked_scores.tolist()],
            "softmax": [f"{v:.3f}" for v in self.weights.tolist()],
        }


def causal_row(T: int, position: int, seed: int = 0) -> MaskedRow:
    """Seeded N(0, 1) scores for one query at ``position`` of ``T``, through the causal mask's row."""
    if not 0 <= position < T:
        raise ValueError(f"position {position} is outside 0..{T - 1}")
    scores = torch.randn(T, generator=torch.Generator().manual_seed(seed)).round(decimals=2)  # (T,)
    allowed = causal_mask(T)[position]  # (T,) True at positions ≤ t
    return MaskedRow(position, scores, scores.masked_fill(~allowed, -math.inf), masked_softmax(scores, allowed))


def causal_mask_figure(inputs: Sequence[str]) -> go.Figure:
    """``causal_mask(T)`` as a map over the decoder's input tokens: 1 where query i may read key j."""
    T = len(inputs)
    return attention_heatmap(causal_mask(T).float(), inputs, inputs, title=f"causal_mask({T}): 1 = allowed",
                             value_name="allowed")  # fmt: skip


def causal_row_caption(row: MaskedRow, token: str, quote=repr) -> str:
    """Under the table of one query's scores; ``quote`` shows the (model's) token verbatim."""
    return (
        f"Random scores (seeded) for query {row.position + 1} ({quote(token)}): keys after it get −∞ and "
        "then weight exactly 0; the allowed ones share all of it."
    )


def future_weight(self_attention: torch.Tensor | np.ndarray) -> float:
    """Mean over query rows (and heads) of the weight on *later* positions, the part above the diagonal.

    ``self_attention`` is ``(T, T)`` or ``(h, T, T)``. A causal decoder gives exactly 0.
    """
    w = torch.as_tensor(self_attention, dtype=torch.float32).detach()
    T = w.size(-1)
    future = ~causal_mask(T)  # (T, T) True strictly above the diagonal
    return float((w * future).sum(-1).mean())


def pair_figure(
    maps: Sequence[tuple[str, np.ndarray | torch.Tensor]],
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    value_name: str = "weight",
) -> go.Figure:
    """Maps of the same tokens side by side (the mask off and on, a decoder with and without it), each titled
    (a title's first ": " starts its second line), on one pair of axes with one 0–1 colour scale and the exact
    value on hover.

    One figure with one pair of axes, not one figure per map: the browser draws every changed Plotly figure
    from scratch, so two figures cost two full draws on every move of a control (measured: +80–90 ms each).
    Each map is its own heatmap trace, named by its title (the downloads and the tests read it).
    """
    xs = [safe_label(t) for t in x_labels]
    ys = [safe_label(t) for t in y_labels]
    blank = max(1, round(0.18 * len(xs)))  # columns between two maps
    step = len(xs) + blank  # map k starts at x = k · step
    custom = hover_pairs(ys, xs)
    cell_text = len(xs) * len(ys) <= 10 * 10  # as charts.attention_heatmap: numbers in the cells of small maps
    data, annotations = [], []
    for k, (title, weights) in enumerate(maps):
        z = np.asarray(weights, dtype=float)
        if z.shape != (len(ys), len(xs)):
            raise ValueError(f"map {title!r} of shape {z.shape} does not match {len(ys)} × {len(xs)} labels")
        trace = {
            "type": "heatmap", "z": z, "x": [k * step + c for c in range(len(xs))], "y": list(range(len(ys))),
            "name": safe_label(title, 80), "showlegend": False, "customdata": custom, "coloraxis": "coloraxis",
            "xgap": 1, "ygap": 1,
            "hovertemplate": f"{safe_label(title, 80)}<br>%{{customdata}}<br>{value_name} = %{{z:.4f}}<extra></extra>",
        }  # fmt: skip
        if cell_text:
            trace |= {"text": np.char.mod("%.2f", z), "texttemplate": "%{text}"}
        data.append(trace)
        annotations.append(
            {"text": safe_label(title, 80).replace(": ", ":<br>", 1), "x": k * step + (len(xs) - 1) / 2, "y": 1,
             "xref": "x", "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False,
             "font": {"size": 14}}
        )  # fmt: skip
    layout = {
        "annotations": annotations,
        "coloraxis": attention_coloraxis(value_name, thickness=14),
        "height": max(300, 28 * len(ys) + 130),
        "margin": {"l": 10, "r": 10, "t": 60 if any(": " in title for title, _ in maps) else 40, "b": 10},
        "xaxis": {
            "title": {"text": "key (attended to)"}, "tickmode": "array",
            "tickvals": [k * step + c for k in range(len(maps)) for c in range(len(xs))], "ticktext": xs * len(maps),
            "tickangle": -45 if len(xs) > 6 else 0, "range": [-0.5, len(maps) * step - blank - 0.5],
            "showgrid": False, "zeroline": False,
        },
        "yaxis": {
            "title": {"text": "query (attending)"}, "tickmode": "array", "tickvals": list(range(len(ys))),
            "ticktext": ys, "autorange": "reversed", "showgrid": False, "zeroline": False,
        },
    }  # fmt: skip
    return figure(data, layout)


# --------------------------------------------------------------------------------------------------
# 3. A decoder-only model that predicts the next token, with and without the causal mask
# --------------------------------------------------------------------------------------------------
# The sequences: an 8-letter word, "=", then the word in Caesar's cipher (every letter 3 further on, z -> c):
# "sequence=vhtxhqfh". The decoder reads it left to right and predicts every next character. The word's letters
# are random, so no honest model predicts them; the cipher half follows from the word. A model that may read
# position t + 1 predicts everything by copying it, and generating gives it no position t + 1 to copy.

TASK = "copy"  # the course's character task whose tokenizer the models use (its checkpoints are checked against it)
LETTERS = string.ascii_lowercase
WORD = 8  # letters per word
SHIFT = 3  # Caesar's own shift
SEP = "="  # shown for the separator token (the tokenizer's end-of-string id)
PROBE = "sequence"
D_MODEL = 64
STEPS, BATCH, LR, REPORT_EVERY = 1000, 64, 3e-3, 50
HELD_OUT, TEST = 200, 1000  # words scored during training and at the end
TEST_SEED = 10_000  # the test words' generator (training words come from the run's seed)
MODELS = {True: "small-decoder-causal", False: "small-decoder-no-mask"}  # causal -> shipped model name
PRETRAINED_KEYS = {c: (TASK, name) for c, name in MODELS.items()}  # ui.pretrained's (task, model)
VARIANT = {True: "causal mask", False: "no mask"}  # causal -> the comparison's variant key
LABELS = {True: "causal mask", False: "no mask (cheating decoder)"}
MAP_TITLES = {True: "causal mask: on", False: "causal mask: off (cheating)"}  # short: two maps share a phone's width
SCRIPT = "scripts/masking_results.py"


@cache
def tokenizer():
    return get_task(TASK).source_tokenizer


@cache
def _tables() -> tuple[torch.Tensor, torch.Tensor]:
    """``(letter ids (26,), cipher (V,))``: the letters' token ids, and each id's id after the shift."""
    ids = torch.tensor(tokenizer().encode(LETTERS))
    shifted = torch.arange(tokenizer().vocab_size)
    shifted[ids] = ids.roll(-SHIFT)
    return ids, shifted


def cipher(word: str) -> str:
    """Caesar's cipher: every letter ``SHIFT`` further on in the alphabet, z wrapping to c."""
    return "".join(LETTERS[(LETTERS.index(c) + SHIFT) % len(LETTERS)] for c in word)


def sequences(words: torch.Tensor) -> torch.Tensor:
    """``(B, WORD)`` letter ids -> ``(B, 2·WORD + 1)``: word, separator, cipher."""
    sep = torch.full((len(words), 1), EOS_ID)
    return torch.cat([words, sep, _tables()[1][words]], dim=1)


def random_words(n: int, generator: torch.Generator) -> torch.Tensor:
    return random_strings(n, WORD, _tables()[0], generator)  # (n, WORD)


def encode_word(word: str) -> torch.Tensor:
    return torch.tensor([tokenizer().encode(word)])  # (1, WORD)


@dataclass(frozen=True)
class ParsedWord:
    word: str
    error: str | None = None


def parse_word(text: str) -> ParsedWord:
    """The student's word: exactly ``WORD`` lowercase letters a–z (what the models were trained on), or a message."""
    word = text.strip().lower() if isinstance(text, str) else ""
    if len(word) != WORD:
        return ParsedWord("", f"Type a word of exactly {WORD} letters (that is {len(word)}), e.g. “{PROBE}”.")
    odd = sorted({c for c in word if c not in LETTERS})
    if odd:
        return ParsedWord("", f"Letters a–z only (not {', '.join(repr(c) for c in odd[:5])}).")
    return ParsedWord(word)


def model_config(causal: bool) -> SmallConfig:
    return SmallConfig(tokenizer().vocab_size, D_MODEL, "learned", max_len=2 * WORD, causal=causal)


def new_model(causal: bool, seed: int) -> TinyDecoder:
    torch.manual_seed(seed)
    return TinyDecoder(model_config(causal))


def loss_floor() -> float:
    """The lowest mean loss a decoder that reads only the past can reach: of the 2·WORD predictions, the WORD − 1
    later letters of the random word cannot be predicted better than uniformly (ln 26 each); the rest can be
    certain."""
    return (WORD - 1) / (2 * WORD) * math.log(len(LETTERS))


@dataclass(frozen=True)
class Scores:
    """One decoder on a set of words: fed the whole sequence (teacher forced) and generating the cipher itself."""

    loss: float  # mean next-token cross-entropy over the whole sequence (what training minimises)
    teacher_forced_accuracy: float  # cipher letters right when fed the gold sequence
    free_running_accuracy: float  # cipher letters right when it generates them after "word="
    free_running_exact: float  # words whose whole cipher it generates right


@torch.inference_mode()
def score(model: TinyDecoder, seqs: torch.Tensor) -> Scores:
    logits = model(seqs[:, :-1]).logits  # (B, 2W, V): row t predicts token t + 1
    loss = float(nn.functional.cross_entropy(logits.flatten(0, 1), seqs[:, 1:].flatten()))
    gold = seqs[:, WORD + 1 :]  # (B, W) the cipher
    forced = (logits[:, WORD:].argmax(-1) == gold).float()  # rows WORD.. predict the cipher
    generated, _ = model.generate(seqs[:, : WORD + 1], WORD)  # (B, W)
    hits = (generated == gold).float()
    return Scores(loss, float(forced.mean()), float(hits.mean()), float(hits.all(1).float().mean()))


def held_out() -> torch.Tensor:
    return sequences(random_words(HELD_OUT, torch.Generator().manual_seed(TEST_SEED + 1)))


def test_set() -> torch.Tensor:
    return sequences(random_words(TEST, torch.Generator().manual_seed(TEST_SEED)))


def train_decoder(causal: bool, seed: int, steps: int = STEPS, *, on_report=None, report_every: int = REPORT_EVERY,
                  max_seconds: float | None = None) -> tuple[TinyDecoder, list[dict]]:  # fmt: skip
    """Train a fresh decoder on random words (drawn from ``seed``); ``on_report(point, model)`` at every report,
    ``point`` = {"step", "seconds", "loss", "teacher_forced_accuracy", "exact_match"} (held-out), False stops."""
    model, words, check = new_model(causal, seed), torch.Generator().manual_seed(seed), held_out()
    curve = []

    def report(r: Report) -> bool | None:
        s = score(model, check)
        point = {"step": r.step, "seconds": round(r.seconds, 3), "loss": r.loss,
                 "teacher_forced_accuracy": s.teacher_forced_accuracy, "exact_match": s.free_running_exact}  # fmt: skip
        curve.append(point)
        return on_report(point, model) if on_report is not None else None

    def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        seqs = sequences(random_words(BATCH, words))
        return seqs[:, :-1], seqs[:, 1:]

    fit(model, batch, steps=steps, lr=LR, seed=seed, report_every=report_every, on_report=report,
        max_seconds=max_seconds)  # fmt: skip
    return model, curve


METRICS = {  # the final metrics, as the table heads them -> format
    "final training loss": ".3f",
    "teacher-forced accuracy": ".1%",
    "free-running accuracy": ".1%",
    "free-running exact match": ".1%",
}


def trained_run(causal: bool, seed: int, steps: int = STEPS) -> tuple[Run, TinyDecoder]:
    """One decoder trained and measured on the test words: its Run (curve and final metrics) and the model."""
    model, curve = train_decoder(causal, seed, steps)
    s = score(model, test_set())
    final = {
        "final training loss": curve[-1]["loss"], "teacher-forced accuracy": s.teacher_forced_accuracy,
        "free-running accuracy": s.free_running_accuracy, "free-running exact match": s.free_running_exact,
    }  # fmt: skip
    params = {"causal": causal, "steps": curve[-1]["step"], "d_model": D_MODEL}
    return Run(VARIANT[causal], seed, params, curve, final, {"test words": TEST, "test loss": s.loss}), model


def load_results(path: Path | str = RESULTS) -> Comparison:
    """The comparison written by ``scripts/masking_results.py``; ``ValueError`` when it is not usable."""
    path = Path(path)
    results = Comparison.load(path, script=SCRIPT)
    lacking = [
        v for v in VARIANT.values()
        if v not in results.variants or len(results.runs_of(v)) < 3
        or any(m not in run.final or not run.curve for run in results.runs_of(v) for m in METRICS)
    ]  # fmt: skip
    if lacking:
        raise ValueError(f"{path.name} lacks three seeds of {', '.join(lacking)}: re-run {SCRIPT}")
    return results


def results_table(results: Comparison) -> list[dict]:
    return results.table(METRICS, variant_header="decoder")


def results_sentences(results: Comparison) -> list[str]:
    """What the measured table says, each computed with the verdict rule (a file where it goes the other way says
    so): training loss, teacher-forced accuracy, then generating."""
    causal, cheat = VARIANT[True], VARIANT[False]
    loss = results.compare(cheat, causal, "final training loss", higher_is_better=False)
    forced = results.compare(cheat, causal, "teacher-forced accuracy")
    free = results.compare(causal, cheat, "free-running exact match")
    floor = loss_floor()
    below = results.spread("final training loss", cheat).mean < floor
    return [
        loss.sentence(".3f", "final training loss (lower is better)")
        + (f" It is below {floor:.3f}, the least a decoder that reads only the past can reach: it read the answer."
           if below else f" It is not below {floor:.3f}, the least a decoder that reads only the past can reach."),
        forced.sentence(".1%", "teacher-forced accuracy"),
        free.sentence(".1%", "free-running exact match (generating the cipher itself)"),
    ]  # fmt: skip


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Training loss and held-out free-running exact match against ``x``, every seed and the mean ± sd."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    loss = curves_chart(results.curve_points("loss", x=x), y_title="training loss", x_title=title,
                        title="Loss (what training sees)", height=280)  # fmt: skip
    exact = curves_chart(results.curve_points("exact_match", x=x), y_title="held-out exact match", x_title=title,
                         title="Generating the cipher itself", height=280, percent=True)  # fmt: skip
    return loss, exact


def provenance_note(results: Comparison) -> str:
    meta = results.meta
    return (
        f"Means ± sd over seeds {', '.join(map(str, results.seeds))}: {meta.get('steps')} steps of {BATCH} random "
        f"words each, Adam at {LR:g}, d = {D_MODEL}; a held-out check ({HELD_OUT} words) every {REPORT_EVERY} steps. "
        f"Scored at the end on {TEST} test words. Teacher forced: fed the gold sequence, the cipher letters "
        "predicted right; free-running: after “word=”, each letter generated from its own output (greedy); exact "
        "match: the whole cipher right."
    )


def cheat_gap(results: Comparison) -> float:
    """The cheating decoder's teacher-forced accuracy minus its free-running exact match (means over seeds)."""
    cheat = VARIANT[False]
    return (results.spread("teacher-forced accuracy", cheat).mean
            - results.spread("free-running exact match", cheat).mean)  # fmt: skip


# ------------------------------------------------------------------------- the shipped decoders on one word
def load_model(causal: bool) -> tuple[TinyDecoder, dict]:
    """``(model, meta)`` of the shipped decoder with or without the causal mask: the one copy ``load_pretrained``
    keeps per process, shared read-only."""
    shipped = load_pretrained(*PRETRAINED_KEYS[causal])
    if shipped[0].config.causal != causal:
        raise ValueError(f"checkpoint {MODELS[causal]} has causal={shipped[0].config.causal}, expected {causal}")
    return shipped


def input_labels(word: str) -> list[str]:
    """The decoder's input positions: the word, the separator, the cipher without its last letter."""
    return [*word, SEP, *cipher(word)[:-1]]


@dataclass(frozen=True)
class DecoderView:
    """One word through one decoder: its self-attention (teacher forced) and its two outputs."""

    word: str
    inputs: list[str]  # 2·WORD labels: rows and columns of the map
    attention: np.ndarray  # (T, T)
    teacher_forced: str  # the cipher letters it predicts when fed the gold sequence
    free_running: str  # the cipher it generates after "word="


@torch.inference_mode()
def look(model: TinyDecoder, word: str) -> DecoderView:
    seqs = sequences(encode_word(word))  # (1, 2W + 1)
    output = model(seqs[:, :-1])
    forced = output.logits[0, WORD:].argmax(-1).tolist()
    generated, _ = model.generate(seqs[:, : WORD + 1], WORD)
    return DecoderView(word, input_labels(word), output.attention["self"][0].double().numpy(),
                       tokenizer().decode(forced), tokenizer().decode(generated[0].tolist()))  # fmt: skip


def shipped_view(causal: bool, word: str) -> DecoderView:
    return look(load_model(causal)[0], word)


def outputs_table(normal: DecoderView, cheater: DecoderView) -> list[dict]:
    """Each decoder's cipher of one word: the gold, predicted when fed the gold sequence, generated on its own."""
    return [
        {"decoder": LABELS[causal], "gold cipher": cipher(view.word), "teacher forced": view.teacher_forced,
         "generating on its own": view.free_running}
        for causal, view in ((True, normal), (False, cheater))
    ]  # fmt: skip


def outputs_caption(word: str, quote=repr) -> str:
    return (
        f"The word {quote(word)}. Teacher forced, each cipher letter is predicted from the gold sequence (for the "
        "cheating decoder, the letters after it too); generating, from the decoder's own letters so far."
    )


def diagonal_weight(weights: np.ndarray, offset: int, first_row: int = 0) -> float:
    """Mean over rows ``first_row`` … of the weight on key ``row + offset`` (rows where that key exists)."""
    rows = [t for t in range(first_row, len(weights)) if 0 <= t + offset < weights.shape[1]]
    return float(np.mean([weights[t, t + offset] for t in rows]))


def maps_caption(normal: DecoderView, cheater: DecoderView) -> str:
    """Under the two maps: where each decoder's rows put their weight, computed from the maps."""
    back = diagonal_weight(normal.attention, -WORD, first_row=WORD)  # cipher rows reading the letter WORD back
    ahead = diagonal_weight(cheater.attention, 1)
    return (
        f"With the mask, the rows from “{SEP}” on put {back:.0%} of their weight (mean) on the letter {WORD} places "
        f"back, the one the next cipher letter is made from. Without it, rows put {ahead:.0%} of their weight "
        "(mean) on the very next position: the answer, handed over by the input."
    )


MAPS_TEXT = (
    "Two decoders of the same size, each one self-attention with one W^Q, W^K, W^V and a linear read-out, trained "
    f"on sequences like “{PROBE}{SEP}{cipher(PROBE)}”: a random {WORD}-letter word, “{SEP}”, then the word in "
    f"Caesar's cipher (each letter {SHIFT} further on in the alphabet). At every position they predict the next "
    "character. One has the causal mask, one does not (the *cheating decoder*). Their attention on your word, fed "
    "the whole sequence: rows, the position predicting; columns, the position read."
)
POSITIONS_NOTE = (
    "To know which letter sits where, each decoder adds a learned vector for each position to each letter's "
    "vector: without it, attention cannot tell positions apart. How and why is lesson 8."
)

CHEAT_TEXT = (
    "Without the mask, position t can read position t + 1 of its input, which during training **is** the token it "
    "must predict. Training rewards only that prediction, so nothing stops it from learning to copy. Then ask it "
    "to *generate*: after “word=”, each step reads only what is there so far, and the position it learned to copy "
    "does not exist yet. Predict what that does before you reveal the outputs."
)


# --------------------------------------------------------------------------------------------------
# 4. Train both yourself
# --------------------------------------------------------------------------------------------------
LIVE_REPORT_EVERY = 25
LIVE_TARGET = 0.95  # a causal decoder stops at this held-out exact match; the cheater uses its whole budget


@dataclass(frozen=True)
class MaskingProgress:
    """One live report, as the training panel reads it (step, seconds, loss, exact_match, attention)."""

    step: int
    seconds: float
    loss: float
    exact_match: float  # held-out free-running exact match
    teacher_forced_accuracy: float
    attention: np.ndarray  # (T, T) the probe's map, teacher forced
    prediction: str  # the probe's cipher, generated


def new_run(causal: bool, seed: int, budget_seconds: float) -> TrainingRun:
    """A fresh decoder for one student, trained on one core for ``budget_seconds`` (a causal one stops at
    ``LIVE_TARGET``)."""
    check_budget(budget_seconds)
    holder: dict = {}

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)

        def report(point: dict, model: TinyDecoder) -> bool:
            view = look(model, PROBE)
            progress = MaskingProgress(point["step"], point["seconds"], point["loss"], point["exact_match"],
                                       point["teacher_forced_accuracy"], view.attention, view.free_running)  # fmt: skip
            go_on = on_progress(progress)
            return bool(go_on) and not (causal and point["exact_match"] >= LIVE_TARGET)

        holder["model"], _ = train_decoder(
            causal, seed, steps=100_000, on_report=report, report_every=LIVE_REPORT_EVERY,
            max_seconds=float(budget_seconds),
        )  # fmt: skip
        return holder["model"]

    return TrainingRun(train_fn, name=f"masking-{RUN_NAMES[causal]}")


RUN_NAMES = {True: "causal", False: "cheat"}  # causal -> the run's name (and its training panel's key)


def snapshot_figure(snapshot: MaskingProgress) -> go.Figure:
    """A live report as the probe's self-attention map, titled with its step."""
    labels = input_labels(PROBE)
    return attention_heatmap(snapshot.attention, labels, labels, title=f"self-attention on “{PROBE}” at step "
                             f"{snapshot.step}")  # fmt: skip


MEASURES = ("teacher-forced accuracy", "free-running exact match")


def two_measures_chart(history: list[MaskingProgress], *, height: int = 150) -> dict:
    """Teacher-forced accuracy and free-running exact match against the step, one line each (one run, no band)."""
    points = [
        {"variant": name, "label": name, "order": order, "seed": 0, "x": p.step, "y": value}
        for p in history
        for order, (name, value) in enumerate(zip(MEASURES, (p.teacher_forced_accuracy, p.exact_match), strict=True))
    ]
    return curves_chart(points, y_title="held-out", x_title="training step", title="The two measures",
                        height=height, percent=True)  # fmt: skip


def train_text() -> str:
    """Above the train-both panel: what the runs are scored on and what to predict. It states no result."""
    return (
        "Train a fresh decoder for you alone, with or without the causal mask, then the other. Every "
        f"{LIVE_REPORT_EVERY} steps the same {HELD_OUT} held-out words are scored both ways: teacher-forced "
        "accuracy and free-running exact match (the chart beside the figure). A run with the mask stops at "
        f"{LIVE_TARGET:.0%} exact match; one without uses its whole budget. **Predict before you train:** for each "
        "decoder, will the two curves climb together, or will one run away from the other?"
    )


NEXT_TEXT = (
    "A decoder that translates also reads the *source* sentence, not only its own output so far: in lesson 10 the "
    "decoder also reads the source through cross-attention, with the same causal mask on its own positions."
)
TRANSLATOR = ("toy-translation", "transformer")  # the course's shipped translator (lesson 10's Transformer)
TRANSLATOR_SENTENCE = "Jane visits Africa in September"
TRANSLATOR_TEXT = (
    "Here is one: a trained translator (the whole model is lesson 10), the course's or yours. It translates your "
    "sentence one token at a time; then its translation is fed back in **all at once**, as in training, and we "
    "read its decoder's self-attention over its own output. Rows: the position predicting the next token; "
    "columns: the positions it reads."
)


@dataclass(frozen=True)
class TranslatorView:
    """A translator's decoder self-attention on its own translation of one sentence."""

    translation: str  # what it wrote
    fed: list[str]  # T decoder inputs: <s>, then its own tokens but the last
    attention: np.ndarray  # (layers, h, T, T) fed the whole translation at once; the model applies its mask
    stepwise: np.ndarray  # (layers, h, T, T) the same rows as it generated, one token at a time (zero-padded)
    unmasked: np.ndarray  # (h, T, T) layer 1's same scores through a softmax without the mask
    causal: bool  # the model's own setting
    message: str | None = None  # the tokenizer's note (unknown characters), if any

    def future(self, layer: int) -> float:
        """Mean over rows and heads of layer ``layer``'s weight on later positions (0 for a causal decoder)."""
        return future_weight(self.attention[layer])

    @property
    def largest_future(self) -> float:
        """The largest weight on any later position, any row, head or layer."""
        T = self.attention.shape[-1]
        return float(np.abs(self.attention[..., ~causal_mask(T).numpy()]).max()) if T > 1 else 0.0

    @property
    def step_difference(self) -> float:
        """Largest difference between the rows computed all at once and those computed while generating."""
        return float(np.abs(self.attention - self.stepwise).max())


@torch.inference_mode()
def translator_view(model, task, text: str) -> TranslatorView | str:
    """Translate ``text`` greedily, then feed the translation back at once: the decoder's self-attention maps (every
    layer and head) with the model's own mask, the rows it computed while generating, and layer 1's scores without
    the mask. A message when there is nothing to read."""
    from minimodels.decode import greedy
    from minimodels.tokenizers import BOS_ID

    encoded = task.encode_source(text)
    if encoded.empty:
        return encoded.message or "Type a sentence first."
    source = torch.tensor([[*encoded.ids, EOS_ID]])  # (1, S)
    lengths = torch.tensor([source.size(1)])  # (1,)
    decoded = greedy(model, source, lengths, 2 * task.max_target_len + 1)
    tokens = decoded.tokens[0, : int(decoded.lengths[0])].tolist()  # its tokens, EOS last when it ended
    fed = torch.tensor([[BOS_ID, *tokens[:-1]]])  # (1, T)
    maps = model(source, lengths, fed).attention  # "decoder.{i}.self" (1, h, T, T)
    n = len(model.decoder_layers)
    attention = np.stack([maps[f"decoder.{i}.self"][0].double().numpy() for i in range(n)])  # (L, h, T, T)
    stepwise = np.stack([decoded.attention[f"decoder.{i}.self"][0].double().numpy() for i in range(n)])
    first = model.decoder_layers[0]
    y = model._embed(fed, model.target_embedding, model.target_position)  # (1, T, d)
    h = first.residual1.norm(y) if model.config.norm_first else y  # what layer 1's W^Q, W^K multiply
    sa = first.self_attention
    q, k = sa._split(sa.W_q(h)), sa._split(sa.W_k(h))  # (1, h, T, d_k) each
    unmasked = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(sa.d_k), dim=-1)[0]  # (h, T, T)
    target = task.target_tokenizer
    return TranslatorView(
        target.decode([t for t in tokens if t != EOS_ID]), ["<s>", *(target.id_to_piece(t) for t in tokens[:-1])],
        attention, stepwise, unmasked.double().numpy(), bool(model.config.causal), encoded.message,
    )  # fmt: skip


model_parser = qkv.model_parser  # the student's sentence for a trained model: the Q/K/V lesson's parser
translator_note = qkv.trained_note  # the shipped translator's caption

TRANSLATOR_TITLES = ("causal_mask(T): 1 = allowed", "decoder layer {layer}: weights (mean)")


def translator_figures(view: TranslatorView, layer: int) -> dict[str, go.Figure]:
    """The causal mask and the chosen decoder layer's weights (the mean of its heads), on the fed tokens: two maps,
    side by side on a wide screen, one above the other on a phone."""
    T = len(view.fed)
    return {
        "mask": attention_heatmap(causal_mask(T).double(), view.fed, view.fed, title=TRANSLATOR_TITLES[0],
                                  value_name="allowed"),
        "weights": attention_heatmap(view.attention[layer].mean(0), view.fed, view.fed,
                                     title=TRANSLATOR_TITLES[1].format(layer=layer + 1)),
    }  # fmt: skip


def translator_caption(view: TranslatorView, layer: int) -> str:
    """Under the maps: what they show, from the numbers."""
    heads = view.attention.shape[1]
    if view.largest_future == 0:
        zero = (
            "Above the diagonal every weight is exactly 0, in every row of every layer and all "
            f"{heads} of each layer's parallel attentions (heads, lesson 9; the map shows their mean)."
        )
    else:
        zero = (
            f"This decoder puts weight on later positions (up to {view.largest_future:.3f}): it was trained "
            "without the causal mask."
        )
    same = (
        f"Fed all at once, its rows are the ones it computed while generating, when the later tokens did not exist "
        f"yet (largest difference {view.step_difference:.1e}): with the mask, training on whole sentences computes "
        "what generating will."
        if view.step_difference <= 1e-5
        else f"Fed all at once, its rows differ from those it computed while generating (by up to "
        f"{view.step_difference:.3f}): without the mask, training reads what generating cannot."
    )
    unmasked = (
        f"Without the mask, layer 1's same scores would put {future_weight(view.unmasked):.0%} of each row's weight "
        "(mean) on later positions."
    )
    return f"{zero} {unmasked} {same}" + (f" {view.message}" if view.message else "")


# --------------------------------------------------------------------------------------------------
# Exercises, their answers computed from the same functions the figures use
# --------------------------------------------------------------------------------------------------


def exercises() -> list[Exercise]:
    """The check-yourself questions, by hand or by reasoning: a softmax with padding, the causal mask's count, where
    the −∞ go, and what the cheating decoder can read."""
    demo = padding_attention(parse_batch(DEFAULT_SENTENCES).sentences)
    hello = len(demo.sentences) - 1  # "Hello": one word, the most padding
    S, pads = len(demo.tokens[hello]), demo.tokens[hello].count(PAD)
    equal = masked_softmax(torch.zeros(S), torch.ones(S, dtype=torch.bool))  # (S,) every score the same
    on_pads = float(equal[demo.mask[hello].logical_not()].sum())
    T = 2 * WORD  # the decoder's input positions
    allowed = int(causal_mask(T).sum())
    return [
        Exercise(
            key="masking.ex1",
            prompt=(
                f"In the default batch, *Hello* is padded to S = {S} positions: 1 word and {pads} `<pad>`. Suppose its "
                "query scored every key the same. With the padding mask **off**, what total weight would its row give "
                "to the `<pad>` keys? (two decimals)"
            ),
            answer=on_pads,
            tolerance=0.01,
            explanation=(
                f"Equal scores make the softmax uniform: e⁰ / ({S} · e⁰) = 1/{S} = {1 / S:.2f} per key. The {pads} "
                f"`<pad>` keys get {pads} × 1/{S} = {on_pads:.2f}, and the one real word only {1 / S:.2f}. With the "
                "mask on, the `<pad>` scores are −∞, e^−∞ = 0, and the word gets all of it: 1."
            ),
            hint="Equal scores: the softmax gives every key the same share.",
        ),
        Exercise(
            key="masking.ex2",
            prompt=(
                f"The decoder's input has T = {T} positions ({WORD} letters, “{SEP}”, {WORD - 1} cipher letters). How "
                "many (query, key) pairs does the causal mask allow?"
            ),
            answer=allowed,
            explanation=(
                f"Row t (counting from 1) may read positions 1 … t: t keys. Over all rows, 1 + 2 + … + {T} = "
                f"{T} · {T + 1} / 2 = {allowed}, the lower triangle with its diagonal, out of {T} × {T} = {T * T}."
            ),
            hint="Count the lower triangle, diagonal included.",
        ),
        Exercise(
            key="masking.ex3",
            prompt="Where does the causal mask put −∞ before the softmax, for query position i and key position j?",
            choices=("where j > i (later positions)", "where j < i (earlier positions)", "where j = i", "nowhere"),
            answer=0,
            explanation="Position i may read itself and what came before it: keys j ≤ i keep their scores. The "
            "future, j > i, gets −∞, and e^−∞ = 0, so exactly 0 weight: for T = 3 the row of position 1 keeps one "
            "key, position 2 two, position 3 all three.",
        ),
        Exercise(
            key="masking.ex5",
            prompt=(
                "A decoder is trained **without** the causal mask. What can position t read during training that it "
                "cannot read when it generates?"
            ),
            choices=(
                "the very token it must predict, which sits in its input one position later; when generating it "
                "does not exist yet",
                "the random word",
                "its own earlier outputs",
                "nothing: training and generating feed it the same input",
            ),
            answer=0,
            explanation="In training the input is the whole sequence and the target the same sequence shifted by one: "
            "input position t + 1 holds the very token position t must predict. Without the mask its attention can "
            "read it, so copying it scores perfectly. Generating, position t + 1 has not been written yet: the "
            "shortcut is gone.",
            hint="The target at position t is which token of the input?",
        ),
    ]


def floor_prediction() -> Exercise:
    """Predict, before section 3's results: the least mean loss a decoder that reads only the past can reach (by
    hand; the answer is :func:`loss_floor`)."""
    T, floor = 2 * WORD, loss_floor()
    return Exercise(
        key="masking.ex4",
        prompt=(
            "**Predict before you reveal the results.** A decoder that reads only the past cannot guess the "
            f"random letters of the word. Of the {T} predictions in a sequence ({WORD} letters, “{SEP}”, "
            f"{WORD} cipher letters; the first letter is never predicted), {WORD - 1} are such letters, each "
            "one of 26 equally likely. What is the lowest mean loss (cross-entropy, natural log) such a decoder "
            "can reach over the whole sequence? (three decimals)"
        ),
        answer=floor,
        tolerance=0.01,
        explanation=(
            f"A random letter is predicted at best uniformly: loss ln 26 = {math.log(26):.3f}. “{SEP}” and the "
            f"cipher letters follow from the word: loss 0 at best. Mean over the {T} predictions: {WORD - 1} × "
            f"{math.log(26):.3f} / {T} = {floor:.3f}. A decoder whose training loss goes below it must be reading "
            "letters it should not see."
        ),
        hint="Only the unpredictable letters cost anything; average their cost over every prediction.",
    )


CHEAT_CHOICES = ("nearly all (at least 90%)", "some (10% to 90%)", "almost none (under 10%)")


def cheat_prediction(results: Comparison) -> Exercise:
    """Predict, before section 3's outputs are revealed: how many test words the cheating decoder ciphers exactly
    right when it generates. The answer is read from the measured results."""
    cheat = VARIANT[False]
    free = results.spread("free-running exact match", cheat)
    forced = results.spread("teacher-forced accuracy", cheat)
    answer = 0 if free.mean >= 0.9 else 2 if free.mean < 0.1 else 1
    return Exercise(
        key="masking.ex6",
        prompt=(
            "**Predict before you reveal the outputs.** The decoder trained *without* the causal mask now generates "
            "the cipher on its own, greedily, after “word=”, for test words it never saw. How many does it get "
            "exactly right?"
        ),
        choices=CHEAT_CHOICES,
        answer=answer,
        explanation=(
            f"Measured: {free.text('.1%')} exactly right on its own, against {forced.text('.1%')} of the cipher "
            "letters right when fed the gold sequence. "
            + (
                "Its training score was earned by copying the next input token, which generating never provides."
                if forced.mean - free.mean > 0.1
                else "Here generating does as well as teacher forcing: these models did not learn the shortcut."
            )
        ),
        hint="Which input did its training score depend on, and is that input there when it generates?",
    )


def all_exercises(results: Comparison | None) -> list[Exercise]:
    """Every exercise of the lesson: the four at the end, the loss floor and, with the measured results, the
    cheater's prediction."""
    return [*exercises(), floor_prediction(), *([cheat_prediction(results)] if results is not None else [])]
