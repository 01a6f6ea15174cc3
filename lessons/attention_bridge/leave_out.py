"""Section 4, continued: leave one pair out (the paper's Figure 1 in miniature).

The paper's six models each trained every pair of its four languages but one, with monolingual data; each
left-out pair was then translated zero-shot and set beside the same pair in its best model (many-to-many +
monolingual, every pair trained) and in a bilingual model. ``scripts/attention_bridge_leave_out.py`` does the same
with the toy's six pairs, each left out (both directions) of a many-to-many + monolingual model, and the model
with every pair, all at the grid's steps, batch and λ, over several seeds
(``assets/results/attention_bridge_leave_out.json``). No bilingual model per pair: six more models × seeds did not
fit the budget (the grid's bilingual en ↔ fr is the one there is). Here: the recipe, the loader, the table and
figure, and the paper's two Figure 1 claims tested on the seeds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from lessons.attention_bridge.experiments import BILINGUAL_PAIRS, HUB, SEED, has_bleu
from lessons.attention_bridge.findings import BLEU_MIN_GAP, MIN_GAP
from lessons.common import charts, verdicts
from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Spread, load_note
from lessons.common.verdicts import added_drift, verdict
from minimodels.bridge import BridgeTrainConfig, Pair, all_pairs, pair_name
from minimodels.tasks.multilingual import LANGUAGE_NAMES, LANGUAGES

TITLE = "Leave one pair out (the paper's Figure 1)"
LEAVE_OUT_INTRO = (
    "The paper's Figure 1 trained six models, each on every pair of its four languages but one (with monolingual "
    "data), and translated the left-out pair zero-shot: “In most cases, they come very close to the supervised "
    "model”. The same here: the toy's six pairs, each left out (both directions) of a many-to-many + monolingual "
    "model, against the model that trains every pair, same steps and seeds. Trained: the pair in the model with "
    "every pair; zero-shot: the pair in the model that never saw it. The paper's third bar, a bilingual model per "
    "pair, is not trained here (six more models per seed did not fit the budget)."
)

LEAVE_OUT_RESULTS = ROOT / "assets" / "results" / "attention_bridge_leave_out.json"
LEAVE_OUT_SCRIPT = "scripts/attention_bridge_leave_out.py"
LEAVE_OUT_PAIRS: tuple[Pair, ...] = tuple((a, b) for i, a in enumerate(LANGUAGES) for b in LANGUAGES[i + 1 :])
ALL_PAIRS = "all"  # the variant trained on every pair (the paper's red bar)
LEAVE_OUT_MEASURES = {"bleu": ("BLEU", ".1f"), "exact": ("exact match", ".1%"), "tokens": ("token accuracy", ".1%")}


def pair_label(pair: Pair) -> str:
    return f"{pair[0]} ↔ {pair[1]}"


def leave_out_variant(pair: Pair) -> str:
    return f"without {pair[0]}-{pair[1]}"


def leave_out_variants() -> tuple[str, ...]:
    return (ALL_PAIRS, *map(leave_out_variant, LEAVE_OUT_PAIRS))


def leave_out_labels() -> dict[str, str]:
    labels = {leave_out_variant(p): f"every pair but {pair_label(p)} + monolingual" for p in LEAVE_OUT_PAIRS}
    return {ALL_PAIRS: "every pair + monolingual", **labels}


def leave_out_config(pair: Pair | None, steps: int, seed: int = SEED, **options) -> BridgeTrainConfig:
    """Many-to-many + monolingual, without ``pair``'s two directions (held out for zero-shot); ``None``: every
    pair."""
    held = () if pair is None else (pair, pair[::-1])
    return BridgeTrainConfig(
        pairs=all_pairs(LANGUAGES, held_out=held, monolingual=True),
        held_out=held,
        max_steps=steps,
        max_seconds=float("inf"),
        seed=seed,
        **options,
    )


def pair_final(measure: str, pair: Pair) -> str:
    """The final that holds ``measure`` ("bleu", "exact", "tokens") of ``pair``, both directions averaged."""
    return f"{measure} {pair[0]}-{pair[1]}"


def pair_finals(test: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Every pair's measures from a run's per-direction test scores ({"en→fr": {"bleu", "exact_match",
    "token_accuracy"}}), the two directions of a pair averaged."""
    keys = {"bleu": "bleu", "exact": "exact_match", "tokens": "token_accuracy"}
    return {
        pair_final(m, p): round(float(np.mean([test[pair_name(d)][k] for d in (p, p[::-1])])), 4)
        for m, k in keys.items()
        for p in LEAVE_OUT_PAIRS
    }


