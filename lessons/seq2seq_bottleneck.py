r"""Lesson: seq2seq and the fixed-size bottleneck (Part 1).

Follows the Transformer lecture's encoder–decoder slides ("Jane visite l'Afrique en septembre" → "Jane is
visiting Africa in September", then the long "Jane s'est rendue en Afrique en septembre dernier, …" sentence
where "it is not perfect") and the NLP lecture's "Problem 2: fixed-size representation of entire input
sequence" ("bottleneck"). The encoder reads the source into states :math:`h_1 \dots h_S`; without attention the
decoder is given only the last one, the context vector :math:`c = h_S`, at every step:

.. math:: h_t = \mathrm{GRU}(E x_t,\, h_{t-1}), \qquad c = h_S, \qquad
          s_t = \mathrm{GRU}([E y_{t-1};\, c],\, s_{t-1}),\ s_0 = c, \qquad
          p(y_t) = \mathrm{softmax}(W_o \tanh(W_c [c;\, s_t]))

(``minimodels.seq2seq.Seq2Seq`` with ``attention="none"``). However long the source, :math:`c` has D numbers.

**The experiment.** The task is ``copy`` (``minimodels.tasks``): strings of 2 to 18 characters drawn from
lower-case letters and the space, written back unchanged. Copying is the hardest case for a fixed vector: the
first output character is the *oldest* input. The same task is trained without attention (``gru-none``) and
with Bahdanau's additive attention (``gru-additive``), for each context size D (``hidden_size``) in
:data:`CONTEXT_SIZES`, with the same seed, data, recipe and number of steps (:data:`STEPS`); then the test
split (1,700 strings, 75 to 114 of each length, never trained on) is decoded greedily and scored by source
length: exact match (the whole string right) and token accuracy (characters and end mark right).

**The shipped results** (``assets/results/seq2seq_bottleneck.json``) were made by
``scripts/seq2seq_bottleneck_results.py``
(``python scripts/seq2seq_bottleneck_results.py --threads 1``: 396 s on this project's shared 2-core machine at load
average 3 to 4.6), which calls :func:`train_model` and :func:`evaluate_by_length` below; the file records the
command, the seeds, the task options, the recipe, the date, torch's version, the machine's load, and each run's
steps, wall time, loss, scores and outputs. Measured there (exact match, 800 steps): without attention the
longest length still copied at least half the time is 4, 5, 6 and 6 characters for D = 16, 32, 64, 128, and
no string of 12 characters or more is copied exactly; with attention it is 17, 18, 18 and 18. A page reads the file
instantly; "re-run it yourself" trains the same pair live with :func:`new_training`, for one student only: one
click, both models one after the other for the same number of steps (at most :data:`LIVE_STEPS`, fewer than the
shipped runs, to fit a lesson), every report redrawing both length curves and the attention of a fixed example
(:data:`PROBE_TEXT`).

Letters: B batch, S source positions (characters + EOS), T target positions, D context (hidden) size.
"""

from __future__ import annotations

import dataclasses
import functools
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import torch
import torch.nn.functional as F
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.charts import ATTENTION_COLORSCALE, DIVERGING_COLORSCALE, attention_heatmap, figure, safe_label
from lessons.common.comparison import Comparison, Run
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun
from minimodels.decode import greedy
from minimodels.tasks import Batch, Task, get_task, make_batch
from minimodels.tasks.core import Example
from minimodels.tokenizers import EOS_ID, PAD_ID, UNK_ID
from minimodels.train import Progress, TrainConfig, build_model, default_train_config, exact_match, train

RESULTS_PATH = ROOT / "assets" / "results" / "seq2seq_bottleneck.json"

# ------------------------------------------------------------------------------------------- the experiment
TASK = "copy"
TASK_SEED = 0
MIN_LEN, MAX_LEN = 2, 18
ALPHABET = " abcdefghijklmnopqrstuvwxyz"  # lower-case letters and the space: the student can type words
PER_LENGTH = 100  # test strings of each length (the test split is drawn first, so every length gets its share)
TASK_OPTIONS = {
    "min_len": MIN_LEN,
    "max_len": MAX_LEN,
    "alphabet": ALPHABET,
    "n_train": 10_000,
    "n_valid": 500,
    "n_test": PER_LENGTH * (MAX_LEN - MIN_LEN + 1),
}
MODELS: dict[str, str] = {"gru-none": "without attention", "gru-additive": "with attention"}
CONTEXT_SIZES: tuple[int, ...] = (16, 32, 64, 128)  # D, the encoder's (and decoder's) state size
STEPS = 800  # optimizer steps for every model: the same budget with and without attention
SEED = 0  # initial weights and batch order
REPORT_EVERY = 50  # steps between the trainer's held-out checks in the shipped runs
LIVE_STEPS = 150  # a live run trains each model this many steps: enough for the gap to show (see new_training)
LIVE_BUDGET_SECONDS = 30.0  # ... unless both together would take longer than this
LIVE_ORDER = ("gru-additive", "gru-none")  # the order a live run trains them in; the second gets the first's steps
FIRST_SHARE = 2 / 3  # of the budget, for the first: with attention a step took 2.1 times as long (16.8 s vs 7.9 s
# for 150 steps with their reports, D = 32, 1 thread, on a 2-core machine at load average 8)
LIVE_REPORT_EVERY = 25  # a live run reports (and the page redraws) this often: every 1-2 s; a report costs ~0.5 s
LIVE_PER_LENGTH = 20  # test strings of each length scored at every live report (the first of each length)
EXAMPLES: tuple[str, ...] = ("jane", "jane visits", "jane visits africa")  # the lecture's sentence, growing
DEFAULT_TEXT = "jane visits africa"
PROBE_TEXT = DEFAULT_TEXT  # the fixed example a live run copies at every report (and draws the attention of)
METRICS = {"exact_match": "exact match", "token_accuracy": "token accuracy"}
COLORS = {"gru-none": "#d62728", "gru-additive": "#1f77b4"}


