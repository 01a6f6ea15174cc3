"""What section 4 says of the comparison: the headline, every sentence and both predictions turn with the numbers;
the rows, charts and text."""

import json

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.scaling import recall, recall_training, scores


def _comparison(accuracy: dict, big_gradient: float = 1e-4) -> Comparison:
    """Made-up results: (score, d_k) -> final accuracies of three seeds; step-0 figures that saturate unscaled."""
    runs = []
    for (score, d), values in accuracy.items():
        for seed, value in enumerate(values):
            big = score == "dot" and d > 8
            final = {"test accuracy": value, "test loss": 1 - value, "steps to 90%": None, "trained largest α": 0.9,
                     "initial largest α": 0.97 if big else 0.4, "initial entropy (bits)": 0.1 if big else 2.5,
                     "initial ‖∂L/∂W^Q‖": (big_gradient if big else 0.05) * (1 + seed / 10),
                     "initial ‖∂L/∂W^K‖": 0.05}  # fmt: skip
            curve = ({"step": 0, "seconds": 0.0, "loss": 2.7, "accuracy": 0.06, "largest α": 0.4},
                     {"step": 25, "seconds": 0.1, "loss": 1 - value, "accuracy": value, "largest α": 0.9})  # fmt: skip
            runs.append(Run(score, seed, {"d_k": d}, curve, final))
    return Comparison(scores.SCORES, tuple(runs), {"train_config": recall_training.recall_config(25)}, scores.LABELS)


HELPS = {("dot", 8): (0.8, 0.82, 0.78), ("scaled_dot", 8): (0.81, 0.79, 0.8),
         ("dot", 512): (0.4, 0.45, 0.5), ("scaled_dot", 512): (0.97, 0.98, 0.96)}  # fmt: skip


def test_the_headline_and_every_sentence_follow_the_numbers(rule_on_made_up_seeds):
    results = _comparison(HELPS)
    headline = recall.recall_headline(results)
    assert headline.startswith("After 25 steps, the scale clearly helps at d_k = 512: at d_k = 512, 97% ± 1%")
    assert "At d_k = 8 the two are too close to call: these seeds cannot tell them apart there" in headline
    assert "does not matter" not in headline  # too close to call is not "no difference"
    lines = recall.recall_observations(results)
    assert lines[0].startswith("d_k = 8: scaled q·k / √d_k and unscaled q·k are too close to call")
    assert lines[1].startswith("d_k = 512: scaled q·k / √d_k beats unscaled q·k on held-out accuracy")
    assert "to **0.97** at d_k = 512" in lines[2] and "to **0.10 bits**" in lines[2]
    assert "d_k = 512: 0.00011 ± 1e-05 (n = 3) unscaled, smaller than 0.055" in lines[4]
    assert "does not start with a vanishing gradient" not in lines[4]
    ex4, ex5 = recall.recall_prediction(results), recall.threshold_prediction(results)
    assert ex4.choices[ex4.answer] == "clearly lower" and "mean largest α of 0.97" in ex4.prompt
    assert ex5.choices[ex5.answer] == "d_k = 512"
    # the numbers swapped: unscaled ahead at 512; every sentence and answer turns
    swapped = _comparison({**HELPS, ("dot", 512): HELPS["scaled_dot", 512], ("scaled_dot", 512): HELPS["dot", 512]})
    headline = recall.recall_headline(swapped)
    assert (
        "is not clearly better at any d_k" in headline
        and "At d_k = 512 the unscaled model is clearly ahead" in headline
    )
    assert "does not beat unscaled q·k" in recall.recall_observations(swapped)[1]
    larger = _comparison(HELPS, big_gradient=1.0)
    assert "unscaled, larger than" in recall.recall_observations(larger)[4]
    assert "does not start with a vanishing gradient at W^Q" in recall.recall_observations(larger)[4]
    ex4, ex5 = recall.recall_prediction(swapped), recall.threshold_prediction(swapped)
    assert ex4.choices[ex4.answer] == "clearly higher" and ex5.choices[ex5.answer] == "at none of them"
    both = _comparison({**HELPS, ("dot", 8): (0.3, 0.31, 0.29)})
    assert recall.threshold_prediction(both).choices[recall.threshold_prediction(both).answer] == "d_k = 8"


def test_rows_charts_and_text_of_the_results():
    results = _comparison(HELPS)
    rows = recall.recall_rows(results)
    scaled, unscaled = scores.LABELS["scaled_dot"], scores.LABELS["dot"]
    assert [(r["d_k"], r["score"]) for r in rows] == [(8, scaled), (8, unscaled), (512, scaled), (512, unscaled)]
    assert rows[3]["largest α at step 0"] == "0.97 ± 0.00"
    assert rows[2]["held-out accuracy at the end"] == "97% ± 1%"
    for chart in [
        *recall.recall_init_charts(results),
        recall.final_accuracy_chart(results),
        *recall.recall_curves(results, 512, x="seconds"),
    ]:
        json.dumps(chart)
        assert chart["encoding"]["color"]["scale"]["domain"] == [scores.LABELS[s] for s in scores.SCORES]
    assert recall.recall_init_charts(results)[0]["encoding"]["x"]["axis"]["values"] == [8, 512]
    assert "for 25 Adam steps (lr 0.003" in recall.recall_text(results)
    assert f"for {recall_training.RECALL_STEPS} Adam steps" in recall.recall_text(None)


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_scaled_models_drop_at_the_largest_d_k_is_said_and_turns_with_the_numbers():
    five = lambda m: tuple(m + x for x in (-0.01, 0.0, 0.01, 0.0, 0.0))  # noqa: E731  five seeds a side
    drops = {
        ("dot", 8): five(0.8),
        ("scaled_dot", 8): five(0.98),
        ("dot", 512): five(0.4),
        ("scaled_dot", 512): five(0.6),
    }
    line = recall.scaled_drop_sentence(_comparison(drops))
    assert line.startswith("The scaled model falls at the largest d_k too: 60% ± 1% (n = 5) at d_k = 512 against its "
                           "best, 98% ± 1% (n = 5) at d_k = 8.")  # fmt: skip
    assert "saturation does not explain" in line and "does not show what would" in line
    assert line in recall.recall_observations(_comparison(drops))
    rises = {**drops, ("scaled_dot", 8): drops["scaled_dot", 512], ("scaled_dot", 512): drops["scaled_dot", 8]}
    assert recall.scaled_drop_sentence(_comparison(rises)) is None  # best at the largest d_k: nothing to say
    assert not any("falls at the largest" in s for s in recall.recall_observations(_comparison(rises)))
