"""Hand-made results for the attention-explains lesson's tests: every variant over five seeds with numbers the test
chooses, so each sentence and answer can be checked both ways; and one briefly trained model."""

import pytest

from lessons.attention_explains import measure
from lessons.attention_explains import results as measured
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.induction_heads import training

SEEDS = range(5)


def _spread(centre: float, step: float = 0.01) -> list[float]:
    return [centre + step * (s - 2) for s in SEEDS]


def make(
    accuracy: dict[str, float] | None = None,
    top: dict[str, float] | None = None,
    formed: dict[str, float | None] | None = None,
) -> Comparison:
    """Five seeds of every variant: ``accuracy`` (variant -> mean in-context accuracy), ``top`` (role -> mean top key
    agreement) and ``formed`` (the intact and bug variants -> mean step) override the defaults."""
    accuracy = accuracy or {}
    top = top or {}
    formed = {measured.INTACT: 600.0, "no 1/√d_k": 600.0, "wrong-side mask": None, **(formed or {})}
    runs = []
    for seed in SEEDS:
        for variant in measured.VARIANTS:
            if variant in measure.ROLES:
                final = {
                    measured.TAU_LOO: 0.05 + 0.01 * seed,
                    measured.TAU_GRADIENT: 0.4 + 0.01 * seed,
                    measured.TOP: _spread(top.get(variant, 0.3))[seed],
                }
            elif variant in (measured.INTACT, *measured.BUG_VARIANTS):
                at = formed[variant]
                final = {
                    measured.ACCURACY: _spread(accuracy.get(variant, 0.92))[seed],
                    measured.RANDOM_ACCURACY: 1.0 if variant == "wrong-side mask" else 0.03,
                    measured.FORMED: None if at is None else at + 25 * (seed - 2),
                }
            else:
                final = {measured.ACCURACY: _spread(accuracy.get(variant, 0.6))[seed], measured.KL: 1.0 + 0.1 * seed}
            curve = [{"step": 50, "loss": 3.0}] if variant in (measured.INTACT, *measured.BUG_VARIANTS) else ()
            runs.append(Run(variant, seed, {"steps": 1200}, curve, final))
    return Comparison(measured.VARIANTS, tuple(runs), {"steps": 1200, "seeds": list(SEEDS)}, measured.LABELS)


@pytest.fixture
def make_results():
    return make


@pytest.fixture(scope="session")
def small_model():
    """The recipe trained for 150 steps on seed 0 (seconds): not an induction head yet, but every head reads."""
    model, _ = training.train(0, 150, report_every=150, model=measure.new_model(0))
    return model.eval()
