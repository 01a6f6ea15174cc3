"""Section 5, none, sinusoidal, learned: the same small model trained three ways on strings of 4–16 letters, then
given strings up to 32 letters long, longer than any it was trained on.

The results script's recipe (one model per encoding and seed, measured at every input length) and the reading of
its shipped comparison: two predictions, the table, the sentences (each computed by ``Comparison.compare`` from the
loaded numbers), the training curves and the accuracy against the input's length.
"""

from __future__ import annotations

from pathlib import Path

import torch

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import Run
from lessons.positional_encoding.models import (
    BATCH,
    COLORS,
    D_MODEL,
    ENCODINGS,
    HELD_OUT,
    LR,
    MAX_LEN,
    REPORT_EVERY,
    STEPS,
    TEST,
    TEST_SEED,
    TRAIN_MAX,
    TRAIN_MIN,
    scores,
    strings,
    train_encoder,
    untrained_rows,
)
from minimodels.small import TinyEncoder

TITLE = "5 · none, sinusoidal, learned: trained, then longer inputs"

RESULTS = ROOT / "assets" / "results" / "positional_encoding.json"
SCRIPT = "scripts/positional_encoding_results.py"
LENGTHS: tuple[int, ...] = (4, 8, 12, 16, 20, 24, 28, 32)  # input lengths measured at the end


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
            raise ValueError(
                f"{path.name}: {encoding} needs 3 seeds with curves and lengths {TRAIN_MAX} and "
                f"{MAX_LEN}: re-run {SCRIPT}"
            )
    return results


def parameters(results: Comparison, encoding: str) -> int:
    """The trainable parameters of the model with ``encoding`` (the same for every seed)."""
    return int(results.runs_of(encoding)[0].extra["parameters"])


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


def results_rows(results: Comparison) -> list[dict]:
    """One row per encoding: parameters, n, accuracy inside the training lengths and on the longest inputs."""
    inside = {"length": TRAIN_MAX}
    longest = {"length": MAX_LEN}
    return [
        {
            "encoding": results.label(e),
            "parameters": parameters(results, e),
            "n": results.spread("accuracy", e, inside).total,
            f"accuracy, {TRAIN_MAX} letters": results.spread("accuracy", e, inside).text(".1%", with_n=False),
            f"accuracy, {MAX_LEN} letters": results.spread("accuracy", e, longest).text(".1%", with_n=False),
            f"positions {TRAIN_MAX + 1}–{MAX_LEN}": results.spread("accuracy beyond", e, longest).text(
                ".1%", with_n=False
            ),
        }
        for e in results.variants
    ]


def observations(results: Comparison) -> list[str]:
    """The sentences about the comparison, each computed by ``Comparison.compare`` from the loaded numbers (so a
    file where the result goes the other way says so)."""
    inside, longest = {"length": TRAIN_MAX}, {"length": MAX_LEN}
    lines = [
        results.compare(e, "none", "accuracy", where=inside).sentence(".1%", f"accuracy at {TRAIN_MAX} letters")
        for e in ("sinusoidal", "learned")
    ]
    lines.append(
        results.compare("sinusoidal", "learned", "accuracy", where=inside).sentence(
            ".1%", f"accuracy at {TRAIN_MAX} letters"
        )
    )
    beyond = f"accuracy at positions {TRAIN_MAX + 1}–{MAX_LEN} of {MAX_LEN}-letter inputs"
    lines.append(results.compare("sinusoidal", "learned", "accuracy beyond", where=longest).sentence(".1%", beyond))
    lines.append(learned_vs_none_sentence(results))
    lines.append(learned_rows_sentence(results))
    return lines


def learned_vs_none_sentence(results: Comparison) -> str:
    """The learned table against no positions at all, past the training range, by the shared rule: whether the
    untrained rows merely fail to help or do worse than no position information."""
    beyond = f"accuracy at positions {TRAIN_MAX + 1}–{MAX_LEN} of {MAX_LEN}-letter inputs"
    v = results.compare("learned", "none", "accuracy beyond", where={"length": MAX_LEN})
    then = {
        "worse": " Past the training range the learned table is worse than no position information at all: its "
        "untrained rows, random vectors the model never saw, leave it worse off than adding nothing.",
        "better": " Past the training range the learned table still beats no position information.",
        "too close": "",
    }[v.outcome]
    return v.sentence(".1%", beyond) + then


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


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Held-out accuracy and training loss against ``x`` (the training curves)."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    common = {"x_title": title, "height": 280, "colors": COLORS}
    where = {"length": TRAIN_MAX}
    accuracy = curves_chart(
        results.curve_points("accuracy", x=x, where=where),
        y_title="held-out accuracy",
        title="Accuracy (4–16 letters)",
        percent=True,
        **common,
    )
    loss = curves_chart(results.curve_points("loss", x=x, where=where), y_title="training loss", title="Loss", **common)
    return accuracy, loss


def provenance_note(meta: dict) -> str:
    """How the shipped comparison was measured, read from its ``meta``."""
    return (
        f"Means ± sd over seeds {', '.join(map(str, meta.get('seeds', [])))}: {meta.get('steps')} steps of "
        f"{BATCH} random strings of {TRAIN_MIN}–{TRAIN_MAX} letters, Adam at {LR:g}, d = {D_MODEL}; a held-out check "
        f"({HELD_OUT} strings) every {REPORT_EVERY} steps. At the end, {TEST} fresh strings of each length. "
        "Accuracy: letters right, the first of each string (which has no letter before it) not counted."
    )


def length_chart(results: Comparison) -> dict:
    """Accuracy against the input's length, inside and beyond the training lengths (every seed, mean ± sd)."""
    return curves_chart(
        results.sweep_points("accuracy", "length"),
        y_title="accuracy",
        height=300,
        x_title=f"input length (trained on {TRAIN_MIN}–{TRAIN_MAX})",
        colors=COLORS,
        title="Longer than any training string",
        percent=True,
    )


def length_caption() -> str:
    """Under the accuracy-against-length chart: what a point is, and how much of a long input lies in the range."""
    inside = TRAIN_MAX - 1  # scored letters at positions 2..TRAIN_MAX
    return (
        f"Each point: letters right over the whole input (the first letter not counted), {TEST} fresh strings per "
        f"length and seed. On a {MAX_LEN}-letter input, {inside} of the {MAX_LEN - 1} scored letters sit at positions "
        f"the models were trained on; the table's last column scores positions {TRAIN_MAX + 1}–{MAX_LEN} alone."
    )
