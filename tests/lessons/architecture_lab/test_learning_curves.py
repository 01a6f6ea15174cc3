"""The presets' learning curves: one poster table's presets per chart, each its own colour, and the caption's
numbers read from the curves (made-up curves that tell two presets apart, then the shipped grids)."""

import pytest

from lessons.architecture_lab import compare, compare_runs, learning_curves
from lessons.common.comparison import Comparison
from lessons.common.runs import Run

BASELINES = compare.BASELINES_TITLE


def made_up(transformer: tuple[float, float], rnmt: tuple[float, float]) -> Comparison:
    """Two baseline presets, two seeds each, reporting at steps 50 and 100 the given exact match (seed 1 a point
    higher), and one preset of another table."""
    runs = []
    for key, (half, end) in (("transformer", transformer), ("rnmt", rnmt), ("cnn-cnn", (0.5, 0.5))):
        for seed in (0, 1):
            curve = (
                {"step": 50, "seconds": 1.0, "loss": 1.0, "exact_match": half + 0.01 * seed},
                {"step": 100, "seconds": 2.0, "loss": 0.5, "exact_match": end + 0.01 * seed},
            )
            runs.append(Run(key, seed, {"task": "toy-translation"}, curve, {}, {}))
    labels = {"transformer": "Transformer", "rnmt": "RNMT", "cnn-cnn": "CNN → CNN"}
    return Comparison(("transformer", "rnmt", "cnn-cnn"), tuple(runs), {}, labels)


def test_a_chart_holds_the_presets_of_its_table_only_each_its_own_colour():
    points = learning_curves.group_points(made_up((0.2, 0.9), (0.4, 0.6)), BASELINES, "exact_match")
    assert {p["variant"] for p in points} == {"transformer", "rnmt"}
    assert {p["variant"]: p["order"] for p in points} == {"transformer": 0, "rnmt": 1}
    accuracy, loss = learning_curves.curve_charts(made_up((0.2, 0.9), (0.4, 0.6)), BASELINES)
    assert accuracy["encoding"]["color"]["scale"]["domain"] == ["Transformer", "RNMT"]
    means = {(v["label"], v["x"]): v["mean"] for v in accuracy["data"]["values"] if v["kind"] == "mean"}
    assert means[("Transformer", 100)] == pytest.approx(0.905) and means[("RNMT", 50)] == pytest.approx(0.405)
    with pytest.raises(ValueError):
        learning_curves.curve_charts(made_up((0.2, 0.9), (0.4, 0.6)), BASELINES, x="epochs")


def test_the_caption_says_each_presets_mean_halfway_and_at_the_end():
    caption = learning_curves.curves_caption(made_up((0.2, 0.9), (0.4, 0.6)), BASELINES)
    assert "Transformer: 20% at step 50, 90% at step 100 (n = 2)" in caption
    assert "RNMT: 40% at step 50, 60% at step 100 (n = 2)" in caption
    swapped = learning_curves.curves_caption(made_up((0.4, 0.6), (0.2, 0.9)), BASELINES)
    assert "Transformer: 40% at step 50, 60% at step 100 (n = 2)" in swapped
    assert "CNN" not in caption  # another table's preset


@pytest.mark.parametrize("grid", list(compare_runs.GRIDS))
def test_every_table_of_the_shipped_grids_has_its_curves(grid):
    results = compare_runs.load_results(compare_runs.GRIDS[grid])
    for group, keys in compare.POSTER_GROUPS.items():
        accuracy, loss = learning_curves.curve_charts(results, group)
        labels = [results.label(k) for k in keys if k in results.variants]
        assert accuracy["encoding"]["color"]["scale"]["domain"] == labels
        assert loss["encoding"]["color"]["scale"]["domain"] == labels
        caption = learning_curves.curves_caption(results, group)
        assert all(label in caption for label in labels)
