r"""Lesson: positional encoding (Part 3).

Self-attention compares every token with every other by content alone, so it cannot tell "abc" from "cab": shuffle
the input and its outputs come back shuffled the same way (it is *permutation-equivariant*). The Transformer adds
a position vector to each token's embedding. The Transformer lecture's choice is the sinusoids of Vaswani et
al. 2017, §3.5:

.. math:: PE_{(pos, 2i)} = \sin(pos\,\omega_i), \quad PE_{(pos, 2i+1)} = \cos(pos\,\omega_i), \quad
          \omega_i = 10000^{-2i/d}

"for any fixed offset k, PE_{pos+k} is a linear function of PE_pos": each pair of dimensions (2i, 2i+1) is a
point on a circle at angle pos·ω_i, and moving k positions turns it by k·ω_i, a 2×2 rotation that does not depend
on pos. This module computes the table, that rotation and its residual (in float64, where it is ~1e-15), the
similarity of positions, the equivariance test on trained encoders, and the shipped comparison of ``none`` /
``sinusoidal`` / ``learned`` on ``reverse``.

Letters: T positions, d d_model, i a frequency pair, k an offset, S source positions. Never imports streamlit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import altair as alt
import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots
from torch import nn

from lessons.common.catalog import ROOT
from lessons.common.charts import ATTENTION_COLORSCALE, safe_label, vega_lite_spec, with_values
from lessons.common.comparison import Comparison, curves_chart
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.common.pretrained import load_pretrained
from minimodels.decode import greedy
from minimodels.positional import sinusoidal_encoding
from minimodels.tasks import Task, get_task, make_batch
from minimodels.train import TrainConfig, build_model, default_train_config, model_config, train

RESULTS = ROOT / "assets" / "results" / "positional_encoding.json"

BASE = 10000.0  # the 10000 of the formula
D_CHOICES: tuple[int, ...] = (4, 8, 16, 32, 64, 128)  # even only: an odd d drops its last cosine (no rotation)
MAX_LENGTH = 200  # positions drawn in the table

ENCODINGS: tuple[str, ...] = ("none", "sinusoidal", "learned")
LABELS = {"none": "none (no positions)", "sinusoidal": "sinusoidal (fixed)", "learned": "learned (one vector each)"}
COLORS = {"none": "#7f7f7f", "sinusoidal": "#1f77b4", "learned": "#ff7f0e"}
TASK = "reverse"
MODEL = "transformer"
LEVELS: tuple[float, ...] = (0.5, 0.9)  # held-out exact-match levels whose first step the table shows


def checkpoint_name(positional: str) -> str:
    """The shipped checkpoint of the Transformer trained on ``reverse`` with encoding ``positional``."""
    return f"{TASK}-{MODEL}-{positional}"


PRETRAINED_KEYS = {name: (TASK, f"{MODEL}-{name}") for name in ENCODINGS}  # encoding -> ui.pretrained's (task, model)


# ------------------------------------------------------------------------------------------ 1. the table
def check_d_model(d_model: int) -> None:
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be even and at least 2 (each frequency is a sin/cos pair); got {d_model}")


def frequencies(d_model: int) -> np.ndarray:
    r"""``(d/2,)`` float64: :math:`\omega_i = 10000^{-2i/d}`, the angle pair i turns per position."""
    check_d_model(d_model)
    return BASE ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def encoding_table(n_positions: int, d_model: int) -> np.ndarray:
    """``(T, d)``: the table the models add, as :func:`minimodels.positional.sinusoidal_encoding` makes it."""
    return sinusoidal_encoding(n_positions, d_model).double().numpy()


def exact_encoding(positions, d_model: int) -> np.ndarray:
    """``(len(positions), d)`` float64, from the angles pos·ω_i: sin in even columns, cos in odd ones."""
    angles = np.asarray(positions, dtype=np.float64)[:, None] * frequencies(d_model)  # (T, d/2)
    pe = np.empty((len(angles), d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


def wavelengths(d_model: int) -> np.ndarray:
    """``(d/2,)``: positions per full turn of each pair, 2π/ω_i (from 2π ≈ 6.3 up to 2π·10000)."""
    return 2 * math.pi / frequencies(d_model)


# ----------------------------------------------------------------------------------- 2. the similarity
def similarity(n_positions: int, d_model: int) -> np.ndarray:
    r"""``(T, T)``: PE_p · PE_q for every pair of positions. It equals :math:`\sum_i \cos(\omega_i (p - q))`."""
    pe = encoding_table(n_positions, d_model)  # (T, d)
    return pe @ pe.T  # (T, T)


def similarity_by_offset(d_model: int, max_offset: int) -> np.ndarray:
    r"""``(max_offset + 1,)``: :math:`PE_p \cdot PE_{p+k} = \sum_i \cos(k\,\omega_i)` for k = 0 … max_offset."""
    k = np.arange(max_offset + 1, dtype=np.float64)[:, None]  # (K, 1)
    return np.cos(k * frequencies(d_model)).sum(axis=1)  # (K,)


# ------------------------------------------------------------------------------- 3. the offset rotation
def rotation(omega: float, k: int) -> np.ndarray:
    r"""``(2, 2)``: the matrix that takes pair (sin pos·ω, cos pos·ω) to (sin (pos+k)·ω, cos (pos+k)·ω).

    .. math:: \begin{pmatrix}\sin(a+b)\\ \cos(a+b)\end{pmatrix} =
              \begin{pmatrix}\cos b & \sin b\\ -\sin b & \cos b\end{pmatrix}
              \begin{pmatrix}\sin a\\ \cos a\end{pmatrix},\quad b = k\omega
    """
    b = k * omega
    return np.array([[math.cos(b), math.sin(b)], [-math.sin(b), math.cos(b)]])


def offset_matrix(d_model: int, k: int) -> np.ndarray:
    """``(d, d)`` block-diagonal: one :func:`rotation` per frequency pair. The same matrix for every pos."""
    M = np.zeros((d_model, d_model))
    for i, omega in enumerate(frequencies(d_model)):
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = rotation(float(omega), k)
    return M


OFFSET_FORMATS = {  # how the page shows OffsetCheck.rows()'s numbers (printf formats)
    "ω_i": "%.6f",
    "wavelength 2π/ω_i": "%.1f",
    "angle k·ω_i (rad)": "%.4f",
    "angle (degrees, mod 360)": "%.2f",
    "max residual": "%.1e",
}


@dataclass(frozen=True)
class OffsetCheck:
    """PE_{pos+k} = M_k PE_pos, checked at every position of the table, in float64."""

    d_model: int
    k: int
    pos: int
    n_positions: int
    omegas: np.ndarray  # (d/2,) ω_i
    angles: np.ndarray  # (d/2,) k·ω_i, radians: how far pair i turns
    matrix: np.ndarray  # (d, d) M_k
    pe_pos: np.ndarray  # (d,) PE_pos
    rotated: np.ndarray  # (d,) M_k PE_pos
    pe_target: np.ndarray  # (d,) PE_{pos+k}
    residual: float  # max |PE_{p+k} − M_k PE_p| over every p with p + k < n_positions
    pair_residuals: np.ndarray  # (d/2,) the same, per frequency pair

    def rows(self) -> list[dict]:
        """One table row per frequency pair."""
        return [
            {
                "pair i": i,
                "dimensions": f"{2 * i}, {2 * i + 1}",
                "ω_i": float(w),
                "wavelength 2π/ω_i": 2 * math.pi / float(w),
                "angle k·ω_i (rad)": float(a),
                "angle (degrees, mod 360)": math.degrees(float(a)) % 360,
                "max residual": float(r),
            }
            for i, (w, a, r) in enumerate(zip(self.omegas, self.angles, self.pair_residuals, strict=True))
        ]


def offset_check(d_model: int, k: int, pos: int = 0, n_positions: int = MAX_LENGTH) -> OffsetCheck:
    """Build M_k and measure how well it maps every PE_p to PE_{p+k} (float64 throughout)."""
    if k < 0 or pos < 0 or pos + k >= n_positions:
        raise ValueError(f"need 0 <= k, 0 <= pos and pos + k < {n_positions}; got pos {pos}, k {k}")
    M = offset_matrix(d_model, k)
    pe = exact_encoding(np.arange(n_positions), d_model)  # (T, d) float64
    error = np.abs(pe[k:] - pe[: n_positions - k] @ M.T)  # (T - k, d): PE_{p+k} − M PE_p, every row at once
    omegas = frequencies(d_model)
    return OffsetCheck(
        d_model=d_model,
        k=k,
        pos=pos,
        n_positions=n_positions,
        omegas=omegas,
        angles=k * omegas,
        matrix=M,
        pe_pos=pe[pos],
        rotated=M @ pe[pos],
        pe_target=pe[pos + k],
        residual=float(error.max()),
        pair_residuals=error.reshape(len(error), -1, 2).max(axis=(0, 2)),
    )


# ----------------------------------------------------------------------------- 4. permutation equivariance
ALPHABET = get_task(TASK).source_tokenizer.alphabet
MIN_CHARS, MAX_CHARS = 2, get_task(TASK).max_source_len
DEFAULT_TEXT = "position"
PERMUTATIONS: tuple[str, ...] = ("reverse", "rotate by one", "random shuffle")


@dataclass(frozen=True)
class ParsedText:
    text: str
    error: str | None = None  # why the text was refused; the page keeps the last good one


def parse_text(text: str) -> ParsedText:
    """The student's string: 2–10 digits or lowercase letters (what the ``reverse`` models read), or a message."""
    text = text.strip() if isinstance(text, str) else ""
    if not text:
        return ParsedText("", "Type a short string, for example “position”.")
    if len(text) > 64 * MAX_CHARS:
        return ParsedText("", f"That is far too long: the models read at most {MAX_CHARS} characters.")
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return ParsedText("", f"That is {len(text)} characters; type {MIN_CHARS} to {MAX_CHARS}.")
    odd = sorted({c for c in text if c not in ALPHABET})
    if odd:
        shown = ", ".join(repr(c) for c in odd[:5])
        return ParsedText("", f"Only digits and lowercase letters a–z are known to the models (not {shown}).")
    return ParsedText(text)


