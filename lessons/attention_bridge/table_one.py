"""Section 4, the paper's Table 1 as it reads: BLEU in every direction (source language × target language), one grid
per experiment, the toy's cells (mean ± sd over the seeds, and n) beside the paper's own cells for the same
experiment, and what differs between the two, said from the numbers.

The paper's four languages are English (its hub), German, Czech and French; the toy's are English, French-like (its
hub, in English's role), Italian-like and an invented verb-final language. Only the roles match (hub or not), so the
two grids are set side by side, never cell against cell, and compared by their means over the same kind of cell:
trained directions and zero-shot ones.
"""

from __future__ import annotations

import numpy as np

from lessons.attention_bridge.experiments import EXPERIMENTS, HUB, MODEL_OPTIONS, experiment_pairs
from lessons.common.comparison import Comparison
from lessons.common.runs import Spread
from minimodels.bridge import pair_name
from minimodels.tasks.multilingual import LANGUAGES

TITLE = "The paper's Table 1, direction by direction"

PAPER_LANGUAGES = ("en", "de", "cs", "fr")  # the paper's Table 1 order, rows (source) and columns (target)
PAPER_HUB = "en"

# The paper's Table 1, quoted (Vázquez et al. 2019), BLEU, one model per cell (no seeds, no sd), rows the source and
# columns the target in PAPER_LANGUAGES order, None on the diagonal; keyed by the toy experiment that copies it.
# The hub-and-no-penalty model has no panel: the paper's penalty study (its Table 3) is bilingual.
PAPER_TABLE_1 = {
    "bilingual-nobridge": (  # BILINGUAL
        (None, 36.78, 28.00, 55.96),
        (39.00, None, 23.44, 38.22),
        (35.89, 28.98, None, 36.44),
        (49.54, 32.92, 25.98, None),
    ),
    "bilingual": (  # BILINGUAL + ATT BRIDGE
        (None, 35.85, 27.10, 53.03),
        (38.19, None, 23.97, 37.40),
        (36.41, 27.28, None, 36.41),
        (48.93, 31.70, 25.96, None),
    ),
    "hub": (  # {DE,FR,CS} <-> EN
        (None, 37.85, 29.51, 57.87),
        (39.39, None, 0.35, 0.83),
        (37.20, 0.65, None, 1.02),
        (48.49, 0.60, 0.30, None),
    ),
    "hub-mono": (  # {DE,FR,CS} <-> EN + MONOLING
        (None, 38.92, 30.27, 57.87),
        (40.17, None, 19.50, 26.46),
        (37.30, 22.13, None, 22.80),
        (50.41, 25.96, 20.09, None),
    ),
    "m2m": (  # M-2-M
        (None, 37.70, 29.67, 55.78),
        (40.68, None, 26.78, 41.07),
        (38.42, 31.07, None, 40.27),
        (49.92, 34.63, 26.92, None),
    ),
    "m2m-mono": (  # M-2-M + MONOLINGUAL
        (None, 38.48, 30.47, 57.35),
        (41.82, None, 26.90, 41.49),
        (39.58, 31.51, None, 40.87),
        (50.94, 35.25, 28.80, None),
    ),
}  # fmt: skip

ZERO_SHOT_MARK = "*"


def toy_role(experiment: str, source: str, target: str) -> str:
    """What the toy experiment did with a direction: its trained and zero-shot directions (:func:`experiment_pairs`)."""
    trained, held = experiment_pairs(next(x for x in EXPERIMENTS if x.name == experiment))
    if (source, target) in trained:
        return "trained"
    return "zero-shot" if (source, target) in held else "not trained"


def paper_role(experiment: str, source: str, target: str) -> str:
    """The same for the paper's panel: its bilingual models each train one pair (every cell a trained direction of
    its own model); its hub models leave the directions without English zero-shot; many-to-many trains them all."""
    e = next(x for x in EXPERIMENTS if x.name == experiment)
    if e.kind == "hub" and PAPER_HUB not in (source, target):
        return "zero-shot"
    return "trained"


def cell_spread(results: Comparison, experiment: str, direction: str) -> Spread:
    """Test BLEU of one direction over the experiment's seeds."""
    return Spread(tuple(float(r.extra["test"][direction]["bleu"]) for r in results.runs_of(experiment)))


def _cell(text: str, role: str) -> str:
    if role == "not trained":
        return "not trained"
    return text + (f" {ZERO_SHOT_MARK}" if role == "zero-shot" else "")