def load_leave_out(path: Path | str | None = None) -> Comparison:
    """The shipped leave-one-pair-out study; ``FileNotFoundError``/``ValueError`` naming its script when unusable."""
    path = Path(path) if path is not None else LEAVE_OUT_RESULTS
    results = Comparison.load(path, script=LEAVE_OUT_SCRIPT)
    missing = [v for v in leave_out_variants() if v not in results.variants or not results.runs_of(v)]
    needed = [pair_final(m, p) for m in LEAVE_OUT_MEASURES for p in LEAVE_OUT_PAIRS]
    lacks = [f"{r.variant} seed {r.seed}" for r in results.runs if any(m not in r.final for m in needed)]
    if missing or lacks:
        raise ValueError(f"{path.name} lacks {', '.join(missing + lacks)}; run `python {LEAVE_OUT_SCRIPT}` again")
    return results


def leave_out_spreads(results: Comparison, pair: Pair, measure: str) -> tuple[Spread, Spread]:
    """(``pair`` trained, in the model with every pair; ``pair`` zero-shot, in the model without it), over seeds."""
    final = pair_final(measure, pair)
    return results.spread(final, ALL_PAIRS), results.spread(final, leave_out_variant(pair))


def leave_out_rows(results: Comparison) -> list[dict]:
    """One row per pair: BLEU, exact match and token accuracy with the pair trained and zero-shot, mean ± sd and n."""
    rows = []
    for pair in LEAVE_OUT_PAIRS:
        row = {"pair": pair_label(pair)}
        for measure, (name, fmt) in LEAVE_OUT_MEASURES.items():
            trained, zero = leave_out_spreads(results, pair, measure)
            row[f"{name}: trained"] = trained.text(fmt, with_n=False)
            row[f"{name}: zero-shot"] = zero.text(fmt, with_n=False)
        row["n"] = f"{len(results.runs_of(ALL_PAIRS))} / {len(results.runs_of(leave_out_variant(pair)))}"
        rows.append(row)
    return rows


def leave_out_figure(results: Comparison, measure: str = "bleu") -> go.Figure:
    """The paper's Figure 1 in miniature: per pair, trained against zero-shot, mean bars with ± sd whiskers."""
    name, fmt = LEAVE_OUT_MEASURES[measure]
    labels = [pair_label(p) for p in LEAVE_OUT_PAIRS]
    spreads = [leave_out_spreads(results, p, measure) for p in LEAVE_OUT_PAIRS]
    traces = []
    for i, (what, colour) in enumerate((("trained (every pair)", "#e45756"), ("zero-shot (pair left out)", "#72b7b2"))):
        sides = [pair[i] for pair in spreads]
        traces.append(
            {
                "type": "bar",
                "x": labels,
                "y": [s.mean for s in sides],
                "name": what,
                "marker": {"color": colour},
                "error_y": {"type": "data", "array": [s.sd for s in sides], "visible": True},
                "customdata": [s.n for s in sides],
                "hovertemplate": f"%{{x}} · {what}<br>{name} %{{y:{fmt}}} (n = %{{customdata}})<extra></extra>",
            }
        )
    shown, lines = charts.wrapped_title(f"Each pair trained and zero-shot: test {name}, mean ± sd over seeds")
    layout = {
        "barmode": "group",
        "height": 360 + 18 * (lines - 1),
        "margin": {"l": 10, "r": 10, "t": 22 + 18 * lines, "b": 10},
        "title": {"text": shown},
        "yaxis": {"title": {"text": name}, "rangemode": "tozero"} | ({"tickformat": ".0%"} if "%" in fmt else {}),
        "legend": {"orientation": "h", "y": -0.2},
    }
    return charts.figure(traces, layout)


def _means_by_seed(results: Comparison, measure: str) -> dict[int, tuple[float, float]]:
    """Per seed that every variant has: (trained, zero-shot) ``measure``, each the mean over the six pairs: trained
    in the model with every pair, zero-shot in each pair's own model without it."""
    seeds = [
        s
        for s in results.seeds
        if all(results.runs_of(v) and any(r.seed == s for r in results.runs_of(v)) for v in leave_out_variants())
    ]

    def value(variant: str, seed: int, pair: Pair) -> float:
        return next(r for r in results.runs_of(variant) if r.seed == seed).value(pair_final(measure, pair))

    return {
        s: (
            float(np.mean([value(ALL_PAIRS, s, p) for p in LEAVE_OUT_PAIRS])),
            float(np.mean([value(leave_out_variant(p), s, p) for p in LEAVE_OUT_PAIRS])),
        )
        for s in seeds
    }


