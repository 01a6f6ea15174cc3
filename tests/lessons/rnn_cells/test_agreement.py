"""Section 5's charts and sentences: the shipped comparison over a chance line, summaries that follow the numbers,
the live figures."""

import dataclasses

import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.rnn_cells import agreement, training


def test_the_shipped_chart_draws_every_seed_and_the_mean_over_a_chance_line():
    results = training.load_results()
    spec = agreement.results_chart(results)
    curves, rule, text = spec["layer"]
    assert rule["mark"]["type"] == "rule" and text["mark"]["text"] == "chance"
    assert rule["encoding"]["y"]["datum"] == training.chance(max(training.DISTANCES)) == pytest.approx(0.5, abs=0.05)
    means = {(v["label"], v["x"]): v["mean"] for v in spec["data"]["values"] if v["kind"] == "mean"}
    seeds = [v for v in spec["data"]["values"] if v["kind"] == "seed"]
    assert len(seeds) == len(training.VARIANTS) * len(training.DISTANCES) * len(results.seeds)
    assert any(v["kind"] == "mean" and v["n"] == len(results.seeds) and v["sd"] > 0 for v in spec["data"]["values"])
    rnn_20 = [r.value(training.ACCURACY) for r in results.runs_of("RNN", {"distance": 20})]
    assert means[("RNN", 20.0)] == pytest.approx(sum(rnn_20) / len(rnn_20))
    assert ("LSTM, forget bias 1", 20.0) in means  # the fourth variant under its label
    assert "encoding" not in spec  # the chance line must not take the curves' x and colour
    assert curves["encoding"]["color"]["scale"]["range"] == [agreement.COLORS[k] for k in training.VARIANTS]


def comparison(accuracy: dict[str, list[float]], distance: int = 40, variants=training.KINDS) -> Comparison:
    """A constructed comparison: each cell's accuracy per seed at one distance."""
    runs = [
        Run(kind, seed, {"distance": distance}, final={training.ACCURACY: a, "steps": 300, "seconds": 1.0})
        for kind, values in accuracy.items()
        for seed, a in enumerate(values)
    ]
    return Comparison(variants, tuple(runs), {"script": training.SCRIPT})


def test_the_summary_says_what_the_shipped_numbers_say():
    results = training.load_results()
    shipped = agreement.results_summary(results)
    longest = max(training.DISTANCES)
    for kind in ("GRU", "LSTM"):  # computed from the file, whichever way it went
        sentence = results.compare(kind, "RNN", training.ACCURACY, where={"distance": longest}).sentence(
            ".0%", f"held-out accuracy at T = {longest}"
        )
        assert f"- {sentence}" in shipped.splitlines()
    stuck = agreement.at_chance(results, "RNN")
    assert stuck and f"RNN at T = {', '.join(map(str, stuck))}" in shipped  # the page says where a cell is at chance
    assert f"Still at chance ({training.chance(longest):.0%}" in shipped


def test_at_chance_names_the_cells_no_seed_of_which_beat_a_guesser():
    stuck = comparison({"RNN": [0.5, 0.53, 0.49], "GRU": [1, 1, 0.99], "LSTM": [0.5, 0.9, 0.5]})
    assert agreement.at_chance(stuck, "RNN") == [40] and agreement.at_chance(stuck, "GRU") == []
    assert agreement.at_chance(stuck, "LSTM") == []  # one seed learned: not "at chance", though not solved either
    summary = agreement.results_summary(stuck)
    assert "Still at chance" in summary and "RNN at T = 40" in summary.split("Still at chance")[1].splitlines()[0]
    learned = agreement.results_summary(comparison({"RNN": [0.9, 0.95, 0.99], "GRU": [1, 1, 0.99], "LSTM": [1, 1, 1]}))
    assert "No cell is at chance" in learned and "Still at chance" not in learned


