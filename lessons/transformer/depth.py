"""Section 5: deeper stacks, with and without residuals: the lecture's depth argument measured.

The lecture backs residuals with "when the model goes deeper, gradient vanishing, gradient explosion, and saturation
may occur" and He et al.'s 20- and 56-layer plain nets. Here: the same small Transformer at 1, 2, 4 and 8 encoder and
decoder layers, as shipped, without residuals and without layer norm, every seed and depth on the same batches
(``scripts/transformer_results.py --experiment depth``); a prediction first, then the sweep's table, curves and
sentences, computed from the loaded runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import Run, Spread
from lessons.common.verdicts import verdict as comparison_verdict
from lessons.transformer.ablation_runs import COLORS, RESULT_SCRIPT, VARIANTS, recipe_of
from lessons.transformer.reading import MODEL
from minimodels.train import TrainConfig, default_train_config

TITLE = "5 · Deeper stacks, with and without residuals"
TEXT = (
    "The lecture backs residuals with He et al.'s plain networks: at 56 layers they train *worse* than at 20, "
    "training error included, so it is not overfitting. Here the same argument is measured on a smaller "
    "Transformer (d_model 32), at 1, 2, 4 and 8 layers a stack, as shipped, without residuals and without layer "
    "norm, each on every seed of the shipped sweep (n beside every figure): does adding layers help, and which "
    "variant stops being trainable as it deepens?"
)

DEPTH_RESULTS = ROOT / "assets" / "results" / "transformer_depth.json"
DEPTH_SCRIPT = f"{RESULT_SCRIPT} --experiment depth"
DEPTH_VARIANTS: dict[str, dict] = {k: VARIANTS[k] for k in ("full", "no residual", "no layer norm")}
DEPTHS = (1, 2, 4, 8)  # encoder layers = decoder layers
DEPTH_MODEL = {"d_model": 32, "n_heads": 2, "d_ff": 64}  # small, so that 8 + 8 layers train in seconds
DEPTH_METRICS = {"final loss": ".3f", "held-out exact": ".1%"}  # the sweep's two final metrics and their formats


def depth_overrides(variant: str, depth: int) -> dict:
    """The ``build_model`` overrides of one point of the sweep: the small model, ``depth`` layers a stack."""
    if variant not in DEPTH_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(DEPTH_VARIANTS)}")
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    return {**DEPTH_MODEL, **DEPTH_VARIANTS[variant], "encoder_layers": depth, "decoder_layers": depth}


def depth_config(steps: int, seed: int = 0, threads: int = 1) -> TrainConfig:
    """The sweep's recipe: the Transformer's default (as the ablation), smaller batches, a fixed step budget."""
    return default_train_config(
        MODEL,
        max_steps=steps,
        max_seconds=None,
        target_exact_match=None,
        report_every=50,
        batch_size=64,
        seed=seed,
        threads=threads,
    )


def depth_run(variant: str, seed: int, depth: int, measured: Mapping) -> Run:
    """One point of the sweep from one training: ``{"parameters", "steps", "seconds", "exact_match", "history"}``."""
    history = list(measured["history"])
    final = {
        "final loss": history[-1]["loss"],
        "held-out exact": measured["exact_match"],
        "steps": measured["steps"],
        "seconds": measured["seconds"],
        "parameters": measured["parameters"],
    }
    return Run(variant, seed, {"depth": depth}, tuple(history), final)


def load_depth_results(path: Path | str | None = None) -> Comparison:
    """The shipped depth sweep; ``FileNotFoundError`` or ``ValueError`` naming the script when unusable."""
    c = Comparison.load(path or DEPTH_RESULTS, script=DEPTH_SCRIPT)
    unknown = sorted(set(c.variants) - set(DEPTH_VARIANTS))
    if unknown:
        raise ValueError(f"the depth sweep has unknown variants: {', '.join(unknown)}: run python {DEPTH_SCRIPT}")
    if not c.param_values("depth"):
        raise ValueError(f"the depth sweep has no depths: run python {DEPTH_SCRIPT}")
    return c


def depth_prediction(c: Comparison) -> Exercise | None:
    """Predict, before section 5's sweep: from how many layers a stack the model without residuals falls behind the
    full model, clearly by the course's verdict rule. Computed from the sweep; None without both variants."""
    if not {"full", "no residual"} <= set(c.variants) or not c.param_values("depth"):
        return None
    depths = c.param_values("depth")
    spread = partial(c.spread, "held-out exact")
    behind = [
        d
        for d in depths
        if _direction(spread("no residual", {"depth": d}), spread("full", {"depth": d}), True) == "worse"
    ]
    choices = (*(f"from {d} layer{'s' * (d > 1)} a stack" for d in depths), f"at none of {depths[0]}–{depths[-1]}")
    answer = depths.index(behind[0]) if behind else len(depths)
    numbers = "; ".join(
        f"{d}: {spread('no residual', {'depth': d}).text('.1%')} against {spread('full', {'depth': d}).text('.1%')}"
        for d in depths
    )
    return Exercise(
        key="transformer.ex7",
        prompt=(
            f"**Predict before you open the sweep.** The small Transformer is trained at {', '.join(map(str, depths))} "
            "layers a stack, with and without residual connections. From which depth does the model *without* "
            "residuals end behind the full one, clearly by the course's verdict rule (held-out exact match)?"
        ),
        choices=choices,
        answer=answer,
        explanation=(
            f"Held-out exact match, without residuals against the full model, by layers a stack: {numbers}. "
            + (
                f"It is behind from {behind[0]} layer{'s' * (behind[0] > 1)}"
                + (
                    ", the shallowest stack measured, where there is no deep stack for a gradient to vanish through: "
                    "the sweep's sentences set this beside the lecture's depth reason."
                    if behind[0] == depths[0]
                    else ": every sublayer without “x +” must pass on everything the layers above need, and the "
                    "gradient has no straight path back down."
                )
                if behind
                else "It is never clearly behind in this sweep."
            )
        ),
        hint="The shipped ablation in section 4 has 2 layers a stack.",
    )


