"""Section 3, 1, 2, 4 or 8 heads for the same budget: the shipped comparison's table, curves and probe maps,
and the sentences computed from them."""

import re
from types import SimpleNamespace

import numpy as np
import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.multi_head_attention import every_head, head_counts, head_counts_runs
from tests.lessons.multi_head_attention.made_up_results import fake_results


def test_results_table_and_observations(rule_on_made_up_seeds, tmp_path):
    results = head_counts.load_results(fake_results().save(tmp_path / "multi_head_attention.json"))  # a round trip
    rows = head_counts.results_rows(results)
    assert [r["heads h"] for r in rows] == ["h = 1", "h = 2", "h = 4", "h = 8"]
    assert [r["d_k"] for r in rows] == [64, 32, 16, 8]
    assert [r["n"] for r in rows] == [2, 2, 2, 2]
    assert [r["steps to 90%"] for r in rows] == ["100 ± 0", "200 ± 0", "400 ± 0", "800 ± 0"]  # n: its own column
    assert rows[3]["steps to 95%"] == "800 ± 0" and rows[2]["test exact"] == "97.0% ± 0.0%"
    lines = head_counts.observations(results)
    assert "**h = 1**, 100 ± 0 (n = 2); most: h = 8, 800 ± 0 (n = 2): clearly: Welch's t-test, α = 0.05" in lines[0]
    assert (
        "from 90.0% ± 0.0% (n = 2) with h = 1 to 97.0% ± 0.0% (n = 2) with h = 4: h = 4 is clearly ahead by the "
        "course's rule" in lines[1]
    )
    assert (
        "h = 1: 90% ± 0% (n = 2), h = 2: 80% ± 0% (n = 2), h = 4: 70% ± 0% (n = 2), h = 8: 60% ± 0% (n = 2)" in lines[2]
    )
    assert "some heads drift away from the alignment while their average still follows it" in lines[2]
    assert "h = 1: 75 ms" in lines[3]  # CPU seconds (60) over 800 steps
    assert rows[0]["CPU s"] == "60.0 ± 0.0" and rows[0]["alignment, worst head"] == "90.0% ± 0.0%"
    assert rows[0]["parameters"] == 1000 and rows[0]["steps"] == 800
    assert "exactly 1,000 parameters" in lines[-1]
    grid_rows = head_counts.probe_rows(results, "h = 4")
    assert grid_rows[0].weights.shape == (4, 2, 2)
    assert head_counts.probe(results, "h = 4")["seed"] == 0 and head_counts.probe_variants(results) == list(
        results.variants
    )
    loss, accuracy = head_counts.curves(results)
    means = [v for v in accuracy["data"]["values"] if v["kind"] == "mean"]
    assert len(means) == 4 * 6 and {v["n"] for v in means} == {2}  # every report, over both seeds
    assert accuracy["encoding"]["color"]["scale"]["domain"] == ["h = 1", "h = 2", "h = 4", "h = 8"]
    assert loss["layer"][0]["encoding"]["y"]["scale"] == {"type": "log"}


def test_every_sentence_about_the_comparison_follows_the_numbers(rule_on_made_up_seeds):
    """Each claim turns round when the numbers do: which h is fastest, whether h matters, whether heads drift."""
    slow_many = head_counts.observations(fake_results(pace=(1, 2, 4, 8)))
    fast_many = head_counts.observations(fake_results(pace=(8, 4, 2, 1)))
    assert "Fewest steps to 90%: **h = 1**" in slow_many[0] and "most: h = 8" in slow_many[0]
    assert "Fewest steps to 90%: **h = 8**" in fast_many[0] and "most: h = 1" in fast_many[0]
    close = head_counts.observations(fake_results(test_exact=(0.95, 0.96, 0.95, 0.94), spread=0.02))
    assert "too close to call" in close[1] and "cannot tell the head counts apart" in close[1]
    assert "not evidence that the number of heads makes no difference" in close[1]  # too close is not "no effect"
    apart = head_counts.observations(fake_results(test_exact=(0.5, 0.96, 0.95, 0.94)))
    assert "cannot tell" not in apart[1] and "h = 2 is clearly ahead by the course's rule" in apart[1]
    assert not any("hardly matters" in line for line in close + apart)
    drift = head_counts.observations(fake_results(worst=(0.9, 0.8, 0.7, 0.6)))[2]
    no_drift = head_counts.observations(fake_results(worst=(0.6, 0.7, 0.8, 0.9)))[2]
    assert "some heads drift away" in drift
    assert "some heads drift away" not in no_drift and "does not clearly drift further" in no_drift
    ends = ("h = 1", "h = 8")
    single = head_counts.observations(
        Comparison(ends, [r for r in fake_results().runs if r.seed == 0 and r.variant in ends])
    )
    assert "one seed is an anecdote" in single[0]  # one seed a side never makes a clear claim


