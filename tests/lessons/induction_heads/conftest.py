"""Hand-made results for the induction-heads lesson's tests: a comparison of the five readings over seeds whose
numbers the test chooses, so each sentence and answer can be checked both ways."""

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.induction_heads import results as measured
from lessons.induction_heads.training import HEADS, head_name


def curve(formed: float | None, steps: int = 400, every: int = 25, sudden: bool = True) -> list[dict]:
    """Reports every ``every`` steps: the copy's loss and the induction score jump at ``formed`` (or never)."""
    points = []
    for step in range(every, steps + 1, every):
        after = formed is not None and step >= formed
        loss = (0.3 if after else 3.4) if sudden else 3.4 - 3.0 * step / steps
        point = {
            "step": step,
            "seconds": step / 100,
            "loss": 2.0,
            "loss_random": 3.46,
            "loss_copy": loss,
            "accuracy_random": 0.03,
            "accuracy_copy": 0.9 if after else 0.05,
            "induction score": 0.7 if after else 0.05,
            "previous-token score": 0.4,
        }
        for layer, head in HEADS:
            point[f"previous {head_name(layer, head)}"] = 0.1
            point[f"prefix {head_name(layer, head)}"] = 0.1
        points.append(point)
    return points


def make(accuracies: dict[str, list[float]], formed: list[float | None], sudden: bool = True) -> Comparison:
    runs = []
    for seed, at in enumerate(formed):
        c = curve(at, sudden=sudden)
        seconds = next((p["seconds"] for p in c if p["step"] == at), None)
        final = {
            measured.ACCURACY: accuracies[measured.INTACT][seed],
            measured.RANDOM_ACCURACY: 0.03,
            measured.FORMED: at,
            measured.FORMED_SECONDS: seconds,
        }
        heads = {"previous-token head": "L1H1", "induction head": "L2H2"}
        runs.append(Run(measured.INTACT, seed, {"steps": 400}, c, final, {"heads": heads}))
        for name in measured.KNOCKOUTS:
            final = {measured.ACCURACY: accuracies[name][seed], measured.RANDOM_ACCURACY: 0.03}
            runs.append(Run(name, seed, {"steps": 400}, (), final))
    return Comparison(
        measured.VARIANTS, tuple(runs), {"steps": 400, "seeds": list(range(len(formed)))}, measured.LABELS
    )


@pytest.fixture
def make_results():
    return make


@pytest.fixture
def typical():
    """Five seeds that all formed; the previous-token head's knock-out costs most, the other layer-1 head's nothing."""
    return make(
        {
            measured.INTACT: [0.92, 0.93, 0.91, 0.92, 0.93],
            "previous-token head out": [0.3, 0.4, 0.35, 0.45, 0.3],
            "other layer-1 head out": [0.92, 0.9, 0.93, 0.91, 0.92],
            "induction head out": [0.55, 0.6, 0.5, 0.58, 0.52],
            "layer 2 out": [0.03, 0.04, 0.03, 0.03, 0.04],
        },
        [150, 200, 175, 225, 200],
    )