def lesson_task() -> Task:
    """The copy task of the experiment (memoised by ``get_task``; read-only)."""
    return get_task(TASK, seed=TASK_SEED, **TASK_OPTIONS)


def train_config(model_name: str, *, steps: int = STEPS, max_seconds: float | None = None) -> TrainConfig:
    """The Seq2Seq recipe (Adam 1e-2, batch 128, clipping at 1), a fixed number of steps: the same for both models,
    so ``lr`` and ``average`` are spelt out (the ``gru-additive`` default learns faster at 1.25e-2, averaged; the
    shipped results were measured with this recipe)."""
    return default_train_config(
        model_name,
        lr=1e-2,
        average=None,
        seed=SEED,
        max_steps=steps,
        max_seconds=max_seconds,
        target_exact_match=None,  # no early stop: both models get the same number of steps
        report_every=REPORT_EVERY,
        eval_size=100,
        device="cpu",
    )


def build(model_name: str, hidden_size: int, seed: int = SEED) -> nn.Module:
    """A fresh, seeded model of the experiment: context size D = ``hidden_size``."""
    return build_model(model_name, lesson_task(), seed=seed, hidden_size=hidden_size)


def train_model(
    model: nn.Module, config: TrainConfig, on_progress: Callable[[Progress], bool | None] | None = None
) -> object:
    """Train ``model`` on the lesson's task in place (``minimodels.train.train``); returns its TrainResult."""
    return train(model, lesson_task(), config, on_progress)


# ------------------------------------------------------------------------------------ accuracy by length
@dataclass(frozen=True)
class LengthAccuracy:
    """Scores of greedy decoding grouped by source length (characters, EOS not counted)."""

    lengths: tuple[int, ...]  # the source lengths present, ascending
    exact_match: tuple[float, ...]  # share of strings of that length decoded exactly right
    token_accuracy: tuple[float, ...]  # share of target positions (characters + EOS) predicted right
    counts: tuple[int, ...]  # strings of that length

    def metric(self, name: str) -> tuple[float, ...]:
        if name not in METRICS:
            raise ValueError(f"unknown metric {name!r}; choose from {', '.join(METRICS)}")
        return getattr(self, name)


def accuracy_by_length(
    predicted: torch.Tensor, target_out: torch.Tensor, source_lengths: torch.Tensor
) -> LengthAccuracy:
    """Exact match and token accuracy per source length.

    ``predicted (B, T')``: decoded tokens, EOS then PAD; ``target_out (B, T)``: target + EOS, PAD-padded;
    ``source_lengths (B,)``: source tokens *including* EOS (as in a :class:`~minimodels.tasks.Batch`). A
    target position counts as right when the prediction has the same token there; a prediction that stops
    early has PAD there, one that runs on past the target's EOS is wrong at that EOS.
    """
    width = max(predicted.size(1), target_out.size(1))
    predicted = F.pad(predicted, (0, width - predicted.size(1)), value=PAD_ID)  # (B, W)
    target = F.pad(target_out, (0, width - target_out.size(1)), value=PAD_ID)  # (B, W)
    real = target != PAD_ID  # (B, W): the target's characters and its EOS
    right = ((predicted == target) & real).sum(1).float()  # (B,)
    exact = exact_match(predicted, target).float()  # (B,)
    tokens = real.sum(1).float()  # (B,)
    lengths = source_lengths - 1  # (B,) characters, EOS not counted
    groups = sorted(set(lengths.tolist()))
    ex, tok, counts = [], [], []
    for n in groups:
        rows = lengths == n
        ex.append(float(exact[rows].mean()))
        tok.append(float(right[rows].sum() / tokens[rows].sum()))
        counts.append(int(rows.sum()))
    return LengthAccuracy(tuple(groups), tuple(ex), tuple(tok), tuple(counts))


@torch.inference_mode()
def evaluate_by_length(model: nn.Module, batch: Batch, batch_size: int = 500) -> LengthAccuracy:
    """Greedy-decode ``batch`` (``batch_size`` rows at a time) and score it by source length."""
    predicted = []
    for start in range(0, len(batch), batch_size):
        part = batch.select(torch.arange(start, min(start + batch_size, len(batch))))
        decoded = greedy(model, part.source, part.source_lengths, max_len=batch.target_out.size(1))
        predicted.append(F.pad(decoded.tokens, (0, batch.target_out.size(1) - decoded.tokens.size(1)), value=PAD_ID))
    return accuracy_by_length(torch.cat(predicted), batch.target_out, batch.source_lengths)


def scored_batch(per_length: int | None = None) -> Batch:
    """The test split (never trained on), or its first ``per_length`` strings of each length."""
    task = lesson_task()
    if per_length is None:
        return task.encoded("test")
    taken: dict[int, int] = {}
    chosen = []
    for ex in task.test:
        if taken.get(len(ex.source), 0) < per_length:
            taken[len(ex.source)] = taken.get(len(ex.source), 0) + 1
            chosen.append(ex)
    return make_batch(chosen, task)


