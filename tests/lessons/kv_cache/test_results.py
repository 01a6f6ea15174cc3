"""The shipped file reads back, and a file with fewer than five seeds or no timings is refused naming the script."""

import pytest

from lessons.common import verdicts
from lessons.kv_cache import linear, results
from tests.lessons.kv_cache.fakes import comparison


def test_a_file_of_five_seeds_with_timings_reads_back(tmp_path):
    path = comparison().save(tmp_path / "kv_cache.json")
    loaded = results.load_results(path)
    assert set(loaded.variants) == set(results.LABELS) and len(loaded.seeds) == 5


def test_four_seeds_or_no_timings_are_refused_naming_the_script(tmp_path):
    with pytest.raises(ValueError, match="kv_cache_results"):
        results.load_results(comparison(seeds=range(4)).save(tmp_path / "a.json"))
    bare = comparison()
    bare = type(bare)(bare.variants, bare.runs, {**bare.meta, "timing": []}, bare.labels)
    with pytest.raises(ValueError, match="kv_cache_results"):
        results.load_results(bare.save(tmp_path / "b.json"))


def test_the_shipped_results_have_five_seeds_of_every_part_and_their_machine():
    shipped = results.load_results()
    assert len(shipped.seeds) >= 5
    machine = shipped.meta["machine"]
    assert {"cpu_model", "cpu_capability", "torch_threads", "torch"} <= set(machine)


def test_the_drift_figures_are_the_long_strings_exact_match_the_verdicts_compare(monkeypatch):
    """``bench/drift.py`` holds a length-sweep run's mean exact match on the long strings apart between settings, by
    the very name the section's verdicts give it, and the verdicts read that drift from this lesson's own slice."""
    made_up = comparison(softmax_long=0.8)
    sweep = next(r for r in made_up.runs if r.variant == "gru-softmax" and r.seed == 2)
    assert results.drift_figures(sweep) == {linear.LONG_METRIC: pytest.approx(0.8)}
    assert results.drift_figures(next(r for r in made_up.runs if r.variant == "window")) == {}
    asked = []
    monkeypatch.setattr(verdicts, "measured_drift", lambda metric, name=None: asked.append((metric, name)) or 0.0)
    found = linear.verdicts(made_up)
    assert {v.metric for v in found.values()} == {linear.LONG_METRIC} and {v.results for v in found.values()} == {
        results.RESULTS.stem
    }
    assert set(asked) == {(linear.LONG_METRIC, "kv_cache")}
