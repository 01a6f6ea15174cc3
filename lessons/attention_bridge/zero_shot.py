"""Section 4, the paper's grid: bilingual, hub and many-to-many models, and zero-shot translation.

The paper's Table 1 in miniature, read from the shipped grid (:mod:`experiments`): the table of every experiment,
what monolingual pairs do to the zero-shot directions (said from the numbers, whichever way they go), every
direction's exact match, the validation curves and how the runs were made, and the section's exercise. The
paper's other claims about its grid are :mod:`grid_claims`; its leave-one-pair-out study, :mod:`leave_out`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from lessons.attention_bridge.experiments import (
    BLEU_FINALS,
    EXPERIMENTS,
    experiment_pairs,
    has_bleu,
    hub_pairs,
    zero_shot_pairs,
)
from lessons.attention_bridge.findings import MIN_GAP
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import load_note
from minimodels.bridge import pair_name
from minimodels.tasks.multilingual import LANGUAGES

TITLE = "4 · The paper's grid: bilingual, hub, many-to-many; zero-shot"

# The paper's Table 1 (centre), quoted (Vázquez et al. 2019), never recomputed: BLEU of the zero-shot directions
# of its {De, Fr, Cs} ↔ En model without and with monolingual data.
PAPER_ZERO_SHOT = {  # direction -> (BLEU without monolingual data, with it)
    "de→cs": (0.35, 19.50), "de→fr": (0.83, 26.46), "cs→de": (0.65, 22.13),
    "cs→fr": (1.02, 22.80), "fr→de": (0.60, 25.96), "fr→cs": (0.30, 20.09),
}  # fmt: skip


def paper_zero_shot_text() -> str:
    """The paper's Table 1 zero-shot BLEU, without and with monolingual data, as ranges read from the quoted cells."""
    without, with_mono = zip(*PAPER_ZERO_SHOT.values(), strict=True)
    return (
        f"its {len(PAPER_ZERO_SHOT)} zero-shot directions scored {min(without):.2f}–{max(without):.2f} BLEU "
        f"without monolingual data and {min(with_mono):.2f}–{max(with_mono):.2f} with it"
    )


def zero_shot_intro() -> str:
    return (
        f"The paper's Table 1: trained on {{De, Fr, Cs}} ↔ En, {paper_zero_shot_text()} (*monolingual* pairs: each "
        "sentence copied to itself). Here the French-like language plays English: the *hub* models train on en↔fr, "
        "it↔fr, vf↔fr (six directions), with or without en→en, fr→fr, it→it, vf→vf, and are tested on the six "
        "directions that avoid French, which they never saw. Beside them, as in the paper, *bilingual* en↔fr "
        "models, one with the bridge and one without (a plain attention model: the decoder attends over the "
        "encoder's states, the paper's baseline), and *many-to-many* models trained on all twelve directions (no "
        "zero-shot left), with and without monolingual pairs. Every model trains the same number of steps, so the "
        "more directions, the fewer steps each (the paper trained each model to its best). Held-out test meanings, "
        "greedy decoding, exact match of the whole sentence and of each token, and corpus BLEU where the shipped "
        "file has it. The paper's leave-one-pair-out study (its Figure 1) follows the grid."
    )


ZERO_SHOT_TABLE = {  # column -> (final, format)
    "en ↔ fr: exact match": ("en_fr_exact", ".1%"),
    "trained directions: exact match": ("trained_exact", ".1%"),
    "trained directions: BLEU": ("trained_bleu", ".1f"),
    "zero-shot: exact match": ("zero_shot_exact", ".1%"),
    "zero-shot: token accuracy": ("zero_shot_tokens", ".1%"),
    "zero-shot: BLEU": ("zero_shot_bleu", ".1f"),
}


def zero_shot_rows(results: Comparison) -> list[dict]:
    """One row per experiment: test exact match/token accuracy on the trained and on the zero-shot directions,
    mean ± sd over seeds and n."""
    rows = []
    for e in EXPERIMENTS:
        weight = format(e.penalty_weight, "g") if e.bridge else "–"  # no bridge: no A, no penalty to weigh
        row = {"training data": results.label(e.name), "penalty λ": weight, "n": len(results.runs_of(e.name))}
        for column, (metric, fmt) in ZERO_SHOT_TABLE.items():
            if metric in BLEU_FINALS and not has_bleu(results):
                continue  # an older file: no BLEU column rather than a column of dashes
            spread = results.spread(metric, e.name)  # none for a model with no zero-shot direction
            row[column] = spread.text(fmt, with_n=False) if spread.n else "–"
        rows.append(row)
    return rows