@torch.inference_mode()
def copy_text(model: nn.Module, text: str) -> str:
    """What ``model`` writes for the (already clean) string ``text``."""
    task = lesson_task()
    batch = make_batch([Example(text, text)], task)
    decoded = greedy(model, batch.source, batch.source_lengths, max_len=2 * MAX_LEN + 2)
    return task.target_tokenizer.decode(decoded.sequences()[0])


# --------------------------------------------------------------------------------------- shipped results
# ``assets/results/seq2seq_bottleneck.json``: a :class:`~lessons.common.comparison.Comparison` of the two models
# (variants, :data:`MODELS`) over seeds, one run per model, seed and context size (``params={"hidden_size": D}``),
# measured by ``scripts/seq2seq_bottleneck_results.py``. A run's ``curve`` is its score by source length, one point
# per length (``{"length", "exact_match", "token_accuracy", "count"}``), on the whole test split after training;
# its ``final``: the training loss at the last report, the steps and the seconds it trained; its ``extra``: its
# parameter count, why it stopped and what it wrote for :data:`EXAMPLES`.
SCRIPT = "scripts/seq2seq_bottleneck_results.py"


def measured_run(
    model_name: str, model: nn.Module, result, accuracy: LengthAccuracy, outputs: dict, seed: int = SEED
) -> Run:
    """One run of the shipped comparison: ``model`` trained from ``seed`` (``result``: its
    ``minimodels.train.TrainResult``), scored by length on the test split, and its copies of :data:`EXAMPLES`."""
    curve = tuple(
        {"length": n, "exact_match": round(e, 4), "token_accuracy": round(t, 4), "count": c}
        for n, e, t, c in zip(accuracy.lengths, accuracy.exact_match, accuracy.token_accuracy, accuracy.counts,
                              strict=True)
    )  # fmt: skip
    final = {"loss": round(result.loss, 4), "seconds": round(result.seconds, 2), "steps": result.steps}
    extra = {"parameters": sum(p.numel() for p in model.parameters()), "stopped": result.stopped, "outputs": outputs}
    return Run(model_name, seed, {"hidden_size": model.config.hidden_size}, curve, final, extra)


def load_results(path: Path | str = RESULTS_PATH) -> Comparison:
    """The shipped comparison; ``FileNotFoundError`` or ``ValueError`` naming the script that makes it."""
    results = Comparison.load(path, script=SCRIPT)
    if set(results.variants) != set(MODELS) or not results.param_values("hidden_size"):
        raise ValueError(
            f"{Path(path).name} must compare {', '.join(MODELS)} over context sizes: run `python {SCRIPT}`"
        )
    return results


def hidden_sizes(results: Comparison) -> tuple[int, ...]:
    """The context sizes D the comparison measured."""
    return results.param_values("hidden_size")


def shipped_run(results: Comparison, model: str, hidden_size: int) -> Run:
    """The first run (seed) of ``model`` at D = ``hidden_size``; ``LookupError`` if there is none."""
    runs = results.runs_of(model, {"hidden_size": hidden_size})
    if not runs:
        raise LookupError(f"no shipped run of {model} with D = {hidden_size}")
    return runs[0]


def accuracy_of(results: Comparison, model: str, hidden_size: int) -> LengthAccuracy:
    """``model``'s scores by source length at D = ``hidden_size``: the mean over its seeds at each length."""
    runs = results.runs_of(model, {"hidden_size": hidden_size})
    if not runs:
        raise LookupError(f"no shipped run of {model} with D = {hidden_size}")
    first = runs[0].curve

    def mean(metric: str) -> tuple[float, ...]:
        return tuple(float(np.mean([r.curve[i][metric] for r in runs])) for i in range(len(first)))

    return LengthAccuracy(tuple(int(p["length"]) for p in first), mean("exact_match"), mean("token_accuracy"),
                          tuple(int(p["count"]) for p in first))  # fmt: skip


def run_label(model: str, hidden_size: int) -> str:
    return f"{MODELS.get(model, model)}, D = {hidden_size}"


def example_rows(results: Comparison, hidden_size: int) -> list[dict]:
    """The lecture's growing sentence and what each shipped model wrote for it at D = ``hidden_size``."""
    none, attn = (shipped_run(results, m, hidden_size).extra.get("outputs", {}) for m in MODELS)
    return [{"string": text, "length": len(text), "without attention wrote": none.get(text, "?"),
             "with attention wrote": attn.get(text, "?")} for text in EXAMPLES]  # fmt: skip


def provenance_note(results: Comparison, hidden_size: int) -> str:
    """What the provenance caption adds at D = ``hidden_size``: steps, training seconds and parameters."""
    none, attn = (shipped_run(results, m, hidden_size) for m in MODELS)
    return (
        f"{none.final['steps']:.0f} steps each; seed {none.seed}'s training took {none.final['seconds']:.0f} s without "
        f"attention and {attn.final['seconds']:.0f} s with it at D = {hidden_size} ({none.extra['parameters']:,} and "
        f"{attn.extra['parameters']:,} parameters). The scores depend only on the seeds."
    )


def longest_length_above(accuracy: LengthAccuracy, metric: str = "exact_match", level: float = 0.5) -> int:
    """The longest source length up to which every length scores at least ``level`` (0 if even the first fails)."""
    best = 0
    for n, value in zip(accuracy.lengths, accuracy.metric(metric), strict=True):
        if value < level:
            break
        best = n
    return best