def permutation(kind: str, n: int, seed: int = 0) -> list[int]:
    """``order``: position j of the shuffled string holds character ``order[j]`` of the original."""
    if kind == "reverse":
        return list(range(n - 1, -1, -1))
    if kind == "rotate by one":
        return [*range(1, n), 0]
    if kind == "random shuffle":
        return torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
    raise ValueError(f"unknown permutation {kind!r}; choose from {', '.join(PERMUTATIONS)}")


def encoder_outputs(model: nn.Module, task: Task, text: str) -> tuple[np.ndarray, np.ndarray]:
    """The encoder's output ``(S, d)`` and its first layer's self-attention ``(S, S)`` (heads averaged).

    S counts the end-of-sentence token, which stays last.
    """
    batch = make_batch([task.aligner.pair(text)], task)
    with torch.inference_mode():
        memory = model.encode(batch.source, batch.source_lengths)
    return memory.states[0].double().numpy(), memory.attention["encoder.0.self"][0].mean(0).double().numpy()


def predict(model: nn.Module, task: Task, text: str) -> str:
    """The model's greedy output for ``text``."""
    batch = make_batch([task.aligner.pair(text)], task)
    decoded = greedy(model, batch.source, batch.source_lengths, max_len=2 * len(text) + 2)
    return task.target_tokenizer.decode(decoded.tokens[0].tolist())


