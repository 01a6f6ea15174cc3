"""Your own data (a tool page): what it says, and the tables, charts and runs of a teacher's sentence pairs.

Pure Python, no Streamlit: the page (``pages/own_data.py``) and its widgets (``ui/own_data.py``) draw what these
functions return. Reading, tokenizers, the task and the model file are the engine's (``minimodels.own_data``).
User text is returned as plain strings for tables and ``st.text``; nothing here writes HTML.
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import altair as alt
import numpy as np
from torch import nn

from lessons.common import charts, vega
from lessons.common.live import MAX_BUDGET_SECONDS, THREADS_PER_RUN, TrainingRun
from minimodels.decode import translate
from minimodels.own_data import (
    EXAMPLE_SETS,
    LIMITS,
    PairsFile,
    PairsTask,
    build_own_model,
    example_path,
    own_data_train_config,
)
from minimodels.train import main_map_name, train
from minimodels.train.snapshots import Progress

INTRO = (
    "Bring sentence pairs in the language you teach (any script: Latin, Cyrillic, Greek, Arabic or Hebrew, "
    "Chinese or Japanese) and watch a model learn to translate them. The page reads the pairs and shows you what it "
    "read, trains two sentencepiece tokenizers on them in a few seconds, then trains a GRU with attention or a tiny "
    "Transformer while you watch its attention form. Keep the model as one file, bring it back later, and use it in "
    "the lessons' attention views on sentences of your own language."
)

FORMAT_TEXT = (
    "One pair a line: the source sentence, then a **tab** (TSV) or a **comma** (CSV), then its translation; UTF-8 "
    "text. A few hundred to {max_pairs:,} pairs. Limits: {limits}. A larger file is refused before it is read "
    "whole. Lines the page cannot use are skipped and listed with the reason; nothing is sent anywhere."
)

PASTE_MAX_CHARS = 200_000  # a paste box holds this much; a larger set goes through the file upload


def format_text(limits=LIMITS) -> str:
    """How to lay out the pairs, with the limits the reader enforces (stated, not restated by hand)."""
    return FORMAT_TEXT.format(max_pairs=limits.max_pairs, limits=limits.describe())


def upload_limit_mb(limits=LIMITS) -> int:
    """The file uploader's own cap in MB (Streamlit's MB are MiB): the reader's byte limit, rounded up."""
    return max(1, -(-limits.max_bytes // (1024 * 1024)))


def examples() -> dict[str, Path]:
    """The shipped example sets (``assets/own_data/``), ``title -> file``, those whose file is there."""
    found = {spec["title"]: example_path(name) for name, spec in EXAMPLE_SETS.items()}
    return {title: path for title, path in found.items() if path.exists()}


# ------------------------------------------------------------------------------------------- what was read
def quoted(name: str, max_chars: int = 60) -> str:
    """A file or data name in markdown as a code span: shown verbatim, never formatted or rendered."""
    name = str(name)
    name = name if len(name) <= max_chars else name[: max_chars - 1] + "…"
    return "`" + name.replace("`", "'").replace("\n", " ") + "`"


def count_metrics(pairs: PairsFile) -> list[tuple[str, str, str]]:
    """``(label, value, help)`` for the page's counters: pairs kept, lines skipped, repeats, blank lines."""
    s = pairs.summary()
    repeats = "dropped" if s["duplicates_dropped"] else "kept"
    return [
        ("pairs", f"{s['pairs']:,}", f"read from {quoted(s['name'])} ({s['format']}, {s['bytes']:,} bytes)"),
        ("lines skipped", f"{s['skipped']:,}", "lines the page could not use; the reasons are listed below"),
        ("repeated pairs", f"{s['duplicates']:,}", f"pairs that occur more than once ({repeats})"),
        ("sources with 2+ translations", f"{s['ambiguous_sources']:,}", "the same source with different targets"),
    ]


def side_rows(pairs: PairsFile) -> list[dict]:
    """One row per side: length in characters and words (min · median · max), distinct characters, scripts."""
    s = pairs.summary()

    def spread(d: Mapping) -> str:
        return f"{d['min']:g} · {d['median']:g} · {d['max']:g}"

    return [
        {
            "side": side,
            "characters (min · median · max)": spread(s[side]["chars"]),
            "words (min · median · max)": spread(s[side]["words"]),
            "distinct characters": s[side]["distinct_characters"],
            "scripts": s[side]["scripts"],
        }
        for side in ("source", "target")
    ]


def length_chart(pairs: PairsFile, height: int = 220) -> dict:
    """A Vega-Lite histogram (for ``ui.vega``) of sentence lengths in characters, source and target overlaid."""
    counts = Counter(("source", len(s)) for s in pairs.sources) + Counter(("target", len(t)) for t in pairs.targets)
    values = [{"side": side, "characters": n, "pairs": c} for (side, n), c in sorted(counts.items())]
    chart = (
        alt.Chart(alt.Data(values=values), title="Sentence length")
        .mark_bar(opacity=0.6)
        .encode(
            x=alt.X("characters:Q", bin=alt.Bin(maxbins=40), title="characters in the sentence"),
            y=alt.Y("sum(pairs):Q", stack=None, title="pairs"),
            color=alt.Color("side:N", scale=alt.Scale(range=["#1f77b4", "#d62728"]), title=None),
            tooltip=["side:N", alt.Tooltip("characters:Q", bin=True), alt.Tooltip("sum(pairs):Q", title="pairs")],
        )
        .properties(height=height)
    )
    return vega.vega_lite_spec(chart)


def sample_rows(pairs: PairsFile, n: int = 8) -> list[dict]:
    """The first ``n`` pairs with their line numbers, as plain text (a table shows them, never as HTML)."""
    return [
        {"line": line, "source": s, "target": t}
        for line, (s, t) in zip(pairs.line_numbers[:n], pairs.pairs[:n], strict=True)
    ]


def skipped_rows(pairs: PairsFile, n: int = 200) -> list[dict]:
    """The first ``n`` skipped lines: line number and the plain reason."""
    return [{"line": line, "why it was skipped": reason} for line, reason in pairs.skipped[:n]]


def skipped_sentence(pairs: PairsFile) -> str:
    """How many lines were skipped and the commonest reasons, or that none were."""
    if not pairs.skipped:
        return "Every non-blank line was read: none was skipped."
    kinds = pairs.summary()["skipped_reasons"]
    listed = ", ".join(f"{kind} ({n:,})" for kind, n in kinds.items())
    return f"{len(pairs.skipped):,} lines skipped: {listed}. The pairs above are what is left."


def duplicates_sentence(pairs: PairsFile) -> str:
    """What was found repeated and what was done with it (the student's keep/drop choice)."""
    n = len(pairs.duplicates)
    if not n:
        return "No pair occurs twice."
    lines = ", ".join(f"line {line} (= line {first})" for line, first in pairs.duplicates[:5])
    more = f" and {n - 5:,} more" if n > 5 else ""
    done = (
        "dropped: each pair is learned from once"
        if pairs.duplicates_dropped
        else "kept: a repeated pair weighs more in training, as often as it repeats"
    )
    return f"{n:,} repeated pair{'s' if n != 1 else ''}: {lines}{more}. Repeats {done}."


# ------------------------------------------------------------------------------------------ the tokenizers
def pieces_rows(task: PairsTask, n: int = 4) -> list[dict]:
    """The sentencepiece pieces of the first ``n`` training pairs, both sides (pieces joined by " · ")."""
    rows = []
    for ex in task.train[:n]:
        sides = (("source", ex.source, task.source_tokenizer), ("target", ex.target, task.target_tokenizer))
        for side, text, tok in sides:
            pieces = tok.pieces(text)
            rows.append({"side": side, "sentence": text, "pieces": " · ".join(pieces), "count": len(pieces)})
    return rows


def tokenizer_sentence(task: PairsTask, seconds: float) -> str:
    """What the tokenizers are: pieces per side, the split, the longest sentences in pieces, and the time taken."""
    return (
        f"Two sentencepiece (BPE) models, trained on your {len(task.train):,} training pairs in {seconds:.1f} s on "
        f"this server: {task.source_tokenizer.vocab_size:,} source pieces and {task.target_tokenizer.vocab_size:,} "
        f"target pieces (4 of each are <pad>, <s>, </s>, <unk>). {task.description}; the longest source is "
        f"{task.max_source_len} pieces, the longest target {task.max_target_len}. “▁” marks the start of a word."
    )


# ------------------------------------------------------------------------------------------- training
ARCHITECTURES = {"gru-additive": "GRU + additive attention (Bahdanau)", "transformer": "tiny Transformer"}
BUDGETS = (15, 30, 60, 90, MAX_BUDGET_SECONDS)  # seconds a student may ask for
TARGET = 0.98  # held-out exact match at which a run stops early


def train_text(task: PairsTask) -> str:
    return (
        f"Train a fresh model on your pairs, for you alone: {task.description}. The held-out pairs are never trained "
        f"on; *exact match* is the share of them the model translates exactly right, word for word (it stops early at "
        f"{TARGET:.0%}). The heatmap is the attention of one training pair, redrawn as the model learns. A stopped or "
        "finished run can be continued from where it stopped (the optimizer starts afresh)."
    )


def live_config(architecture: str, seed: int, budget_seconds: float):
    """The engine's recipe for ``architecture`` on a teacher's data, reporting often enough to watch, on one thread."""
    return own_data_train_config(
        architecture,
        max_seconds=float(budget_seconds),
        report_every=10,
        target_exact_match=TARGET,
        threads=THREADS_PER_RUN,
        seed=seed,
    )


def new_run(task: PairsTask, architecture: str, config, seed: int = 0, start: nn.Module | None = None) -> TrainingRun:
    """One student's run, not yet started: a fresh model (or a copy of ``start``, to continue it), trained in a
    worker process."""

    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {architecture!r}; choose from {', '.join(ARCHITECTURES)}")
    return TrainingRun(functools.partial(new_training, task, architecture, config, seed, start), name="own-data")


def new_training(task: PairsTask, architecture: str, config, seed: int = 0, start: nn.Module | None = None):
    """In the run's worker: the model (fresh, or a copy of ``start``) and the function that trains it."""
    model = copy.deepcopy(start) if start is not None else build_own_model(architecture, task, seed=seed)
    model.train()
    return model, lambda on_progress: train(model, task, config, on_progress)


def snapshot_figure(snapshot: Progress):
    """The training pair's attention at one report: rows its target pieces, columns its source pieces."""
    title = f"Attention on a training pair after {snapshot.step} steps"
    return charts.attention_heatmap(
        snapshot.attention,
        snapshot.source_tokens,
        snapshot.target_tokens,
        title=title,
        x_title="source piece",
        y_title="target piece (teacher forced)",
    )


def curve(snapshots: Sequence[Progress], after: Sequence[Mapping] | None = None) -> list[dict]:
    """The training curve a model file keeps: step, seconds, loss and held-out exact match per report. ``after``: the
    curve of the model this run continued; the run's steps and seconds are counted on from its end."""
    after = list(after or [])
    step0, seconds0 = (after[-1]["step"], after[-1]["seconds"]) if after else (0, 0.0)
    points = [
        {
            "step": step0 + s.step,
            "seconds": round(seconds0 + s.seconds, 3),
            "loss": round(s.loss, 5),
            "exact_match": round(s.exact_match, 4),
        }
        for s in snapshots
    ]
    return [*after, *points]


# ------------------------------------------------------------------------------------------ using the model
@dataclass(frozen=True)
class Reading:
    """One sentence through the student's model: its output and the attention map drawn for it."""

    text: str  # the model's translation
    figure: object  # the heatmap (plotly Figure)
    message: str | None  # the tokenizer's note (unknown characters, text cut), if any


def read_sentence(model: nn.Module, task: PairsTask, text: str) -> Reading | str:
    """``text`` translated greedily by the student's model with its main attention map; a message when unusable."""
    if not isinstance(text, str) or not text.strip():
        return "Type a sentence first."
    result = translate(model, task, text)
    if not result.source_pieces:
        return result.message or "Type a sentence first."
    name = main_map_name(model)
    weights = result.attention[name].float().numpy()  # (T, S), or (h, T, S) for a Transformer's heads
    if weights.ndim == 3:
        weights = weights.mean(axis=0)
    label = "encoder–decoder attention, last layer, heads averaged" if weights is not None and "." in name else "α"
    figure = charts.attention_heatmap(
        np.asarray(weights),
        result.source_pieces,
        result.target_pieces,
        title=f"Your model's {label}",
        x_title="source piece",
        y_title="output piece",
    )
    return Reading(result.text, figure, result.message)


def model_sentence(meta: Mapping) -> str:
    """A model's one-line description from its file's metadata (what it is, on what data, how far trained)."""
    arch = ARCHITECTURES.get(meta.get("architecture", ""), meta.get("architecture", "a model"))
    parts = [f"{arch}, trained on {quoted(meta.get('data_name') or 'your pairs')}"]
    if meta.get("pairs"):
        parts.append(f"{meta['pairs']:,} pairs")
    if meta.get("steps") is not None:
        parts.append(f"{meta['steps']:,} steps")
    if meta.get("exact_match") is not None:
        parts.append(f"held-out exact match {meta['exact_match']:.0%}")
    return "; ".join(parts) + "."


KEEP_TEXT = (
    "Download your model as one file: its weights (safetensors), both tokenizers, its settings, its training curve "
    "and the fingerprint of the data it learned from. Load it back here, today or next term, on this server or "
    "another; loading reads numbers and text, it never runs code from the file. A file of another architecture, "
    "from a newer version of the course, damaged on the way, or asking for more than this server gives one model "
    "({limits}) is refused with the reason before anything is built from it, and nothing changes."
)


def keep_text(limits=LIMITS) -> str:
    """What keeping a model means, with the limits the loader enforces (stated, not restated by hand)."""
    return KEEP_TEXT.format(limits=limits.describe_model())


LESSON_VIEWS = {  # where a model of each architecture is offered as "your model", and what the page shows with it
    "gru-additive": [("pages/bahdanau_attention.py", "Bahdanau attention: step by step, the alignment, beam search")],
    "transformer": [
        ("pages/transformer.py", "The Transformer: every layer and head, teacher forcing, beam search"),
        ("pages/multi_head_attention.py", "Multi-head attention: every head's map"),
    ],
}