def mean_over(accuracy: LengthAccuracy, lengths: Sequence[int], metric: str = "exact_match") -> float:
    """The mean score over the given source lengths (those present)."""
    values = [v for n, v in zip(accuracy.lengths, accuracy.metric(metric), strict=True) if n in set(lengths)]
    if not values:
        raise ValueError("none of these lengths were scored")
    return float(np.mean(values))


def summary(results: Comparison, hidden_size: int, metric: str = "exact_match") -> str:
    """One markdown sentence that says what the curves at this D show, with the measured numbers."""
    none, attn = accuracy_of(results, "gru-none", hidden_size), accuracy_of(results, "gru-additive", hidden_size)
    short, long = none.lengths[:3], none.lengths[-3:]
    name = METRICS[metric]
    reach_none = longest_length_above(none, metric)
    reach_attn = longest_length_above(attn, metric)
    return (
        f"With D = {hidden_size}, **without attention** {name} is {mean_over(none, short, metric):.0%} on strings of "
        f"{short[0]}–{short[-1]} characters and {mean_over(none, long, metric):.0%} on {long[0]}–{long[-1]}; it stays "
        f"at 50% or more up to length {reach_none}. **With attention** it is "
        f"{mean_over(attn, short, metric):.0%} and {mean_over(attn, long, metric):.0%}, at 50% or more up to "
        f"length {reach_attn}."
    )


