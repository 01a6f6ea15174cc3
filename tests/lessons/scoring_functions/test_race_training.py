"""The race: each model's figures read off its curve, the models taking turns exactly as each would train alone, and
every way a race stops (target, steps, the student, the page's Stop, a budget, a failing model)."""

import threading

import numpy as np
import pytest

from lessons.scoring_functions import four_scores, race_training, race_yourself
from minimodels.tasks import get_task
from minimodels.train import build_model, stop_when, train
from tests.lessons.scoring_functions.made_up_races import run


def test_the_seq2seq_models_score_parameters():
    task = get_task("dates")
    counts = {
        s: race_training.score_parameters(build_model(race_training.model_name(s), task)) for s in four_scores.SCORES
    }
    D, A = 64, 64
    assert counts == {"dot": 0, "scaled_dot": 0, "bilinear": D * D, "additive": D * A + D * A + A + A}


def test_a_run_reads_its_figures_off_its_curve():
    r = run("dot", 0, [(10, 0.5), (20, 0.92), (30, 0.96)])
    assert r.final["steps to 90%"] == 20 and r.final["seconds to 90%"] == 2.0
    assert r.final["steps to 95%"] == 30 and r.final["steps"] == 30 and r.final["held-out exact match"] == 0.96
    assert r.final["seconds per 100 steps"] == pytest.approx(10.0)
    assert run("dot", 0, [(10, 0.5)]).final["steps to 90%"] is None  # never reached
    empty = race_training.run_of("dot", 0, [], "stopped")
    assert empty.final["steps"] == 0 and empty.extra["stopped"] == "stopped"


@pytest.mark.slow  # trains a model or starts a Python process
def test_a_tiny_seeded_race_of_one_score_learns():
    task = get_task("dates")
    models = {"dot": build_model("gru-dot", task, seed=0)}
    reports = []
    out = race_training.race(
        models, task, race_training.race_config(0, max_steps=60), budget_seconds=None, on_progress=reports.append
    )
    run = out["dot"]
    assert run.final["steps"] == 60 and run.extra["stopped"] == "max_steps"
    assert [p["step"] for p in run.curve] == [10, 20, 30, 40, 50, 60]
    assert run.curve[-1]["loss"] < 0.5 * run.curve[0]["loss"]
    assert run.final["held-out exact match"] > run.curve[0]["exact_match"]
    assert run.final["test exact match"] is not None and run.final["alignment accuracy"] is not None
    assert [r.step for r in reports] == [10, 20, 30, 40, 50, 60, 60]  # and once more, with the final figures
    assert "dot" not in reports[-2].summaries and reports[-1].summaries["dot"] == run
    live = reports[-2].comparison()  # the race so far: one seed per score, the model still running
    assert live.seeds == (0,) and live.runs[0].extra["stopped"] == "running" and live.runs[0].final["steps"] == 60
    assert reports[-1].comparison().runs == (run,)
    grid = reports[-1].maps()["dot"]
    assert np.asarray(grid["attention"]).shape == (len(grid["target_tokens"]), len(grid["source_tokens"]))


@pytest.mark.slow  # trains a model or starts a Python process
def test_taking_turns_trains_each_model_exactly_as_alone():
    task = get_task("dates")
    config = race_training.race_config(5, max_steps=20)
    alone = build_model("gru-bilinear", task, seed=5)
    alone_losses = [p.loss for p in train(alone, task, config).history]
    models = {s: build_model(race_training.model_name(s), task, seed=5) for s in ("bilinear", "additive")}
    out = race_training.race(models, task, config, budget_seconds=None, final_checks=False)
    assert [p["loss"] for p in out["bilinear"].curve] == pytest.approx(alone_losses, abs=1e-5)
    assert out["additive"].final["steps"] == 20 and out["additive"].final["test exact match"] is None


def test_stopping_the_race_stops_every_model_at_its_next_turn():
    task = get_task("dates")
    models = race_training.new_models(task, seed=0)
    reports = []

    def on_progress(report):
        reports.append(report)
        return len(reports) < 2  # stop after the second model's first turn

    out = race_training.race(models, task, race_training.race_config(0), budget_seconds=60, on_progress=on_progress)
    assert len(reports) == 2 and [r.turn for r in reports] == ["dot", "scaled_dot"]
    assert {s: r.extra["stopped"] for s, r in out.items()} == dict.fromkeys(four_scores.SCORES, "stopped")
    assert all(r.final["steps"] <= 20 for r in out.values())
    assert out["dot"].final["test exact match"] is None  # no final checks on a stopped model


@pytest.mark.slow  # trains a model or starts a Python process
def test_a_page_stop_reaches_every_model_of_the_race_within_its_turn():
    task = get_task("dates")
    models = race_training.new_models(task, seed=0)
    event = threading.Event()
    config = race_training.race_config(0, report_every=10_000, eval_size=20)  # one turn would be 10,000 steps
    threading.Timer(0.5, event.set).start()  # the page's Stop, during the first model's first turn
    with stop_when(event):
        out = race_training.race(models, task, config, budget_seconds=None)
    assert {s: r.extra["stopped"] for s, r in out.items()} == dict.fromkeys(four_scores.SCORES, "stopped")
    assert all(r.final["steps"] < 10_000 for r in out.values())


def test_a_budget_stops_a_model_by_its_own_compute_time():
    task = get_task("dates")
    models = {"dot": build_model("gru-dot", task, seed=0)}
    out = race_training.race(models, task, race_training.race_config(0, target_exact_match=None), budget_seconds=0.01)
    assert out["dot"].extra["stopped"] == "budget" and out["dot"].final["steps"] == race_training.REPORT_EVERY


def test_a_failing_model_fails_the_race_without_leaving_threads_behind():
    task = get_task("dates")
    broken = build_model("gru-additive", task, seed=0)

    def fail(*args):
        raise RuntimeError("broken on purpose")

    broken.forward = fail
    models = {"dot": build_model("gru-dot", task, seed=0), "additive": broken}
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="broken on purpose"):
        race_training.race(models, task, race_training.race_config(0), budget_seconds=30)
    assert threading.active_count() == before


def test_race_wants_its_own_time_budget():
    with pytest.raises(ValueError, match="budget_seconds"):
        race_training.race({}, get_task("dates"), race_training.race_config(0, max_seconds=5), budget_seconds=5)
    with pytest.raises(ValueError, match="outside"):
        race_yourself.new_race(0, 0)
