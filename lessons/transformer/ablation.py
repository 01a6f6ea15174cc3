"""Section 4: residuals, layer norm and the feed-forward network, judged by what happens without them.

The lecture's reasons ("when the model goes deeper, gradient vanishing, gradient explosion, and saturation may
occur"; "Why feed forward NN?") put to the test: the convex-combination figure on the student's sentence
(:mod:`lessons.transformer.convex_combination`), two predictions asked before the results are revealed, then the
shipped ablation (:mod:`lessons.transformer.ablation_runs`) as a table, curves and sentences, every sentence
computed from the loaded runs, so it says the other thing when the numbers do.
"""

from __future__ import annotations

from collections.abc import Mapping

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.runs import load_note
from lessons.transformer.ablation_runs import ABLATION_TASK, COLORS, LEVEL, STEPS_TO, TABLE, recipe_of
from lessons.transformer.reading import MODEL
from minimodels.tasks import get_task
from minimodels.train import model_config

TITLE = "4 · Residuals, layer norm and the feed-forward network, by their effect"
TEXT = (
    "The lecture's reason for residual connections: “when the model goes deeper, gradient vanishing, gradient "
    "explosion, and saturation may occur.” A residual lets each sublayer learn only a *change* to its input, "
    "and, the usual argument goes, gives gradients a straight path down; layer norm keeps every sublayer's input "
    "at a steady scale. Those are depth arguments: section 5 tests both against depth, and says where the toy's "
    "failures do not fit them. And the "
    "lecture's question, “Why feed forward NN?”: an attention head's output is Σⱼ αᵢⱼ vⱼ with weights αᵢⱼ ≥ 0 "
    "that sum to 1, a *convex combination* of the value vectors. It can only land inside their convex hull (the "
    "figure: your sentence's values and outputs, drawn on the values' two main directions, a linear view that keeps "
    "the hull). Mixing is all attention does; the feed-forward network transforms each token. Switch one piece off "
    "and train the same model again: same seeds, same batches, same number of steps."
)


RESIDUAL_CHOICES = (
    "about as well as the full model (too close to call)",
    "clearly worse, but it learns part of the task",
    "it learns almost nothing (under 10% test exact match)",
)


def residual_prediction(c: Comparison) -> Exercise | None:
    """Predict, before section 4's results: how the model without residual connections ends, trained with the same
    recipe and budget. The answer is computed from the loaded runs; None when they lack either variant."""
    if not {"full", "no residual"} <= set(c.variants):
        return None
    verdict = c.compare("no residual", "full", "test exact")
    mean = c.spread("test exact", "no residual").mean
    answer = 0 if not verdict.clear else 2 if mean < 0.1 else 1
    return Exercise(
        key="transformer.ex5",
        prompt=(
            "**Predict before you open the results.** The same Transformer, trained with the same recipe, seeds and "
            "steps, but with every residual connection removed (each sublayer computes Sublayer(LN(x)), no “x +”). "
            "It ends…"
        ),
        choices=RESIDUAL_CHOICES,
        answer=answer,
        explanation=(
            f"{verdict.sentence('.1%', 'test exact match')} "
            + (
                "Without the “x +”, a token's own embedding (and its position) reaches the output only through every "
                "sublayer in turn, and the gradient only back through all of them. Whether that is the lecture's "
                "depth problem, section 5 measures down to 1 layer a stack."
                if verdict.outcome == "worse"
                else "At this depth the model without them ended clearly ahead within the budget."
                if verdict.outcome == "better"
                else "At this depth and within the budget these seeds cannot tell the two apart; that does not show "
                "the residuals are not needed, only that this comparison does not show them helping."
            )
        ),
        hint="Without “x +”, how does the input reach the top of the stack, and the gradient the bottom?",
    )


FFN_CHOICES = (
    "about as well as the full model (too close to call)",
    "better than the full model, clearly by the course's rule",
    "a little worse: clearly behind by the course's rule, still above 90% test exact match",
    "far worse: under 90% test exact match",
)