def toy_grid(results: Comparison, experiment: str) -> list[dict]:
    """The toy's Table 1 panel: a row per source language, a column per target language, each cell test BLEU
    "mean ± sd · n" over the seeds (zero-shot cells marked, directions a bilingual model never trained said so)."""
    rows = []
    for source in LANGUAGES:
        row = {"source ↓ target →": source}
        for target in LANGUAGES:
            if source == target:
                row[target] = "–"
                continue
            spread = cell_spread(results, experiment, pair_name((source, target)))
            text = f"{spread.text('.1f', with_n=False)} · n {spread.n}"
            row[target] = _cell(text, toy_role(experiment, source, target))
        rows.append(row)
    return rows


def paper_grid(experiment: str) -> list[dict]:
    """The paper's panel for the same experiment, as printed (one model per cell: no sd, n = 1), zero-shot cells
    marked as the paper sets them in italics. Empty for an experiment the paper did not run."""
    panel = PAPER_TABLE_1.get(experiment)
    if panel is None:
        return []
    rows = []
    for i, source in enumerate(PAPER_LANGUAGES):
        row = {"source ↓ target →": source.upper()}
        for j, target in enumerate(PAPER_LANGUAGES):
            value = panel[i][j]
            row[target.upper()] = (
                "–" if value is None else _cell(f"{value:.2f}", paper_role(experiment, source, target))
            )
        rows.append(row)
    return rows


def _toy_means(results: Comparison, experiment: str, role: str) -> Spread:
    """Per seed, the mean BLEU over the toy's cells of one role: a spread over the seeds."""
    names = [pair_name((s, t)) for s in LANGUAGES for t in LANGUAGES if s != t and toy_role(experiment, s, t) == role]
    if not names:
        return Spread(())
    return Spread(
        tuple(float(np.mean([r.extra["test"][n]["bleu"] for n in names])) for r in results.runs_of(experiment))
    )


def _paper_mean(experiment: str, role: str) -> float | None:
    panel = PAPER_TABLE_1[experiment]
    values = [
        panel[i][j]
        for i, s in enumerate(PAPER_LANGUAGES)
        for j, t in enumerate(PAPER_LANGUAGES)
        if s != t and paper_role(experiment, s, t) == role
    ]
    return float(np.mean(values)) if values else None


def differences(results: Comparison, experiment: str) -> str:
    """What differs between the two grids, for the student reading them side by side: the languages and what a
    cell is, then the mean BLEU over the trained cells and over the zero-shot ones, toy against paper."""
    label = results.label(experiment)
    e = next(x for x in EXPERIMENTS if x.name == experiment)
    runs = len(results.runs_of(experiment))
    tests = results.meta.get("test_sentences", "?")
    lines = [
        f"Toy cells: test BLEU of {label}, mean ± sd over its {runs} seeds and n (corpus BLEU over words, greedy "
        f"decoding, {tests} test meanings per direction); {ZERO_SHOT_MARK} marks a zero-shot direction. The hub is "
        f"{HUB} here, EN in the paper; the other languages match only by role (not the hub), not by name."
    ]
    if experiment not in PAPER_TABLE_1:
        lines.append(
            "The paper has no panel for this model: its Table 1 trains every hub model with the penalty (the "
            "penalty is studied on bilingual models, its Table 3)."
        )
        return " ".join(lines)
    if e.kind == "bilingual":
        lines.append(
            "The paper trained a bilingual model for each of its six pairs, so each of its cells is a model's "
            "own pair; the toy trained one, en ↔ fr, so its other cells are left out (“not trained”)."
        )
    lines.append(
        "Paper cells: one model each, as printed (no seeds, no sd), sacreBLEU on the Flickr 2016 test set of "
        "Multi30k after BPE, 2-layer BiLSTM encoders (d_h = 512) and k = 10 heads, each model trained to its best on "
        "the development set; the toy's sentences are a few words of a grammar, its encoders a BiGRU (d_h = "
        f"{2 * MODEL_OPTIONS['encoder_size']}) and k = {MODEL_OPTIONS['heads']}, every model trained the same "
        f"{results.meta.get('steps', '?')} steps."
    )
    for role in ("trained", "zero-shot"):
        toy, paper = _toy_means(results, experiment, role), _paper_mean(experiment, role)
        if toy.n and paper is not None:
            lines.append(
                f"Mean over the {role} cells: {toy.text('.1f', with_n=False)} here (n = {toy.n} seeds), "
                f"{paper:.1f} in the paper."
            )
    return " ".join(lines)