def _mean(results: Comparison, metric: str, experiment: str, fmt: str) -> str:
    """A final's mean over seeds, with its sd when there are several: "24.6%", "24.6% ± 1.2%"."""
    spread = results.spread(metric, experiment)
    return format(spread.mean, fmt) + (f" ± {format(spread.sd, fmt)}" if spread.n > 1 else "")


RARE = 0.1  # zero-shot exact match below this: whole sentences right are rare


def zero_shot_finding(results: Comparison) -> str:
    """What the zero-shot directions show, whole sentences first, then by token accuracy (the paper's BLEU also
    counts partial matches), with or without monolingual pairs (:meth:`Comparison.compare`)."""
    exact = {name: results.spread("zero_shot_exact", name) for name in ("hub-mono", "hub")}
    whole = (
        f"{exact['hub-mono'].text('.1%', with_n=False)} with monolingual pairs against "
        f"{exact['hub'].text('.1%', with_n=False)} without"
    )
    if max(s.mean for s in exact.values()) < RARE:
        first = (
            f"Whole sentences: almost no zero-shot translation is right ({whole}), so neither model translates "
            "the unseen directions here; what follows is about single tokens in their place."
        )
    else:
        first = f"Whole zero-shot sentences right: {whole}."
    verdict = results.compare("hub-mono", "hub", "zero_shot_tokens", min_gap=MIN_GAP)
    numbers = (
        f"{verdict.a_spread.text('.0%', with_n=False)} against {verdict.b_spread.text('.0%', with_n=False)} of tokens"
    )
    if verdict.outcome == "better":
        second = (
            "By token accuracy the paper's finding holds here too: monolingual pairs lift the unseen directions "
            f"({numbers})."
        )
    elif verdict.outcome == "worse":
        second = (
            "So on the toy languages the paper's finding does **not** hold: monolingual pairs hurt zero-shot "
            f"({numbers})."
        )
    elif abs(verdict.a_spread.mean - verdict.b_spread.mean) <= MIN_GAP and verdict.weighed:
        second = (
            "So on the toy languages monolingual pairs make little difference to zero-shot, unlike the paper "
            f"({numbers})."
        )
    elif abs(verdict.a_spread.mean - verdict.b_spread.mean) <= MIN_GAP:  # close, but the rule could not weigh it
        second = (
            f"By token accuracy monolingual pairs barely move the unseen directions in these runs ({numbers}); but "
            f"{verdict.why('.0%')}, so whether they help, as the paper found, is not yet known here."
        )
    else:
        lift = verdict.a_spread.mean > verdict.b_spread.mean
        second = (
            f"By token accuracy monolingual pairs {'lift' if lift else 'lower'} the unseen directions in these "
            f"runs ({numbers}), {'as' if lift else 'unlike'} the paper found; but {verdict.why('.0%')}, so this "
            "is a hint, not yet a finding."
        )
    return f"{first} {second}"


def observations(results: Comparison) -> list[str]:
    """What the shipped comparison says about monolingual pairs, written from its numbers (a re-measured file
    rewrites them); the penalty's are
    :func:`lessons.attention_bridge.penalty.penalty_findings`."""
    n_mono, n_all = len(LANGUAGES), len(hub_pairs(True))
    seeds = {len(results.runs_of(e.name)) for e in EXPERIMENTS}
    over = "one seed per model" if seeds == {1} else f"mean ± sd over {'/'.join(map(str, sorted(seeds)))} seeds"
    plain_trained, mono_trained = (results.spread("trained_exact", v).mean for v in ("hub", "hub-mono"))
    why = {-1: ": with the same number of steps,", 0: "; with the same number of steps,", 1: ", even though"}[
        int(np.sign(mono_trained - plain_trained))
    ]

    def m(metric: str, experiment: str, fmt: str = ".0%") -> str:
        return _mean(results, metric, experiment, fmt)

    return [
        f"Without monolingual pairs the zero-shot directions reach **{m('zero_shot_exact', 'hub', '.1%')}** exact "
        f"match (**{m('zero_shot_tokens', 'hub')}** of tokens); with them, **{m('zero_shot_exact', 'hub-mono', '.1%')}"
        f"** (**{m('zero_shot_tokens', 'hub-mono')}** of tokens). The trained directions reach "
        f"{m('trained_exact', 'hub')} and {m('trained_exact', 'hub-mono')}{why} the monolingual pairs take {n_mono} "
        f"of every {n_all} minibatches away from them ({over}).",
        zero_shot_finding(results),
    ]