@dataclass(frozen=True)
class Equivariance:
    """f(shuffled x) against f(x) shuffled the same way, for one trained encoder."""

    positional: str
    text: str
    shuffled: str
    order: tuple[int, ...]  # shuffled[j] == text[order[j]]
    outputs: np.ndarray  # (S, d) encoder output for text (EOS last)
    shuffled_outputs: np.ndarray  # (S, d) for shuffled
    attention: np.ndarray  # (S, S) first encoder layer's self-attention for text
    attention_back: np.ndarray  # (S, S) the same for shuffled, rows and columns put back in text's order
    difference: float  # max |f(Px) − P f(x)|: ~1e-7 without positions, O(1) with them
    prediction: str  # the model's output for text
    shuffled_prediction: str  # and for shuffled


def equivariance(model: nn.Module, task: Task, positional: str, text: str, order: Sequence[int]) -> Equivariance:
    """Run the encoder on ``text`` and on its shuffle, and compare the second with the first shuffled."""
    if sorted(order) != list(range(len(text))):
        raise ValueError(f"order {list(order)} is not a permutation of {len(text)} positions")
    shuffled = "".join(text[i] for i in order)
    full = [*order, len(text)]  # the EOS stays at the end
    out, attention = encoder_outputs(model, task, text)
    out_p, attention_p = encoder_outputs(model, task, shuffled)
    back = np.argsort(full)  # shuffled position holding original position j
    return Equivariance(
        positional=positional,
        text=text,
        shuffled=shuffled,
        order=tuple(order),
        outputs=out,
        shuffled_outputs=out_p,
        attention=attention,
        attention_back=attention_p[np.ix_(back, back)],
        difference=float(np.abs(out_p - out[full]).max()),
        prediction=predict(model, task, text),
        shuffled_prediction=predict(model, task, shuffled),
    )


EQUIVARIANT = 1e-4  # a difference below this is float rounding: the model is permutation-equivariant


def equivariance_rows(checks: Sequence[Equivariance]) -> list[dict]:
    return [
        {
            "encoding": LABELS[c.positional],
            "max |f(shuffled) − shuffled f|": c.difference,
            "equivariant?": "yes" if c.difference < EQUIVARIANT else "no",
            "output for the string": c.prediction,
            "output for the shuffle": c.shuffled_prediction,
            "correct?": ("yes" if c.prediction == c.text[::-1] else "no")
            + " / "
            + ("yes" if c.shuffled_prediction == c.shuffled[::-1] else "no"),
        }
        for c in checks
    ]


# ------------------------------------------------------------------------------- pretrained and attention
def load_model(positional: str) -> tuple[nn.Module, dict]:
    """The shipped ``reverse`` Transformer with encoding ``positional`` (eval mode, CPU): the one copy
    ``load_pretrained`` keeps per process (the page's ``ui.pretrained`` gets the same), shared read-only."""
    if positional not in ENCODINGS:
        raise ValueError(f"unknown encoding {positional!r}; choose from {', '.join(ENCODINGS)}")
    shipped = load_pretrained(*PRETRAINED_KEYS[positional])
    if shipped[0].config.positional != positional:
        raise ValueError(f"checkpoint {checkpoint_name(positional)} has positional {shipped[0].config.positional!r}")
    return shipped


def architecture() -> str:
    """The compared Transformer's shape, read off the config the models are built with."""
    c = model_config(MODEL, get_task(TASK))
    return f"{c.encoder_layers} + {c.decoder_layers} layers, d = {c.d_model}, {c.n_heads} heads"


@dataclass(frozen=True)
class CrossAttention:
    positional: str
    source_tokens: list[str]  # S labels, "</s>" last
    target_tokens: list[str]  # T labels: the reversed string, "</s>" last
    weights: np.ndarray  # (T, S) the last decoder layer's cross-attention, heads averaged, teacher forced
    prediction: str
    anti_diagonal: float | None  # share of output characters whose argmax is the source character they come from


def cross_attention(model: nn.Module, task: Task, positional: str, text: str) -> CrossAttention:
    """The last decoder layer's cross-attention for ``text`` → its reverse (teacher forced, heads averaged)."""
    example = task.aligner.pair(text)
    batch = make_batch([example], task)
    with torch.inference_mode():
        out = model(batch.source, batch.source_lengths, batch.target_in)
    name = f"decoder.{model.config.decoder_layers - 1}.cross"
    weights = out.attention[name][0].mean(0).double().numpy()  # (T, S)
    gold = task.gold_alignment(example)
    hits = [int(weights[t].argmax()) in sources for t, sources in enumerate(gold)]
    return CrossAttention(
        positional=positional,
        source_tokens=[*text, "</s>"],
        target_tokens=[*example.target, "</s>"],
        weights=weights,
        prediction=predict(model, task, text),
        anti_diagonal=sum(hits) / len(hits),
    )


def shipped_steps() -> str:
    """How long each shipped model was trained: "none 600, sinusoidal 600, learned 600"."""
    return ", ".join(f"{name} {load_model(name)[1]['training'].get('steps', '?')}" for name in ENCODINGS)


def shipped_checks(text: str, order: tuple[int, ...]) -> list[Equivariance]:
    """Each shipped model on a string and its shuffle."""
    return [equivariance(load_model(name)[0], get_task(TASK), name, text, order) for name in ENCODINGS]


def shipped_cross_attention(text: str) -> list[CrossAttention]:
    """Each shipped model's cross-attention while reversing ``text``."""
    return [cross_attention(load_model(name)[0], get_task(TASK), name, text) for name in ENCODINGS]


def snapshot_cross_attention(snapshot, positional: str) -> CrossAttention:
    """A live run's report (a ``minimodels.train.Progress``) as the cross-attention map the figures draw."""
    return CrossAttention(
        positional=positional,
        source_tokens=snapshot.source_tokens,
        target_tokens=snapshot.target_tokens,
        weights=snapshot.attention,
        prediction=snapshot.prediction,
        anti_diagonal=None,
    )