# ----------------------------------------------------------------------------------------------- charts
def length_chart(
    results: Comparison | None,
    hidden_size: int,
    metric: str = "exact_match",
    own: Sequence[tuple[str, LengthAccuracy]] = (),
    *,
    others: bool = True,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """Score against source length: both shipped models at D (solid), the other D's without attention (faint),
    and the student's own runs (``own``: ``(label, accuracy)`` pairs, dashed). ``results`` None: only ``own``."""
    traces = []  # built as plain dicts (lessons.common.charts.figure): Plotly's checks cost ten times the rest
    sizes = hidden_sizes(results) if results is not None else ()
    if others:
        for d in sizes:
            if d == hidden_size:
                continue
            acc = accuracy_of(results, "gru-none", d)
            traces.append(
                {"type": "scatter", "x": list(acc.lengths), "y": list(acc.metric(metric)), "mode": "lines",
                 "name": f"without attention, D = {d}", "line": {"color": COLORS["gru-none"], "width": 1},
                 "opacity": 0.25 + 0.1 * sizes.index(d),
                 "hovertemplate": f"D = {d}<br>length %{{x}}<br>%{{y:.0%}}<extra></extra>"}
            )  # fmt: skip
    for model in MODELS if results is not None else ():
        acc, label = accuracy_of(results, model, hidden_size), run_label(model, hidden_size)
        traces.append(
            {"type": "scatter", "x": list(acc.lengths), "y": list(acc.metric(metric)), "mode": "lines+markers",
             "name": f"shipped: {label}", "line": {"color": COLORS[model], "width": 3},
             "hovertemplate": f"{html.escape(label)}<br>length %{{x}}<br>%{{y:.1%}}<extra></extra>"}
        )  # fmt: skip
    for i, (label, acc) in enumerate(own):
        model = "gru-additive" if "with attention" in label and "without" not in label else "gru-none"
        traces.append(
            {"type": "scatter", "x": list(acc.lengths), "y": list(acc.metric(metric)), "mode": "lines+markers",
             "name": html.escape(label), "line": {"color": COLORS[model], "width": 2, "dash": "dash"},
             "marker": {"symbol": "diamond-open", "size": 9}, "legendrank": 2000 + i,
             "hovertemplate": f"{html.escape(label)}<br>length %{{x}}<br>%{{y:.1%}}<extra></extra>"}
        )  # fmt: skip
    layout = {
        "title": {"text": html.escape(title or f"{METRICS[metric]} by source length, D = {hidden_size}")},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "xaxis": {"title": {"text": "source length (characters)"}, "dtick": 2},
        "yaxis": {"title": {"text": METRICS[metric]}, "range": [-0.02, 1.02], "tickformat": ".0%"},
        "legend": {"orientation": "v"},
    }
    return figure(traces, layout)


def live_length_chart(results: Comparison | None, report: PairReport, height: int = 380) -> go.Figure:
    """A student's run: each started model's exact match by length now (dashed), over the shipped ones at its D."""
    own = [
        (f"yours: {MODELS[name]}, D = {report.hidden_size}, {live.step} steps", live.accuracy)
        for name in MODELS
        if (live := report.latest(name)) is not None
    ]
    title = f"Exact match by source length: yours (dashed) and shipped (solid), D = {report.hidden_size}"
    return length_chart(results, report.hidden_size, "exact_match", own, others=False, title=title, height=height)


def grid_heatmap(results: Comparison, metric: str = "exact_match", height: int = 330) -> go.Figure:
    """Two heatmaps side by side, without and with attention: rows D, columns source length, colour = score."""
    sizes = hidden_sizes(results)
    data, layout, annotations = [], {}, []
    for col, model in enumerate(MODELS):
        accs = [accuracy_of(results, model, d) for d in sizes]
        z = np.array([acc.metric(metric) for acc in accs])  # (len(sizes), len(lengths))
        n = "" if col == 0 else "2"
        data.append(
            {"type": "heatmap", "z": z, "x": list(accs[0].lengths), "y": [f"D = {d}" for d in sizes],
             "zmin": 0.0, "zmax": 1.0, "colorscale": ATTENTION_COLORSCALE, "showscale": col == 1, "xgap": 1,
             "ygap": 1, "xaxis": f"x{n}", "yaxis": f"y{n}",
             "colorbar": {"title": {"text": METRICS[metric]}, "tickformat": ".0%", "thickness": 12},
             "hovertemplate": f"{MODELS[model]}, %{{y}}<br>length %{{x}}<br>{METRICS[metric]} = %{{z:.1%}}"
             "<extra></extra>"}
        )  # fmt: skip
        domain = [0.0, 0.47] if col == 0 else [0.53, 1.0]  # side by side, as make_subplots' spacing 0.06
        layout[f"xaxis{n}"] = {"domain": domain, "anchor": f"y{n}", "title": {"text": "source length"}, "dtick": 2}
        layout[f"yaxis{n}"] = {"domain": [0.0, 1.0], "anchor": f"x{n}", "showticklabels": col == 0}
        annotations.append(
            {"text": MODELS[model], "x": sum(domain) / 2, "y": 1.0, "xref": "paper", "yref": "paper",
             "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": 16}}
        )  # fmt: skip
    layout |= {"annotations": annotations, "height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10}}
    return figure(data, layout)


# ------------------------------------------------------------------------------- the student's own string
@dataclass(frozen=True)
class ParsedText:
    """The student's string as the model reads it, or a message saying why it cannot be used."""

    text: str  # cleaned: lower case, cut to MAX_LEN; "" when refused
    tokens: tuple[str, ...]  # one label per character ("<unk>" for one the model does not know)
    message: str | None  # a note (cut, unknown characters) or, when ``text`` is "", why it is refused

    @property
    def error(self) -> str | None:
        """Why the text is refused (``ui.checked_text`` keeps the last string that worked), or None."""
        return None if self.text else self.message

    @property
    def note(self) -> str | None:
        """What was changed in a usable text (cut, unknown characters), or None."""
        return self.message if self.text else None


def parse_text(text: object) -> ParsedText:
    """Read what the student typed: lower-cased, letters and spaces only, at most :data:`MAX_LEN` characters.

    Never raises and never echoes the text in its message (it is shown elsewhere as a literal).
    """
    if not isinstance(text, str) or not text.strip():
        return ParsedText("", (), "Type a few words first (letters and spaces).")
    cleaned = " ".join(text.lower().split())  # newlines, tabs and runs of spaces become one space
    encoded = lesson_task().source_tokenizer.encode_user_text(cleaned, MAX_LEN)
    if encoded.ids and all(i == UNK_ID for i in encoded.ids):
        return ParsedText("", (), "None of these characters is one the model knows: use letters and spaces.")
    tokens = tuple("<unk>" if i == UNK_ID else p for i, p in zip(encoded.ids, encoded.pieces, strict=True))
    kept = "".join(cleaned[: len(encoded.ids)])
    notes = []
    if encoded.truncated:
        notes.append(f"Only the first {MAX_LEN} characters are used: the models were trained on at most {MAX_LEN}.")
    if encoded.unknown_positions:
        n = len(encoded.unknown_positions)
        notes.append(
            f"{n} character{'s are' if n > 1 else ' is'} not a letter or a space and "
            f"{'are' if n > 1 else 'is'} read as <unk>."
        )
    return ParsedText(kept, tokens, " ".join(notes) or None)


def shown(token: str) -> str:
    """A character as a chart label: the space made visible."""
    return "␣" if token == " " else token


@dataclass(frozen=True)
class Squeeze:
    """One string through the encoder: every state, the context vector, and how much each character moves it."""

    tokens: tuple[str, ...]  # the characters, then "</s>"
    states: np.ndarray  # (S, D) h_1 … h_S (the last is the EOS step)
    context: np.ndarray  # (D,) c = h_S, all the decoder gets
    sensitivity: np.ndarray  # (S - 1,) mean ‖c' − c‖ / ‖c‖ when that one character is replaced


@torch.inference_mode()
def squeeze(model: nn.Module, text: str, replacements: str = "aeiostxz ") -> Squeeze:
    """Encode ``text`` (a :func:`parse_text` result) and measure what each character contributes to c.

    For every position, the character is replaced by each of ``replacements`` (itself skipped) and the
    string encoded again; the relative change of the context vector, averaged, says how much of that
    character survives in c.
    """
    task = lesson_task()
    ids = task.source_tokenizer.encode(text)
    source = torch.tensor([[*ids, EOS_ID]])  # (1, S)
    memory = model.encode(source, torch.tensor([source.size(1)]))
    states = memory.states[0]  # (S, D)
    context = memory.context[0]  # (D,)
    variants, owners = [], []
    for i, ch in enumerate(text):
        for r in replacements:
            if r != ch:
                variants.append([*ids[:i], *task.source_tokenizer.encode(r), *ids[i + 1 :], EOS_ID])
                owners.append(i)
    changed = model.encode(torch.tensor(variants), torch.full((len(variants),), source.size(1))).context  # (N, D)
    relative = (changed - context).norm(dim=-1) / context.norm().clamp_min(1e-9)  # (N,)
    owners_t = torch.tensor(owners)
    sensitivity = torch.stack([relative[owners_t == i].mean() for i in range(len(text))])  # (S - 1,)
    tokens = (*("<unk>" if i == UNK_ID else task.source_tokenizer.id_to_piece(i) for i in ids), "</s>")
    return Squeeze(tokens, states.numpy(), context.numpy(), sensitivity.numpy())


@functools.cache
def random_encoder(hidden_size: int) -> nn.Module:
    """A seeded, untrained model without attention, built once and shared read-only (eval mode)."""
    return build("gru-none", hidden_size).eval()


def squeeze_random(text: str, hidden_size: int) -> Squeeze:
    """:func:`squeeze` through the seeded, untrained encoder of context size ``hidden_size``."""
    return squeeze(random_encoder(hidden_size), text)


def squeeze_caption(trained: bool) -> str:
    """The caption under :func:`squeeze_figure`: how to read the bars, for trained or random weights."""
    bars = (
        "The bars beside the states: a character whose replacement barely moves c is nearly forgotten, and the "
        "decoder cannot copy what c no longer holds. "
    )
    if trained:
        return bars + (
            "These are your trained weights: training teaches the encoder to keep what copying needs, as far as "
            "D numbers allow."
        )
    return bars + (
        "These weights are random (seeded), not trained: each new character overwrites part of the state, so the "
        "earliest ones fade most. Train a model in section 3 and come back to see what training keeps."
    )


def squeeze_figure(result: Squeeze) -> go.Figure:
    """Every encoder state h_1 … h_S (one row of D numbers per character) and, under a blank row, c = h_S: all
    the decoder gets; beside each character's row, a bar: how much c changes when that character alone is
    replaced (mean ‖c′ − c‖ / ‖c‖ over replacements). The states and c share one pair of axes and one
    zero-centred colour scale, so h_S and c read as the same colours; the bars share their rows.

    One figure, not one each for the states, c and the bars: the browser draws every changed Plotly figure from
    scratch, and all three change with the string and with D (measured: a second figure costs +80–90 ms a
    move). Built from one dict (:func:`lessons.common.charts.figure`).
    """
    S, D = result.states.shape
    labels = [safe_label(f"h{i + 1} · {shown(token)}") for i, token in enumerate(result.tokens)]
    bound = float(np.abs(result.states).max()) or 1.0
    w = np.asarray(result.sensitivity, dtype=float)  # (S - 1,): one per character, none for the end mark
    top = max(float(w.max()), 1e-9)
    hover = "dimension %{x}<br>value = %{z:.3f}<extra></extra>"
    data = [
        {"type": "heatmap", "z": result.states, "y": list(range(S)), "name": "encoder states", "showlegend": False,
         "coloraxis": "coloraxis", "hovertemplate": hover},
        {"type": "heatmap", "z": result.context[None], "y": [S + 1], "name": "context c", "showlegend": False,
         "coloraxis": "coloraxis", "hovertemplate": f"c · {hover}"},
        {"type": "bar", "x": w, "y": list(range(S - 1)), "orientation": "h", "xaxis": "x2", "yaxis": "y",
         "name": "relative change of c", "showlegend": False, "customdata": labels[:-1],
         "text": [f"{v:.2f}" for v in w], "textposition": "outside", "cliponaxis": False,
         "hovertemplate": "%{customdata}<br>relative change of c = %{x:.4f}<extra></extra>",
         "marker": {"color": w, "colorscale": ATTENTION_COLORSCALE, "cmin": 0, "cmax": top}},
    ]  # fmt: skip
    layout = {
        "title": {"text": f"Encoder states: {S} rows of D = {D} numbers;<br>under them, all the decoder gets: "
                          f"c, {D} numbers"},
        "annotations": [
            {"text": "How much c changes when<br>this character is replaced", "x": 0.85, "xref": "paper",
             "y": 1.0, "yref": "paper", "xanchor": "center", "yanchor": "bottom", "showarrow": False,
             "font": {"size": 13}},
        ],
        "coloraxis": {"colorscale": DIVERGING_COLORSCALE, "cmid": 0.0, "cmin": -bound, "cmax": bound,
                      "colorbar": {"thickness": 10, "title": {"text": "h, c"}}},
        "height": 150 + 22 * (S + 2),
        "margin": {"l": 10, "r": 10, "t": 84, "b": 30},
        "xaxis": {"title": {"text": "dimension"}, "domain": [0.0, 0.62], "showgrid": False, "zeroline": False},
        "xaxis2": {"title": {"text": "‖c′ − c‖ / ‖c‖"}, "domain": [0.7, 1.0], "anchor": "y",
                   "range": [0, max(1.0, top * 1.15)]},
        "yaxis": {"tickmode": "array", "tickvals": [*range(S), S + 1], "ticktext": [*labels, f"c = h{S}"],
                  "autorange": "reversed", "range": [S + 1.5, -0.5], "showgrid": False, "zeroline": False},
    }  # fmt: skip
    return figure(data, layout)


# ------------------------------------------------------------------------------------------ live training
@dataclass
class LiveReport:
    """One report of one model of a student's run: its scores by length, its copy of the lecture's growing
    sentence and, with attention, where it looks while copying it."""

    model: str
    hidden_size: int
    step: int
    seconds: float  # since this model started training
    loss: float
    exact_match: float  # held-out exact match (the trainer's own check)
    accuracy: LengthAccuracy  # on LIVE_PER_LENGTH test strings of each length
    prediction: str  # the model's copy of PROBE_TEXT now
    attention: np.ndarray | None  # (T, S) its α copying PROBE_TEXT (teacher forced); None without attention


@dataclass(frozen=True)
class PairReport:
    """One report of a student's run of both models, one after the other (:data:`LIVE_ORDER`).

    ``step``, ``seconds``, ``loss`` and ``exact_match`` are what ``ui.training_panel`` reads, for the pair as one
    timeline: the steps and seconds of both models added up, and the loss and held-out exact match of the model
    that is training now (they jump back up when the second one starts from scratch). ``reports`` holds each
    model's own reports so far.
    """

    step: int
    seconds: float
    loss: float
    exact_match: float
    turn: str  # the model that made this report
    reports: dict[str, tuple[LiveReport, ...]]  # model -> its reports so far (empty until it starts)
    hidden_size: int  # D of both
    seed: int  # the seed both started from

    def latest(self, model: str) -> LiveReport | None:
        return self.reports[model][-1] if self.reports.get(model) else None

    @property
    def attention(self) -> np.ndarray | None:
        """The model with attention's latest α on the probe (a replay frame), or None before it starts."""
        latest = self.latest("gru-additive")
        return None if latest is None else latest.attention


def probe_tokens(text: str = PROBE_TEXT) -> list[str]:
    """The probe's labels as a heatmap shows them (a copy: the same for the source and the output)."""
    return [*(shown(ch) for ch in text), "</s>"]


@torch.inference_mode()
def probe_attention(model: nn.Module, text: str = PROBE_TEXT) -> np.ndarray | None:
    """``(T, S)``: the decoder's α over the source while it writes ``text`` (teacher forced), None without
    attention. Rows: the output characters and the end mark; columns: the source characters and the end mark."""
    batch = make_batch([Example(text, text)], lesson_task())
    maps = model(batch.source, batch.source_lengths, batch.target_in).attention
    return maps["cross"][0].float().numpy() if "cross" in maps else None


def finished_model(models: dict[str, nn.Module] | None, report: PairReport | None, name: str) -> nn.Module | None:
    """The model ``name`` of a student's finished run (``models``, its last ``report``), or None: no run, or it
    was stopped before that model started."""
    if models is None or report is None or report.latest(name) is None:
        return None
    return models[name]


def replay_frame(report: PairReport) -> np.ndarray | None:
    """A replay's frame: the attention on the probe while the model with attention trains (the frames it learns),
    None during the other model's turn."""
    return report.attention if report.turn == "gru-additive" else None


def new_run(hidden_size: int, seed: int = SEED) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s pair and its trainer, with the live settings as they are
    now (read at each call, not frozen into defaults)."""
    fresh, train_fn = new_training(hidden_size, seed=seed, steps=LIVE_STEPS, budget_seconds=LIVE_BUDGET_SECONDS,
                                   per_length=LIVE_PER_LENGTH, report_every=LIVE_REPORT_EVERY)  # fmt: skip
    return TrainingRun(train_fn, model=fresh, name="bottleneck-pair")


def new_training(
    hidden_size: int,
    *,
    seed: int = SEED,
    steps: int = LIVE_STEPS,
    budget_seconds: float = LIVE_BUDGET_SECONDS,
    per_length: int = LIVE_PER_LENGTH,
    report_every: int = LIVE_REPORT_EVERY,
):
    """Both fresh models for one student and the function that trains them: ``(models, train_fn(on_progress))``.

    The same seed, data, D and recipe as the shipped results, one model after the other (:data:`LIVE_ORDER`):
    the model with attention first, until ``steps`` or :data:`FIRST_SHARE` of ``budget_seconds``; then the one
    without, for exactly as many steps as the first had (or until the budget is spent). So a busy server that
    cuts the run short never compares models trained for different numbers of steps. Every report (a
    :class:`PairReport`) carries each model's accuracy by length on ``per_length`` test strings of each length.
    Returning False from ``on_progress`` stops the run: the model training then keeps what it learnt, and one
    that has not started stays untrained.
    """
    if hidden_size not in CONTEXT_SIZES:
        raise ValueError(f"D = {hidden_size} is not one of {', '.join(map(str, CONTEXT_SIZES))}")
    if not 0 < budget_seconds <= 120:
        raise ValueError(f"a budget of {budget_seconds} s for both models is outside 0–120 s")
    models = {name: build(name, hidden_size, seed) for name in LIVE_ORDER}
    scored = scored_batch(per_length)

    def config(name: str, max_steps: int, max_seconds: float) -> TrainConfig:
        return dataclasses.replace(
            train_config(name, steps=max_steps, max_seconds=max(max_seconds, 1.0)),
            seed=seed,
            report_every=report_every,
            threads=THREADS_PER_RUN,  # one torch thread per run: a class server's runs must not fight for cores
        )

    def train_fn(on_progress: Callable[[PairReport], bool]) -> dict[str, object]:
        reports: dict[str, list[LiveReport]] = {name: [] for name in LIVE_ORDER}
        results = {}  # model -> its TrainResult, once it has finished

        for name, model in models.items():

            def report(p: Progress, name: str = name, model: nn.Module = model) -> bool:
                model.eval()
                live = LiveReport(
                    name, hidden_size, p.step, p.seconds, p.loss, p.exact_match,
                    accuracy=evaluate_by_length(model, scored),
                    prediction=copy_text(model, PROBE_TEXT),
                    attention=probe_attention(model),
                )  # fmt: skip
                model.train()
                reports[name].append(live)
                return on_progress(
                    PairReport(
                        step=sum(r.steps for r in results.values()) + p.step,
                        seconds=sum(r.seconds for r in results.values()) + p.seconds,
                        loss=p.loss,
                        exact_match=p.exact_match,
                        turn=name,
                        reports={n: tuple(r) for n, r in reports.items()},
                        hidden_size=hidden_size,
                        seed=seed,
                    )
                )

            if not results:  # the first: the slower per step, so the larger share of the time
                limits = config(name, steps, FIRST_SHARE * budget_seconds)
            else:  # the next: the first one's steps, in whatever time it left
                first = next(iter(results.values()))
                limits = config(name, first.steps, budget_seconds - sum(r.seconds for r in results.values()))
            results[name] = result = train_model(model, limits, report)
            if result.stopped == "callback":  # the student pressed Stop: the next model does not start
                break
        return results

    return models, train_fn


def progress_chart(report: PairReport, *, height: int = 300) -> go.Figure:
    """Held-out exact match against each model's own training step, one line per model that has started."""
    fig = go.Figure()
    for name in MODELS:  # the same order and colours as every other chart of the lesson
        reports = report.reports.get(name, ())
        if not reports:
            continue
        fig.add_scatter(
            x=[r.step for r in reports],
            y=[r.exact_match for r in reports],
            mode="lines+markers",
            name=MODELS[name],
            line={"color": COLORS[name], "width": 2},
            hovertemplate=f"{MODELS[name]}<br>step %{{x}}<br>held-out exact match %{{y:.0%}}<extra></extra>",
        )
    fig.update_layout(
        title={"text": "Held-out exact match as each model trains"},
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": "training step (each model its own)", "rangemode": "tozero"},
        yaxis={"title": "held-out exact match", "range": [-0.02, 1.02], "tickformat": ".0%"},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def probe_heatmap(report: LiveReport) -> go.Figure:
    """The with-attention model's α while it copies the probe: output characters down, source characters across."""
    if report.attention is None:
        raise ValueError(f"{report.model} has no attention to draw")
    tokens = probe_tokens()
    return attention_heatmap(
        report.attention,
        tokens,
        tokens,
        title=f"With attention, step {report.step}: where each output character looks",
        x_title="source character",
        y_title="output character",
        value_name="α",
        height=520,
    )


# ------------------------------------------------------------------------------------------- exercises
@functools.cache
def decoder_numbers(model_name: str, hidden_size: int, text: str) -> int:
    """:func:`numbers_given_to_decoder` of a fresh model (the count does not depend on its weights), once per server."""
    return numbers_given_to_decoder(build(model_name, hidden_size), text)


@torch.inference_mode()
def numbers_given_to_decoder(model: nn.Module, text: str) -> int:
    """How many numbers about the source the decoder can read at each step: c alone, or every h_t'."""
    ids = lesson_task().source_tokenizer.encode(text)
    source = torch.tensor([[*ids, EOS_ID]])  # (1, S)
    memory = model.encode(source, torch.tensor([source.size(1)]))
    return memory.context.numel() if model.config.attention == "none" else memory.states.numel()


def exercises(results: Comparison | None) -> list[Exercise]:
    """Questions whose answers are read off the models and the shipped results (skipped when there are none)."""
    d = 32
    text = EXAMPLES[-1]
    out = [
        Exercise(
            key="seq2seq_bottleneck.ex1",
            prompt=(
                f"A GRU encoder–decoder **without attention**, D = {d}, copies the {len(text)}-character string "
                f"*{text}*. How many numbers about the source can its decoder read when it writes a character?"
            ),
            answer=decoder_numbers("gru-none", d, text),
            tolerance=0,
            explanation=f"Only c = h_S: D = {d} numbers, whatever the length of the source.",
            hint="Not the characters, not the states: one vector.",
        ),
        Exercise(
            key="seq2seq_bottleneck.ex2",
            prompt=(
                f"The same string with **attention**, D = {d}. Counting the end-of-sentence step, how many numbers "
                "about the source can the decoder read (through its attention weights) at each step?"
            ),
            answer=decoder_numbers("gru-additive", d, text),
            tolerance=0,
            explanation=f"Every encoder state h_1 … h_S: ({len(text)} + 1) × {d} numbers, growing with the source.",
            hint="One state per source position, EOS included, each of D numbers.",
        ),
    ]
    if results is not None:
        reach = longest_length_above(accuracy_of(results, "gru-none", 64))
        out.append(
            Exercise(
                key="seq2seq_bottleneck.ex3",
                prompt=(
                    "In the shipped results, **without attention** and D = 64, up to which source length is at least "
                    "half of the test strings copied exactly (every length up to it at 50% or more)? Read it off the "
                    "chart above."
                ),
                answer=reach,
                tolerance=0,
                explanation=f"Length {reach}; beyond it, more characters than 64 numbers can hold reliably.",
                hint="Set D = 64 and follow the red curve down to 50%.",
            )
        )
    out.append(
        Exercise(
            key="seq2seq_bottleneck.ex4",
            prompt="Why does the model with attention keep copying long strings when the one without cannot?",
            choices=(
                "Its decoder reads every encoder state again at each step, so nothing must fit in one vector",
                "Its context vector is larger",
                "It was trained for more steps",
                "Attention makes the encoder's GRU remember longer",
            ),
            answer=0,
            explanation="Same D, same steps, same encoder: only the decoder's access to h_1 … h_S differs.",
            hint="Both models have the same D and were trained for the same number of steps.",
        )
    )
    return out