def depth_curves(c: Comparison, height: int = 240) -> tuple[dict, dict]:
    """Final training loss and held-out exact match against depth (log₂ axis), one line per variant: the mean over
    seeds with a ± sd band, and each seed faintly."""

    def points(metric: str) -> list[dict]:
        return [p | {"label": p["variant"]} for p in c.sweep_points(metric, "depth")]

    loss = curves_chart(
        points("final loss"),
        y_title="final training loss",
        x_title="layers per stack",
        log_x=True,
        title="Final loss (log scale)",
        height=height,
        log_y=True,
        colors=COLORS,
    )
    exact = curves_chart(
        points("held-out exact"),
        y_title="held-out exact match",
        x_title="layers per stack",
        title="Exact match",
        height=height,
        log_x=True,
        percent=True,
        colors=COLORS,
    )
    depths = list(c.param_values("depth"))
    return _seed_points(loss, depths), _seed_points(exact, depths)


def _seed_points(spec: dict, depths: list[int]) -> dict:
    """The chart with a dot on each seed's faint line at every depth (a sweep has few x, each one a measurement),
    and a tick at each depth measured."""
    spec["encoding"]["x"]["axis"] = {"values": depths}
    for layer in spec.get("layer", ()):
        if any("datum.kind === 'seed'" in t.get("filter", "") for t in layer.get("transform", ())):
            layer["mark"] = {**layer["mark"], "point": {"size": 14, "filled": True, "opacity": 0.5}}
    return spec


def depth_rows(c: Comparison) -> list[dict]:
    """One row per variant and depth: the two final metrics, mean ± sd (n)."""
    return [
        {"variant": variant, "layers": depth}
        | {m: c.spread(m, variant, {"depth": depth}).text(f, with_n=False) for m, f in DEPTH_METRICS.items()}
        | {"n": c.spread("final loss", variant, {"depth": depth}).total}
        for variant in c.variants
        for depth in c.param_values("depth")
    ]


