"""Section 2, the penalty ‖AAᵀ − I‖²_F and head redundancy, on the two shipped hub models that differ only in λ.

A Aᵀ and the penalty of one map, the shipped models' probe maps, which of the two is ahead on each measure (a
finding only when the course's verdict rule calls it), the weight λ against the paper's, and the section's two exercises
computed by hand. The seeded study of λ and k that follows on the page is :mod:`penalty_study`.
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go
import torch

from lessons.attention_bridge.experiments import PENALTY_ON, WITH, WITHOUT
from lessons.attention_bridge.findings import MIN_GAP
from lessons.common import charts
from lessons.common.comparison import Comparison
from lessons.common.exercises import Exercise
from minimodels.bridge import redundancy
from minimodels.tasks.multilingual import get_multilingual

TITLE = "2 · The penalty and head redundancy"
TEXT = (
    "A Aᵀ compares heads: entry (i, j) is the overlap of head i and head j (1 on the diagonal when a head looks "
    "at a single word). Without the penalty nothing stops several heads from reading the same words; the paper "
    "adds it so that the rows of M differ. First the two shipped multilingual models, identical but for λ (their "
    "first seed), on the probe sentence:"
)


def gram(A: np.ndarray) -> np.ndarray:
    """A Aᵀ (k × k): entry (i, j) is how much heads i and j overlap; the identity when none do."""
    return A @ A.T


def penalty_value(A: np.ndarray) -> float:
    """‖A Aᵀ − I‖²_F of one (k, S) map, eq. 3's penalty."""
    return float(redundancy(torch.as_tensor(A, dtype=torch.float64)))


def gram_heatmap(A: np.ndarray, *, title: str = "") -> go.Figure:
    """A Aᵀ with heads on both axes (numbered: "head 1 head 2 …" ran together at 390 px): bright off the diagonal
    means two heads read the same words."""
    heads = [str(j + 1) for j in range(A.shape[0])]
    return charts.attention_heatmap(
        gram(A),
        heads,
        heads,
        title=title,
        x_title="head",
        y_title="head",
        value_name="(A Aᵀ)ᵢⱼ",
        height=330,
        show_cell_text=True,
    )


def probe_map(results: Comparison, experiment: str, lang: str) -> tuple[np.ndarray, list[str]]:
    """The shipped experiment's final A on the probe meaning in ``lang`` (its first seed), with its tokens."""
    probe = results.runs_of(experiment)[0].extra["probe"][lang]
    return np.asarray(probe["A"], dtype=float), list(probe["tokens"])


def probe_reading(results: Comparison, experiment: str, lang: str) -> tuple[float, np.ndarray, list[str], float]:
    """What section 2 shows of one shipped model: its λ, its probe map A in ``lang`` with the tokens
    (:func:`probe_map`), and A's penalty ‖AAᵀ − I‖²_F."""
    A, tokens = probe_map(results, experiment, lang)
    return _penalty_weight_of(results, experiment), A, tokens, penalty_value(A)


def _penalty_weight_of(results: Comparison, experiment: str) -> float:
    """λ the shipped models of ``experiment`` were trained with (their first run's, as every run of one
    experiment shares its parameters)."""
    return results.runs_of(experiment)[0].params["penalty_weight"]


# (final, what it is, format, higher is better) for the penalty's two models
PENALTY_METRICS = (
    ("trained_exact", "exact match on the trained directions", ".1%", True),
    ("zero_shot_tokens", "zero-shot token accuracy", ".1%", True),
    ("agreement", "head agreement across languages", ".1%", True),
    ("redundancy", "head redundancy ‖AAᵀ − I‖_F (lower: less redundant)", ".2f", False),
)


def _penalty_verdict(results: Comparison, metric: str, higher: bool):
    return results.compare(WITH, WITHOUT, metric, higher_is_better=higher, min_gap=MIN_GAP if higher else 0.0)


def _ahead(verdict, higher: bool) -> str | None:
    """Which model's mean is ahead: "with" or "without" (the penalty), None when equal."""
    a, b = verdict.a_spread.mean, verdict.b_spread.mean
    if a == b:
        return None
    return "with" if (a > b) == higher else "without"


