"""Section 3, train short, test long: the five schemes trained on strings of 4–16 letters, then read strings 1×, 2×
and 4× as long as the longest training string.

The results script's recipe (one model per scheme and seed, measured at every test length) and the reading of its
shipped comparison: two predictions, the table, the sentences (each computed by ``Comparison.compare``, the course's
verdict rule, from the loaded numbers) and the accuracy against the input's length.
"""

from __future__ import annotations

from pathlib import Path

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import Run
from lessons.common.verdicts import MIN_SEEDS
from lessons.positions_that_travel.training import (
    BATCH,
    COLORS,
    D_MODEL,
    HEADS,
    HELD_OUT,
    LETTERS,
    LR,
    MAX_LEN,
    REPORT_EVERY,
    STEPS,
    TEST,
    TIMES,
    TRAIN_MAX,
    TRAIN_MIN,
    scores,
    test_strings,
    train_model,
)
from minimodels.positioned import SCHEMES, PositionedDecoder

TITLE = "3 · Train short, test long"

RESULTS = ROOT / "assets" / "results" / "positions_that_travel.json"
SCRIPT = "scripts/positions_that_travel_results.py"
LENGTHS: tuple[int, ...] = (8, 16, 24, 32, 48, 64)  # input lengths measured at the end; 16, 32, 64 are 1×, 2×, 4×


def text() -> str:
    """Above the shipped comparison: the models and the task."""
    return (
        f"The same small model, trained {len(SCHEMES)} ways: one multi-head self-attention ({HEADS} heads, d = "
        f"{D_MODEL}) under the causal mask, writing under each letter the letter before it (lesson 8's task). It is "
        f"trained on strings of {TRAIN_MIN}–{TRAIN_MAX} letters only, then reads strings of "
        f"{', '.join(str(TRAIN_MAX * t) for t in TIMES)} letters: 1×, 2× and 4× the training length. The sinusoidal "
        f"and learned tables have {MAX_LEN} rows, so every model can at least be run on the longest input. Predict "
        "first, then open the measured results."
    )


def trained_runs(positional: str, seed: int, steps: int = STEPS) -> tuple[list[Run], PositionedDecoder]:
    """One model trained, then measured at every length of LENGTHS on TEST fresh strings: one Run per length
    (params {"length": n}; the training curve kept on the TRAIN_MAX run). ``drop``: the accuracy at TRAIN_MAX minus
    the accuracy at this length, for the same model."""
    model, curve = train_model(positional, seed, steps)
    measured = {n: scores(model, *test_strings(n)) for n in LENGTHS}
    at_home = measured[TRAIN_MAX]["accuracy"]
    runs = []
    for n, s in measured.items():
        final = {"accuracy": s["accuracy"], "exact": s["exact"], "accuracy beyond": s["beyond"]}
        final["drop"] = at_home - s["accuracy"]
        runs.append(Run(positional, seed, {"length": n}, curve if n == TRAIN_MAX else (), final, {}))
    return runs, model


