"""Section 4's comparison: resolvers of 1 and 2 layers trained over several seeds, each head measured.

What ``scripts/multi_head_attention_coreference.py`` runs to write ``assets/results/multi_head_attention_it.json``
and the shipped resolver: one measured run (:func:`measure_it`), the per-head measures (:func:`head_measures`, also
read by the page for the shipped model), the seed that is shipped (:func:`median_seed`); then the results as the
page reads them: table, curves and the sentences computed from them.

Letters: B sentences, T words, h heads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.runs import Run
from lessons.common.verdicts import verdict
from minimodels.coreference import ItConfig, ItResolver
from minimodels.coreference import accuracy as resolver_accuracy
from minimodels.coreference import train as train_resolver
from minimodels.tasks import coreference

IT_RESULTS = ROOT / "assets" / "results" / "multi_head_attention_it.json"
IT_SCRIPT = "scripts/multi_head_attention_coreference.py"
IT_CHECKPOINT = ROOT / "assets" / "multi_head_attention" / "it-resolver"
IT_LAYERS: tuple[int, ...] = (1, 2)  # the compared depths; the shipped model is the deepest
IT_HEADS, IT_STEPS = 4, 800
ACCURACY = "il/elle right, nouns of two genders"
PREFER_GAP = 0.05  # a best head's rate must beat layer 1's by more than this (and the spread) to count as linking
PREFERS, LARGEST, FLIPS = "prefers the referent", "largest weight on the referent", "flips with the ending"
IT_TABLE = {"test " + ACCURACY: ".1%", **{f"layer {n}, best head: {m}": ".0%" for n in IT_LAYERS
            for m in (PREFERS, FLIPS)}, "CPU s": ".1f"}  # fmt: skip


def it_variant(layers: int) -> str:
    """The comparison's name of a model with ``layers`` layers: ``"2 layers"``."""
    return f"{layers} layer{'s' * (layers != 1)}"


def head_measures(model: ItResolver, sentences: Sequence[coreference.ItSentence]) -> dict[str, dict[str, list[float]]]:
    """Per layer, per head, over ``sentences`` and each one's twin with the other ending (tired <-> wide):
    how often the head gives the referent more weight from "it" than the other noun (``PREFERS``), how often its
    largest weight from "it" falls on the referent (``LARGEST``), and how often it prefers the referent in both
    twins, i.e. moves from one noun to the other when the ending changes (``FLIPS``). Also ``"ratio change"``: the
    largest change of log(α_noun1 / α_noun2) between twins (layer 1: 0 up to float rounding; a weight of exactly 0
    is read as float32's smallest positive number, so the change is finite)."""
    twins = [coreference.swapped(s) for s in sentences]
    out = {}
    with torch.inference_mode():
        read = [_from_it(model, coreference.encode(batch)) for batch in (list(sentences), twins)]
    for name in read[0]:
        (w, ref, oth), (_, ref2, oth2) = read[0][name], read[1][name]  # (B, h, T), (B, h), (B, h)
        prefers, prefers2 = ref > oth, ref2 > oth2
        on_ref = w.argmax(-1) == torch.as_tensor([s.referent for s in sentences])[:, None]
        # ref/oth swap roles between the twins; a weight that underflowed to 0 counts as float32's smallest positive
        # number, so that the change stays a finite number (a results file holds no infinity)
        ref, oth, ref2, oth2 = (x.clamp_min(torch.finfo(torch.float32).tiny) for x in (ref, oth, ref2, oth2))
        ratio = (torch.log(ref / oth) + torch.log(ref2 / oth2)).abs()
        out[name] = {
            PREFERS: prefers.float().mean(0).tolist(),
            LARGEST: on_ref.float().mean(0).tolist(),
            FLIPS: (prefers & prefers2).float().mean(0).tolist(),
            "ratio change": ratio.max(0).values.tolist(),
        }
    return out


def _from_it(model: ItResolver, batch: Mapping[str, torch.Tensor]) -> dict[str, tuple[torch.Tensor, ...]]:
    """Layer -> (weights from "it" (B, h, T), weight on the referent (B, h), weight on the other noun (B, h))."""
    out = model(batch["tokens"], batch["lengths"], batch["it"])
    rows = torch.arange(len(batch["it"]))
    found = {}
    for name, w in out.attention.items():
        from_it = w[rows, :, batch["it"]]  # (B, h, T)
        found[name] = (from_it, from_it[rows, :, batch["referent"]], from_it[rows, :, batch["other"]])  # (B, h) each
    return found