def test_results_that_are_missing_or_malformed_name_the_script(tmp_path):
    with pytest.raises(FileNotFoundError, match="multi_head_attention_results.py"):
        head_counts.load_results(tmp_path / "missing.json")
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="multi_head_attention_results.py"):
        head_counts.load_results(tmp_path / "empty.json")


def test_shipped_results_when_present():
    results = head_counts.load_results()
    assert results.variants == tuple(head_counts_runs.variant(h) for h in head_counts_runs.RESULT_HEADS)
    assert len(results.seeds) >= 2 and results.meta["script"] == head_counts_runs.RESULT_SCRIPT
    assert {r.params["heads"] for r in results.runs} == set(head_counts_runs.RESULT_HEADS)
    assert len({r.value("parameters") for r in results.runs}) == 1
    assert len({r.value("steps") for r in results.runs}) == 1  # the same budget for all
    assert head_counts.probe_variants(results) == list(results.variants)
    for run in results.runs:  # the final metrics agree with the run's own curve and head alignments
        assert run.value("steps to 90%") == run.reached("exact_match", 0.9)
        assert run.value("alignment, worst head") == min(run.extra["head_alignment"])
    assert len(head_counts.observations(results)) == 5


def test_probe_grid_draws_the_probe_rows_titled_with_the_kept_seed():
    results = head_counts.load_results()
    name = head_counts.probe_variants(results)[-1]
    figure = head_counts.probe_grid(results, name)
    assert figure.layout.title.text == f"{name}, seed {head_counts.probe(results, name)['seed']}"
    rows = head_counts.probe_rows(results, name)
    heatmaps = [t for t in figure.data if t.type == "heatmap"]
    assert len(heatmaps) == sum(r.weights.shape[0] for r in rows)
    np.testing.assert_allclose(heatmaps[0].z, rows[0].weights[0])


def test_section_texts_read_their_counts_from_the_settings_and_the_results():
    text = head_counts.comparison_text(fake_results())
    assert "with 1, 2, 4 or 8 heads, so d_k = 64, 32, 16, 8" in text and "Every one has 1,000 parameters" in text
    runs = [
        r if r.variant != "h = 8" else Run(r.variant, r.seed, r.params, r.curve, {**r.final, "parameters": 2000})
        for r in fake_results().runs
    ]
    differ = Comparison(fake_results().variants, tuple(runs))
    assert "Their parameter counts differ" in head_counts.comparison_text(differ)
    assert "h = 8: 2,000" in head_counts.observations(differ)[-1]
    assert "Every one" not in head_counts.comparison_text(None)
    assert head_counts.TITLE == "3 · 1, 2, 4 or 8 heads for the same budget"
    config = SimpleNamespace(encoder_layers=3, decoder_layers=1, d_model=32, n_heads=2)
    shape = every_head.model_shape(SimpleNamespace(config=config))
    assert shape == "3 encoder layers, 1 decoder layer, d_model = 32, 2 heads in each of its 5 attention sublayers"
    # no hard-coded count (a pointer to the lesson that teaches the whole model is not one)
    assert not any(ch.isdigit() for ch in re.sub(r"\blessons? \d+", "", every_head.TEXT))
