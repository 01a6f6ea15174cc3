"""Section 4 of the scaling lesson: train it, one self-attention layer, d_k from small to large.

What the shipped comparison (:mod:`lessons.scaling.recall_training`) says, every sentence computed from it: where
the scale clearly helps the final held-out accuracy, where the two are too close to call, what the softmax and the
gradient reaching W^Q looked like at step 0; the charts, the table, and two predictions made before they show.

Letters: d_k = d_model the size of q and k, α the softmax's weights, L the loss.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lessons.common.comparison import Comparison
from lessons.common.curves import curves_chart
from lessons.common.exercises import Exercise
from lessons.common.verdicts import Verdict, by_outcome, verdict
from lessons.scaling.recall_training import INIT_METRICS, RECALL_LEVEL, RECALL_STEPS, recall_config
from lessons.scaling.scores import COLORS

TITLE = "4 · Train it: one self-attention layer, d_k from small to large"
STEP_0_TEXT = "At step 0, before any training (every seed faint, mean ± sd):"
RECALL_TEXT = (
    "Lesson 4's GRU race could not show the stall: a GRU's states are small and never leave [−1, 1] (section 5). "
    "Here the queries and keys are what the √d_k argument assumes. The task, **recall**: an example is "
    "{items} items, each a key word and a value word (“k3 → v11”), and a question naming one of the keys; the "
    "answer is its value, one of {values}. The model is one self-attention layer with one set of lesson 5's W^Q, "
    "W^K, W^V, so d_k = d_model, over the {items} item vectors (key embedding + value embedding, ÷ √2) and the "
    "question's vector; a linear layer reads the question's output z = Σ αⱼvⱼ. No positions are needed: the "
    "question must find its item by content. W^Q, W^K, W^V start with Glorot's initialisation, so q and k have "
    "components of variance about 1, and the two models of a seed start with the same weights: the only "
    "difference is minimodels' ScaledDotProductAttention or DotProductAttention. Each learns for {steps} Adam "
    "steps (lr {lr:g}, batches of {batch}, the same batches for both) and is measured on {test} held-out examples."
)


def recall_text(results: Comparison | None = None) -> str:
    """Section 4's text, its settings read from the shipped results' config (the lesson's own when absent)."""
    config = {**recall_config(), **((results.meta.get("train_config") or {}) if results is not None else {})}
    return RECALL_TEXT.format(
        items=config["items"],
        values=config["values"],
        steps=config["steps"],
        lr=config["lr"],
        batch=config["batch"],
        test=config["test_examples"],
    )


def recall_d_ks(results: Comparison) -> list[int]:
    return list(results.param_values("d_k"))


def recall_verdicts(results: Comparison) -> dict[int, Verdict]:
    """d_k -> is scaled better than unscaled on final held-out accuracy, clearly, by the course's verdict rule?"""
    return {d: results.compare("scaled_dot", "dot", "test accuracy", where={"d_k": d}) for d in recall_d_ks(results)}


def _listed(ds: Sequence[int]) -> str:
    return ", ".join(map(str, ds[:-1])) + (" and " if len(ds) > 1 else "") + str(ds[-1])


def recall_headline(results: Comparison) -> str:
    """The section's claim, computed: at which d_k the scale clearly helps, where the seeds cannot tell the two
    apart, and where (if anywhere) it hurts, on held-out accuracy at the end of training."""
    verdicts = recall_verdicts(results)
    helps, close, hurts = by_outcome(verdicts).values()
    steps = (results.meta.get("train_config") or {}).get("steps", RECALL_STEPS)
    parts = []
    if helps:
        big = verdicts[helps[-1]]
        parts.append(
            f"After {steps} steps, the scale clearly helps at d_k = {_listed(helps)}: at d_k = {helps[-1]}, "
            f"{big.a_spread.text('.0%')} held-out accuracy scaled against {big.b_spread.text('.0%')} "
            "unscaled."
        )
    else:
        parts.append(f"After {steps} steps, the scale is not clearly better at any d_k measured.")
    if close:
        parts.append(
            f"At d_k = {_listed(close)} the two are too close to call: these seeds cannot tell them apart there, which "
            "is not the same as showing that the scale makes no difference."
        )
    if hurts:
        parts.append(f"At d_k = {_listed(hurts)} the unscaled model is clearly ahead.")
    return " ".join(parts)


def recall_observations(results: Comparison) -> list[str]:
    """One sentence per d_k (the verdict on final accuracy), then what the softmax and the gradient looked like at
    step 0, all computed from the results."""
    lines = [f"d_k = {d}: {v.sentence('.0%', 'held-out accuracy')}" for d, v in recall_verdicts(results).items()]
    ds = recall_d_ks(results)
    lo, hi = ds[0], ds[-1]

    def mean(metric: str, score: str, d: int) -> float:
        return results.spread(metric, score, {"d_k": d}).mean

    alpha, entropy, grad = "initial largest α", "initial entropy (bits)", "initial ‖∂L/∂W^Q‖"
    lines.append(
        f"At step 0, unscaled, the softmax's mean largest α goes from {mean(alpha, 'dot', lo):.2f} at d_k = {lo} to "
        f"**{mean(alpha, 'dot', hi):.2f}** at d_k = {hi} and its entropy from {mean(entropy, 'dot', lo):.2f} to "
        f"**{mean(entropy, 'dot', hi):.2f} bits**; scaled, from {mean(alpha, 'scaled_dot', lo):.2f} to "
        f"{mean(alpha, 'scaled_dot', hi):.2f} and from {mean(entropy, 'scaled_dot', lo):.2f} to "
        f"{mean(entropy, 'scaled_dot', hi):.2f} bits."
    )
    for d in (lo, hi):
        g = results.compare("dot", "scaled_dot", grad, where={"d_k": d})
        said = {"better": "larger than", "worse": "smaller than", "too close": "too close to call against"}[g.outcome]
        lines.append(
            f"The gradient reaching W^Q at step 0, d_k = {d}: {g.a_spread.text('.2g')} unscaled, {said} "
            f"{g.b_spread.text('.2g')} scaled."
            + (
                " So the unscaled model does not start with a vanishing gradient at W^Q: the softmax's Jacobian "
                "shrinks, but a raw score's derivative with respect to W^Q is √d_k times the scaled score's."
                if d == hi and g.outcome == "better"
                else ""
            )
        )
    if (drop := scaled_drop_sentence(results)) is not None:
        lines.append(drop)
    return lines


def scaled_drop_sentence(results: Comparison) -> str | None:
    """Whether the scaled model itself falls from its best d_k to the largest, by the shared rule, and what the
    comparison can and cannot say about why. None when its best d_k is the largest measured."""
    ds = recall_d_ks(results)
    spread = {d: results.spread("test accuracy", "scaled_dot", {"d_k": d}) for d in ds}
    best, high = max(ds, key=lambda d: (spread[d].mean, -d)), ds[-1]
    if best == high:
        return None
    # never "better": best has the highest mean; the drift is the one measured for the file's test accuracy
    outcome, reason = verdict(spread[high], spread[best], metric="test accuracy", results=results.source)
    alpha = [results.spread("initial largest α", "scaled_dot", {"d_k": d}).mean for d in (ds[0], high)]
    numbers = f"{spread[high].text('.0%')} at d_k = {high} against its best, {spread[best].text('.0%')} at d_k = {best}"
    head = (
        f"The scaled model falls at the largest d_k too: {numbers}."
        if outcome == "worse"
        else f"The scaled model at the largest d_k and at its best are too close to call: {numbers} ({reason})."
    )
    return (
        f"{head} The scaled softmax starts unsaturated at every d_k (mean largest α {alpha[0]:.2f} at d_k = "
        f"{ds[0]}, {alpha[1]:.2f} at {high}), so saturation does not explain a drop there. This comparison does not "
        "show what would: d_k = d_model here, so the wider layer also has many more weights to fit with the same "
        "learning rate and steps, and no run separates the two."
    )


def recall_rows(results: Comparison) -> list[dict]:
    """One row per d_k and score: the state at step 0 and the end of training, mean ± sd over seeds."""
    columns = {
        "initial largest α": ".2f",
        "initial entropy (bits)": ".2f",
        "initial ‖∂L/∂W^Q‖": ".2g",
        "initial ‖∂L/∂W^K‖": ".2g",
        "test accuracy": ".0%",
        f"steps to {RECALL_LEVEL:.0%}": ".0f",
    }
    rows = results.table(columns, by="d_k", variant_header="score")
    rows.sort(key=lambda r: (r["d_k"], r["score"]))
    names = {**INIT_METRICS, "test accuracy": "held-out accuracy at the end"}
    return [{names.get(k, k): v for k, v in r.items()} for r in rows]


RECALL_CAPTION = (
    "Step 0: the untrained models on the held-out examples, every softmax row (largest α, entropy) and the "
    "Frobenius norm of the loss's gradient with respect to W^Q and W^K. Mean ± sd over seeds (n runs)."
)


def recall_init_charts(results: Comparison, height: int = 260) -> list[dict]:
    """The state at step 0 against d_k (log scale), scaled and unscaled, every seed faint, mean ± sd."""
    common = {"x_title": "d_k (= d_model)", "log_x": True, "height": height, "colors": COLORS}
    charts = [
        curves_chart(
            results.sweep_points("initial largest α", "d_k"), y_title="mean largest α", title="Largest α", **common
        ),
        curves_chart(
            results.sweep_points("initial entropy (bits)", "d_k"), y_title="bits", title="Entropy of α", **common
        ),
        curves_chart(
            results.sweep_points("initial ‖∂L/∂W^Q‖", "d_k"),
            y_title="‖∂L/∂W^Q‖",
            log_y=True,
            title="Gradient reaching W^Q",
            **common,
        ),
    ]
    for chart in charts:
        chart["encoding"]["x"] |= {"axis": {"values": recall_d_ks(results), "title": common["x_title"]}}
    return charts


def recall_curves(results: Comparison, d_k: int, x: str = "step", height: int = 280) -> tuple[dict, dict]:
    """Held-out accuracy and loss against ``x`` for one d_k, both scores, every seed faint, mean ± sd."""
    title = {"step": "training step", "seconds": "CPU seconds"}[x]
    common = {"x_title": title, "height": height, "colors": COLORS}
    where = {"d_k": d_k}
    accuracy = curves_chart(
        results.curve_points("accuracy", x=x, where=where),
        y_title="held-out accuracy",
        title=f"Accuracy, d_k = {d_k}",
        percent=True,
        **common,
    )
    loss = curves_chart(
        results.curve_points("loss", x=x, where=where), y_title="held-out loss", title=f"Loss, d_k = {d_k}", **common
    )
    return accuracy, loss


def final_accuracy_chart(results: Comparison, height: int = 280) -> dict:
    """Held-out accuracy at the end of training against d_k: where the scale matters."""
    points = results.sweep_points("test accuracy", "d_k")
    chart = curves_chart(
        points,
        y_title="held-out accuracy",
        percent=True,
        x_title="d_k",
        log_x=True,
        title="At the end of training",
        height=height,
        colors=COLORS,
    )
    chart["encoding"]["x"] |= {"axis": {"values": recall_d_ks(results), "title": "d_k"}}
    return chart


def recall_prediction(results: Comparison) -> Exercise:
    """Predict, before the results are revealed: at the largest d_k, is the unscaled model's accuracy lower?"""
    d = recall_d_ks(results)[-1]
    v = recall_verdicts(results)[d]
    choices = ("clearly lower", "too close to call", "clearly higher")
    answer = {"better": 0, "too close": 1, "worse": 2}[v.outcome]
    start = results.spread("initial largest α", "dot", {"d_k": d}).mean
    return Exercise(
        key="scaling.ex4",
        prompt=(
            f"**Predict before you reveal the results.** At d_k = {d}, the unscaled model's softmax starts with a "
            f"mean largest α of {start:.2f}. After the same training, is its held-out "
            "accuracy, compared with the scaled model's…"
        ),
        choices=choices,
        answer=answer,
        explanation=(
            f"{choices[answer].capitalize()}: {v.b_spread.text('.0%')} unscaled against {v.a_spread.text('.0%')} "
            "scaled. "
            + (
                f"Its softmax started with a mean largest α of {start:.2f} (scaled: "
                f"{results.spread('initial largest α', 'scaled_dot', {'d_k': d}).mean:.2f}): each question attends "
                "to one item before the model has learnt which, and the few rows that are not saturated carry "
                "nearly all the gradient the scores get."
                if answer == 0
                else "The saturated start did not stop it here: compare the curves below."
            )
        ),
        hint="How much gradient passes through a softmax whose largest weight is almost 1?",
    )


def threshold_prediction(results: Comparison) -> Exercise:
    """Predict: the smallest measured d_k at which scaling clearly raises the final accuracy (or none)."""
    verdicts = recall_verdicts(results)
    ds = list(verdicts)
    helps = by_outcome(verdicts)["better"]
    choices = (*(f"d_k = {d}" for d in ds), "at none of them")
    answer = ds.index(helps[0]) if helps else len(ds)
    return Exercise(
        key="scaling.ex5",
        prompt=(
            "**Predict before you reveal the results.** Both models train at "
            f"d_k = {_listed(ds)}. From which d_k on does dividing by √d_k clearly raise the final held-out accuracy "
            "(clearly, by the course's verdict rule)?"
        ),
        choices=choices,
        answer=answer,
        explanation=(
            "Unscaled, q·k has a standard deviation of about √d_k: "
            + ", ".join(f"{math.sqrt(d):.1f} at d_k = {d}" for d in ds)
            + f". {recall_headline(results)}"
        ),
        hint="At what spread of the scores does a softmax of nine of them become nearly one-hot?",
    )
