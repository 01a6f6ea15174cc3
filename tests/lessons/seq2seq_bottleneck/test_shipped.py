"""The shipped results: every model and D measured and described, the curves the lesson teaches, bad files refused."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.seq2seq_bottleneck import experiment, scoring, shipped


def test_shipped_results_hold_every_model_and_context_size_and_say_how_they_were_made(results):
    assert shipped.hidden_sizes(results) == experiment.CONTEXT_SIZES
    assert results.variants == tuple(experiment.LABELS) and len(results.seeds) >= 3  # TEACHING: ≥ 3 seeds
    assert results.labels == experiment.LABELS
    grid = [(m, d) for m in experiment.MODELS for d in experiment.CONTEXT_SIZES]
    for model, d in [*grid, (experiment.POOLED, experiment.POOL_D)]:
        assert sorted(r.seed for r in results.runs_of(model, {"hidden_size": d})) == list(results.seeds), (model, d)
        for run in results.runs_of(model, {"hidden_size": d}):  # every run says what model it trained
            assert run.extra["model"] == experiment.describe(experiment.build(model, d))
            assert run.extra["model"].startswith("unidirectional GRU encoder")
            assert run.value("steps") == experiment.STEPS
        run = shipped.shipped_run(results, model, d)
        assert run.seed == results.seeds[0]
        accuracy = shipped.accuracy_of(results, model, d)
        assert accuracy.lengths == tuple(range(experiment.MIN_LEN, experiment.MAX_LEN + 1))
        assert sum(accuracy.counts) == len(experiment.lesson_task().test)
        assert set(run.extra["outputs"]) == set(experiment.EXAMPLES)
        assert run.value("seconds") > 0 and run.extra["parameters"] > 0
    meta = results.meta
    assert meta["command"].startswith("python scripts/seq2seq_bottleneck_results.py")
    assert meta["script"] == shipped.SCRIPT and meta["seeds"] == list(results.seeds)
    assert meta["task"] == {
        "name": experiment.TASK,
        "seed": experiment.TASK_SEED,
        "options": experiment.TASK_OPTIONS,
    }
    for key in ("date", "machine", "train_config", "load_average_before"):
        assert key in meta
    assert {c["lr"] for c in meta["train_config"].values()} == {experiment.LR}  # one recipe for every model
    # the curve drawn is the mean over the seeds at each length
    runs = results.runs_of("gru-none", {"hidden_size": 64})
    mean = tuple(sum(r.curve[i]["exact_match"] for r in runs) / len(runs) for i in range(3))
    assert shipped.accuracy_of(results, "gru-none", 64).exact_match[:3] == pytest.approx(mean)


def test_the_bottleneck_curve_falls_with_length_without_attention(results):
    """The lesson's claim: the shipped curve without attention falls with length, at every context size."""
    for d in experiment.CONTEXT_SIZES:
        none = shipped.accuracy_of(results, "gru-none", d)
        short, long = none.lengths[:3], none.lengths[-3:]
        # the smallest context learns even short strings less well in the same steps (72% at lr 5e-3, seeds 0-2)
        assert scoring.mean_over(none, short) >= (0.8 if d > 16 else 0.6), d
        assert scoring.mean_over(none, long) <= 0.05, d
        assert scoring.mean_over(none, short, "token_accuracy") > scoring.mean_over(none, long, "token_accuracy") + 0.3
        # a downward trend, not just two ends: no length scores more than 3 points above the one before it
        steps = np.diff(none.exact_match)
        assert (steps <= 0.03).all(), (d, steps)


def test_attention_copies_longer_strings_than_the_fixed_vector_at_every_context_size(results):
    for d in experiment.CONTEXT_SIZES:
        none = shipped.accuracy_of(results, "gru-none", d)
        attn = shipped.accuracy_of(results, "gru-additive", d)
        assert scoring.longest_length_above(attn) >= scoring.longest_length_above(none) + 4, d
        middle = [n for n in none.lengths if 8 <= n <= 12]
        assert scoring.mean_over(attn, middle) > scoring.mean_over(none, middle) + 0.4, d


def test_a_bigger_context_holds_a_little_more(results):
    reach = [
        scoring.longest_length_above(shipped.accuracy_of(results, "gru-none", d)) for d in shipped.hidden_sizes(results)
    ]
    assert reach[-1] > reach[0]
    assert reach[-1] < experiment.MAX_LEN  # but not everything: the curve still falls


def test_a_malformed_results_file_is_refused_with_a_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON.*seq2seq_bottleneck_results.py"):
        shipped.load_results(bad)
    data = json.loads(shipped.RESULTS_PATH.read_text(encoding="utf-8"))
    data["runs"][0]["curve"] = "flat"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="curve must be a list"):
        shipped.load_results(bad)
    data["runs"] = []
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="no runs"):
        shipped.load_results(bad)
    other = Comparison(("dot",), (Run("dot", 0, {"hidden_size": 16}),))  # not the lesson's variants
    with pytest.raises(ValueError, match="gru-none, gru-additive"):
        shipped.load_results(other.save(tmp_path / "other.json"))
    with pytest.raises(FileNotFoundError, match="seq2seq_bottleneck_results.py"):
        shipped.load_results(tmp_path / "missing.json")


def test_a_measured_run_reads_back_as_the_scores_it_was_made_of(tmp_path):
    accuracy = scoring.LengthAccuracy((2, 3), (1.0, 0.5), (1.0, 0.75), (4, 2))
    model = experiment.build("gru-none", 16)
    result = SimpleNamespace(steps=8, seconds=1.5, loss=0.25, stopped="max_steps")
    runs = tuple(
        shipped.measured_run(name, model, result, accuracy, {"jane": "jane"}, seed=3) for name in experiment.MODELS
    )
    saved = Comparison(tuple(experiment.MODELS), runs, {"script": shipped.SCRIPT})
    back = shipped.load_results(saved.save(tmp_path / "s.json"))
    assert shipped.accuracy_of(back, "gru-none", 16) == accuracy
    run = shipped.shipped_run(back, "gru-additive", 16)
    assert (run.seed, run.params, run.final) == (3, {"hidden_size": 16}, {"loss": 0.25, "seconds": 1.5, "steps": 8})
    assert run.extra == {
        "parameters": sum(p.numel() for p in model.parameters()),
        "stopped": "max_steps",
        "outputs": {"jane": "jane"},
        "model": experiment.describe(model),
    }
    bi = experiment.build("gru-none", 16, bidirectional=True)  # H = 8 per direction: recorded as D = 16
    assert shipped.measured_run("gru-none", bi, result, accuracy, {}).params == {"hidden_size": 16}
    with pytest.raises(LookupError, match="D = 32"):
        shipped.accuracy_of(back, "gru-none", 32)
