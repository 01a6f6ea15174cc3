r"""Lesson: masking (Part 2).

The Transformer lecture's slide "Masking" — *let the model only focus on what it should focus on*:

* **padding mask**: set "padded element attention to −inf", so a sentence padded to its batch's length gives
  exactly 0 weight to its ``<pad>`` tokens and its result does not depend on its batch-mates;
* **sequence (causal) mask**: "bans the decoder from seeing future information" (set "future attention to
  −inf"), so position t of the decoder reads positions ≤ t only.

.. math:: \mathrm{softmax}\Big(\frac{QK^\top}{\sqrt{d_k}} + M\Big)V,
          \qquad M_{ij} = \begin{cases} 0 & \text{allowed} \\ -\infty & \text{masked} \end{cases}

Masks are bool, True where attention is allowed (:mod:`minimodels.attention`). The third part is the
*cheating decoder*: a :class:`~minimodels.transformer.TinyTransformer` trained without the causal mask reads
the next target token from its own teacher-forced input, scores near-perfectly that way, and fails once it
must generate on its own. This module never imports streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch
from torch import nn

from lessons import queries_keys_values as qkv
from lessons.common.catalog import ROOT
from lessons.common.charts import attention_coloraxis, attention_heatmap, figure, hover_pairs, safe_label
from lessons.common.comparison import Comparison, Run, curves_chart
from lessons.common.comparison import measure as compare_runs
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from lessons.common.pretrained import load_pretrained
from minimodels.attention import causal_mask, masked_softmax, padding_mask, scaled_dot_product_attention
from minimodels.checkpoints import PRETRAINED
from minimodels.decode import greedy, teacher_forced
from minimodels.tasks import Batch, Example, get_task, make_batch
from minimodels.tokenizers import PAD_ID
from minimodels.train import Progress, build_model, default_train_config, exact_match, train

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
    w = torch.as_tensor(self_attention, dtype=torch.float32)
    T = w.size(-1)
    future = ~causal_mask(T)  # (T, T) True strictly above the diagonal
    return float((w * future).sum(-1).mean())


# --------------------------------------------------------------------------------------------------
# 3. The cheating decoder: shipped models
# --------------------------------------------------------------------------------------------------

TASK = "dates"
MODEL = "transformer"
CHECKPOINTS = {True: "dates-transformer", False: "dates-transformer-no-causal"}  # causal -> shipped name
LABELS = {True: "causal mask (normal decoder)", False: "no causal mask (cheating decoder)"}
BOS_LABEL = "<s>"


PRETRAINED_KEYS = {c: (TASK, name.removeprefix(f"{TASK}-")) for c, name in CHECKPOINTS.items()}  # ui.pretrained's keys


def load_model(causal: bool) -> tuple[nn.Module, dict]:
    """``(model, meta)`` of the shipped dates Transformer with or without the causal mask (eval mode, CPU): the one
    copy ``load_pretrained`` keeps per process (the page's ``ui.pretrained`` gets the same), shared read-only."""
    shipped = load_pretrained(*PRETRAINED_KEYS[causal])
    if shipped[0].config.causal != causal:
        raise ValueError(f"checkpoint {CHECKPOINTS[causal]} has causal={shipped[0].config.causal}, expected {causal}")
    return shipped


def examples(n: int = 8) -> list[Example]:
    """The examples a student can pick: the fixed probe, then the first test sentences."""
    task = get_task(TASK)
    return [task.probe, *task.test[: n - 1]]


@dataclass(frozen=True)
class Scores:
    """How one model does on a batch, fed the gold prefix (teacher forcing) and fed its own output (greedy)."""

    teacher_forced_accuracy: float  # share of target tokens predicted right from the gold prefix
    teacher_forced_exact: float  # share of sentences with every token right from the gold prefix
    free_running_accuracy: float  # share of target tokens right when each step reads the model's own output
    free_running_exact: float  # share of sentences generated exactly right (train.evaluate's measure)
    sentences: int


def _token_hits(predicted: torch.Tensor, target_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(hits, real)``, both ``(B, T)`` bool: predicted equals gold, and the gold is not padding."""
    width = target_out.size(1)
    predicted = predicted[:, :width]
    predicted = torch.nn.functional.pad(predicted, (0, width - predicted.size(1)), value=PAD_ID)  # (B, T)
    real = target_out != PAD_ID
    return (predicted == target_out) & real, real


@torch.inference_mode()
def measure(model: nn.Module, batch: Batch) -> Scores:
    """Teacher-forced and free-running accuracy (tokens and whole sentences) of ``model`` on ``batch``."""
    forced = teacher_forced(model, batch.source, batch.source_lengths, batch.target_in).tokens  # (B, T)
    forced = forced.masked_fill(batch.target_out == PAD_ID, PAD_ID)  # no prediction is asked after the gold EOS
    generated = greedy(model, batch.source, batch.source_lengths, max_len=batch.target_out.size(1)).tokens
    rows = []
    for predicted in (forced, generated):
        hits, real = _token_hits(predicted, batch.target_out)
        exact = exact_match(predicted, batch.target_out)  # (B,) the whole row, EOS and padding included
        rows.append((float(hits.sum() / real.sum()), float(exact.float().mean())))
    (tf_acc, tf_exact), (fr_acc, fr_exact) = rows
    return Scores(tf_acc, tf_exact, fr_acc, fr_exact, len(batch))


def teacher_forced_accuracy(model: nn.Module, batch: Batch) -> float:
    """Share of target tokens right from the gold prefix (what the training loss rewards)."""
    with torch.inference_mode():
        forced = teacher_forced(model, batch.source, batch.source_lengths, batch.target_in).tokens
        hits, real = _token_hits(forced, batch.target_out)
    return float(hits.sum() / real.sum())


@dataclass(frozen=True)
class DecoderView:
    """One example through one model: its decoder's self-attention (teacher forced) and its two outputs."""

    source: str
    target: str
    inputs: list[str]  # the decoder's input tokens: BOS + target characters (rows and columns of the maps)
    outputs: list[str]  # the gold next token at each position: target characters + EOS
    self_attention: dict[int, np.ndarray]  # layer -> (h, T, T)
    teacher_forced: list[str]  # the predicted next token at each position, fed the gold prefix
    free_running: str  # the greedy output, each step fed the model's own previous token


@torch.inference_mode()
def look(model: nn.Module, example: Example) -> DecoderView:
    task = get_task(TASK)
    batch = make_batch([example], task)
    tokenizer = task.target_tokenizer
    forced = teacher_forced(model, batch.source, batch.source_lengths, batch.target_in)
    generated = greedy(model, batch.source, batch.source_lengths, max_len=2 * batch.target_out.size(1))
    maps = {
        int(name.split(".")[1]): m[0].numpy()
        for name, m in forced.attention.items()
        if name.startswith("decoder.") and name.endswith(".self")
    }  # fmt: skip
    return DecoderView(
        source=example.source,
        target=example.target,
        inputs=[BOS_LABEL, *tokenizer.pieces(example.target)],
        outputs=[*tokenizer.pieces(example.target), "</s>"],
        self_attention=maps,
        teacher_forced=[tokenizer.id_to_piece(i) for i in forced.tokens[0].tolist()],
        free_running=tokenizer.decode(generated.tokens[0].tolist()),
    )


def shipped_view(causal: bool, index: int) -> DecoderView:
    """The shipped decoder (with or without the causal mask) on the example at ``index`` of :func:`examples`."""
    return look(load_model(causal)[0], examples()[index])


def outputs_caption(source: str, quote=repr) -> str:
    """Under section 3's table: what each column was fed; ``quote`` shows the example verbatim."""
    return (
        f"The example {quote(source)}. Teacher forced, each character is predicted from the gold "
        "characters before it (and, for the cheater, after it); generating, from the model's own."
    )


def outputs_table(normal: DecoderView, cheater: DecoderView) -> list[dict]:
    """Section 3's table: each decoder's gold, teacher-forced and free-running outputs on one example."""
    return [
        {
            "decoder": LABELS[causal],
            "gold": view.target,
            "teacher forced: next token at each position": "".join(view.teacher_forced[:-1]),
            "generating on its own (greedy)": view.free_running,
        }
        for causal, view in ((True, normal), (False, cheater))
    ]


def head_map(view: DecoderView, layer: int, head: int | None) -> np.ndarray:
    """``(T, T)``: one head's self-attention, or the mean of the heads (``head=None``)."""
    m = view.self_attention[layer]  # (h, T, T)
    return m.mean(0) if head is None else m[head]


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


# ------------------------------------------------------------------------------------- shipped results
# The two shipped decoders measured on the same sentences (``scripts/masking_results.py``): a Comparison of two
# variants with one run each, the checkpoints' own seed. n = 1: it describes these two models, it proves nothing
# about decoders in general (Comparison.compare would call any difference "too close").
SCRIPT = "scripts/masking_results.py"
VARIANTS = (CHECKPOINTS[True], CHECKPOINTS[False])  # the variant keys: the shipped checkpoints' names
VARIANT_LABELS = {CHECKPOINTS[c]: LABELS[c] for c in (True, False)}
METRICS = {  # the four final metrics, as the table heads them -> the Scores field each comes from
    "teacher-forced token accuracy": "teacher_forced_accuracy",
    "teacher-forced exact match": "teacher_forced_exact",
    "free-running token accuracy": "free_running_accuracy",
    "free-running exact match": "free_running_exact",
}


def shipped_run(name: str, seed: int, batch: Batch) -> Run:
    """Shipped checkpoint ``name`` measured on ``batch``: one run, its seed the checkpoint's training seed."""
    causal = {v: k for k, v in CHECKPOINTS.items()}[name]
    model, meta = load_model(causal)
    if meta.get("seed") != seed:
        raise ValueError(f"checkpoint {name} was trained from seed {meta.get('seed')}, not {seed}")
    scores = measure(model, batch)
    command = "python -m minimodels.train " + " ".join(PRETRAINED[name])
    return Run(
        name, seed, params={"causal": causal, "steps": meta["training"].get("steps")},
        final={metric: getattr(scores, field) for metric, field in METRICS.items()},
        extra={"sentences": scores.sentences, "train_command": command},
    )  # fmt: skip


def measure_shipped(meta: dict, split: str = "test", limit: int | None = None, seed: int = 0) -> Comparison:
    """Both shipped models measured on ``split`` (its first ``limit`` sentences): what the results file holds."""
    batch = get_task(TASK).encoded(split)
    if limit is not None:
        batch = batch.select(torch.arange(min(limit, len(batch))))
    meta = {**meta, "split": split, "task": TASK, "seeds": [seed], "script": SCRIPT}
    return compare_runs(VARIANTS, [seed], lambda name, s: shipped_run(name, s, batch), meta, labels=VARIANT_LABELS)


def load_results(path: Path | str = RESULTS) -> Comparison:
    """The comparison written by ``scripts/masking_results.py``; ``ValueError`` when it is not usable."""
    path = Path(path)
    results = Comparison.load(path, script=SCRIPT)
    lacking = [
        name for name in VARIANTS
        if name not in results.variants or not results.runs_of(name)
        or any(metric not in run.final for run in results.runs_of(name) for metric in METRICS)
    ]  # fmt: skip
    if lacking:
        raise ValueError(f"{path.name} lacks the results of {', '.join(lacking)}: re-run {SCRIPT}")
    return results


def results_table(results: Comparison) -> list[dict]:
    """Rows for the page: one per decoder, n and the four measures as percentages."""
    return results.table({metric: ".1%" for metric in METRICS}, variant_header="decoder")


def results_intro(results: Comparison) -> str:
    """What the table was measured on, read from the runs."""
    sentences = results.runs_of(CHECKPOINTS[True])[0].extra.get("sentences", "?")
    return f"Measured on **{sentences}** dates of the {results.meta.get('split', '?')} split:"


def train_commands(results: Comparison) -> list[str]:
    """How each shipped decoder was trained, in the table's order."""
    return [results.runs_of(name)[0].extra.get("train_command", "?") for name in VARIANTS]


def provenance_note(results: Comparison, quote=repr) -> str:
    """The note beside the shipped table's provenance: what the measures mean and how the models were trained."""
    commands = "; ".join(quote(command) for command in train_commands(results))
    return (
        "One run of each shipped model (n = 1): a description of these two decoders. Token accuracy: share of "
        "output characters (the end-of-sequence included) right; exact match: share of dates with every character "
        "right. Teacher forced: fed the gold prefix; free-running: fed its own output, greedily (what "
        f"`minimodels.train.evaluate` and the training curves report). Torch {results.meta.get('torch', '?')}; the "
        f"models were trained with {commands}."
    )


CHEAT_TEXT = (
    "Without the mask, position t can read position t + 1 of its own input, which under teacher forcing **is** "
    "the token it must predict. Training rewards only the teacher-forced prediction, so nothing stops it from "
    "learning to copy. Then ask it to *generate*: each step now reads only what it has written so far, and the "
    "future it may have learned to copy does not exist yet. Predict what that does before you reveal the outputs."
)


def _level(value: float) -> str:
    """A share in words, for a sentence that must turn round with the numbers."""
    return "nearly all" if value >= 0.9 else "almost none" if value < 0.1 else "some"


def results_sentences(results: Comparison) -> list[str]:
    """What the shipped table says, computed from it: for each decoder, its teacher-forced token accuracy against its
    free-running exact match, and whether the second falls far below the first. One run each (n = 1): a description
    of these two decoders, never a verdict about decoders in general."""
    lines = []
    for causal in (True, False):
        name = CHECKPOINTS[causal]
        forced = results.spread("teacher-forced token accuracy", name).mean
        free = results.spread("free-running exact match", name).mean
        falls = forced - free > 0.1
        lines.append(
            f"The {LABELS[causal]} gets {forced:.1%} of the tokens right teacher forced and generates {_level(free)} "
            f"of the dates exactly right on its own ({free:.1%}): "
            + ("what training measured says little about generating." if falls else "the two measures agree.")
        )
    lines.append("One shipped model each (n = 1): this describes these two decoders, it measures no spread.")
    return lines


def cheat_gap(results: Comparison) -> float:
    """The cheating decoder's teacher-forced token accuracy minus its free-running exact match (means over runs)."""
    cheater = CHECKPOINTS[False]
    spread = results.spread
    return spread("teacher-forced token accuracy", cheater).mean - spread("free-running exact match", cheater).mean


# --------------------------------------------------------------------------------------------------
# 4. Train both yourself
# --------------------------------------------------------------------------------------------------

LIVE_REPORT_EVERY = 10
LIVE_TARGET = 0.95  # a causal decoder stops here; the cheater never gets there and uses its whole budget


@dataclass
class MaskingProgress(Progress):
    """A training report plus what teacher forcing scores on the same held-out sentences."""

    teacher_forced_accuracy: float = 0.0


def new_training(causal: bool, seed: int, budget_seconds: float):
    """A fresh dates Transformer, with or without the causal mask, and the function that trains it.

    Returns ``(model, train_fn(on_progress))``; each report carries the held-out teacher-forced token accuracy
    beside :func:`minimodels.train.evaluate`'s free-running exact match, measured on the same sentences.
    """
    task = get_task(TASK)
    model = build_model(MODEL, task, seed=seed, causal=causal)
    config = default_train_config(
        MODEL,
        seed=seed,
        max_seconds=budget_seconds,
        max_steps=None,
        target_exact_match=LIVE_TARGET,
        report_every=LIVE_REPORT_EVERY,
        threads=THREADS_PER_RUN,
    )
    held_out = task.encoded("valid")
    held_out = held_out.select(torch.arange(min(config.eval_size, len(held_out))))

    def train_fn(on_progress):
        def report(progress: Progress) -> bool:
            model.eval()
            accuracy = teacher_forced_accuracy(model, held_out.to(next(model.parameters()).device))
            model.train()
            return on_progress(MaskingProgress(**vars(progress), teacher_forced_accuracy=accuracy))

        return train(model, task, config, report)

    return model, train_fn


RUN_NAMES = {True: "causal", False: "cheat"}  # causal -> the run's name (and its training panel's key)


def new_run(causal: bool, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s model and trainer, named for the decoder."""
    fresh, train_fn = new_training(causal, seed, float(budget_seconds))
    return TrainingRun(train_fn, model=fresh, name=f"masking-{RUN_NAMES[causal]}")


def snapshot_map(snapshot: Progress) -> tuple[np.ndarray, list[str]]:
    """The probe's last decoder layer self-attention, heads averaged ``(T, T)``, and its input labels."""
    layers = sorted(int(k.split(".")[1]) for k in snapshot.attention_maps if k.endswith(".self") and "decoder" in k)
    m = snapshot.attention_maps[f"decoder.{layers[-1]}.self"]  # (h, T, T)
    return m.mean(0), [BOS_LABEL, *snapshot.target_tokens[:-1]]


def snapshot_figure(snapshot: Progress) -> go.Figure:
    """A live run's report as the probe's decoder self-attention map, titled with its step."""
    weights, labels = snapshot_map(snapshot)
    title = f"decoder self-attention (last layer, heads averaged) at step {snapshot.step}"
    return attention_heatmap(weights, labels, labels, title=title)


MEASURES = ("teacher-forced token accuracy", "free-running exact match")


def two_measures_chart(history: list[MaskingProgress], *, height: int = 150) -> dict:
    """Teacher-forced token accuracy and free-running exact match against the training step, one line each, drawn
    by the one curve builder (:func:`~lessons.common.comparison.curves_chart`; one run, so no band)."""
    points = [
        {"variant": name, "label": name, "order": order, "seed": 0, "x": p.step, "y": value}
        for p in history
        for order, (name, value) in enumerate(zip(MEASURES, (p.teacher_forced_accuracy, p.exact_match), strict=True))
    ]
    return curves_chart(points, y_title="held-out", x_title="training step", title="The two measures",
                        height=height, percent=True)  # fmt: skip


# --------------------------------------------------------------------------------------------------
# Exercises, their answers computed from the same functions the figures use
# --------------------------------------------------------------------------------------------------


def exercises() -> list[Exercise]:
    """The check-yourself questions, all computed by hand: a softmax with padding, the causal mask's count, where
    the −∞ go, and what the cheating decoder can read. Answers computed with the lesson's own functions."""
    demo = padding_attention(parse_batch(DEFAULT_SENTENCES).sentences)
    hello = len(demo.sentences) - 1  # "Hello": one word, the most padding
    S, pads = len(demo.tokens[hello]), demo.tokens[hello].count(PAD)
    equal = masked_softmax(torch.zeros(S), torch.ones(S, dtype=torch.bool))  # (S,) every score the same
    on_pads = float(equal[demo.mask[hello].logical_not()].sum())
    target = get_task(TASK).target_tokenizer.pieces(get_task(TASK).probe.target)
    T = len(target) + 1  # BOS + the characters
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
                f"A date's decoder input has T = {T} positions (`<s>` and {T - 1} characters). How many (query, key) "
                "pairs does the causal mask allow?"
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
            key="masking.ex4",
            prompt=(
                "A decoder is trained **without** the causal mask, with teacher forcing. What can position t read "
                "during training that it cannot read when it generates?"
            ),
            choices=(
                "the very token it must predict, which teacher forcing puts in its input one position later; when "
                "generating it does not exist yet",
                "the source sentence",
                "its own earlier outputs",
                "nothing: training and generating feed it the same input",
            ),
            answer=0,
            explanation="Teacher forcing feeds the gold output shifted right (`<s>`, y₁, y₂, …): input position t + 1 "
            "holds yₜ, the very token position t must predict. Without the mask its self-attention can read it, so "
            "copying it scores perfectly. Generating, position t + 1 has not been written yet: the shortcut is gone.",
            hint="What does teacher forcing put in the decoder's input one position after t?",
        ),
    ]


CHEAT_CHOICES = ("nearly all (at least 90%)", "some (10% to 90%)", "almost none (under 10%)")


def cheat_prediction(results: Comparison) -> Exercise:
    """Predict, before section 3's outputs are revealed: how many test dates the cheating decoder generates exactly
    right. The answer is read from the shipped results."""
    cheater = CHECKPOINTS[False]
    free = results.spread("free-running exact match", cheater).mean
    forced = results.spread("teacher-forced token accuracy", cheater).mean
    answer = 0 if free >= 0.9 else 2 if free < 0.1 else 1
    return Exercise(
        key="masking.ex5",
        prompt=(
            "**Predict before you reveal the outputs.** The shipped decoder trained *without* the causal mask now "
            "generates on its own, greedily, on the test dates. How many does it get exactly right?"
        ),
        choices=CHEAT_CHOICES,
        answer=answer,
        explanation=(
            f"Measured on the shipped model: {free:.1%} exactly right on its own, against {forced:.1%} of the tokens "
            f"right teacher forced (a gap of {forced - free:.0%}). "
            + (
                "Its training score was earned by copying the next gold token, which generating never provides."
                if forced - free > 0.1
                else "Here generating does as well as teacher forcing: this model did not learn the shortcut."
            )
        ),
        hint="Which input did its training score depend on, and is that input there when it generates?",
    )


def all_exercises(results: Comparison | None) -> list[Exercise]:
    """Every exercise of the lesson: the four by hand and, with the shipped results, the prediction."""
    return [*exercises(), *([cheat_prediction(results)] if results is not None else [])]


def train_text() -> str:
    """Above the train-both panel: what the student's two runs are scored on, and what to predict first. It states
    no result: the student's own curves are the result."""
    return (
        "Train a fresh dates Transformer for you alone, with or without the causal mask, then the other one. Every "
        f"{LIVE_REPORT_EVERY} steps the same 200 held-out dates are scored both ways, teacher-forced token "
        "accuracy and free-running exact match (the chart under the curves). A run with the mask stops at "
        f"{LIVE_TARGET:.0%} exact match; one without uses its whole budget. **Predict before you train:** for each "
        "decoder, will the two curves climb together, or will one run away from the other? Then train both and "
        "see."
    )