def test_the_forget_bias_sentence_follows_the_numbers(rule_on_made_up_seeds):
    variants = training.VARIANTS
    base = {"RNN": [0.5, 0.5, 0.5], "GRU": [1, 1, 1]}
    better = comparison(base | {"LSTM": [1, 1, 0.99], training.STANDARD: [0.5, 0.49, 0.52]}, variants=variants)
    assert "LSTM beats LSTM, forget bias 1" in agreement.results_summary(better)
    swapped = comparison(base | {"LSTM": [0.5, 0.49, 0.52], training.STANDARD: [1, 1, 0.99]}, variants=variants)
    assert "LSTM does not beat LSTM, forget bias 1" in agreement.results_summary(swapped)


def test_the_summary_says_what_the_numbers_say_whichever_way_they_go(rule_on_made_up_seeds):
    gated_win = agreement.results_summary(
        comparison({"RNN": [0.5, 0.52, 0.49], "GRU": [1, 1, 0.99], "LSTM": [0.98, 1, 1]})
    )
    assert "GRU beats RNN" in gated_win and "LSTM beats RNN" in gated_win
    assert "GRU at T = 40; LSTM at T = 40" in gated_win and "RNN at T = none" in gated_win
    rnn_win = agreement.results_summary(
        comparison({"RNN": [1, 1, 0.99], "GRU": [0.5, 0.52, 0.49], "LSTM": [0.6, 0.5, 0.55]})
    )
    assert "GRU does not beat RNN" in rnn_win and "LSTM does not beat RNN" in rnn_win and "beats" not in rnn_win
    assert "RNN at T = 40;" in rnn_win and "GRU at T = none" in rnn_win
    one_seed = agreement.results_summary(comparison({"RNN": [0.5], "GRU": [1.0], "LSTM": [1.0]}))
    assert "GRU and RNN are too close to call" in one_seed and "beats" not in one_seed  # one seed: an anecdote


def test_the_live_curves_are_one_seed_per_cell_over_the_chance_line():
    histories = {
        kind: (training.Point(0, 0.0, 0.7, 0.5), training.Point(25, 1.0, 0.5, 0.5 + 0.1 * i))
        for i, kind in enumerate(training.KINDS)
    }
    spec = agreement.live_curves(histories)
    curves, rule, _ = spec["layer"]
    rows = spec["data"]["values"]
    assert rule["encoding"]["y"]["datum"] == 0.5  # chance
    assert curves["encoding"]["color"]["scale"]["range"] == [agreement.COLORS[k] for k in training.KINDS]
    assert {row["kind"] for row in rows} == {"mean"}  # one seed a cell: no band, no faint seed lines
    assert {(r["label"], r["x"], r["mean"]) for r in rows} == {
        (k, s, acc) for i, k in enumerate(training.KINDS) for s, acc in ((0, 0.5), (25, 0.5 + 0.1 * i))
    }


def test_a_live_report_draws_its_gates_and_says_each_cells_answer():
    example = training.probe(5)[0]
    models = training.new_models(0)
    report = training.report(models, {k: [] for k in models}, 5, example)
    fig = agreement.report_gates(report)
    assert fig.layout.title.text == "Keep gates on one fixed example at step 0 (T = 5): dark = keep the memory"
    assert len(fig.data) == 2  # the GRU's and the LSTM's keep gates
    text = agreement.answers_text(report)
    assert text == ", ".join(f"{kind} says *{report.answers[kind]}*" for kind in training.KINDS)


def test_at_chance_names_the_learning_rate_it_holds_at():
    results = training.load_results()
    lr = results.meta["recipe"]["lr"]
    assert f"at learning rate {lr:g}, the rate chosen so that the LSTM learns" in agreement.results_summary(results)
    moved = dataclasses.replace(results, meta={**results.meta, "recipe": {**results.meta["recipe"], "lr": 0.5}})
    assert "at learning rate 0.5, the rate chosen" in agreement.results_summary(moved)
    assert "depend only on the seeds" not in agreement.provenance_note(results)  # another processor moves them