def direction_rows(results: Comparison) -> list[dict]:
    """Test exact match of every direction in every experiment (zero-shot ones marked), the mean over seeds."""
    held = {pair_name(p) for p in zero_shot_pairs()}
    names = list(results.runs_of(EXPERIMENTS[0].name)[0].extra["test"])
    shown = {e.name: {pair_name(p) for p in sum(experiment_pairs(e), ())} for e in EXPERIMENTS}
    rows = []
    for name in names:
        row = {"direction": name + (" (zero-shot in the hub models)" if name in held else "")}
        for e in EXPERIMENTS:  # None: neither trained nor tested zero-shot (the bilingual model's other languages)
            scores = [r.extra["test"][name]["exact_match"] for r in results.runs_of(e.name)]
            row[results.label(e.name)] = float(np.mean(scores)) if name in shown[e.name] else None
        rows.append(row)
    return rows


HISTORY_HEIGHT = 340  # each chart, legend and titles included (Streamlit fits the whole chart in it)


def history_charts(results: Comparison) -> list[tuple[str, dict]]:
    """Validation exact match against steps, every experiment a colour: the zero-shot directions and the trained
    ones, one chart each on the same 0–100% scale (:func:`curves_chart`)."""
    return [
        (
            metric,
            curves_chart(
                results.curve_points(metric),
                y_title="exact match",
                x_title="training step",
                title=title,
                height=HISTORY_HEIGHT,
                percent=True,
            ),
        )
        for metric, title in (
            ("zero_shot", "Zero-shot directions (validation)"),
            ("exact_match", "Trained directions (validation)"),
        )
    ]


def provenance_note(meta: Mapping) -> str:
    """What the page adds to the provenance caption: how much was trained and tested, as shipped, and the variants
    a later ``--variants`` command added (each with its own command, date, seconds and load)."""
    made = meta.get("command_variants")
    note = (
        (f"That command made {', '.join(made)}. " if made else "")
        + f"{meta.get('steps')} steps of {meta.get('batch_size')} sentences per model, {meta.get('test_sentences')} "
        f"test meanings per direction, weights rounded to float16 as shipped; one torch thread per model ("
        f"{load_note(meta)}). Step counts decide what is trained, so the figures do not depend on the load."
    )
    for added in meta.get("added", []):
        note += (
            f" Added later: {', '.join(added.get('variants', []))} by `{added.get('command')}` on "
            f"{str(added.get('date', ''))[:10]}, {added.get('steps')} steps of {added.get('batch_size')}, seeds "
            f"{', '.join(map(str, added.get('seeds', [])))}, {added.get('seconds')} s at a 1-minute load of "
            f"{added.get('load_1min_before')}."
        )
    return note


def exercises(results: Comparison | None) -> list[Exercise]:
    """Predict which shipped model translates the zero-shot directions better (none without the results)."""
    if results is None:
        return []
    plain = results.spread("zero_shot_tokens", "hub").mean
    mono = results.spread("zero_shot_tokens", "hub-mono").mean
    choices = ("the model trained with monolingual pairs", "the model trained without them", "neither: equal")
    answer = 2 if abs(mono - plain) <= MIN_GAP else (0 if mono > plain else 1)
    return [
        Exercise(
            key="attention_bridge.ex.zero_shot",
            prompt="In the shipped measurements, which model translates the zero-shot directions better "
            "(token accuracy, more than 5 points apart)?",
            answer=answer,
            choices=choices,
            explanation=f"Measured: {mono:.0%} of tokens right with monolingual pairs, {plain:.0%} without.",
        )
    ]