def measure_it(layers: int, seed: int, steps: int = IT_STEPS) -> tuple[Run, ItResolver]:
    """Train one resolver of the comparison (``layers`` layers of ``IT_HEADS`` heads) and measure it on the test
    split (noun pairs it never saw together): its run, and the model."""
    task = coreference.it_task()
    torch.manual_seed(seed)
    model = ItResolver(ItConfig(n_heads=IT_HEADS, n_layers=layers))
    trained = train_resolver(model, task, seed=seed, steps=steps)
    test = task.split("test")
    measures = head_measures(model, test)
    final = {
        "test " + ACCURACY: resolver_accuracy(model, coreference.encode(test)),
        "steps": steps,
        "CPU s": round(trained.cpu_seconds, 3),
        "wall s": round(trained.seconds, 3),
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    for name, values in measures.items():
        for m in (PREFERS, LARGEST, FLIPS):
            final[f"{name}, best head: {m}"] = round(max(values[m]), 4)
        final[f"{name}, ratio change"] = max(values["ratio change"])
    extra = {"heads": {n: {m: [round(x, 4) for x in v] for m, v in values.items()} for n, values in measures.items()}}
    run = Run(
        it_variant(layers),
        seed,
        params={"layers": layers, "heads": IT_HEADS},
        curve=trained.curve,
        final=final,
        extra=extra,
    )
    return run, model


def median_seed(c: Comparison, layers: int) -> int:
    """The seed whose deepest layer's best head prefers the referent the median amount: the model the page ships
    (a typical one, not the luckiest)."""
    runs = sorted(
        c.runs_of(it_variant(layers)), key=lambda r: (r.value(f"layer {layers}, best head: {PREFERS}"), r.seed)
    )
    return runs[(len(runs) - 1) // 2].seed


def load_it_results(path: Path | str | None = None) -> Comparison:
    """The shipped comparison of 1 and 2 layers; ``ValueError``/``FileNotFoundError`` name the script."""
    return Comparison.load(path or IT_RESULTS, script=IT_SCRIPT)


def it_rows(c: Comparison) -> list[dict]:
    """One row per depth, every measure as mean ± sd over the seeds ("no such layer" where the model has none)."""
    rows = []
    for v in c.variants:
        runs = c.runs_of(v)
        row = {"model": c.label(v), "n": len(runs)}
        for metric, fmt in IT_TABLE.items():
            has = all(r.final.get(metric) is not None for r in runs)
            row[metric] = c.spread(metric, v).text(fmt, with_n=False) if has else "no such layer"
        rows.append(row)
    return rows


IT_ROWS_CAPTION = (
    "Mean ± sd over the seeds (n), test split: 600 sentences whose two nouns never appeared together in training. "
    "il/elle is scored on those whose nouns differ in gender (elsewhere either noun gives the same word). Best "
    "head: the head of that layer with the highest rate; “prefers”: more weight from “it” on the referent than on "
    "the other noun, by any amount (1e-5 against 1e-8 counts); “flips”: prefers the referent with both endings (tired "
    "and wide), so it moved between nouns, however little weight either noun gets."
)


def it_curves(c: Comparison, height: int = 260) -> tuple[dict, dict]:
    """Training loss and held-out il/elle accuracy against the step, mean ± sd over seeds, each seed faint."""
    loss = curves_chart(
        c.curve_points("loss"),
        y_title="training loss",
        x_title="training step",
        title="Loss",
        height=height,
        log_y=True,
    )
    right = curves_chart(
        c.curve_points("accuracy"),
        y_title="held-out il/elle right",
        x_title="training step",
        title="Held-out accuracy",
        height=height,
        percent=True,
    )
    return loss, right


def it_observations(c: Comparison) -> list[str]:
    """The sentences of the comparison, each computed from it (a verdict or a count that can say the opposite)."""
    deep, shallow = it_variant(max(IT_LAYERS)), it_variant(min(IT_LAYERS))
    acc = "test " + ACCURACY
    v = c.compare(deep, shallow, acc)
    lines = [
        f"il/elle right on the test sentences: {v.sentence('.1%')}"
        if v.clear
        else f"il/elle right on the test sentences: {c.label(deep)} {v.a_spread.text('.1%')}, {c.label(shallow)} "
        f"{v.b_spread.text('.1%')}; {v.why('.1%')}: one layer resolves “it” about as well."
    ]
    flips = [r.value(f"layer 1, best head: {FLIPS}") for r in c.runs]
    ratio = max(r.value("layer 1, ratio change") for r in c.runs)
    lines.append(
        f"Layer 1: in {sum(f == 0 for f in flips)} of {len(flips)} runs no head ever moved from one noun to the other "
        f"when the ending changed (largest change of a head's log(α_noun1 / α_noun2): {ratio:.1e}"
        + (", float rounding)." if ratio < 1e-4 else ").")
        + (" Its query is made from “it” alone, so it cannot." if all(f == 0 for f in flips) else "")
    )
    n = max(IT_LAYERS)
    best, first = c.spread(f"layer {n}, best head: {PREFERS}", deep), c.spread(f"layer 1, best head: {PREFERS}", deep)
    outcome, _ = verdict(best, first, min_gap=PREFER_GAP, metric=f"layer {n}, best head: {PREFERS}", results=c.source)
    gap = best.mean - first.mean
    said = {
        "better": "prefers the referent more often than",
        "worse": "prefers the referent less often than",
        "too close": "is too close to call against",
    }[outcome]
    lines.append(
        f"In the {n}-layer model, the best head of layer {n} {said} layer 1's best head: {best.text('.0%')} of the "
        f"test sentences against {first.text('.0%')}, a gap of {gap:.0%} (clear only when larger than the two sds "
        f"together and than {PREFER_GAP:.0%}); its seeds range from {best.min:.0%} to {best.max:.0%}, and "
        f"{sum(x >= 0.9 for x in best.present)} of {best.n} seeds have a head in layer {n} that prefers the referent "
        "in 90% or more."
    )
    return lines
