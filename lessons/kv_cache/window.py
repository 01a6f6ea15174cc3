"""Section 3 of the KV-cache lesson: a sliding window, and what it cannot see.

A window of w keeps the cache at w positions whatever the length (:class:`minimodels.kv_cache.KVCache` as a ring),
and costs what lies further back. Measured on the capital-letter task (:mod:`lessons.kv_cache.window_task`): one
decoder per window and seed, shipped by ``scripts/kv_cache_results.py``; the page draws accuracy against the window
beside the best any decoder with that window can do (:func:`~lessons.kv_cache.window_task.ceiling`).

Letters: L letters per sequence, w the window.
"""

from __future__ import annotations

import torch

from lessons.common.charts import attention_heatmap
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import Spread
from lessons.kv_cache.results import RESULTS
from lessons.kv_cache.window_task import (
    ASK,
    BATCH,
    D_MODEL,
    LETTERS,
    LR,
    METRIC,
    TEST,
    VARIANT,
    WINDOWS,
    ceiling,
    sequences,
    text,
)
from lessons.seq2seq_bottleneck.shipped import versus
from minimodels.kv_cache import window_mask

TITLE = "3 · A sliding window, and what it cannot see"
TEXT = (
    f"Keep only the last w keys and values, and the cache stops growing: position t reads positions t − w + 1 … t, "
    f"a band along the diagonal of the causal mask, and the cache is a ring of w rows where each new token "
    f"overwrites the oldest. Memory and the work of a step stop depending on the length. What does it cost? A "
    f"task that needs long range answers that: {LETTERS} random lower-case letters, one of them written as a "
    f"capital somewhere, then “{ASK}”; at “{ASK}” the decoder must name the capital's letter. The capital is 1 to "
    f"{LETTERS} positions back. One decoder is trained for each window (the masking lesson's one self-attention, "
    f"d = {D_MODEL}) on several seeds."
)


def example_text() -> str:
    """One sequence of the task, as the student reads it."""
    tokens, _ = sequences(1, torch.Generator().manual_seed(7))
    return text(tokens[0])


def spread_at(results: Comparison, window: int) -> Spread:
    return results.spread(METRIC, VARIANT, {"window": window})


def rows(results: Comparison) -> list[dict]:
    """One row per window: the accuracy over seeds, the ceiling, and the cache's size."""
    out = []
    for w in results.param_values("window"):
        s = spread_at(results, w)
        out.append(
            {
                "window w": w,
                "n": s.n,
                "accuracy": s.text(".1%", with_n=False),
                "best possible": f"{ceiling(w):.1%}",
                "positions in the cache": w,
            }
        )
    return out


def chart(results: Comparison) -> dict:
    """Accuracy against the window: every seed faintly, the mean ± sd, and the ceiling as a line of its own."""
    points = results.sweep_points(METRIC, "window", where=None)
    points = [p | {"label": "trained decoders (mean ± sd)"} for p in points if p["variant"] == VARIANT]
    windows = results.param_values("window")
    points += [
        {"variant": "ceiling", "label": "best possible", "order": 3, "seed": 0, "x": w, "y": ceiling(w)}
        for w in windows
    ]
    return curves_chart(
        points,
        y_title="accuracy at “?”",
        x_title="window w (positions)",
        title=f"Naming the capital among {LETTERS} letters",
        height=300,
        percent=True,
    )


def sentences(results: Comparison) -> list[str]:
    """What the measured windows say, each claim through the verdict rule: the whole window against each smaller
    one, and how close each comes to its ceiling."""
    windows = results.param_values("window")
    full = max(windows)
    out = []
    for w in windows[:-1]:
        v = versus(
            (f"The window of {full}", spread_at(results, full)),
            (f"the window of {w}", spread_at(results, w)),
            "accuracy",
            RESULTS.stem,
        )
        out.append(v.sentence(".1%", "accuracy"))
    gaps = [abs(spread_at(results, w).mean - ceiling(w)) for w in windows]
    out.append(
        f"Every window's mean lies within {max(gaps):.1%} of the best possible for it: the decoders use what they "
        "can see, and what is outside the window is a guess, one letter in 26."
        if max(gaps) < 0.05
        else f"Some windows fall short of the best possible by up to {max(gaps):.1%}: those decoders did not learn "
        "to use all they could see in the steps they had."
    )
    return out


def provenance_note(results: Comparison) -> str:
    window = results.meta.get("window", {})
    return (
        f"One decoder per window and seed: {window.get('steps')} steps of {BATCH} sequences, Adam at {LR:g}, loss on "
        f"the answer at “{ASK}” only; scored on {TEST:,} held-out sequences. Windows {', '.join(map(str, WINDOWS))}."
    )


def window_prediction(results: Comparison) -> Exercise:
    """Predict, before the reveal: the accuracy of the decoders with a window of 13 (the answer: their measured
    mean)."""
    w = 13 if 13 in results.param_values("window") else results.param_values("window")[len(WINDOWS) // 2]
    measured = spread_at(results, w)
    return Exercise(
        key="kv_cache.ex5",
        prompt=(
            f"**Predict before you reveal.** A decoder with a window of w = {w} (“{ASK}” and the {w - 1} letters "
            f"before it) is trained on the task above. What share of held-out sequences does it answer right? "
            "(a fraction between 0 and 1; within 0.05 counts)"
        ),
        answer=round(float(measured.mean), 3),
        tolerance=0.05,
        explanation=(
            f"Measured: {measured.text('.1%')}. The capital sits in one of {LETTERS} places, uniformly: in sight "
            f"for {w - 1} of them (the decoder can be right every time), out of sight for {LETTERS - w + 1} (a "
            f"guess: 1 in 26). Best possible: {w - 1}/{LETTERS} + {LETTERS - w + 1}/{LETTERS} × 1/26 = "
            f"{ceiling(w):.3f}."
        ),
        hint="In how many of the places can the capital be seen, and what is left but a guess in the others?",
    )


def ceiling_exercise() -> Exercise:
    """By hand: the best accuracy with a window of 7 on the capital task."""
    w = 7
    return Exercise(
        key="kv_cache.ex6",
        prompt=(
            f"On the capital-letter task ({LETTERS} letters, then “{ASK}”), what is the best accuracy any decoder "
            f"with a window of w = {w} (“{ASK}” included) can reach? (three decimals)"
        ),
        answer=round(ceiling(w), 3),
        tolerance=0.005,
        explanation=(
            f"It sees the {w - 1} letters before “{ASK}”: the capital is among them in {w - 1} of {LETTERS} cases "
            f"(right every time), else it guesses one of 26: {w - 1}/{LETTERS} + {LETTERS - w + 1}/{LETTERS} × "
            f"1/26 = {ceiling(w):.3f}."
        ),
        hint="Split the cases: the capital within the window, or not.",
    )


def mask_figure(T: int = 10, w: int = 4):
    """The sliding window's mask on T positions: 1 where query i may read key j (i − w < j ≤ i)."""
    labels = [str(i + 1) for i in range(T)]
    allowed = window_mask(T, w).double().numpy()  # (T, T)
    return attention_heatmap(  # no numbers in the cells: 1 or 0, the colours say it
        allowed,
        labels,
        labels,
        title=f"Window of w = {w}: who reads whom",
        value_name="allowed",
        height=300,
        show_cell_text=False,
    )