def _direction(a: Spread, b: Spread, higher_is_better: bool, metric: str = "held-out exact") -> str:
    """Whether it is "better", "worse" or "too close" for ``a`` against ``b`` on ``metric``, by the course's rule
    (the drift it holds the gap against: the depth sweep's file's, for that metric)."""
    return comparison_verdict(a, b, higher_is_better=higher_is_better, metric=metric, results=DEPTH_RESULTS.stem)[0]


def depth_observations(c: Comparison) -> list[str]:
    """What the sweep shows, computed from it: for each variant, how its held-out exact match moves from the
    shallowest to the deepest stack; and at each depth, whether it is ahead of or behind the full model."""
    depths = c.param_values("depth")
    if len(depths) < 2:
        return []
    low, high = depths[0], depths[-1]
    lines = []
    for variant in c.variants:
        a, b = c.spread("held-out exact", variant, {"depth": high}), c.spread("held-out exact", variant, {"depth": low})
        moves = {"better": "rises", "worse": "falls", "too close": "does not clearly move"}
        deep, shallow = (
            c.spread("final loss", variant, {"depth": high}),
            c.spread("final loss", variant, {"depth": low}),
        )
        text = (
            f"**{variant}**: held-out exact match {moves[_direction(a, b, True)]} from {b.text('.1%')} at {low} "
            f"layer{'s' * (low > 1)} a stack to {a.text('.1%')} at {high} layers, and the final loss "
            f"{moves[_direction(deep, shallow, True, 'final loss')]} from {shallow.text('.3f')} to "
            f"{deep.text('.3f')}"
        )
        if variant != "full" and "full" in c.variants:
            spread = partial(c.spread, "held-out exact")
            against = {d: _direction(spread(variant, {"depth": d}), spread("full", {"depth": d}), True) for d in depths}
            behind = [d for d in depths if against[d] == "worse"]
            ahead = [d for d in depths if against[d] == "better"]
            text += f"; clearly behind the full model by the course's rule at {_depth_list(behind)}"
            if ahead:
                text += f", ahead of it at {_depth_list(ahead)}"
        lines.append(text + "." + _peak_sentence(c, variant))
    return lines + lecture_beside_sweep(c)


def _peak_sentence(c: Comparison, variant: str) -> str:
    """Where ``variant``'s held-out exact match peaks, and whether the deepest stack falls from that peak by the
    comparison's rule: the first-to-last sentence alone would hide a drop after the peak. Empty when the peak is
    the shallowest or the deepest stack (the first-to-last sentence says it then)."""
    depths = c.param_values("depth")
    spread = {d: c.spread("held-out exact", variant, {"depth": d}) for d in depths}
    peak = max((d for d in depths if spread[d].mean is not None), key=lambda d: spread[d].mean, default=None)
    high = depths[-1]
    if peak is None or peak in (depths[0], high):
        return ""
    move = _direction(spread[high], spread[peak], True)
    said = {"worse": "falls", "better": "rises", "too close": "is too close to call against it"}[move]
    reason = f" ({comparison_verdict(spread[high], spread[peak])[1]})" if move == "too close" else ""
    return (
        f" Its best depth is {peak} layer{'s' * (peak > 1)}, {spread[peak].text('.1%')}; from there "
        f"to {high} layers it {said}{' to' if move != 'too close' else ':'} {spread[high].text('.1%')}"
        f"{reason}."
    )


LECTURE_DEPTH = (
    "The lecture's picture: residual connections and layer norm matter “when the model goes deeper” (gradients "
    "vanishing, exploding, saturating through many layers; He et al.'s plain 56-layer net trains worse than its "
    "20-layer one), so removing either should cost little in a shallow stack and more with each layer added."
)


