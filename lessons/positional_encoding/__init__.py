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
similarity of positions, and, on small models with one self-attention (:class:`minimodels.small.TinyEncoder`,
nothing the course has not taught by lesson 8), the equivariance test and the measured comparison of ``none`` /
``sinusoidal`` / ``learned`` on the previous-letter task, inside and beyond the training lengths.

Letters: T positions, d d_model, i a frequency pair, k an offset, Never imports streamlit.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import altair as alt
import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from lessons.common.catalog import ROOT
from lessons.common.charts import ATTENTION_COLORSCALE, DIVERGING_COLORSCALE, safe_label, vega_lite_spec, with_values
from lessons.common.comparison import Comparison, Run, curves_chart
from lessons.common.exercises import Exercise
from lessons.common.live import THREADS_PER_RUN, TrainingRun, check_budget
from lessons.common.pretrained import load_pretrained
from minimodels.positional import sinusoidal_encoding
from minimodels.small import Report, SmallConfig, TinyEncoder, fit, random_strings
from minimodels.tasks import get_task
from minimodels.tokenizers import PAD_ID

RESULTS = ROOT / "assets" / "results" / "positional_encoding.json"

BASE = 10000.0  # the 10000 of the formula
D_CHOICES: tuple[int, ...] = (4, 8, 16, 32, 64, 128)  # even only: an odd d drops its last cosine (no rotation)
MAX_LENGTH = 200  # positions drawn in the table

ENCODINGS: tuple[str, ...] = ("none", "sinusoidal", "learned")
LABELS = {"none": "none (no positions)", "sinusoidal": "sinusoidal (fixed)", "learned": "learned (one vector each)"}
COLORS = {"none": "#7f7f7f", "sinusoidal": "#1f77b4", "learned": "#ff7f0e"}


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
# The models: one self-attention (minimodels.small.TinyEncoder: one W^Q, W^K, W^V and a linear read-out) that
# writes, under each letter of a string, the letter before it (the first letter has none and is not scored).
TASK = "copy"  # the course's character task whose tokenizer the models use (their checkpoints are checked on it)
LETTERS = string.ascii_lowercase
TRAIN_MIN, TRAIN_MAX = 4, 16  # training strings' lengths
MAX_LEN = 32  # positions the models' tables cover: the longest input they read
LENGTHS: tuple[int, ...] = (4, 8, 12, 16, 20, 24, 28, 32)  # input lengths measured at the end
D_MODEL = 32
STEPS, BATCH, LR, REPORT_EVERY = 800, 64, 3e-3, 50
HELD_OUT, TEST = 200, 500  # strings scored during training (lengths TRAIN_MIN..TRAIN_MAX) and per length at the end
TEST_SEED = 20_000
MIN_CHARS, MAX_CHARS = 2, MAX_LEN
DEFAULT_TEXT = "position"
PERMUTATIONS: tuple[str, ...] = ("reverse", "rotate by one", "random shuffle")
PRETRAINED_KEYS = {name: (TASK, f"small-encoder-{name}") for name in ENCODINGS}  # encoding -> ui.pretrained's keys
SCRIPT = "scripts/positional_encoding_results.py"


@cache
def tokenizer():
    return get_task(TASK).source_tokenizer


@cache
def letter_ids() -> torch.Tensor:
    return torch.tensor(tokenizer().encode(LETTERS))


def previous_letters(tokens: torch.Tensor) -> torch.Tensor:
    """The task's targets: ``(B, T)`` ids -> the id before each one (PAD at the first position and at padding)."""
    targets = torch.full_like(tokens, PAD_ID)
    targets[:, 1:] = tokens[:, :-1]
    return targets.masked_fill(tokens == PAD_ID, PAD_ID)


