"""The positional-encoding lesson's measured results (section 5): three seeds at every length, sentences and
predictions that follow the numbers when they turn, broken files refused, the provenance note."""

import dataclasses
import json

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.positional_encoding import longer_inputs, models
from tests.lessons.said import opening


def test_shipped_results_have_three_seeds_every_length_and_say_what_they_measured():
    results = longer_inputs.load_results()
    assert len(results.seeds) >= 3
    assert set(results.param_values("length")) == set(longer_inputs.LENGTHS)
    lines = longer_inputs.observations(results)
    inside, longest = {"length": longer_inputs.TRAIN_MAX}, {"length": longer_inputs.MAX_LEN}
    said = lambda a, b, metric, where: opening(results.compare(a, b, metric, where=where))  # noqa: E731
    assert lines[0].startswith(said("sinusoidal", "none", "accuracy", inside) + " on accuracy at 16 letters")
    assert lines[1].startswith(said("learned", "none", "accuracy", inside))
    assert lines[3].startswith(said("sinusoidal", "learned", "accuracy beyond", longest) + " on accuracy at positions")
    assert "rows 17–32" in lines[5] and "exactly as initialised" in lines[5]
    rows = longer_inputs.results_rows(results)
    assert [r["encoding"] for r in rows] == [models.LABELS[e] for e in models.ENCODINGS]
    assert rows[2]["parameters"] - rows[1]["parameters"] == models.MAX_LEN * models.D_MODEL
    chart = longer_inputs.length_chart(results)
    assert {v["x"] for v in chart["data"]["values"]} == set(map(float, longer_inputs.LENGTHS))
    assert "15 of the 31 scored letters" in longer_inputs.length_caption()
    accuracy, loss = longer_inputs.results_curves(results)
    assert accuracy["data"]["values"] and loss["data"]["values"]


def _with(results: Comparison, variant: str, metric: str, value: float, length: int) -> Comparison:
    runs = [
        dataclasses.replace(r, final={**r.final, metric: value + 0.001 * r.seed})
        if r.variant == variant and r.params["length"] == length
        else r
        for r in results.runs
    ]
    return dataclasses.replace(results, runs=tuple(runs))


def test_the_sentences_and_the_prediction_follow_the_numbers_when_they_turn(rule_on_made_up_seeds):
    results = longer_inputs.load_results()
    turned = _with(results, "learned", "accuracy beyond", 0.9, models.MAX_LEN)
    lines = longer_inputs.observations(turned)
    assert lines[3].startswith("sinusoidal (fixed) does not beat learned (one vector each)")
    ex = longer_inputs.race_prediction(turned)
    assert ex.choices[ex.answer] == "learned (one vector each)"
    ex = longer_inputs.race_prediction(results)
    shipped = results.compare("sinusoidal", "learned", "accuracy beyond", where={"length": models.MAX_LEN})
    assert ex.choices[ex.answer] == longer_inputs.RACE_CHOICES[["better", "worse", "too close"].index(shipped.outcome)]
    assert ("never received a gradient" in ex.explanation) == (shipped.outcome == "better")
    worse = _with(results, "sinusoidal", "accuracy", 0.05, models.TRAIN_MAX)
    assert longer_inputs.observations(worse)[0].startswith("sinusoidal (fixed) does not beat none")
    moved = dataclasses.replace(
        results, runs=tuple(dataclasses.replace(r, extra={**r.extra, "untrained rows": []}) for r in results.runs)
    )
    assert longer_inputs.learned_rows_sentence(moved) == "Every row of the learned table moved during training."


def test_broken_results_are_refused(tmp_path):
    path = tmp_path / "positional_encoding.json"
    only_one = Comparison(("none",), (Run("none", 0, {"length": 16}, final={"accuracy": 0.1}),)).to_dict()
    for content in ("{}", json.dumps(only_one)):
        path.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match="positional_encoding_results.py"):
            longer_inputs.load_results(path)
    with pytest.raises(FileNotFoundError, match="positional_encoding_results.py"):
        longer_inputs.load_results(tmp_path / "missing.json")


def test_provenance_note_reads_the_meta_and_survives_a_bare_one():
    meta = longer_inputs.load_results().meta
    seeds = ", ".join(str(s) for s in meta["seeds"])  # read from the file: the note names the seeds it ran
    assert len(meta["seeds"]) >= 5 and longer_inputs.provenance_note(meta).startswith(
        f"Means ± sd over seeds {seeds}: {meta['steps']} steps"
    )
    assert longer_inputs.provenance_note({}).startswith("Means ± sd over seeds : None steps")


def _beyond(learned: float, none: float) -> Comparison:
    """Five seeds a side at the longest length: only the accuracy past the training range."""
    runs = tuple(
        Run(variant, seed, {"length": models.MAX_LEN}, (), {"accuracy beyond": mean + 0.003 * (seed - 2)})
        for variant, mean in (("learned", learned), ("none", none))
        for seed in range(5)
    )
    return Comparison(("none", "learned"), runs, {}, models.LABELS)


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_learned_table_is_said_worse_than_no_positions_only_when_it_is():
    worse = longer_inputs.learned_vs_none_sentence(_beyond(0.055, 0.117))
    assert "learned (one vector each) does not beat none (no positions)" in worse
    assert "5.5% ± 0.5% (n = 5) against 11.7% ± 0.5% (n = 5)" in worse
    assert "worse than no position information at all" in worse
    swapped = longer_inputs.learned_vs_none_sentence(_beyond(0.117, 0.055))
    assert swapped.startswith("learned (one vector each) beats none (no positions)")
    assert "still beats no position information" in swapped and "worse than" not in swapped
