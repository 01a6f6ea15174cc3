"""The results file: one seed's runs have every variant, and the loader refuses a file without five seeds."""

import pytest

from lessons.attention_explains import results as measured
from lessons.common.comparison import Comparison


def test_one_seed_measures_every_variant(monkeypatch):
    runs = measured.measured_runs(0, steps=20, leak_steps=10)
    assert {r.variant for r in runs} == set(measured.VARIANTS)
    intact = runs[0]
    assert intact.curve and set(intact.extra["heads"]) == {
        "previous-token head",
        "other layer-1 head",
        "induction head",
        "other layer-2 head",
    }


def test_the_loader_refuses_too_few_seeds(make_results, tmp_path):
    full = make_results()
    three = Comparison(full.variants, tuple(r for r in full.runs if r.seed < 3), full.meta, full.labels)
    path = three.save(tmp_path / "few.json")
    with pytest.raises(ValueError, match="five seeds"):
        measured.load_results(path)


def test_the_shipped_file_loads():
    results = measured.load_results()
    assert len(results.seeds) >= 5