def ffn_prediction(c: Comparison) -> Exercise | None:
    """Predict, before section 4's results: how the model without its feed-forward networks ends. The answer is
    computed from the loaded runs; None when they lack either variant."""
    if not {"full", "no FFN"} <= set(c.variants):
        return None
    verdict = c.compare("no FFN", "full", "test exact")
    mean = c.spread("test exact", "no FFN").mean
    answer = {"too close": 0, "better": 1}.get(verdict.outcome, 2 if mean >= 0.9 else 3)
    why = {
        "worse": "Attention only averages value vectors; without the FFN the only per-token transformation left is "
        "the linear W^O (and the layer norms).",
        "better": "Here the averaging alone, with W^O, was enough, and the smaller model did better.",
        "too close": "At this size and budget the averaging alone, with W^O, was enough for this task.",
    }[verdict.outcome]
    return Exercise(
        key="transformer.ex6",
        prompt=(
            "**Predict before you open the results.** The same Transformer with every feed-forward network removed "
            "(each layer keeps its attention sublayers, residuals and layer norms). It ends…"
        ),
        choices=FFN_CHOICES,
        answer=answer,
        explanation=f"{ffn_sentence(c)} {why}",
        hint="What can a weighted average of value vectors, then one linear map, not compute?",
    )


def table_rows(c: Comparison) -> list[dict]:
    """One row per variant: steps and seconds to :data:`~lessons.transformer.ablation_runs.LEVEL`, and where the
    fixed budget left it."""
    return c.table(TABLE, missing="never")


def _value(c: Comparison, metric: str, variant: str, fmt: str) -> str:
    """``metric`` of ``variant``: one run's value as it is, several runs' as mean ± sd (n)."""
    spread = c.spread(metric, variant)
    if spread.total > 1:
        return spread.text(fmt, missing="never")
    return "never" if spread.mean is None else format(spread.mean, fmt)


def observations(c: Comparison) -> list[str]:
    """What the table says, in sentences computed from it (each variant against the full model)."""
    if "full" not in c.variants:
        return []
    lines = []
    for variant in ("no residual", "no layer norm", "post-LN"):
        if variant not in c.variants or not c.runs_of(variant):
            continue
        ours, theirs = c.spread(STEPS_TO, "full"), c.spread(STEPS_TO, variant)
        if theirs.n == 0:
            pace = f"never reached {LEVEL:.0%} in {c.spread('steps', variant).max:.0f} steps"
        elif ours.n == 0:
            pace = f"reached {LEVEL:.0%} at step {_value(c, STEPS_TO, variant, '.0f')}, which the full model never did"
        else:
            pace = (
                f"reached {LEVEL:.0%} at step {_value(c, STEPS_TO, variant, '.0f')} (full model: step "
                f"{_value(c, STEPS_TO, 'full', '.0f')})"
            )
        text = (
            f"**{variant}** {pace}; it ended at {_value(c, 'test exact', variant, '.1%')} test exact match against the "
            f"full model's {_value(c, 'test exact', 'full', '.1%')}, with a final loss of "
            f"{_value(c, 'final loss', variant, '.3f')} against {_value(c, 'final loss', 'full', '.3f')}."
        )
        verdict = c.compare(variant, "full", "test exact")
        if verdict.clear:
            side = "ahead of" if verdict.outcome == "better" else "behind"
            text += f" On test exact match it is {side} the full model, clearly by the course's rule."
        elif len(c.seeds) > 1:
            text += f" On test exact match the two are too close to call ({verdict.why('.1%')})."
        lines.append(text)
    if (ffn := ffn_sentence(c)) is not None:
        lines.append(ffn)
    if lines and (warmup := warmup_sentence(c)) is not None:
        lines.append(warmup)
    if lines and len(c.seeds) == 1:
        lines.append(
            f"One seed ({c.seeds[0]}) per variant: each line is a single run, so no gap here is measured against the "
            "spread over seeds."
        )
    return lines


CHART_HEIGHT = 380  # pixels for a curve chart on the page, its title and legend included (the spec's is its plot's)