# ---------------------------------------------------------------------------------------- live training
def live_config(budget_seconds: float, seed: int) -> TrainConfig:
    """The shipped checkpoints' recipe (Adam, warm-up 50, decay), reporting every 10 steps, on one thread."""
    return default_train_config(
        MODEL,
        seed=seed,
        max_seconds=budget_seconds,
        max_steps=None,
        report_every=10,
        target_exact_match=0.98,
        threads=THREADS_PER_RUN,
    )


def new_training(positional: str, seed: int, budget_seconds: float):
    """A fresh model for one student and the function that trains it: ``(model, train_fn(on_progress))``."""
    if positional not in ENCODINGS:
        raise ValueError(f"unknown encoding {positional!r}; choose from {', '.join(ENCODINGS)}")
    check_budget(budget_seconds)
    task = get_task(TASK)
    model = build_model(MODEL, task, seed=seed, positional=positional)
    config = live_config(budget_seconds, seed)
    return model, lambda on_progress: train(model, task, config, on_progress)


def new_run(positional: str, seed: int, budget_seconds: float) -> TrainingRun:
    """The training panel's run: :func:`new_training`'s model and trainer, named for the encoding."""
    fresh, train_fn = new_training(positional, seed, float(budget_seconds))
    return TrainingRun(train_fn, model=fresh, name=f"positional-{positional}")


# --------------------------------------------------------------------------------------- shipped results
# ``scripts/positional_encoding_results.py``: the same Transformer trained on ``reverse`` with each encoding and seed
# for a fixed number of steps, a Comparison of ENCODINGS × seeds. A run's curve: {"step", "seconds", "loss",
# "exact_match"} at every held-out check; its final metrics: FINAL (and the seconds to each level); its extra: the
# model's trainable parameters.
SCRIPT = "scripts/positional_encoding_results.py"


def reached_metric(level: float, x: str = "step") -> str:
    """The final metric "steps to 90%" (or "seconds to 90%"): the first held-out check at or above ``level``."""
    return f"{'steps' if x == 'step' else 'seconds'} to {level:.0%}"