def _over_pairs(results: Comparison, measure: str) -> tuple[Spread, Spread]:
    """Each seed's mean over the six pairs, trained and zero-shot (:func:`_means_by_seed`): two spreads over the
    seeds."""
    means = _means_by_seed(results, measure).values()
    return Spread(tuple(t for t, _ in means)), Spread(tuple(z for _, z in means))


def mean_metric(measure: str) -> str:
    """The name the finding's verdict gives ``measure``'s mean over the pairs (its drift is measured by that name)."""
    return f"{measure}, mean over the pairs"


def drift_figures(results: Comparison) -> dict[tuple[str, int, str], dict[str, float]]:
    """The figures :func:`leave_out_finding` compares that no single run holds, for ``bench/drift.py`` to hold apart
    between kernel settings: per seed and measure, the trained and the zero-shot mean over the pairs, under the name
    the finding's verdict asks the drift file for, keyed as a run is (variant, seed, params)."""
    figures: dict[tuple[str, int, str], dict[str, float]] = {}
    for measure in LEAVE_OUT_MEASURES:
        for seed, (trained, zero) in _means_by_seed(results, measure).items():
            figures.setdefault(("trained, mean over the pairs", seed, "{}"), {})[mean_metric(measure)] = trained
            figures.setdefault(("zero-shot, mean over the pairs", seed, "{}"), {})[mean_metric(measure)] = zero
    return figures


CLOSE_SHARE = 0.9  # zero-shot within 10% of the trained score: "very close", the paper's words


def leave_out_finding(results: Comparison, measure: str = "bleu") -> str:
    """The paper's Figure 1 claim (left-out pairs zero-shot "very close to the supervised model") tested on the
    shipped runs: averaged over the pairs, and pair by pair (:func:`verdict`, mean ± sd over seeds)."""
    name, fmt = LEAVE_OUT_MEASURES[measure]
    trained, zero = _over_pairs(results, measure)
    gap = BLEU_MIN_GAP if measure == "bleu" else MIN_GAP  # one BLEU point, or 5 points of a share: no finding
    outcome, _ = verdict(zero, trained, min_gap=gap, metric=mean_metric(measure), results=results.source)
    share = zero.mean / trained.mean if trained.mean else float("nan")
    per_pair = {
        p: verdict(
            *leave_out_spreads(results, p, measure)[::-1],
            min_gap=gap,
            metric=pair_final(measure, p),
            results=results.source,
        )[0]
        for p in LEAVE_OUT_PAIRS
    }
    below = [pair_label(p) for p, o in per_pair.items() if o == "worse"]
    above = [pair_label(p) for p, o in per_pair.items() if o == "better"]
    numbers = (
        f"{zero.text(fmt, with_n=False)} zero-shot against {trained.text(fmt, with_n=False)} trained "
        f"(n = {zero.n} seeds, each the mean over the {len(LEAVE_OUT_PAIRS)} pairs)"
    )
    if outcome == "too close":
        head = f"Left out of training or trained, a pair scores too close to call by {name}: {numbers}"
    else:
        word = "worse" if outcome == "worse" else "better"
        head = f"Left out of training, a pair is translated clearly **{word}** zero-shot than trained, by {name}: "
        head += numbers
    close = share >= CLOSE_SHARE
    paper = (
        "as the paper found (“very close to the supervised model”)"
        if close
        else "so the paper's “very close to the supervised model” does **not** hold here"
    )
    pairs = (
        f" Pair by pair, zero-shot is clearly below trained for {len(below)} of {len(per_pair)}"
        + (f" ({', '.join(below)})" if below else "")
        + (f" and clearly above for {', '.join(above)}" if above else "")
        + "."
    )
    return f"{head}; zero-shot reaches {share:.0%} of the trained {name}, {paper}.{pairs}"