def load_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison (``RESULTS`` by default); ``FileNotFoundError``/``ValueError`` naming the script."""
    path = Path(path) if path is not None else RESULTS
    results = Comparison.load(path, script=SCRIPT)
    if set(results.variants) != set(SCHEMES):
        raise ValueError(f"{path.name} must compare the schemes {', '.join(SCHEMES)}: re-run {SCRIPT}")
    lengths = set(results.param_values("length"))
    if not {TRAIN_MAX * t for t in TIMES} <= lengths:
        raise ValueError(f"{path.name} must measure the lengths {[TRAIN_MAX * t for t in TIMES]}: re-run {SCRIPT}")
    for scheme in SCHEMES:
        if len(results.runs_of(scheme, {"length": TRAIN_MAX})) < 2:
            raise ValueError(f"{path.name}: {scheme} needs at least 2 seeds: re-run {SCRIPT}")
    return results


def at(times: int) -> dict:
    """The ``where`` of the runs at ``times`` × the training length."""
    return {"length": TRAIN_MAX * times}


def n_seeds(results: Comparison) -> int:
    """The fewest seeds any scheme has (a verdict needs MIN_SEEDS; fewer, and the page says so)."""
    return min(len(results.runs_of(s, at(1))) for s in results.variants)


RACE_CHOICES = ("RoPE (rotated q, k)", "ALiBi (distance penalty)", "too close to call")


def race_prediction(results: Comparison) -> Exercise:
    """Predict, before the results: at 4× the training length, RoPE or ALiBi? The answer is the shipped verdict."""
    v = results.compare("rope", "alibi", "accuracy", where=at(4))
    return Exercise(
        key="positions_that_travel.ex5",
        prompt=(
            f"**Predict before you open the results.** RoPE and ALiBi both score a query and a key by their distance "
            f"alone, and neither has a table that ends. Trained on at most {TRAIN_MAX} letters, given "
            f"{TRAIN_MAX * 4}-letter strings: which writes the right letter more often?"
        ),
        choices=RACE_CHOICES,
        answer={"better": 0, "worse": 1, "too close": 2}[v.outcome],
        explanation=v.sentence(".1%", f"accuracy at {TRAIN_MAX * 4} letters")
        + " Both see distance 1 the same way at every position. What differs is everything else in a long input: "
        f"RoPE meets distances training never showed it (up to {TRAIN_MAX * 4 - 1}, trained up to {TRAIN_MAX - 1}), "
        "where its turned queries and keys can line up by chance; ALiBi pushes far keys down more the further they "
        "are, but its fixed slopes cannot make a head look at one position alone.",
        hint="What does each scheme do with a key 40 positions back, a distance it never met in training?",
    )


LEARNED_CHOICES = ("about as often as on positions 2–16", "about half as often", "hardly ever (near chance)")


def learned_prediction(results: Comparison) -> Exercise:
    """Predict: the learned table at 2×, on the positions past the training range. The answer is read from the
    shipped file: the mean there as a share of the mean on the training lengths (≥ 3/4, ≥ 1/4, or less)."""
    home = results.spread("accuracy", "learned", at(1)).mean
    far = results.spread("accuracy beyond", "learned", at(2))
    share = far.mean / home if home else 0.0
    answer = 0 if share >= 0.75 else 1 if share >= 0.25 else 2
    return Exercise(
        key="positions_that_travel.ex6",
        prompt=(
            f"**Predict.** The learned model reads a {TRAIN_MAX * 2}-letter string. On positions "
            f"{TRAIN_MAX + 1}–{TRAIN_MAX * 2}, how often does it write the right letter, compared with how often it "
            f"does on the {TRAIN_MIN}–{TRAIN_MAX}-letter strings it was trained on?"
        ),
        choices=LEARNED_CHOICES,
        answer=answer,
        explanation=(
            f"Measured: {far.text('.1%')} there, against {home:.1%} on the training lengths ({share:.0%} of it; "
            f"one letter in {len(LETTERS)} is what a guess gets). Rows {TRAIN_MAX + 1}–{MAX_LEN} of its table never "
            "received a gradient (lesson 8): there it adds random vectors it never learned to read."
        ),
        hint="Which rows of the table did a training string ever reach?",
    )


def results_rows(results: Comparison) -> list[dict]:
    """One row per scheme: n, accuracy at 1×, 2× and 4×, and on the positions past the training range at 4×."""
    rows = []
    for s in results.variants:
        row = {"scheme": results.label(s), "n": results.spread("accuracy", s, at(1)).total}
        for t in TIMES:
            row[f"{t}× ({TRAIN_MAX * t} letters)"] = results.spread("accuracy", s, at(t)).text(".1%", with_n=False)
        row[f"positions {TRAIN_MAX + 1}–{MAX_LEN} at 4×"] = results.spread("accuracy beyond", s, at(4)).text(
            ".1%", with_n=False
        )
        rows.append(row)
    return rows


def observations(results: Comparison) -> list[str]:
    """The sentences about the comparison, each a verdict of ``Comparison.compare`` on the loaded numbers (so a file
    where the result goes the other way says so); with fewer than MIN_SEEDS seeds, a warning first."""
    lines = []
    if n_seeds(results) < MIN_SEEDS:
        lines.append(f"Only {n_seeds(results)} seeds per scheme: the course draws verdicts on {MIN_SEEDS} or more.")
    home, far = f"accuracy at {TRAIN_MAX} letters (1×)", f"accuracy at {TRAIN_MAX * 4} letters (4×)"
    for relative in ("rope", "alibi"):
        for added in ("sinusoidal", "learned"):
            lines.append(results.compare(relative, added, "accuracy", where=at(4)).sentence(".1%", far))
    lines.append(results.compare("rope", "alibi", "accuracy", where=at(1)).sentence(".1%", home))
    lines.append(results.compare("rope", "alibi", "accuracy", where=at(4)).sentence(".1%", far))
    lines.append(
        results.compare("alibi", "rope", "drop", where=at(4), higher_is_better=False).sentence(
            ".1%", f"the fall in accuracy from {TRAIN_MAX} to {TRAIN_MAX * 4} letters (smaller is better)"
        )
    )
    lines.append(paper_note(results))
    return lines


def paper_note(results: Comparison) -> str:
    """The ALiBi paper's finding beside this toy's verdict on RoPE against ALiBi at 4× (whichever way it goes)."""
    v = results.compare("rope", "alibi", "accuracy", where=at(4))
    paper = (
        "In the ALiBi paper's language models (trained on 512 or 1,024 tokens of WikiText-103), perplexity with "
        "sinusoidal or rotary positions grew soon past the training length, while with ALiBi it held."
    )
    if v.outcome == "worse":
        return f"{paper} Here too ALiBi keeps more at 4× than RoPE."
    if v.outcome == "too close":
        return f"{paper} Here RoPE and ALiBi are too close to call at 4×."
    return (
        f"{paper} This toy does not reproduce that order: at 4× RoPE keeps more than ALiBi. It is one layer on a "
        "task that needs exactly the letter one step back, which RoPE can point at and ALiBi's fixed slopes only "
        "favour; the paper's models are deep, and predict words from a long context."
    )


def results_curves(results: Comparison, x: str = "step") -> tuple[dict, dict]:
    """Held-out accuracy (training lengths) and training loss against ``x``: the training curves."""
    title = {"step": "training step", "seconds": "seconds"}[x]
    common = {"x_title": title, "height": 280, "colors": COLORS}
    accuracy = curves_chart(
        results.curve_points("accuracy", x=x, where=at(1)),
        y_title="held-out accuracy",
        title=f"Accuracy ({TRAIN_MIN}–{TRAIN_MAX} letters)",
        percent=True,
        **common,
    )
    loss = curves_chart(results.curve_points("loss", x=x, where=at(1)), y_title="training loss", title="Loss", **common)
    return accuracy, loss


def provenance_note(meta: dict) -> str:
    """How the shipped comparison was measured, read from its ``meta``."""
    return (
        f"Means ± sd over seeds {', '.join(map(str, meta.get('seeds', [])))}: {meta.get('steps')} steps of {BATCH} "
        f"random strings of {TRAIN_MIN}–{TRAIN_MAX} letters, Adam at {LR:g}, d = {D_MODEL}, {HEADS} heads; a held-out "
        f"check ({HELD_OUT} strings) every {REPORT_EVERY} steps. At the end, {TEST} fresh strings of each length, the "
        "same for every model. Accuracy: letters right, the first of each string (no letter before it) not counted."
    )


def length_chart(results: Comparison) -> dict:
    """Accuracy against the input's length, every seed faint and the mean ± sd."""
    return curves_chart(
        results.sweep_points("accuracy", "length"),
        y_title="accuracy",
        height=320,
        x_title=f"input length (trained on {TRAIN_MIN}–{TRAIN_MAX})",
        colors=COLORS,
        title="Train short, test long",
        percent=True,
    )


def length_caption(results: Comparison) -> str:
    """Under the chart: what a point is, and the seeds behind each line."""
    return (
        f"Each point: letters right over whole inputs of that length ({TEST} fresh strings), one faint line per seed "
        f"and the mean ± sd over n = {n_seeds(results)} seeds. Inputs of {TRAIN_MAX * 2} and {TRAIN_MAX * 4} letters "
        "are 2× and 4× the longest training string; on them, every letter past position "
        f"{TRAIN_MAX} sits where no training string reached."
    )