def strings(n: int, lengths: tuple[int, int] | int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` random strings of letters, of one length or lengths drawn from ``(lo, hi)``: ``(tokens, lengths)``."""
    if isinstance(lengths, int):
        sizes = torch.full((n,), lengths)
    else:
        sizes = torch.randint(lengths[0], lengths[1] + 1, (n,), generator=generator)
    return random_strings(n, sizes, letter_ids(), generator), sizes


def model_config(positional: str) -> SmallConfig:
    if positional not in ENCODINGS:
        raise ValueError(f"unknown encoding {positional!r}; choose from {', '.join(ENCODINGS)}")
    return SmallConfig(tokenizer().vocab_size, D_MODEL, positional, max_len=MAX_LEN)


def new_model(positional: str, seed: int) -> TinyEncoder:
    torch.manual_seed(seed)
    return TinyEncoder(model_config(positional))


@torch.inference_mode()
def scores(model: TinyEncoder, tokens: torch.Tensor, lengths: torch.Tensor, beyond: int = TRAIN_MAX) -> dict:
    """Accuracy over the scored positions (all but the first), whole strings right, and the accuracy at positions
    ``beyond`` and later (None where no string reaches them)."""
    predicted = model(tokens, lengths).logits.argmax(-1)  # (B, T)
    gold = previous_letters(tokens)
    scored = gold != PAD_ID
    hits = (predicted == gold) & scored
    far = scored.clone()
    far[:, :beyond] = False
    exact = (hits | ~scored).all(1)
    return {
        "accuracy": float(hits.sum() / scored.sum()),
        "exact": float(exact.float().mean()),
        "beyond": float(hits[far].float().mean()) if far.any() else None,
    }


def held_out() -> tuple[torch.Tensor, torch.Tensor]:
    return strings(HELD_OUT, (TRAIN_MIN, TRAIN_MAX), torch.Generator().manual_seed(TEST_SEED + 1))


def train_encoder(
    positional: str, seed: int, steps: int = STEPS, *, on_report=None, report_every: int = REPORT_EVERY,
    max_seconds: float | None = None,
) -> tuple[TinyEncoder, list]:  # fmt: skip
    """A fresh model trained on strings of TRAIN_MIN..TRAIN_MAX letters (drawn from ``seed``);
    ``on_report(point, model)`` at every report, ``point`` = {"step", "seconds", "loss", "accuracy", "exact_match"}
    (held-out); False stops."""
    model, draws, check = new_model(positional, seed), torch.Generator().manual_seed(seed), held_out()
    curve = []

    def report(r: Report) -> bool | None:
        s = scores(model, *check)
        point = {"step": r.step, "seconds": round(r.seconds, 3), "loss": r.loss, "accuracy": s["accuracy"],
                 "exact_match": s["exact"]}  # fmt: skip
        curve.append(point)
        return on_report(point, model) if on_report is not None else None

    def batch(step: int) -> tuple[torch.Tensor, ...]:
        tokens, lengths = strings(BATCH, (TRAIN_MIN, TRAIN_MAX), draws)
        return tokens, lengths, previous_letters(tokens)

    fit(model, batch, steps=steps, lr=LR, seed=seed, report_every=report_every, on_report=report,
        max_seconds=max_seconds)  # fmt: skip
    return model, curve


def untrained_rows(model: TinyEncoder, seed: int) -> list[int]:
    """The rows of a learned position table still exactly as initialised (no training input reached them)."""
    if model.config.positional != "learned":
        return []
    initial = new_model("learned", seed).position.embedding.weight
    same = (model.position.embedding.weight == initial).all(1)  # (MAX_LEN,)
    return [int(i) for i in torch.nonzero(same).flatten()]


def trained_runs(positional: str, seed: int, steps: int = STEPS) -> tuple[list[Run], TinyEncoder]:
    """One model trained, then measured at every input length of LENGTHS on TEST fresh strings: one Run per length
    (params {"length": n}; the training curve kept on the TRAIN_MAX run)."""
    model, curve = train_encoder(positional, seed, steps)
    params = sum(p.numel() for p in model.parameters())
    extra = {"parameters": params, "untrained rows": untrained_rows(model, seed)}
    runs = []
    for n in LENGTHS:
        s = scores(model, *strings(TEST, n, torch.Generator().manual_seed(TEST_SEED + n)))
        final = {"accuracy": s["accuracy"], "exact": s["exact"], "accuracy beyond": s["beyond"]}
        runs.append(Run(positional, seed, {"length": n}, curve if n == TRAIN_MAX else (), final, extra))
    return runs, model


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison (``RESULTS`` by default); ``FileNotFoundError``/``ValueError`` naming the script."""
    path = Path(path) if path is not None else RESULTS
    results = Comparison.load(path, script=SCRIPT)
    if set(results.variants) != set(ENCODINGS):
        raise ValueError(f"{path.name} must compare the encodings {', '.join(ENCODINGS)}: re-run {SCRIPT}")
    for encoding in ENCODINGS:
        seeds = {r.seed for r in results.runs_of(encoding, {"length": TRAIN_MAX}) if r.curve}
        lengths = set(results.param_values("length"))
        if len(seeds) < 3 or not {TRAIN_MAX, MAX_LEN} <= lengths:
            raise ValueError(f"{path.name}: {encoding} needs 3 seeds with curves and lengths {TRAIN_MAX} and "
                             f"{MAX_LEN}: re-run {SCRIPT}")  # fmt: skip
    return results


def parameters(results: Comparison, encoding: str) -> int:
    """The trainable parameters of the model with ``encoding`` (the same for every seed)."""
    return int(results.runs_of(encoding)[0].extra["parameters"])


def results_rows(results: Comparison) -> list[dict]:
    """One row per encoding: parameters, n, accuracy inside the training lengths and on the longest inputs."""
    inside = {"length": TRAIN_MAX}
    longest = {"length": MAX_LEN}
    return [
        {"encoding": results.label(e), "parameters": parameters(results, e), "n": results.spread("accuracy", e,
         inside).total, f"accuracy, {TRAIN_MAX} letters": results.spread("accuracy", e, inside).text(".1%",
         with_n=False), f"accuracy, {MAX_LEN} letters": results.spread("accuracy", e, longest).text(".1%",
         with_n=False), f"positions {TRAIN_MAX + 1}–{MAX_LEN}": results.spread("accuracy beyond", e,
         longest).text(".1%", with_n=False)}
        for e in results.variants
    ]  # fmt: skip


def learned_rows_sentence(results: Comparison) -> str:
    """What the learned table holds past the training range, read from every seed's model."""
    rows = [r.extra.get("untrained rows", []) for r in results.runs_of("learned", {"length": TRAIN_MAX})]
    if not rows or not all(rows):
        return "Every row of the learned table moved during training."
    common = sorted(set.intersection(*(set(r) for r in rows)))
    span = f"rows {common[0] + 1}–{common[-1] + 1}" if common else "no row"
    return (
        f"In every seed the learned table's {span} (positions {TRAIN_MAX + 1} and on) are exactly as initialised: no "
        "training string reached them, so past the training range the learned model adds random vectors it never "
        "saw."
    )


def observations(results: Comparison) -> list[str]:
    """The sentences about the comparison, each computed by ``Comparison.compare`` from the loaded numbers (so a
    file where the result goes the other way says so)."""
    inside, longest = {"length": TRAIN_MAX}, {"length": MAX_LEN}
    lines = [
        results.compare(e, "none", "accuracy", where=inside).sentence(".1%", f"accuracy at {TRAIN_MAX} letters")
        for e in ("sinusoidal", "learned")
    ]
    lines.append(results.compare("sinusoidal", "learned", "accuracy", where=inside)
                 .sentence(".1%", f"accuracy at {TRAIN_MAX} letters"))  # fmt: skip
    beyond = f"accuracy at positions {TRAIN_MAX + 1}–{MAX_LEN} of {MAX_LEN}-letter inputs"
    lines.append(results.compare("sinusoidal", "learned", "accuracy beyond", where=longest).sentence(".1%", beyond))
    lines.append(learned_rows_sentence(results))
    return lines


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Held-out accuracy and training loss against ``x`` (the training curves)."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    common = {"x_title": title, "height": 280, "colors": COLORS}
    where = {"length": TRAIN_MAX}
    accuracy = curves_chart(results.curve_points("accuracy", x=x, where=where), y_title="held-out accuracy",
                            title="Accuracy (4–16 letters)", percent=True, **common)  # fmt: skip
    loss = curves_chart(results.curve_points("loss", x=x, where=where), y_title="training loss", title="Loss",
                        **common)  # fmt: skip
    return accuracy, loss


def length_chart(results: Comparison) -> dict:
    """Accuracy against the input's length, inside and beyond the training lengths (every seed, mean ± sd)."""
    return curves_chart(results.sweep_points("accuracy", "length"), y_title="accuracy", height=300,
                        x_title=f"input length (trained on {TRAIN_MIN}–{TRAIN_MAX})", colors=COLORS,
                        title="Longer than any training string", percent=True)  # fmt: skip


def length_caption() -> str:
    """Under the accuracy-against-length chart: what a point is, and how much of a long input lies in the range."""
    inside = TRAIN_MAX - 1  # scored letters at positions 2..TRAIN_MAX
    return (
        f"Each point: letters right over the whole input (the first letter not counted), {TEST} fresh strings per "
        f"length and seed. On a {MAX_LEN}-letter input, {inside} of the {MAX_LEN - 1} scored letters sit at positions "
        f"the models were trained on; the table's last column scores positions {TRAIN_MAX + 1}–{MAX_LEN} alone."
    )


def provenance_note(meta: dict) -> str:
    """How the shipped comparison was measured, read from its ``meta``."""
    return (
        f"Means ± sd over seeds {', '.join(map(str, meta.get('seeds', [])))}: {meta.get('steps')} steps of "
        f"{BATCH} random strings of {TRAIN_MIN}–{TRAIN_MAX} letters, Adam at {LR:g}, d = {D_MODEL}; a held-out check "
        f"({HELD_OUT} strings) every {REPORT_EVERY} steps. At the end, {TEST} fresh strings of each length. "
        "Accuracy: letters right, the first of each string (which has no letter before it) not counted."
    )


# ------------------------------------------------------------------------------------- the shipped models
def load_model(positional: str) -> tuple[TinyEncoder, dict]:
    """The shipped seed-0 model with encoding ``positional`` (eval mode, CPU): the one copy ``load_pretrained``
    keeps per process, shared read-only."""
    if positional not in ENCODINGS:
        raise ValueError(f"unknown encoding {positional!r}; choose from {', '.join(ENCODINGS)}")
    shipped = load_pretrained(*PRETRAINED_KEYS[positional])
    if shipped[0].config.positional != positional:
        raise ValueError(f"checkpoint {PRETRAINED_KEYS[positional]} has positional {shipped[0].config.positional!r}")
    return shipped


@dataclass(frozen=True)
class ParsedText:
    text: str
    error: str | None = None  # why the text was refused; the page keeps the last good one


def parse_text(text: str) -> ParsedText:
    """The student's string: 2–32 lowercase letters (what the models read), or a message."""
    text = text.strip() if isinstance(text, str) else ""
    if not text:
        return ParsedText("", "Type a short string, for example “position”.")
    if len(text) > 64 * MAX_CHARS:
        return ParsedText("", f"That is far too long: the models read at most {MAX_CHARS} letters.")
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return ParsedText("", f"That is {len(text)} characters; type {MIN_CHARS} to {MAX_CHARS}.")
    odd = sorted({c for c in text if c not in LETTERS})
    if odd:
        shown = ", ".join(repr(c) for c in odd[:5])
        return ParsedText("", f"Only lowercase letters a–z are known to the models (not {shown}).")
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


@torch.inference_mode()
def read(model: TinyEncoder, text: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The attention's output ``(T, d)``, its map ``(T, T)`` and the letters the model writes under ``text``, one
    under every letter (the first has no letter before it: what it writes there is not scored)."""
    tokens = torch.tensor([tokenizer().encode(text)])  # (1, T)
    z, weights = model.attention(model.embed(tokens))  # (1, T, d), (1, T, T)
    letters = model.out(z)[0].argmax(-1).tolist()
    written = "".join(tokenizer().decode([i]) or "?" for i in letters)
    return z[0].double().numpy(), weights[0].double().numpy(), written


def is_right(written: str, text: str) -> bool:
    """Whether ``written`` has the letter before under every letter of ``text`` but the first (not scored)."""
    return written[1:] == text[:-1]


@dataclass(frozen=True)
class Equivariance:
    """f(shuffled x) against f(x) shuffled the same way, for one trained model."""

    positional: str
    text: str
    shuffled: str
    order: tuple[int, ...]  # shuffled[j] == text[order[j]]
    outputs: np.ndarray  # (T, d) the attention's output for text
    shuffled_outputs: np.ndarray  # (T, d) for shuffled
    attention: np.ndarray  # (T, T) self-attention for text
    attention_back: np.ndarray  # (T, T) the same for shuffled, rows and columns put back in text's order
    difference: float  # max |f(Px) − P f(x)|: ~1e-7 without positions, O(1) with them
    prediction: str  # the letters it writes under text
    shuffled_prediction: str  # and under shuffled


def equivariance(model: TinyEncoder, positional: str, text: str, order: Sequence[int]) -> Equivariance:
    """Run the model on ``text`` and on its shuffle, and compare the second with the first shuffled."""
    if sorted(order) != list(range(len(text))):
        raise ValueError(f"order {list(order)} is not a permutation of {len(text)} positions")
    shuffled = "".join(text[i] for i in order)
    out, attention, prediction = read(model, text)
    out_p, attention_p, shuffled_prediction = read(model, shuffled)
    back = np.argsort(order)  # shuffled position holding original position j
    return Equivariance(positional, text, shuffled, tuple(order), out, out_p, attention,
                        attention_p[np.ix_(back, back)], float(np.abs(out_p - out[list(order)]).max()), prediction,
                        shuffled_prediction)  # fmt: skip


EQUIVARIANT = 1e-4  # a difference below this is float rounding: the model is permutation-equivariant


def equivariance_rows(checks: Sequence[Equivariance]) -> list[dict]:
    return [
        {
            "encoding": LABELS[c.positional],
            "max |f(shuffled) − shuffled f|": c.difference,
            "equivariant?": "yes" if c.difference < EQUIVARIANT else "no",
            "writes under the string": c.prediction,
            "under the shuffle": c.shuffled_prediction,
            "correct?": ("yes" if is_right(c.prediction, c.text) else "no")
            + " / "
            + ("yes" if is_right(c.shuffled_prediction, c.shuffled) else "no"),
        }
        for c in checks
    ]


def shipped_checks(text: str, order: tuple[int, ...]) -> list[Equivariance]:
    """Each shipped model on a string and its shuffle."""
    return [equivariance(load_model(name)[0], name, text, order) for name in ENCODINGS]


@dataclass(frozen=True)
class AttentionMap:
    """One model's self-attention on a string, and how often each row's largest weight is on the letter before."""

    positional: str
    tokens: list[str]
    weights: np.ndarray  # (T, T)
    prediction: str
    on_previous: float | None  # share of rows 2..T whose argmax is the previous position


def attention_map(model: TinyEncoder, positional: str, text: str) -> AttentionMap:
    _, weights, prediction = read(model, text)
    hits = [int(weights[t].argmax()) == t - 1 for t in range(1, len(text))]
    return AttentionMap(positional, list(text), weights, prediction, sum(hits) / len(hits) if hits else None)


def shipped_maps(text: str) -> list[AttentionMap]:
    return [attention_map(load_model(name)[0], name, text) for name in ENCODINGS]


# ---------------------------------------------------------------------------------------- live training
LIVE_REPORT_EVERY = 25
LIVE_TARGET = 0.98  # held-out exact match at which a live run stops


@dataclass(frozen=True)
class LiveProgress:
    """One live report, as the training panel reads it (step, seconds, loss, exact_match, attention)."""

    step: int
    seconds: float
    loss: float
    exact_match: float  # held-out strings with every letter right
    accuracy: float
    attention: np.ndarray  # (T, T) the probe's map
    prediction: str


def new_run(positional: str, seed: int, budget_seconds: float) -> TrainingRun:
    """A fresh model for one student, trained on one core for at most ``budget_seconds``."""
    model_config(positional)  # refuses an unknown encoding here, not in the thread
    check_budget(budget_seconds)

    def train_fn(on_progress):
        torch.set_num_threads(THREADS_PER_RUN)

        def report(point: dict, model: TinyEncoder) -> bool:
            _, weights, written = read(model, DEFAULT_TEXT)
            progress = LiveProgress(point["step"], point["seconds"], point["loss"], point["exact_match"],
                                    point["accuracy"], weights, written)  # fmt: skip
            return bool(on_progress(progress)) and point["exact_match"] < LIVE_TARGET

        return train_encoder(positional, seed, steps=100_000, on_report=report, report_every=LIVE_REPORT_EVERY,
                             max_seconds=float(budget_seconds))[0]  # fmt: skip

    return TrainingRun(train_fn, name=f"positional-{positional}")


def snapshot_figure(snapshot: LiveProgress, positional: str) -> go.Figure:
    """A live run's report as its self-attention map on the probe, titled with the encoding and the step."""
    m = AttentionMap(positional, list(DEFAULT_TEXT), snapshot.attention, snapshot.prediction, None)
    return attention_maps_figure([m], titles=[f"{LABELS[positional]} · step {snapshot.step}"])


# ------------------------------------------------------------------------------------------ the figures
def _signed_heatmap(z: np.ndarray, **kwargs) -> go.Heatmap:
    bound = float(np.abs(z).max()) or 1.0
    return go.Heatmap(z=z, colorscale=DIVERGING_COLORSCALE, zmid=0.0, zmin=-bound, zmax=bound, **kwargs)


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
            color=alt.Color("dimension:N", sort=None, legend=alt.Legend(orient="bottom", title=None, columns=1,
                                                                         labelLimit=300)),  # fits a phone
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
            colorscale=DIVERGING_COLORSCALE,  # a sum of cosines: negative far from the diagonal
            zmid=0.0,
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
    """The self-attention for the string, and for its shuffle with rows and columns put back."""
    labels = [safe_label(c) for c in check.text]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            f"{safe_label(check.positional)}:<br>the string",
            "its shuffle,<br>put back in order",
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


def _map_title(m: AttentionMap) -> str:
    """Short: three maps share a phone's width (the caption gives the numbers)."""
    return safe_label(m.positional, 80)


def attention_maps_figure(maps: Sequence[AttentionMap], titles: Sequence[str] | None = None) -> go.Figure:
    """Each model's self-attention on the same string side by side (rows: the position writing, columns: the
    position read)."""
    fig = make_subplots(
        rows=1,
        cols=len(maps),
        subplot_titles=[safe_label(t, 80) for t in titles] if titles else [_map_title(m) for m in maps],
        horizontal_spacing=0.06,
    )
    for col, m in enumerate(maps, start=1):
        xs = ys = [safe_label(t) for t in m.tokens]
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
                hovertemplate="position %{y} reads %{x}<br>α = %{z:.4f}<extra></extra>",
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
    "Shuffle the input of a self-attention and its outputs come back shuffled **the same way**, nothing else "
    "changes: it is *permutation-equivariant*. Each output is a weighted sum over all tokens, with weights from "
    "content alone, so moving a token moves its row and nothing more. Here are three small models, each one "
    "self-attention (one W^Q, W^K, W^V, as in lesson 5) and a linear read-out, trained to write under each letter "
    "**the letter before it** (under “position”, “?positio”: the first letter has none before it, so what it "
    "writes there is not scored). They are identical except for "
    "the position vectors added to the letters. Type a string, shuffle it, and compare the attention's outputs "
    "f(shuffled) with f(string) shuffled the same way."
)


def set_text(checks: Sequence[Equivariance], quote=repr) -> str:
    """Under the attention pair: what the model without positions wrote for the string and its shuffle, computed
    from the checks (a model that told them apart would be said to)."""
    none = next((c for c in checks if c.positional == "none"), None)
    if none is None:
        return ""
    moved = "".join(none.prediction[i] for i in none.order)
    text = (
        "The cost shows in what it writes. Without positions, “the letter before” means nothing to the model: "
        "every letter sees the same set of letters. "
    )
    if none.shuffled_prediction == moved:
        return text + (
            f"Under the shuffle it writes {quote(none.shuffled_prediction)}: the letters it wrote under the string "
            f"({quote(none.prediction)}), moved with their letters. It writes the same letter under a letter "
            "wherever that letter stands."
        )
    return text + (
        f"Here it writes {quote(none.prediction)} under the string and {quote(none.shuffled_prediction)} under the "
        "shuffle."
    )


def measured_text(results: Comparison | None = None) -> str:
    """Above the shipped comparison: the models and the task; the learned table's extra parameters read from the
    results (left out when they are missing)."""
    extra = ""
    if results is not None:
        more = parameters(results, "learned") - parameters(results, "sinusoidal")
        extra = f" ({more:,} more parameters here: {MAX_LEN} rows of {D_MODEL})" if more > 0 else ""
    return (
        f"The same small model trained {len(ENCODINGS)} ways on the previous-letter task, on strings of "
        f"{TRAIN_MIN}–{TRAIN_MAX} letters: no position information, the fixed sinusoids, or a **learned** vector "
        f"per position, as in BERT and GPT{extra}. Then each reads strings up to {MAX_LEN} letters long, longer than "
        "any it was trained on. The sinusoid formula gives a vector for any position; a learned table has only the "
        "rows it was built with, each trained only if some training string reaches it. Predict first, then open the "
        "measured results."
    )


def train_text() -> str:
    """Above the train-it-yourself panel. It states no result: the student's curves sit next to the shipped ones."""
    return (
        "A fresh model for you alone, on one core: pick an encoding, train it on strings of "
        f"{TRAIN_MIN}–{TRAIN_MAX} letters and compare its curves with the measured runs above. The heatmap is its "
        f"self-attention on “{DEFAULT_TEXT}”; the progress bar's exact match is the share of {HELD_OUT} held-out "
        "strings with every letter right."
    )


def equivariance_caption() -> str:
    """Under the equivariance table: what f is, its size read from the models' config."""
    return (
        f"f: the self-attention's output vectors (d = {D_MODEL}), one per letter. “correct?”: whether it wrote the "
        "letter before under each letter, for the string / for the shuffle (under the first letter, which has none "
        "before it, whatever it writes is not scored)."
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


def shipped_caption(meta: dict | None = None) -> str:
    """Above the equivariance table: the shipped models' shape and training, read from a checkpoint's record."""
    training = (meta or {}).get("training", {})
    return (
        f"The shipped models: one self-attention, d = {D_MODEL}, seed {(meta or {}).get('seed', '?')} of the "
        f"measured runs below, {training.get('steps', '?')} training steps on strings of {TRAIN_MIN}–{TRAIN_MAX} "
        "letters."
    )


def maps_caption(text: str, maps: Sequence[AttentionMap], quote=repr) -> str:
    """Under the three models' maps on ``text``; ``quote`` shows user and model text verbatim."""
    outputs = ", ".join(f"{m.positional} → {quote(m.prediction)}" for m in maps)
    inside = (
        ""
        if len(text) <= TRAIN_MAX
        else (f" Your string is longer than any training string ({TRAIN_MAX}): look at its rows past {TRAIN_MAX}.")
    )
    shares = ", ".join(f"{m.positional} {m.on_previous:.0%}" for m in maps if m.on_previous is not None)
    argmax = f" Rows whose largest weight is on the letter before (the first row left out): {shares}." if shares else ""
    return (
        f"Rows: the position writing; columns: the position read. The task means row t should read t − 1: the "
        f"diagonal just below the main one.{argmax} What each writes: {outputs}.{inside}"
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


def default_dims(d_model: int) -> list[int]:
    """The dimensions the table's curves show first: fast, middle and slow ones that exist for ``d_model``."""
    return sorted({j for j in (0, 1, 6, 20, d_model - 2) if j < d_model})


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


SAME_CHOICES = ("exactly what it wrote under the string", "what it wrote under the string, reversed",
                "something that depends on the string")  # fmt: skip


def anagram_prediction(none_model: TinyEncoder) -> Exercise:
    """Predict, before section 4's table: what the model without positions writes under a string's reverse. The
    answer is what the shipped model does (checked on it, never assumed)."""
    text = DEFAULT_TEXT
    first, second = read(none_model, text)[2], read(none_model, text[::-1])[2]
    reversed_first = "".join(reversed(first))
    answer = 0 if second == first else 1 if second == reversed_first else 2
    return Exercise(
        key="positional_encoding.ex3",
        prompt=(
            f"**Predict before you scroll on.** The model **without** positions writes some letter under each letter "
            f"of “{text}”. What does it write under “{text[::-1]}”, the same letters in reverse order?"
        ),
        choices=SAME_CHOICES,
        answer=answer,
        explanation=(
            f"Checked on the shipped model: {first!r} under the string, {second!r} under its reverse. "
            + (
                "Every letter sees the same set of letters wherever it stands, so it writes the same letter under it "
                "wherever it stands: the output is the first one, reversed. Shuffle the input, and the output is "
                "shuffled the same way."
                if answer == 1
                else "The outputs are not the first reversed: the model is not as described, check it."
                if answer == 2
                else "The same letters in the same order: the string reads the same both ways."
            )
        ),
        hint="Shuffle the input of a self-attention without positions: what happens to its outputs?",
    )


def shipped_anagram_prediction() -> Exercise:
    """:func:`anagram_prediction` of the shipped model without positions (what the page caches for everyone)."""
    return anagram_prediction(load_model("none")[0])


RACE_CHOICES = ("sinusoidal (fixed)", "learned (one vector each)", "too close to call")


def race_prediction(results: Comparison) -> Exercise:
    """Predict, before section 5's results: on positions past the training range, sinusoidal or learned? The answer
    is the shipped comparison's verdict, too close to call included."""
    verdict = results.compare("sinusoidal", "learned", "accuracy beyond", where={"length": MAX_LEN})
    answer = {"better": 0, "worse": 1, "too close": 2}[verdict.outcome]
    return Exercise(
        key="positional_encoding.ex4",
        prompt=(
            f"**Predict before you open the results.** Both models were trained on strings of at most {TRAIN_MAX} "
            f"letters. Given {MAX_LEN}-letter strings, which writes the right letter more often at positions "
            f"{TRAIN_MAX + 1}–{MAX_LEN}?"
        ),
        choices=RACE_CHOICES,
        answer=answer,
        explanation=f"{verdict.sentence('.1%', f'accuracy at positions {TRAIN_MAX + 1}–{MAX_LEN}')} "
        + (
            "The learned table's rows there never received a gradient: they are random vectors the model never saw. "
            "The sinusoids there follow the same formula, and a fixed offset is the same rotation at every position, "
            "so what the model learned about “one to the left” can still partly apply."
            if verdict.outcome == "better"
            else "Neither carries what it learned past the training range better than the other here: the sinusoids "
            "make it possible (a fixed offset is one rotation everywhere), nothing forces the model to rely on that "
            "alone."
        ),
        hint="What vector does each model add at position 20, and did training ever show it one?",
    )


def rows_prediction() -> Exercise:
    """By hand: how many rows of the learned table no training string reaches."""
    return Exercise(
        key="positional_encoding.ex5",
        prompt=(
            f"The learned table has one row per position, {MAX_LEN} rows, and training strings have "
            f"{TRAIN_MIN}–{TRAIN_MAX} letters. Training uses plain Adam, no weight decay. How many rows end training "
            "exactly as they were initialised?"
        ),
        answer=MAX_LEN - TRAIN_MAX,
        explanation=(
            f"A string of n letters uses rows 1 … n, so training touches rows 1 … {TRAIN_MAX} only. A row no input "
            f"uses gets a zero gradient at every step, and Adam moves a parameter whose gradient was always zero by "
            f"0: rows {TRAIN_MAX + 1} … {MAX_LEN}, that is {MAX_LEN} − {TRAIN_MAX} = {MAX_LEN - TRAIN_MAX}, keep "
            "their random start. (The measured results check it on every seed.)"
        ),
        hint="Which rows does a string of n letters use?",
    )


def exercises(results: Comparison | None, none_model: TinyEncoder | None) -> list[Exercise]:
    """Every exercise of the lesson: the computations by hand and the predictions whose source is loaded."""
    return [
        *by_hand(),
        rows_prediction(),
        *([anagram_prediction(none_model)] if none_model is not None else []),
        *([race_prediction(results)] if results is not None else []),
    ]