def lecture_beside_sweep(c: Comparison) -> list[str]:
    """The lecture's depth picture set beside the sweep, computed from it: whether the model without residuals is
    already behind at the shallowest stack (then the depth reason does not explain it), and whether the model
    without layer norm is ever behind the full one (else the toy shows no benefit of layer norm at these depths).
    Empty without the full model or two depths."""
    depths = c.param_values("depth")
    if "full" not in c.variants or len(depths) < 2:
        return []
    low = depths[0]
    spread = partial(c.spread, "held-out exact")
    lines = [LECTURE_DEPTH]
    if "no residual" in c.variants:
        shallow = {v: spread(v, {"depth": low}) for v in ("no residual", "full")}
        loss = {d: c.spread("final loss", "no residual", {"depth": d}) for d in (low, depths[-1])}
        if _direction(shallow["no residual"], shallow["full"], True) == "worse":
            lines.append(
                f"**Not reproduced for residuals.** Without them the model is behind already at {low} layer"
                f"{'s' * (low > 1)} a stack ({shallow['no residual'].text('.1%')} against "
                f"{shallow['full'].text('.1%')} held-out exact match), where there is no deep stack for "
                "a gradient to vanish through: the lecture's depth reason does not explain this failure. What the "
                f"sweep does show: its final training loss goes from {loss[low].text('.3f')} at {low} "
                f"to {loss[depths[-1]].text('.3f')} at {depths[-1]} layers. A plausible reason, not "
                "measured here: without “x +”, the attention sublayer replaces each position's vector by a weighted "
                "average of value vectors, so a token's own identity and position survive only as far as its own "
                "weight, even in one layer."
            )
        else:
            lines.append(
                f"Without residuals the model is not clearly behind at {low} layer{'s' * (low > 1)} a stack "
                f"({shallow['no residual'].text('.1%')} against "
                f"{shallow['full'].text('.1%')}): the sweep's other depths say where it starts to "
                "cost, as the lecture's picture has it."
            )
    if "no layer norm" in c.variants:
        against = {d: _direction(spread("no layer norm", {"depth": d}), spread("full", {"depth": d}), True)
                   for d in depths}  # fmt: skip
        behind = [d for d in depths if against[d] == "worse"]
        ahead = [d for d in depths if against[d] == "better"]
        if behind:
            lines.append(
                f"Without layer norm the model is behind the full one at {_depth_list(behind)} (held-out exact "
                "match, by the comparison's rule)."
            )
        else:
            numbers = "; ".join(
                f"{d}: {spread('no layer norm', {'depth': d}).text('.1%')} against "
                f"{spread('full', {'depth': d}).text('.1%')}"
                for d in depths
            )
            lines.append(
                "**Not reproduced for layer norm.** Without it the model is behind the full one at no depth measured"
                + (f", and ahead of it at {_depth_list(ahead)}" if ahead else "")
                + f" (held-out exact match by layers a stack, without layer norm against the full model: {numbers}). "
                "The toy shows no benefit of layer norm up to "
                f"{depths[-1]} layers. Plausibly because its stacks are short next to He et al.'s and its training "
                f"brief ({c.meta.get('max_steps', '?')} steps); this sweep does not test that."
            )
    return lines


def _depth_list(depths: Sequence[int]) -> str:
    """ "1, 2 and 4 layers", "8 layers", "no depth"."""
    if not depths:
        return "no depth"
    words = [str(d) for d in depths]
    return (", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]) + " layers"


def depth_provenance_note(meta: Mapping) -> str:
    """What the provenance caption adds for the sweep: the model, the task, the budget and the recipe."""
    m, batch = meta.get("model") or {}, (meta.get("train_config") or {}).get("batch_size", "?")
    return (
        f"Task `{meta.get('task', '?')}`, d_model {m.get('d_model', '?')}, {m.get('n_heads', '?')} heads, d_ff "
        f"{m.get('d_ff', '?')}, {meta.get('max_steps', '?')} steps of {batch} examples each ({recipe_of(meta)}); "
        "held-out exact match on 200 validation sentences at the end. A smaller model and budget than the ablation "
        "above, so that 8 + 8 layers fit: its numbers are not the shipped model's."
    )
