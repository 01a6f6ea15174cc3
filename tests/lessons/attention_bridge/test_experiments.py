"""The attention bridge's experiments: the hub's directions, the grid's loader and the shipped grid."""

import json

import numpy as np
import pytest

from lessons.attention_bridge import experiments, one_meaning
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from minimodels.tasks.multilingual import LANGUAGES
from tests.lessons.attention_bridge.fakes import fake_results


def test_hub_experiments_leave_every_non_hub_direction_for_zero_shot():
    plain, mono = experiments.hub_pairs(False), experiments.hub_pairs(True)
    assert len(plain) == 6 and all(experiments.HUB in p for p in plain)
    assert set(mono) - set(plain) == {(lang, lang) for lang in LANGUAGES}
    held = experiments.zero_shot_pairs()
    assert len(held) == 6 and not set(held) & set(mono)
    assert set(held) | set(plain) == {(a, b) for a in LANGUAGES for b in LANGUAGES if a != b}


def test_load_results_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="attention_bridge_results"):
        experiments.load_results(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"runs": {"hub": {}}}))
    with pytest.raises(ValueError, match="format.*attention_bridge_results"):
        experiments.load_results(broken)
    results = fake_results()
    Comparison(results.variants, results.runs_of("hub"), results.meta).save(broken)
    with pytest.raises(
        ValueError, match="no run bilingual, bilingual-nobridge, hub-mono, hub-mono-nopenalty, m2m, m2m"
    ):
        experiments.load_results(broken)
    run = results.runs[0]
    lacking = Run(run.variant, run.seed, run.params, run.curve, run.final, {"test": run.extra["test"]})
    Comparison(results.variants, (lacking, *results.runs[1:]), results.meta).save(broken)
    with pytest.raises(ValueError, match="bilingual seed 0 lacks probe"):
        experiments.load_results(broken)


def test_shipped_results_are_consistent():
    results = experiments.load_results()
    assert (
        results.meta["script"] == "scripts/attention_bridge_results.py" and list(results.seeds) == results.meta["seeds"]
    )
    held = [f"{a}→{b}" for a, b in experiments.zero_shot_pairs()]
    assert len(results.seeds) >= 3
    for e in experiments.EXPERIMENTS:
        assert results.label(e.name) == e.label and len(results.runs_of(e.name)) == len(results.seeds)
        for run in results.runs_of(e.name):
            mean = np.mean([run.extra["test"][n]["exact_match"] for n in held])
            if e.kind == "hub":
                assert run.value("zero_shot_exact") == pytest.approx(mean, abs=1e-3)
            else:  # every direction trained (many-to-many) or only en ↔ fr (bilingual): nothing zero-shot
                assert run.value("zero_shot_exact") is None and run.extra["held_out"] == []
            en_fr = np.mean([run.extra["test"][n]["exact_match"] for n in ("en→fr", "fr→en")])
            assert run.value("en_fr_exact") == pytest.approx(en_fr, abs=1e-3)
            assert [tuple(p) for p in run.extra["pairs"]] == list(experiments.experiment_pairs(e)[0])
            bridge = {} if e.bridge else {"bridge": False}
            assert run.params == {"penalty_weight": e.penalty_weight, "monolingual": e.monolingual, **bridge}
            assert run.curve and run.curve[-1]["step"] == run.extra["steps"] == results.meta["steps"]
    assert one_meaning.SHIPPED_MODEL.is_dir()  # the model the page loads is the one the script saved