def ablation_curves(c: Comparison, x: str = "step", height: int = 240) -> tuple[dict, dict]:
    """Training loss and held-out exact match, one line per variant (mean ± sd where there are several seeds),
    against ``x``: two Vega-Lite specs."""
    if x not in ("step", "seconds"):
        raise ValueError(f"x must be 'step' or 'seconds', not {x!r}")
    x_title = "training step" if x == "step" else "seconds"

    def points(metric: str) -> list[dict]:  # the legend names the variant, the table its arrangement
        return [p | {"label": p["variant"]} for p in c.curve_points(metric, x=x)]

    loss = curves_chart(
        points("loss"),
        y_title="training loss",
        x_title=x_title,
        title="Loss (log scale)",
        height=height,
        log_y=True,
        colors=COLORS,
    )
    accuracy = curves_chart(
        points("exact_match"),
        y_title="held-out exact match",
        x_title=x_title,
        title="Exact match",
        height=height,
        percent=True,
        colors=COLORS,
    )
    return loss, accuracy


def provenance_note(meta: Mapping) -> str:
    """What the provenance caption adds for the ablation: the task, the budget, the checks and the one recipe."""
    return (
        f"Task `{meta.get('task', '?')}`, {meta.get('max_steps', '?')} steps each; held-out exact match on 200 "
        f"validation sentences every 25 steps, test exact match on the {meta.get('test_size', '?')} test sentences "
        f"at the end. {load_note(meta)}; the steps do not depend on it. One recipe for all four ({recipe_of(meta)}), "
        "the one tuned for the full model: a variant might do better with its own learning rate or warm-up, so this "
        "compares the pieces, not their best runs."
    )


def warmup_sentence(c: Comparison) -> str | None:
    """Whether post-LN, trained with the pre-LN model's short warm-up, fell behind it: computed from the loaded
    runs (test exact match, with the verdict's spread rule), so a run where it did says so. None without both."""
    if not {"full", "post-LN"} <= set(c.variants):
        return None
    verdict = c.compare("post-LN", "full", "test exact")
    numbers = f"{c.spread('test exact', 'post-LN').text('.1%')} against {c.spread('test exact', 'full').text('.1%')}"
    recipe = recipe_of(c.meta)
    if verdict.outcome == "worse":
        return (
            f"With the same {recipe}, post-LN ends behind pre-LN on test exact match ({numbers}): here the short "
            "warm-up that suits pre-LN does not suit the paper's arrangement."
        )
    if verdict.outcome == "better":
        return (
            f"With the same {recipe}, post-LN ends ahead of pre-LN on test exact match ({numbers}): at {_depth()} "
            "the short warm-up did not hold it back."
        )
    return (
        f"With the same {recipe}, post-LN and pre-LN are too close to call on test exact match ({numbers}; "
        f"{verdict.why('.1%')}): at {_depth()} the short warm-up did not visibly hold post-LN back. This run says "
        "nothing about deeper stacks, where the warm-up trouble was reported."
    )


def _depth() -> str:
    """The ablation model's depth, read from the config it is built with: "2 + 2 layers"."""
    c = model_config(MODEL, get_task(ABLATION_TASK))
    return f"{c.encoder_layers} + {c.decoder_layers} layers"


def ffn_sentence(c: Comparison) -> str | None:
    """The no-FFN ablation in one sentence, from the loaded runs (None without both variants): which side of the
    full model it ends on by the verdict's rule, and the parameter counts, since removing the FFN also shrinks it."""
    if not {"full", "no FFN"} <= set(c.variants):
        return None
    verdict = c.compare("no FFN", "full", "test exact")
    side = {
        "worse": "ends behind the full model on test exact match, clearly by the course's rule",
        "better": "ends ahead of the full model on test exact match, clearly by the course's rule",
        "too close": "and the full model are too close to call on test exact match",
    }[verdict.outcome]
    numbers = f"{_value(c, 'test exact', 'no FFN', '.1%')} against {_value(c, 'test exact', 'full', '.1%')}"
    loss = f"final loss {_value(c, 'final loss', 'no FFN', '.3f')} against {_value(c, 'final loss', 'full', '.3f')}"
    small, full = c.spread("parameters", "no FFN").mean, c.spread("parameters", "full").mean
    return (
        f"**no FFN** {side} ({numbers}; {loss}). It also has {1 - small / full:.0%} fewer parameters ({small:,.0f} "
        f"against {full:,.0f}), so this run cannot tell “no per-token transformation” from “a smaller model”."
    )