def penalty_findings(results: Comparison) -> list[str]:
    """One sentence per measure: which of the two models (λ on / off) is ahead, by the shipped numbers, and
    whether that is a finding (the course's verdict rule) or only these runs."""
    lines = []
    for metric, name, fmt, higher in PENALTY_METRICS:
        verdict = _penalty_verdict(results, metric, higher)
        numbers = (
            f"{verdict.a_spread.text(fmt, with_n=False)} with the penalty against "
            f"{verdict.b_spread.text(fmt, with_n=False)} without"
        )
        ahead = _ahead(verdict, higher)
        if ahead is None:
            lines.append(f"On {name} the two models are equal: {numbers}.")
        elif verdict.clear:
            lines.append(f"On {name} the model **{ahead}** the penalty is clearly ahead: {numbers}.")
        else:
            lines.append(
                f"On {name} the model **{ahead}** the penalty is ahead in these runs ({numbers}); but "
                f"{verdict.why(fmt)}, so it is not a finding."
            )
    return lines


PAPER_PENALTY_WEIGHT = 1.0  # Eq. 3 adds ‖AAᵀ − I‖²_F to the loss with no weight in front of it


def shipped_penalty_weight(results: Comparison | None) -> float:
    """λ of the shipped models trained with the penalty (the course's default when no results are loaded)."""
    return _penalty_weight_of(results, WITH) if results is not None else PENALTY_ON


@functools.cache  # the shipped corpus is fixed: 24,000 sentences tokenised once per process, not on every page run
def mean_target_tokens() -> float:
    """Target tokens a training sentence has on average (its end mark counted), over every language of the
    shipped corpus: what one sentence's penalty stands beside in a loss summed over tokens."""
    corpus = get_multilingual()
    counts = [
        len(corpus.tokenizers[lang].encode(p.sentences[lang])) + 1 for lang in corpus.languages for p in corpus.train
    ]
    return sum(counts) / len(counts)


def penalty_weight_text(results: Comparison | None, tokens: float | None = None) -> str:
    """λ against the paper's weight, per token: the paper sums the cross-entropy over a batch's target tokens and
    the penalty once per sentence, so beside one token's loss a sentence's penalty weighs 1/n (n its tokens); the
    course averages both (``minimodels.bridge.train_bridge``), so λ stands where the paper has 1/n, and λ·n is
    λ in the paper's terms. ``tokens``: n (default: measured on the corpus, :func:`mean_target_tokens`)."""
    weight = shipped_penalty_weight(results)
    n = mean_target_tokens() if tokens is None else tokens
    relative = weight * n / PAPER_PENALTY_WEIGHT
    same = "about the paper's weight" if abs(relative - 1) < 0.05 else f"about {relative:.2g} times the paper's"
    return (
        f"λ weighs the penalty: the paper's Eq. 3 adds it with weight {PAPER_PENALTY_WEIGHT:g} (it writes no λ) to a "
        f"loss summed over tokens, once per sentence. The models here average the loss per token and the penalty "
        f"per sentence and use λ = {weight:g}; with {n:.1f} target tokens a sentence on average, that is λ·n = "
        f"{weight:g} × {n:.1f} = {relative:.2f}, {same}; λ = 0 turns it off."
    )


def exercises() -> list[Exercise]:
    """The penalty by hand: two heads that share their words, then more heads than words."""
    two_heads = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    return [
        Exercise(
            key="attention_bridge.ex.penalty",
            prompt="Two heads over three words both put weight ½ on word 1 and ½ on word 2: "
            "A = [[½, ½, 0], [½, ½, 0]]. What is the penalty ‖AAᵀ − I‖²_F?",
            answer=penalty_value(two_heads),
            tolerance=1e-3,
            explanation="AAᵀ = [[½, ½], [½, ½]]; minus I leaves −½ on the diagonal and ½ off it: four squares of ¼.",
        ),
        Exercise(
            key="attention_bridge.ex.too_many_heads",
            prompt="k = 4 heads read a sentence of 2 words (S = 2 positions with no EOS, for simplicity): heads 1 "
            "and 2 put all their weight on word 1, heads 3 and 4 on word 2. What is ‖AAᵀ − I‖²_F? (Can any A do "
            "better than 0 here?)",
            answer=penalty_value(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])),
            tolerance=1e-3,
            explanation="AAᵀ is 1 where two heads share a word: the diagonal (no error) and the pairs (1, 2), "
            "(2, 1), (3, 4), (4, 3): four squares of 1. No A reaches 0: AAᵀ has rank at most S = 2, so at least "
            "k − S = 2 of its eigenvalues are 0 where I has 1. With more heads than words, the penalty cannot be "
            "met, which is why the paper sized k to its sentence length.",
        ),
    ]
