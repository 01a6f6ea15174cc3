"""The positions-that-travel lesson's measured comparison (section 3): the shipped file's shape, sentences and
predictions that follow the numbers when they turn (through the course's verdict rule), broken files refused."""

import dataclasses
import json

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.positions_that_travel import longer_inputs, training
from minimodels.positioned import SCHEMES

LEVELS = {  # scheme -> accuracy at 1×, 2×, 4×: a made-up comparison, so the tests do not hang on shipped numbers
    "none": (0.3, 0.2, 0.15),
    "sinusoidal": (0.99, 0.55, 0.3),
    "learned": (1.0, 0.5, 0.27),
    "rope": (1.0, 0.97, 0.9),
    "alibi": (0.87, 0.85, 0.83),
}


def made_up(levels=LEVELS, seeds=range(5)) -> Comparison:
    runs = []
    for scheme, accuracies in levels.items():
        for seed in seeds:
            for times, accuracy in zip(training.TIMES, accuracies, strict=True):
                value = accuracy + 0.002 * seed
                final = {"accuracy": value, "exact": 0.0, "drop": accuracies[0] - accuracy}
                final["accuracy beyond"] = None if times == 1 else value - 0.05
                curve = ({"step": 50, "seconds": 1.0, "loss": 2.0, "accuracy": 0.5, "exact_match": 0.0},)
                runs.append(
                    Run(scheme, seed, {"length": training.TRAIN_MAX * times}, curve if times == 1 else (), final)
                )
    return Comparison(SCHEMES, tuple(runs), {"seeds": list(seeds), "steps": 800}, training.LABELS)


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_sentences_are_verdicts_that_follow_the_numbers():
    lines = longer_inputs.observations(made_up())
    assert lines[0].startswith("RoPE (rotated q, k) beats sinusoidal (added) on accuracy at 64 letters (4×)")
    assert "(n = 5)" in lines[0]
    assert lines[4].startswith("RoPE (rotated q, k) beats ALiBi (distance penalty) on accuracy at 16 letters")
    assert lines[6].startswith("ALiBi (distance penalty) beats RoPE (rotated q, k) on the fall in accuracy")
    turned = longer_inputs.observations(made_up({**LEVELS, "rope": (1.0, 0.6, 0.3)}))
    assert turned[5].startswith("RoPE (rotated q, k) does not beat ALiBi (distance penalty)")
    close = longer_inputs.observations(made_up({**LEVELS, "alibi": (0.99, 0.95, 0.9)}))
    assert "too close to call" in close[5]
    assert lines[-1].endswith("from a long context.") and "does not reproduce" in lines[-1]
    assert turned[-1].endswith("Here too ALiBi keeps more at 4× than RoPE.")
    assert close[-1].endswith("Here RoPE and ALiBi are too close to call at 4×.")


def test_fewer_than_five_seeds_are_said_first():
    lines = longer_inputs.observations(made_up(seeds=range(3)))
    assert lines[0] == "Only 3 seeds per scheme: the course draws verdicts on 5 or more."


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_race_prediction_is_the_verdict_on_the_file():
    ex = longer_inputs.race_prediction(made_up())
    assert ex.choices[ex.answer] == "RoPE (rotated q, k)"
    ex = longer_inputs.race_prediction(made_up({**LEVELS, "rope": (1.0, 0.6, 0.3)}))
    assert ex.choices[ex.answer] == "ALiBi (distance penalty)"
    ex = longer_inputs.race_prediction(made_up({**LEVELS, "alibi": (0.99, 0.95, 0.9)}))
    assert ex.choices[ex.answer] == "too close to call"
    learned = longer_inputs.learned_prediction(made_up())  # beyond at 2×: 45% against 100%
    assert learned.choices[learned.answer] == "about half as often" and "45.4%" in learned.explanation
    far = longer_inputs.learned_prediction(made_up({**LEVELS, "learned": (1.0, 0.07, 0.06)}))
    assert far.choices[far.answer].startswith("hardly ever")
    near = longer_inputs.learned_prediction(made_up({**LEVELS, "learned": (1.0, 0.95, 0.9)}))
    assert near.choices[near.answer].startswith("about as often")


def test_the_table_chart_and_curves_read_every_scheme():
    results = made_up()
    rows = longer_inputs.results_rows(results)
    assert [r["scheme"] for r in rows] == [training.LABELS[s] for s in SCHEMES]
    assert rows[3]["4× (64 letters)"].startswith("90.4%") and rows[3]["n"] == 5
    chart = longer_inputs.length_chart(results)
    assert {v["x"] for v in chart["data"]["values"]} == {16.0, 32.0, 64.0}
    accuracy, loss = longer_inputs.results_curves(results)
    assert accuracy["data"]["values"] and loss["data"]["values"]
    assert "n = 5 seeds" in longer_inputs.length_caption(results)
    assert "seeds 0, 1, 2, 3, 4: 800 steps" in longer_inputs.provenance_note(results.meta)


def test_shipped_results_have_five_seeds_every_length_and_the_machine():
    results = longer_inputs.load_results()
    assert longer_inputs.n_seeds(results) >= longer_inputs.MIN_SEEDS
    assert set(results.param_values("length")) == set(longer_inputs.LENGTHS)
    cpu = results.meta["cpu"]
    assert cpu["model"] and cpu["capability"] and cpu["threads"] >= 1 and cpu["torch"]
    assert len(longer_inputs.observations(results)) == 8  # no "only n seeds" line


def test_broken_results_are_refused(tmp_path):
    path = tmp_path / "r.json"
    three = dataclasses.replace(made_up(), variants=("none", "sinusoidal", "learned"), runs=())
    with pytest.raises(ValueError):
        three.save(path)
        longer_inputs.load_results(path)
    data = made_up().to_dict()
    data["runs"] = [r for r in data["runs"] if r["params"]["length"] != 64]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="lengths"):
        longer_inputs.load_results(path)
    data = made_up(seeds=range(1)).to_dict()
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="2 seeds"):
        longer_inputs.load_results(path)
    with pytest.raises(FileNotFoundError, match="positions_that_travel_results.py"):
        longer_inputs.load_results(tmp_path / "missing.json")


@pytest.mark.slow
def test_the_recipe_measures_every_length_and_the_drop():
    runs, _ = longer_inputs.trained_runs("alibi", 0, steps=30)
    assert [r.params["length"] for r in runs] == list(longer_inputs.LENGTHS)
    home = next(r for r in runs if r.params["length"] == training.TRAIN_MAX)
    assert home.curve and home.final["drop"] == 0.0
    far = runs[-1]
    assert far.final["drop"] == pytest.approx(home.final["accuracy"] - far.final["accuracy"])
    assert far.final["accuracy beyond"] is not None