FINAL = {  # the table's columns: final metric -> format
    **{reached_metric(level): ".0f" for level in LEVELS},
    "steps": ".0f",
    "seconds": ".1f",  # wall time of the run, the held-out checks included
    "held-out exact": ".1%",  # the held-out subset (200 validation strings) at the end
    "test exact": ".1%",  # the whole test split at the end
    "anti-diagonal": ".1%",  # cross-attention argmax on the source character it reverses (test split)
}


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison (``RESULTS`` by default); ``FileNotFoundError``/``ValueError`` naming the script."""
    path = Path(path) if path is not None else RESULTS
    results = Comparison.load(path, script=SCRIPT)
    if set(results.variants) != set(ENCODINGS):
        raise ValueError(f"{path.name} must compare the encodings {', '.join(ENCODINGS)}: re-run {SCRIPT}")
    for run in results.runs:
        lacking = sorted(set(FINAL) - set(run.final)) + ([] if run.curve else ["curve"])
        lacking += [] if "parameters" in run.extra else ["parameters"]
        if lacking:
            raise ValueError(f"{path.name}: {run.variant} seed {run.seed} lacks {', '.join(lacking)}: re-run {SCRIPT}")
    return results


def parameters(results: Comparison, encoding: str) -> int:
    """The trainable parameters of the model with ``encoding`` (the same for every seed)."""
    return int(results.runs_of(encoding)[0].extra["parameters"])


def results_rows(results: Comparison) -> list[dict]:
    """The comparison table: one row per encoding, its parameters, n and each metric as mean ± sd."""
    rows = results.table(FINAL, variant_header="encoding", missing="never")
    return [{"encoding": row["encoding"], "parameters": parameters(results, encoding), **row}
            for encoding, row in zip(results.variants, rows, strict=True)]  # fmt: skip


def observations(results: Comparison) -> list[str]:
    """The page's sentences about the comparison, each computed by ``Comparison.compare`` from the loaded numbers
    (so a file where the result goes the other way says so)."""
    test = "test exact"
    lines = [results.compare(e, "none", test).sentence(".1%", "test exact match") for e in ("sinusoidal", "learned")]
    lines.append(results.compare("sinusoidal", "learned", test).sentence(".1%", "test exact match"))
    key = reached_metric(LEVELS[-1])
    faster = results.compare("sinusoidal", "learned", key, higher_is_better=False)
    lines.append(faster.sentence(".0f", f"steps to {LEVELS[-1]:.0%} held-out (fewer is better)", missing="never"))
    never = [results.label(e) for e, spread in results.spreads(key).items() if spread.n == 0]
    if never:
        lines.append(f"Never reached {LEVELS[-1]:.0%} within the budget: {', '.join(never)}.")
    return lines


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Held-out exact match and loss against ``x`` ("step" or "seconds"): per encoding the mean over seeds, its
    band and each seed (``curves_chart``, Vega-Lite specs for ``ui.vega``)."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    common = {"x_title": title, "height": 300, "colors": COLORS}
    accuracy = curves_chart(results.curve_points("exact_match", x=x), y_title="held-out exact match",
                            title="Exact match on reverse", percent=True, **common)  # fmt: skip
    loss = curves_chart(results.curve_points("loss", x=x), y_title="training loss", title="Loss", **common)
    return accuracy, loss


def lowest_test_exact(results: Comparison) -> str:
    """The encoding with the lowest mean test exact match."""
    means = {e: spread.mean for e, spread in results.spreads("test exact").items()}
    return min(means, key=means.get)


# ------------------------------------------------------------------------------------------ the figures
def _signed_heatmap(z: np.ndarray, **kwargs) -> go.Heatmap:
    bound = float(np.abs(z).max()) or 1.0
    return go.Heatmap(z=z, colorscale="RdBu", zmid=0.0, zmin=-bound, zmax=bound, **kwargs)


def table_figure(pe: np.ndarray) -> go.Figure:
    """The encoding matrix: positions down, dimensions across, value on hover."""
    T, d = pe.shape
    fig = go.Figure(
        _signed_heatmap(
            pe,
            hovertemplate="position %{y}<br>dimension %{x}<br>PE = %{z:.4f}<extra></extra>",
            colorbar={"thickness": 12, "title": {"text": "PE"}},
        )
    )
    fig.update_layout(
        title={"text": f"PE for {T} positions × d_model = {d}"},
        height=520,
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        xaxis={"title": "dimension (even: sin, odd: cos)"},
        yaxis={"title": "position", "autorange": "reversed"},
    )
    return fig


def dimension_curves(pe: np.ndarray, dims: Sequence[int]) -> dict:
    """Selected columns of the table as curves against the position: a Vega-Lite spec (Altair, built once by
    :func:`_curves_spec`; a move only puts new numbers in and Streamlit redraws the chart in place, where a Plotly
    figure was drawn anew)."""
    T, d = pe.shape
    omegas = frequencies(d)
    values = []
    for j in dims:
        name = f"dim {j} ({'sin' if j % 2 == 0 else 'cos'}, wavelength {2 * math.pi / omegas[j // 2]:.3g})"
        values += [{"position": p, "PE": float(pe[p, j]), "dimension": name} for p in range(T)]
    return with_values(_curves_spec(), values)


@cache
def _curves_spec() -> str:
    chart = (
        alt.Chart(alt.Data(name="curves"))
        .mark_line()
        .encode(
            x=alt.X("position:Q", title="position"),
            y=alt.Y("PE:Q", title="PE", scale=alt.Scale(domain=[-1.1, 1.1])),
            color=alt.Color("dimension:N", sort=None, legend=alt.Legend(orient="bottom", title=None, columns=3,
                                                                         labelLimit=300)),
            tooltip=["dimension:N", "position:Q", alt.Tooltip("PE:Q", format=".4f")],
        )
        .properties(height=260, autosize={"type": "fit-x", "contains": "padding"})  # the legend adds height
    )  # fmt: skip
    return json.dumps(vega_lite_spec(chart))


def similarity_figure(sim: np.ndarray) -> go.Figure:
    """The dot product of every pair of positions."""
    fig = go.Figure(
        go.Heatmap(
            z=sim,
            colorscale="Viridis",
            hovertemplate="p = %{y}, q = %{x}<br>PE_p·PE_q = %{z:.3f}<extra></extra>",
            colorbar={"thickness": 12},
        )
    )
    fig.update_layout(
        title={"text": "PE_p · PE_q"},
        height=420,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"title": "position q"},
        yaxis={"title": "position p", "autorange": "reversed"},
    )
    return fig


def offset_curve(by_offset: np.ndarray) -> dict:
    """PE_p · PE_{p+k} against the offset k (the same for every p): a Vega-Lite spec, built once, filled per move."""
    return with_values(_offset_curve_spec(), [{"k": k, "dot product": float(v)} for k, v in enumerate(by_offset)])


@cache
def _offset_curve_spec() -> str:
    chart = (
        alt.Chart(alt.Data(name="by_offset"))
        .mark_line()
        .encode(
            x=alt.X("k:Q", title="offset k"),
            y=alt.Y("dot product:Q", title="dot product"),
            tooltip=["k:Q", alt.Tooltip("dot product:Q", format=".3f", title="PE_p · PE_{p+k}")],
        )
        .properties(height=330, title="PE_p · PE_{p+k}, the same for every p")
    )
    return json.dumps(vega_lite_spec(chart))


def offset_figure(check: OffsetCheck) -> go.Figure:
    """M_k (block diagonal) beside PE_pos, M_k PE_pos and PE_{pos+k} as columns."""
    d = check.d_model
    vectors = np.stack([check.pe_pos, check.rotated, check.pe_target], axis=1)  # (d, 3)
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.7, 0.3],
        subplot_titles=(f"M_k for k = {check.k}", "the vectors"),
        horizontal_spacing=0.12,
    )
    fig.add_trace(
        _signed_heatmap(
            check.matrix,
            hovertemplate="row %{y}, column %{x}<br>M = %{z:.4f}<extra></extra>",
            showscale=False,
            xgap=1 if d <= 32 else 0,
            ygap=1 if d <= 32 else 0,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        _signed_heatmap(
            vectors,
            x=[f"PE_{check.pos}", f"M·PE_{check.pos}", f"PE_{check.pos + check.k}"],
            hovertemplate="%{x}<br>dimension %{y}<br>value = %{z:.6f}<extra></extra>",
            colorbar={"thickness": 12},
            xgap=2,
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(autorange="reversed", title_text="dimension", row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=1, col=2)
    fig.update_xaxes(title_text="dimension", row=1, col=1)
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 40, "b": 40})
    return fig


def attention_pair_figure(check: Equivariance) -> go.Figure:
    """First-layer self-attention for the string, and for its shuffle with rows and columns put back."""
    labels = [safe_label(c) for c in [*check.text, "</s>"]]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            f"{LABELS[check.positional]}: the string",
            "its shuffle, rows and columns put back",
        ),
        horizontal_spacing=0.1,
    )
    for col, z in ((1, check.attention), (2, check.attention_back)):
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=list(range(len(labels))),
                y=list(range(len(labels))),
                colorscale=ATTENTION_COLORSCALE,
                zmin=0,
                zmax=1,
                showscale=col == 2,
                xgap=1,
                ygap=1,
                hovertemplate="query %{y}, key %{x}<br>weight = %{z:.4f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        axis = {"tickmode": "array", "tickvals": list(range(len(labels))), "ticktext": labels}
        fig.update_xaxes(**axis, side="top", row=1, col=col)
        fig.update_yaxes(**axis, autorange="reversed", row=1, col=col)
    fig.update_annotations(yshift=30)  # the titles above the top axis's tick labels
    fig.update_layout(height=430, margin={"l": 10, "r": 10, "t": 100, "b": 10})
    return fig


def _cross_title(m: CrossAttention) -> str:
    if m.anti_diagonal is None:
        return safe_label(m.positional, 80)
    return f"{safe_label(m.positional)}<br>argmax on the right character: {m.anti_diagonal:.0%}"


def cross_attention_figure(maps: Sequence[CrossAttention], titles: Sequence[str] | None = None) -> go.Figure:
    """Each model's cross-attention on the same string side by side (rows: output characters)."""
    fig = make_subplots(
        rows=1,
        cols=len(maps),
        subplot_titles=[safe_label(t, 80) for t in titles] if titles else [_cross_title(m) for m in maps],
        horizontal_spacing=0.06,
    )
    for col, m in enumerate(maps, start=1):
        xs, ys = [safe_label(t) for t in m.source_tokens], [safe_label(t) for t in m.target_tokens]
        fig.add_trace(
            go.Heatmap(
                z=m.weights,
                x=list(range(len(xs))),
                y=list(range(len(ys))),
                colorscale=ATTENTION_COLORSCALE,
                zmin=0,
                zmax=1,
                showscale=col == len(maps),
                xgap=1,
                ygap=1,
                hovertemplate="output %{y} ← source %{x}<br>α = %{z:.4f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(xs))), ticktext=xs, side="top", row=1, col=col)
        fig.update_yaxes(
            tickmode="array", tickvals=list(range(len(ys))), ticktext=ys, autorange="reversed", row=1, col=col
        )
    fig.update_annotations(yshift=30)  # the titles above the top axis's tick labels
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 110, "b": 10})
    return fig


