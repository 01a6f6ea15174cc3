"""The architecture lab's shipped grid: complete and consistent, broken files refused with a clear error, the
results script's smallest run read back by the page's loader, and a shipped row rerun live as the script ran it."""

import json

import pytest

from lessons.architecture_lab import compare, compare_runs, presets, training, writing_chains
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from minimodels.chains import ChainModel
from minimodels.tasks import get_task
from tests.lessons.architecture_lab.made_up import comparison


@pytest.mark.parametrize("grid", list(compare_runs.GRIDS))
def test_the_shipped_results_are_complete_and_consistent(grid):
    results = compare_runs.load_results(compare_runs.GRIDS[grid])
    assert isinstance(results, Comparison) and results.meta["script"] == "scripts/architecture_lab_results.py"
    assert set(results.variants) <= set(presets.PRESET_BY_KEY) and len(results.variants) >= 6  # the paper's main ones
    assert results.labels == {v: presets.PRESET_BY_KEY[v].label for v in results.variants}
    assert list(results.seeds) == results.meta["seeds"]
    for run in results.runs:
        preset = presets.PRESET_BY_KEY[run.variant]
        assert (run.extra["encoder"], run.extra["decoder"]) == (preset.encoder, preset.decoder)
        task = get_task(run.params["task"])
        assert run.extra["parameters"] == writing_chains.check(preset.encoder, preset.decoder, task).parameters
        assert 0.0 <= run.value(compare_runs.FINAL) <= 1.0 and run.value("steps") <= results.meta["max_steps"]
        steps_to = run.value(compare_runs.STEPS_TO)
        assert steps_to is None or steps_to <= run.value("steps")
    probes = compare.probes(results)
    assert set(probes) == set(results.variants)  # every preset's trained maps can be shown
    for key, probe in probes.items():
        views = compare.shipped_views(results, key)
        preset = presets.PRESET_BY_KEY[key]
        model = ChainModel(writing_chains.chain_config(preset.encoder, preset.decoder, get_task(probe["task"])))
        assert [v.name for v in views] == [
            v.name for v in writing_chains.untrained_views(model, get_task(probe["task"]))
        ]
    assert "architecture_lab_results.py" in results.meta["command"]


def test_broken_results_files_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="architecture_lab_results.py"):
        compare_runs.load_results(tmp_path / "architecture_lab.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"runs": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="format.*architecture_lab_results.py"):
        compare_runs.load_results(bad)
    good = comparison({"transformer": (100,)}, {"transformer": (0.9,)})
    unknown = Comparison(("nope",), (Run("nope", 0, {"task": "reverse"}, (), good.runs[0].final),))
    unknown.save(bad)
    with pytest.raises(ValueError, match="unknown presets"):
        compare_runs.load_results(bad)
    Comparison(good.variants, (Run("transformer", 0, {"task": "reverse"}, (), {compare_runs.FINAL: 0.9}),)).save(bad)
    with pytest.raises(ValueError, match="lacks steps to 90%"):
        compare_runs.load_results(bad)


@pytest.mark.slow  # trains (a few steps, two seeds)
def test_the_script_makes_what_the_page_reads(tmp_path):
    """The smallest run of scripts/architecture_lab_results.py: two seeds, a few steps, one preset."""
    from scripts import architecture_lab_results as script

    out = tmp_path / "architecture_lab.json"
    script.main(
        [
            "--tasks",
            "reverse",
            "--seeds",
            "0",
            "1",
            "--max-steps",
            "4",
            "--budget",
            "30",
            "--presets",
            "selfatt-none",
            "--out",
            str(out),
        ]
    )
    results = compare_runs.load_results(out)
    assert results.variants == ("selfatt-none",) and results.seeds == (0, 1)
    assert all(run.curve and run.value("steps") == 4 for run in results.runs)
    assert set(compare.probes(results)) == {"selfatt-none"} and results.meta["script"].endswith("_results.py")


@pytest.mark.slow  # trains one shipped row again, and the results script's first reports of it
def test_rerunning_a_shipped_row_live_trains_it_as_the_results_script_did():
    """The page's "Rerun a row live" (rerun_settings -> new_run) is the results script's run of that row
    (scripts/architecture_lab_results.train_one), step for step: the script's first reports, trained here, are the
    live run's to the last digit (the schedule does not depend on the number of steps). Against the shipped file the
    steps are exact and the exact match close: another CPU's vector unit rounds the matmuls differently (on an
    AVX2-only machine the quickest row's seed ends 0.02 below its shipped exact match, inside the 0.05 allowed here)."""
    from scripts.architecture_lab_results import train_one

    results = compare_runs.load_results()
    key = min(results.variants, key=lambda v: results.spread("seconds", v).mean)  # the quickest row
    settings = compare.rerun_settings(results, key)
    preset, name, seed = (
        presets.PRESET_BY_KEY[key],
        settings["architecture_lab.task"],
        settings["architecture_lab.seed"],
    )
    task = get_task(name)
    checked = writing_chains.check(settings["architecture_lab.encoder"], settings["architecture_lab.decoder"], task)
    _, train_fn = training.new_run(checked, task, seed, 120.0, settings["architecture_lab.steps"])
    live = compare_runs.shipped_run(preset, name, seed, train_fn(lambda progress: None), checked.parameters)
    first = 2 * training.REPORT_EVERY
    script = train_one(
        preset,
        name,
        seed,
        results.meta["budget_seconds"],
        first,
        threads=1,
        probe=False,
        stop_at=results.meta["stop_at"],
    )
    untimed = lambda run: [{k: v for k, v in point.items() if k != "seconds"} for point in run.curve]  # noqa: E731
    assert len(untimed(script)) >= 2 and untimed(live)[:2] == untimed(script)[:2]  # step, loss, exact match
    shipped = next(r for r in results.runs_of(key) if r.seed == seed)
    assert live.value("steps") == shipped.value("steps")
    assert live.value(compare_runs.FINAL) == pytest.approx(shipped.value(compare_runs.FINAL), abs=0.05)