def reference_note(left_out: Comparison, grid: Comparison) -> str:
    """How far the "trained" reference itself is from a model that learned one pair alone: the model with every
    pair (mean BLEU over the left-out pairs, per seed) against the grid's bilingual model (its two directions), so a
    "very close" or "far" above is read against a reference that may itself be short of steps. Empty without a
    bilingual model with BLEU in the grid."""
    names = [pair_name(p) for p in BILINGUAL_PAIRS]  # the two directions the bilingual model trains
    bilingual = [r for r in grid.runs_of("bilingual") if "test" in r.extra] if "bilingual" in grid.variants else []
    if not bilingual or not all("bleu" in r.extra["test"].get(n, {}) for r in bilingual for n in names):
        return ""
    trained, _ = _over_pairs(left_out, "bleu")
    alone = Spread(tuple(float(np.mean([r.extra["test"][n]["bleu"] for n in names])) for r in bilingual))
    directions = " and ".join(names)
    drift = added_drift((mean_metric("bleu"), left_out.source), ("en_fr_bleu", grid.source))  # each file's own
    outcome, why = verdict(
        trained, alone, min_gap=BLEU_MIN_GAP, metric="BLEU (the two files' drifts added)", drift=drift
    )
    said = {
        "worse": "far below it (other pairs, so a rough guide): the reference shares the grid's steps among every "
        "pair and is itself far from a trained translator",
        "better": "above it",
    }.get(outcome, f"too close to call against it by the course's rule ({why})")
    return (
        f"The “trained” reference above is the model with every pair, trained for the grid's steps: "
        f"{trained.text('.1f', with_n=False)} BLEU over the left-out pairs, against "
        f"{alone.text('.1f', with_n=False)} for the grid's bilingual model on its one pair ({directions}); "
        f"{said}. A zero-shot score close to it is close to a weak model, not to a trained translator."
    )


def findings(left_out: Comparison, grid: Comparison | None) -> list[str]:
    """The leave-one-pair-out section's findings in page order: the Figure 1 claim by BLEU and by tokens, then,
    with the grid's results, the hub comparison and how far the "trained" reference is from a bilingual model."""
    lines = [leave_out_finding(left_out, m) for m in ("bleu", "tokens")]
    if grid is not None:
        lines.append(leave_out_against_hub(left_out, grid))
        if note := reference_note(left_out, grid):
            lines.append(note)
    return lines


HUB_CLAIM = "those zero-shot models are generally better than the ones from the previously discussed"


def leave_out_against_hub(left_out: Comparison, grid: Comparison) -> str:
    """The paper's second Figure 1 claim: a pair left out alone is translated zero-shot better than by the hub
    model, which leaves out every pair without the hub. Tested on the pairs that avoid the hub, the same test
    directions in both files, per seed (BLEU where the grid has it, else token accuracy)."""
    measure, key = ("bleu", "bleu") if has_bleu(grid) else ("tokens", "token_accuracy")
    name, fmt = LEAVE_OUT_MEASURES[measure]
    pairs = [p for p in LEAVE_OUT_PAIRS if HUB not in p]
    seeds = sorted(set(left_out.seeds) & {r.seed for r in grid.runs_of("hub-mono")})

    def alone(seed: int) -> float:
        runs = [next(r for r in left_out.runs_of(leave_out_variant(p)) if r.seed == seed) for p in pairs]
        return float(np.mean([r.value(pair_final(measure, p)) for r, p in zip(runs, pairs, strict=True)]))

    def hub(seed: int) -> float:
        test = next(r for r in grid.runs_of("hub-mono") if r.seed == seed).extra["test"]
        return float(np.mean([test[pair_name(d)][key] for p in pairs for d in (p, p[::-1])]))

    a, b = Spread(tuple(map(alone, seeds))), Spread(tuple(map(hub, seeds)))
    # a mean over the pairs drifts no further than its furthest pair; the hub model's six directions are its zero-shot
    pair_drifts = [verdicts.measured_drift(pair_final(measure, p), left_out.source) for p in pairs]
    hub_drift = verdicts.measured_drift(f"zero_shot_{measure}", grid.source)
    drift = None if None in (*pair_drifts, hub_drift) else max(pair_drifts) + hub_drift
    gap = BLEU_MIN_GAP if measure == "bleu" else MIN_GAP
    outcome, _ = verdict(a, b, min_gap=gap, metric=f"{name} (the two files' drifts added)", drift=drift)
    said = {"better": "clearly higher; the toy agrees", "worse": "clearly lower; the toy finds the **opposite**"}
    numbers = f"{a.text(fmt, with_n=False)} against {b.text(fmt, with_n=False)}, n = {a.n} seeds"
    return (
        f"The paper: “{HUB_CLAIM}” hub model. Here, on the {2 * len(pairs)} directions that avoid the "
        f"{LANGUAGE_NAMES[HUB]} hub, zero-shot {name} with one pair left out against the hub + monolingual model of "
        f"the grid: {said.get(outcome, 'too close to call; no finding')} ({numbers})."
    )


def leave_out_note(meta: Mapping) -> str:
    """How the study was trained, for its provenance caption."""
    return (
        f"{meta.get('steps')} steps of {meta.get('batch_size')} sentences per model (the grid's), λ = "
        f"{meta.get('penalty_weight')}, {meta.get('test_sentences')} test meanings per direction, weights rounded "
        f"to float16; BLEU is corpus BLEU over the words (minimodels.bleu, no smoothing). One torch thread; "
        f"{load_note(meta)}."
    )