# ------------------------------------------------------------------------------ the page's text
INTRO = (
    "Self-attention compares every token with every other **by content alone**: the score of a query with a key "
    "does not depend on where either of them sits. So, as the Transformer lecture puts it, *position information "
    "for words in sequence is lost*, yet translation needs it. The idea: *encode position information inside the "
    "input embedding*, by adding a vector PE_pos to the embedding of the token at position pos. The lecture's "
    "(and the paper's) choice is a fixed set of sinusoids:"
)
FORMULA = (
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
)
FREQUENCIES = (
    "Each pair of dimensions (2i, 2i+1) is one **frequency** ω_i = 10000^(−2i/d): a point going round a circle, "
    "at angle pos·ω_i. The first pair turns one radian per position, the last one hardly moves, like the hands "
    "of a clock that has many hands."
)
SIMILARITY_TEXT = (
    "Pair each sine with its cosine: sin a·sin b + cos a·cos b = cos(a − b). So the dot product of two position "
    "vectors is Σᵢ cos(ω_i (p − q)): it depends only on **how far apart** p and q are, is largest at distance 0 "
    "and falls off (not monotonically) as they move apart."
)
OFFSET_TEXT = (
    "The lecture's reason for the sinusoids: *for any fixed offset k, $PE_{pos+k}$ can be represented as a linear "
    "function of $PE_{pos}$.* For one pair, the angle addition formulas give it:"
)
ROTATION = (
    r"\begin{pmatrix}\sin((pos+k)\,\omega_i)\\ \cos((pos+k)\,\omega_i)\end{pmatrix} = "
    r"\underbrace{\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}}"
    r"_{R_i(k)}\begin{pmatrix}\sin(pos\,\omega_i)\\ \cos(pos\,\omega_i)\end{pmatrix}"
)
ROTATION_TEXT = (
    "$R_i(k)$ depends on k, not on pos. Put one block per pair on the diagonal of a d × d matrix $M_k$, and "
    "$PE_{pos+k} = M_k\\,PE_{pos}$ for **every** pos. Below, $M_k$ is built from k alone and checked against every "
    "row of the table (in float64)."
)
EQUIVARIANCE_TEXT = (
    "Shuffle the input of a self-attention layer and its outputs come back shuffled **the same way**, nothing "
    "else changes: it is *permutation-equivariant*. Each output is a weighted sum over all tokens, with weights "
    "from content alone, so moving a token moves its row and nothing more. Layer norm and the feed-forward "
    "network act on each position separately, so a whole encoder stack keeps the property. Here are three "
    "shipped Transformers trained to **reverse** a string, identical except for the positional encoding. Type a "
    "string, shuffle it, and compare the encoder's outputs f(shuffled) with f(string) shuffled the same way."
)


def set_text(checks: Sequence[Equivariance], quote=repr) -> str:
    """Under the attention pair: what the model without positions did with the string and its shuffle, computed
    from the checks (a model that told them apart would be said to)."""
    none = next((c for c in checks if c.positional == "none"), None)
    if none is None:
        return ""
    text = (
        "The cost shows in the outputs: without positions the decoder's cross-attention reads the encoder's "
        "outputs as a *set*, and a set has no order to reverse. "
    )
    if none.prediction == none.shuffled_prediction:
        return text + (
            "Here it writes the same output for the string and for its shuffle "
            f"({quote(none.prediction)}), so at most one of the two can be right."
        )
    return text + (
        f"Here it writes {quote(none.prediction)} for the string and {quote(none.shuffled_prediction)} for its "
        "shuffle: the decoder's own outputs so far differ, not what it reads from the encoder."
    )


def measured_text(results: Comparison | None = None) -> str:
    """Above the shipped comparison: the model and the task, read from the shipped models and the task; the extra
    parameters of learned positions read from the results (left out when they are missing)."""
    task = get_task(TASK)
    extra = ""
    if results is not None:
        more = parameters(results, "learned") - parameters(results, "sinusoidal")
        extra = (
            f"{more:,} more parameters" if more > 0 else f"{-more:,} fewer parameters" if more else "no more parameters"
        )
        extra += " here, "
    return (
        f"The same Transformer ({architecture()}) trained on **reverse** (“a3f9” → "
        f"“{task.aligner.pair('a3f9').target}”, up to {task.max_source_len} characters) {len(ENCODINGS)} ways: no "
        "position information, the fixed sinusoids, or a **learned** vector per position (as in BERT and GPT: "
        f"{extra}and nothing beyond the longest training position). Predict first, then open the measured results."
    )


