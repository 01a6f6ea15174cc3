"""The measured results over seeds: what ``scripts/attention_explains_results.py`` runs for one seed, and what the
page reads back.

One seed trains the recipe (:func:`lessons.induction_heads.training.train`) and reads the model intact; then each
head, by its role in that model (:func:`~lessons.attention_explains.measure.roles`), is zeroed, permuted and made
uniform (:func:`~lessons.attention_explains.measure.effects`), and its weights are set beside the two importance
measures (:func:`~lessons.attention_explains.measure.agreement`). The same seed also trains the recipe with each
planted bug (:data:`~lessons.attention_explains.measure.BUGS`), read the same way as the intact model.

Letters: L layers, h heads per layer, R the random part's length, V the vocabulary.
"""

from __future__ import annotations

from pathlib import Path

from lessons.attention_explains.measure import BUGS, KIND_WORDS, KINDS, ROLES, agreement, effects, new_model, roles
from lessons.common.catalog import ROOT
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.induction_heads import training
from lessons.induction_heads.training import formed_at, head_name

RESULTS = ROOT / "assets" / "results" / "attention_explains.json"
SCRIPT = "scripts/attention_explains_results.py"
REPORT_EVERY = 50
STEPS = training.STEPS
LEAK_STEPS = 400  # the wrong-side mask's model: it is at 100% long before this (measured on seed 0)
INTACT = "intact"
ACCURACY = "in-context accuracy"
RANDOM_ACCURACY = "random-half accuracy"
FORMED = "formed at step"
KL = "KL from intact (nats)"
TAU_LOO = "τ with leave-one-out"
TAU_GRADIENT = "τ with gradient × input"
TOP = "top key agrees"
BUG_VARIANTS = tuple(b for b in BUGS if b != "none")


def changed(role: str, kind: str) -> str:
    """The variant of one role's head changed one way: "induction head permuted"."""
    return f"{role} {KIND_WORDS[kind]}"


VARIANTS = (
    INTACT,
    *(changed(role, kind) for role in ROLES for kind in KINDS),
    *ROLES,
    *BUG_VARIANTS,
)
LABELS = {
    INTACT: "the intact model",
    **{changed(role, kind): f"the {role} {KIND_WORDS[kind]}" for role in ROLES for kind in KINDS},
    **{role: f"the {role}" for role in ROLES},
    "no 1/√d_k": "the recipe without 1/√d_k",
    "wrong-side mask": "the recipe with its mask on the wrong side",
}


def _trained(seed: int, bug: str, steps: int):
    model, reports = training.train(seed, steps, report_every=REPORT_EVERY, model=new_model(seed, bug))
    curve = [p.point() for p in reports]
    reading = reports[-1].reading
    final = {
        ACCURACY: reading.accuracy_copy,
        RANDOM_ACCURACY: reading.accuracy_random,
        FORMED: formed_at(curve),
    }
    return model, reading, curve, final


def measured_runs(seed: int, steps: int = STEPS, leak_steps: int = LEAK_STEPS) -> list[Run]:
    """One seed: the recipe trained and every head changed and compared; then the recipe with each planted bug."""
    model, reading, curve, final = _trained(seed, "none", steps)
    found = roles(reading)
    params = {"steps": reports_steps(curve)}
    heads = {role: head_name(*where) for role, where in found.items()}
    runs = [Run(INTACT, seed, params, curve, final, {"heads": heads})]
    moved, agreed = effects(model), agreement(model)
    for role, where in found.items():
        for kind in KINDS:
            e = moved[where][kind]
            runs.append(Run(changed(role, kind), seed, params, (), {ACCURACY: e.accuracy, KL: e.kl}))
        a = agreed[where]
        runs.append(
            Run(role, seed, params, (), {TAU_LOO: a.tau_leave_one_out, TAU_GRADIENT: a.tau_gradient, TOP: a.top_agrees})
        )
    for bug in BUG_VARIANTS:
        _, _, bug_curve, bug_final = _trained(seed, bug, leak_steps if bug == "wrong-side mask" else steps)
        runs.append(Run(bug, seed, {"steps": reports_steps(bug_curve)}, bug_curve, bug_final))
    return runs


def reports_steps(curve: list[dict]) -> int:
    return int(curve[-1]["step"])


def load_results(path: Path | str = RESULTS) -> Comparison:
    """The comparison written by the results script; ``ValueError`` when it is not usable (fewer than 5 seeds)."""
    path = Path(path)
    results = Comparison.load(path, script=SCRIPT)
    lacking = [v for v in VARIANTS if v not in results.variants or len(results.runs_of(v)) < 5]
    if lacking:
        raise ValueError(f"{path.name} lacks five seeds of {', '.join(lacking)}: re-run {SCRIPT}")
    return results


def table_of(results: Comparison, columns: dict[str, str], variants, header: str) -> list[dict]:
    """Rows for ``st.dataframe``, one per variant of ``variants`` in their order: its label, n and each metric's
    mean ± sd (:meth:`Comparison.table` reads every metric of every variant; these variants measure different ones)."""
    return [
        {
            header: results.label(v),
            "n": len(results.runs_of(v)),
            **{metric: results.spread(metric, v).text(fmt, with_n=False) for metric, fmt in columns.items()},
        }
        for v in variants
    ]