def train_text() -> str:
    """Above the train-it-yourself panel. It states no result: the student's curves sit next to the shipped ones."""
    probe = get_task(TASK).probe
    return (
        "A fresh model for you alone, on one core: pick an encoding, train it, and compare its curves with the "
        f"shipped runs above. The heatmap is the cross-attention on the fixed string “{probe.source}” → "
        f"“{probe.target}”."
    )


# ------------------------------------------------------------------------------ what the figures show
def table_caption(pe: np.ndarray) -> str:
    """Under the table: how far the slowest pair moves over the positions shown, computed from the table (a small
    d_model's last pair is not slow at all, and the caption says so)."""
    T, d = pe.shape
    slowest = float(wavelengths(d)[-1])
    moved = float(np.abs(pe[:, d - 2]).max())  # its sine starts at 0: how far it gets over these positions
    text = (
        f"Rows are positions, columns dimensions. The left columns (fast frequencies) stripe quickly. The last pair "
        f"turns once every {slowest:,.0f} positions: over these {T}, its sine reaches at most {moved:.2f}"
    )
    if moved < 0.1:
        return text + ", so towards the right the values barely change (sin ≈ 0, cos ≈ 1). Nearby rows are similar."
    return text + ": with d_model this small, even the slowest pair moves visibly. Nearby rows are similar."


OFFSET_CAPTION = (
    "The residual is rounding error of float64 arithmetic (about 1e-16 per operation): the identity is exact. "
    "Each pair turns by its own angle k·ω_i:"
)
OFFSET_WHY = (
    "Why it helps: a model can learn to attend “k places to the left” with one linear map, the same at every "
    "position, instead of learning it separately for position 3, position 4, and so on."
)


def equivariance_caption() -> str:
    """Under the equivariance table: what f is, its size read from the config the models are built with."""
    d = model_config(MODEL, get_task(TASK)).d_model
    return (
        f"f: the encoder's output vectors (d = {d}) for every character and the end-of-string token, which stays "
        "last. “correct?”: whether each output is the reverse of its input."
    )


def pair_caption(check: Equivariance) -> str:
    """Under the attention pair: whether the two maps agree, computed from them (``EQUIVARIANT`` is the line the
    table draws between "yes" and "no")."""
    gap = float(np.abs(check.attention - check.attention_back).max())
    if gap < EQUIVARIANT:
        return (
            f"The two maps differ by at most {gap:.0e}, rounding: the shuffle only renamed the rows and columns. "
            f"{LABELS[check.positional]} cannot tell the shuffled string from the string."
        )
    return (
        f"The two maps differ by up to {gap:.2f}: with {LABELS[check.positional]} the shuffled string is a different "
        "input and gets a different map."
    )


def default_dims(d_model: int) -> list[int]:
    """The dimensions the table's curves show first: fast, middle and slow ones that exist for ``d_model``."""
    return sorted({j for j in (0, 1, 6, 20, d_model - 2) if j < d_model})


def shipped_caption() -> str:
    """Above the equivariance table: the shipped models' shape and how long each was trained."""
    return f"The shipped models: {architecture()}, training steps: {shipped_steps()}."


def similarity_caption(d_model: int) -> str:
    """Under the similarity figures: what the diagonal holds for this ``d_model``."""
    return (
        f"Left: every pair of positions; each diagonal holds one value (here PE_p·PE_p = d/2 = {d_model // 2}). "
        "Right: the same numbers against the offset k."
    )


def offset_metrics(check: OffsetCheck) -> list[tuple[str, str]]:
    """The three numbers under the offset figure, ``(label, value)``: the residual over every row, how many rows,
    and the residual at ``check.pos``."""
    k, pos = check.k, check.pos
    return [
        (f"max |PE_(p+{k}) − M_k PE_p|, every p", f"{check.residual:.1e}"),
        ("rows checked", f"{check.n_positions - k}"),
        (f"|PE_{pos + k} − M_k PE_{pos}| at pos = {pos}", f"{abs(check.pe_target - check.rotated).max():.1e}"),
    ]


def cross_attention_caption(text: str, maps: Sequence[CrossAttention], quote=repr) -> str:
    """Under the shipped models' cross-attention on ``text``; ``quote`` shows user and model text verbatim."""
    outputs = ", ".join(f"{m.positional} → {quote(m.prediction)}" for m in maps)
    return (
        f"The last decoder layer's cross-attention (heads averaged) while writing the reverse of {quote(text)} "
        "(teacher forced: rows are the correct output characters). Reversing means output character t reads source "
        f"character S − 1 − t: the anti-diagonal. Greedy outputs: {outputs}."
    )


def provenance_note(meta: dict) -> str:
    """How the shipped comparison was measured, read from its ``meta``: the page's note beside the provenance."""
    machine = meta.get("machine", {})
    return (
        f"Means ± sd over the seeds, {meta.get('steps')} steps each, a held-out check (200 strings) every "
        f"{meta.get('report_every')} steps. “Steps to 90%”: the first check at or above it. Test exact: the 500 test "
        "strings at the end. Anti-diagonal: how often the cross-attention's argmax falls on the source character the "
        f"output character comes from (test split). {machine.get('processor', '?')}, torch "
        f"{machine.get('torch', '?')}; 1-minute load average {meta.get('load_1min_after', '?')} after (the machine "
        "was shared: the seconds are inflated, the steps are not)."
    )


def snapshot_figure(snapshot, positional: str) -> go.Figure:
    """A live run's report as its cross-attention map, titled with the encoding and the step."""
    title = f"{LABELS[positional]} · step {snapshot.step}"
    return cross_attention_figure([snapshot_cross_attention(snapshot, positional)], titles=[title])


# ------------------------------------------------------------------------------------------- exercises
EX_D, EX_PAIR, EX_K = 16, 1, 5  # exercise 1: the angle pair i turns for offset k
EX_SMALL_D, EX_P, EX_Q = 4, 3, 5  # exercise 2: a dot product by hand


def by_hand() -> list[Exercise]:
    """The computations by hand (the check-yourself section), their answers computed by this module's functions."""
    angle = float(offset_check(EX_D, EX_K).angles[EX_PAIR])
    omega = float(frequencies(EX_D)[EX_PAIR])
    dot = float(similarity(EX_Q + 1, EX_SMALL_D)[EX_P, EX_Q])
    w0, w1 = (float(w) for w in frequencies(EX_SMALL_D))
    k = EX_Q - EX_P
    return [
        Exercise(
            key="positional_encoding.ex1",
            prompt=(
                f"d_model = {EX_D}. Through how many **radians** does frequency pair i = {EX_PAIR} (dimensions "
                f"{2 * EX_PAIR} and {2 * EX_PAIR + 1}) turn when you move k = {EX_K} positions? That is the angle "
                "of its 2×2 block in M_k."
            ),
            answer=angle,
            tolerance=0.005,
            explanation=(
                f"ω_{EX_PAIR} = 10000^(−2·{EX_PAIR}/{EX_D}) = {omega:.4f}, and the angle is k·ω_{EX_PAIR} = {EX_K} × "
                f"{omega:.4f} = {angle:.3f} rad, whatever pos is."
            ),
            hint="ω_i = 10000^(−2i/d); the angle is k·ω_i (it does not depend on pos).",
        ),
        Exercise(
            key="positional_encoding.ex2",
            prompt=(
                f"d_model = {EX_SMALL_D}, so ω₀ = {w0:g} and ω₁ = {w1:g}. What is PE_{EX_P} · PE_{EX_Q}? (three "
                "decimals)"
            ),
            answer=dot,
            tolerance=0.002,
            explanation=(
                f"sin a sin b + cos a cos b = cos(a − b) for each pair, so the dot product is cos({k}·{w0:g}) + "
                f"cos({k}·{w1:g}) = {math.cos(k * w0):.3f} + {math.cos(k * w1):.3f} = {dot:.3f}: it depends only on "
                f"the offset {EX_Q} − {EX_P} = {k}."
            ),
            hint="Pair each sin with its cos: sin a·sin b + cos a·cos b = cos(a − b).",
        ),
    ]


ANAGRAM_CHOICES = ("the same output", "the first output shuffled the same way", "the first output reversed",
                   "it depends on the string")  # fmt: skip


def anagram_prediction(none_model: nn.Module) -> Exercise:
    """Predict, before section 4's table: what the shipped model without positions writes for a string's reverse.
    The answer is what the shipped model does (checked on it, never assumed)."""
    task, text = get_task(TASK), DEFAULT_TEXT
    first, second = predict(none_model, task, text), predict(none_model, task, text[::-1])
    same = first == second
    return Exercise(
        key="positional_encoding.ex3",
        prompt=(
            f"**Predict before you scroll on.** The shipped Transformer **without** positional encoding turns the "
            f"string “{text}” into some output. What does it output for “{text[::-1]}”, the same characters in "
            "reverse order?"
        ),
        choices=ANAGRAM_CHOICES,
        answer=0 if same else 3,
        explanation=(
            "Its encoder returns the same set of vectors, only reordered, and cross-attention is a weighted sum over "
            f"that set: the decoder cannot tell the two apart. Checked on the shipped model: {first!r} for both."
            if same
            else f"Checked on the shipped model: {first!r} and {second!r}. Its encoder returns the same set of "
            "vectors, but the decoder's own outputs so far differ, and they steer it."
        ),
        hint="What can cross-attention see of the order of the encoder's outputs?",
    )


def shipped_anagram_prediction() -> Exercise:
    """:func:`anagram_prediction` of the shipped model without positions (what the page caches for everyone)."""
    return anagram_prediction(load_model("none")[0])


RACE_CHOICES = ("sinusoidal (fixed)", "learned (one vector each)", "too close to call")


def race_prediction(results: Comparison) -> Exercise:
    """Predict, before section 5's results: sinusoidal or learned, which ends with the higher test exact match? The
    answer is the shipped comparison's verdict, too close to call included."""
    verdict = results.compare("sinusoidal", "learned", "test exact")
    answer = {"better": 0, "worse": 1, "too close": 2}[verdict.outcome]
    more = parameters(results, "learned") - parameters(results, "sinusoidal")
    return Exercise(
        key="positional_encoding.ex4",
        prompt=(
            "**Predict before you open the results.** Sinusoidal positions are fixed; learned ones cost "
            f"{more:,} more parameters, one vector per position, trained with the rest. After the same budget, "
            "which ends with the higher test exact match on reverse?"
        ),
        choices=RACE_CHOICES,
        answer=answer,
        explanation=f"{verdict.sentence('.1%', 'test exact match')} "
        + (
            "Both give every position its own vector, and reverse only needs the positions the training strings "
            "cover, so the fixed table loses nothing here; beyond the longest training string, only the sinusoids "
            "have vectors at all."
            if verdict.outcome != "worse"
            else "Here the learned vectors, free to take any shape, fit reverse's positions better than the fixed "
            "table within the same budget."
        ),
        hint="Does reverse need anything a learned vector can hold and a sinusoid cannot?",
    )


def exercises(results: Comparison | None, none_model: nn.Module | None) -> list[Exercise]:
    """Every exercise of the lesson: the computations by hand and the predictions whose source is loaded."""
    return [
        *by_hand(),
        *([anagram_prediction(none_model)] if none_model is not None else []),
        *([race_prediction(results)] if results is not None else []),
    ]
