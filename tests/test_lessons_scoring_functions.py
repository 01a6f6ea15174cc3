"""The scoring-functions lesson: the four scores against their textbook formulas, parameter counts, the race
and the shipped results."""

import json
import math
import threading

import numpy as np
import pytest
import torch

from lessons import scoring_functions as scoring
from lessons.common import charts
from minimodels.attention import AdditiveAttention, BilinearAttention, DotProductAttention, ScaledDotProductAttention
from minimodels.tasks import get_task
from minimodels.train import build_model, stop_when, train


# ------------------------------------------------------------------------------------------ the formulas
def test_scores_equal_the_textbook_formulas_on_a_hand_made_example():
    q = torch.tensor([[[1.0, 2.0]]])  # (1, 1, d=2)
    keys = torch.tensor([[[3.0, 0.0], [1.0, 1.0], [-1.0, 2.0]]])  # (1, 3, 2)
    assert DotProductAttention().score(q, keys).flatten().tolist() == [3.0, 3.0, 3.0]
    scaled = ScaledDotProductAttention().score(q, keys).flatten()
    assert torch.allclose(scaled, torch.full((3,), 3 / math.sqrt(2)))

    bilinear = BilinearAttention(2, 2)
    W = torch.tensor([[1.0, 2.0], [0.0, -1.0]])
    with torch.no_grad():
        bilinear.W.weight.copy_(W)
    expected = [float(q[0, 0] @ W @ k) for k in keys[0]]  # qᵀ W k
    assert bilinear.score(q, keys).flatten().tolist() == pytest.approx(expected)
    assert expected == [3.0, 1.0, -1.0]  # qᵀW = (1, 0)

    additive = AdditiveAttention(2, 2, 3)
    W1 = torch.tensor([[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, -0.5], [1.0, 1.0, 1.0, 1.0]])  # (d'' = 3, d + d' = 4)
    w2 = torch.tensor([1.0, -2.0, 0.5])
    with torch.no_grad():
        additive.W_q.weight.copy_(W1[:, :2])
        additive.W_k.weight.copy_(W1[:, 2:])
        additive.W_k.bias.zero_()
        additive.v.weight.copy_(w2[None])
    expected = [float(w2 @ torch.tanh(W1 @ torch.cat([q[0, 0], k]))) for k in keys[0]]  # w₂ᵀ tanh(W₁[q; k])
    assert additive.score(q, keys).flatten().tolist() == pytest.approx(expected, abs=1e-6)


def test_the_example_is_scored_by_the_formulas_with_the_modules_own_weights():
    c = scoring.compare_scores(8, 5, seed=3)
    q, K = c.query.astype(float), c.keys.astype(float)
    assert np.allclose(c.scores["dot"], K @ q, atol=1e-5)
    assert np.allclose(c.scores["scaled_dot"], K @ q / math.sqrt(8), atol=1e-5)
    modules = scoring.score_modules(8, seed=3)  # the same seed draws the same untrained weights
    W = modules["bilinear"].W.weight.detach().numpy()
    assert np.allclose(c.scores["bilinear"], [q @ W @ k for k in K], atol=1e-4)
    a = modules["additive"]
    Wq, Wk, b = a.W_q.weight.detach().numpy(), a.W_k.weight.detach().numpy(), a.W_k.bias.detach().numpy()
    v = a.v.weight.detach().numpy()[0]
    assert np.allclose(c.scores["additive"], [v @ np.tanh(Wq @ q + Wk @ k + b) for k in K], atol=1e-4)


@pytest.mark.parametrize("score", scoring.SCORES)
def test_softmax_rows_sum_to_one_and_the_context_is_their_weighted_sum(score):
    c = scoring.compare_scores(16, 7, seed=1)
    e, a = c.scores[score].astype(float), c.weights[score]
    assert a.sum() == pytest.approx(1.0, abs=1e-5) and (a >= 0).all()
    assert np.allclose(a, np.exp(e - e.max()) / np.exp(e - e.max()).sum(), atol=1e-5)
    assert np.allclose(c.contexts[score], a @ c.keys, atol=1e-5)


def test_a_copied_query_wins_the_dot_scores_and_scaling_softens_them():
    c = scoring.compare_scores(64, 6, seed=0, copy_of=2)
    assert np.array_equal(c.query, c.keys[2])
    assert c.key_labels[2] == "k3 = q"
    for score in ("dot", "scaled_dot"):
        assert int(np.argmax(c.weights[score])) == 2
    assert c.weights["dot"].max() > c.weights["scaled_dot"].max()
    assert scoring.entropy_bits(c.weights["dot"]) < scoring.entropy_bits(c.weights["scaled_dot"])
    rows = {r["score"]: r for r in scoring.comparison_rows(c)}
    assert rows["dot"]["on key"] == "k3 = q"


def test_entropy_is_zero_for_one_hot_and_log2_n_for_uniform():
    assert scoring.entropy_bits(np.array([0.0, 1.0, 0.0])) == 0.0
    assert scoring.entropy_bits(np.full(8, 1 / 8)) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("d", "n", "copy_of", "message"),
    [(0, 3, None, "between 1 and"), (1024, 3, None, "between 1 and"), (8, 1, None, "between 2 and"),
     (8, 40, None, "between 2 and"), (8, 3, 3, "no key k4")],
)  # fmt: skip
def test_bad_example_sizes_get_a_clear_message(d, n, copy_of, message):
    assert message in scoring.check_example(d, n, copy_of)
    with pytest.raises(ValueError, match=message):
        scoring.compare_scores(d, n, copy_of=copy_of)


# ------------------------------------------------------------------------------------- parameter counts
@pytest.mark.parametrize("d", [2, 16, 64])
def test_parameter_counts_follow_the_shapes(d):
    counts = scoring.parameter_counts(d)
    assert counts == {"dot": 0, "scaled_dot": 0, "bilinear": d * d, "additive": d * d + d * d + d + d}


def test_unequal_sizes_drop_the_dot_scores_and_bilinear_is_d_by_d_prime():
    counts = scoring.parameter_counts(64, 128, hidden=32)
    assert counts == {"bilinear": 64 * 128, "additive": 64 * 32 + 128 * 32 + 32 + 32}
    # the page's equation names every parameter counted: W₁ (d'' × (d + d')), b₁ and w₂ (d'' each)
    assert all(name in scoring.EQUATIONS["additive"] for name in ("W_1", "b_1", "w_2"))
    assert [s for s in scoring.SCORES if scoring.accepts_sizes(s, 64, 128)] == ["bilinear", "additive"]
    assert all(scoring.accepts_sizes(s, 8, 8) for s in scoring.SCORES)


def test_the_seq2seq_models_score_parameters():
    task = get_task("dates")
    counts = {s: scoring.score_parameters(build_model(scoring.model_name(s), task)) for s in scoring.SCORES}
    D, A = 64, 64
    assert counts == {"dot": 0, "scaled_dot": 0, "bilinear": D * D, "additive": D * A + D * A + A + A}


# ---------------------------------------------------------------------------------------------- scaling
def test_dot_scores_spread_like_sqrt_d_and_scaled_ones_stay_near_one():
    rows = scoring.scaling_curve(5, ds=(4, 64, 512), samples=256)
    by = {(r["d"], r["score"]): r for r in rows}
    for d in (4, 64, 512):
        assert by[(d, "dot")]["std of scores"] == pytest.approx(math.sqrt(d), rel=0.15)
        assert by[(d, "scaled dot")]["std of scores"] == pytest.approx(1.0, rel=0.15)
    assert by[(512, "dot")]["mean largest α"] > 0.9 > by[(512, "scaled dot")]["mean largest α"]
    assert by[(512, "dot")]["mean largest α"] > by[(4, "dot")]["mean largest α"]


def test_scaling_curves_of_every_n_read_one_draw():
    scores = scoring.scaling_scores(ds=(4, 64), samples=64, seed=1)
    assert scores[64]["dot"].shape == (64, 1, scoring.MAX_KEYS)
    assert torch.allclose(scores[64]["scaled_dot"], scores[64]["dot"] / 8)
    drawn = scoring.scaling_curve(3, ds=(4, 64), samples=64, seed=1)
    assert scoring.scaling_curve(3, ds=(4, 64), samples=64, seed=1, scores=scores) == drawn
    assert scoring.scaling_curve(4, ds=(4, 64), samples=64, seed=1, scores=scores) != drawn
    with pytest.raises(ValueError):
        scoring.scaling_curve(scoring.MAX_KEYS + 1)


# ----------------------------------------------------------------------------------------------- charts
def test_comparison_chart_has_scores_and_softmax_for_each():
    example = scoring.compare_scores(8, 4, copy_of=1)
    spec = scoring.comparison_chart(example)
    rows = spec["data"]["values"]
    assert len(rows) == 2 * 4 * len(scoring.SCORES)  # raw scores and softmax, 4 keys, each score
    for name in scoring.SCORES:
        mine = [r for r in rows if r["score"] == scoring.LABELS[name]]
        assert [r["key"] for r in mine[:4]] == ["k1", "k2 = q", "k3", "k4"]
        np.testing.assert_allclose(
            [r["value"] for r in mine if r["row"] == "scores e"], example.scores[name], rtol=1e-6
        )
        np.testing.assert_allclose(
            [r["value"] for r in mine if r["row"] != "scores e"], example.weights[name], rtol=1e-6
        )
    top, bottom = spec["vconcat"]
    assert top["resolve"]["scale"]["y"] == "independent"  # each score's raw scores on its own scale
    assert bottom["encoding"]["y"]["scale"]["domain"] == [0, 1]
    assert scoring.comparison_chart(scoring.compare_scores(8, 5))["vconcat"] == spec["vconcat"]  # only data changes
    large = charts.presenter_vega(spec, 1.35)  # presenter mode: larger, same numbers
    assert large["data"] == spec["data"] and large["vconcat"][0]["height"] > top["height"]
    assert large["vconcat"][0]["encoding"]["column"]["header"]["labelFontSize"] == 17  # the scores' names
    assert scoring.comparison_chart(example) == spec  # the large copy left the shared spec as it was


def test_attention_grid_draws_one_heatmap_per_score_with_safe_labels():
    maps = {
        s: {"attention": np.full((2, 3), 1 / 3), "source_tokens": ["<b>", " ", "</s>"], "target_tokens": ["a", "b"]}
        for s in scoring.SCORES
    }
    fig = scoring.attention_grid(maps)
    assert [t.type for t in fig.data] == ["heatmap"] * 4
    ticks = fig.layout.xaxis.ticktext
    assert ticks[0] == "&lt;b&gt;" and ticks[1] == scoring.SPACE
    maps["dot"]["attention"] = np.zeros((3, 3))
    with pytest.raises(ValueError, match="does not match"):
        scoring.attention_grid(maps)
    with pytest.raises(ValueError):
        scoring.attention_grid({})


def test_race_curves_take_steps_or_seconds_only():
    results = scoring.load_results()
    loss, accuracy = scoring.race_curves(results.runs, x="seconds")
    assert loss.to_dict()["encoding"]["x"]["field"] == "seconds"
    with pytest.raises(ValueError):
        scoring.race_curves(results.runs, x="loss")


# ------------------------------------------------------------------------------------------------ table
def summary(score, seed, points):
    curve = [{"step": s, "seconds": s / 10, "loss": 1 / s, "exact_match": em} for s, em in points]
    return scoring.RunSummary(
        score=score, seed=seed, steps=curve[-1]["step"], seconds=curve[-1]["seconds"], exact_match=curve[-1][
            "exact_match"], stopped="target", reached={scoring.level_key(lv): scoring.first_reached(curve, lv)
            for lv in scoring.LEVELS}, curve=curve, test_exact_match=0.9, alignment_accuracy=0.5,
    )  # fmt: skip


def test_table_gives_medians_with_their_range_and_says_when_a_level_was_not_reached():
    runs = {
        "dot": [summary("dot", 0, [(10, 0.5), (20, 0.92), (30, 0.96)]), summary("dot", 1, [(10, 0.91), (20, 0.97)]),
                summary("dot", 2, [(10, 0.2), (20, 0.5), (30, 0.93), (40, 0.99)])],
        "additive": [summary("additive", 0, [(10, 0.3), (20, 0.6)])],
    }  # fmt: skip
    rows = {r["score"]: r for r in scoring.table_rows(runs, {"dot": 0, "additive": 10})}
    assert list(rows) == ["dot", "additive (MLP)"]
    dot = rows["dot"]
    assert dot["steps to 90%"] == "20 (10–30)"
    assert dot["steps to 95%"] == "30 (20–40)"
    assert dot["s to 90%"] == "2.0 (1.0–3.0)"
    assert dot["parameters"] == 0
    assert rows["additive (MLP)"]["steps to 90%"] == "not reached"
    assert rows["additive (MLP)"]["attends from"].startswith("sₜ₋₁")
    assert scoring.table_rows(runs, ranges=False)[0]["steps to 90%"] == "20"
    per_run = scoring.run_rows(runs)
    assert [(r["score"], r["seed"], r["steps to 90%"]) for r in per_run] == [
        ("dot", 0, 20),
        ("dot", 1, 10),
        ("dot", 2, 30),
        ("additive (MLP)", 0, None),
    ]
    runs["dot"][2] = summary("dot", 2, [(10, 0.2)])
    assert scoring.table_rows(runs)[0]["steps to 95%"] == "not reached by 1 of 3"


# ------------------------------------------------------------------------------------------------- race
def test_a_tiny_seeded_race_of_one_score_learns():
    task = get_task("dates")
    models = {"dot": build_model("gru-dot", task, seed=0)}
    reports = []
    out = scoring.race(
        models, task, scoring.race_config(0, max_steps=60), budget_seconds=None, on_progress=reports.append
    )
    run = out["dot"]
    assert run.steps == 60 and run.stopped == "max_steps"
    assert [p["step"] for p in run.curve] == [10, 20, 30, 40, 50, 60]
    assert run.curve[-1]["loss"] < 0.5 * run.curve[0]["loss"]
    assert run.exact_match > run.curve[0]["exact_match"]
    assert run.test_exact_match is not None and run.alignment_accuracy is not None
    assert [r.step for r in reports] == [10, 20, 30, 40, 50, 60, 60]  # and once more, with the final figures
    assert "dot" not in reports[-2].summaries and reports[-1].summaries["dot"] == run
    grid = reports[-1].maps()["dot"]
    assert np.asarray(grid["attention"]).shape == (len(grid["target_tokens"]), len(grid["source_tokens"]))


def test_taking_turns_trains_each_model_exactly_as_alone():
    task = get_task("dates")
    config = scoring.race_config(5, max_steps=20)
    alone = build_model("gru-bilinear", task, seed=5)
    alone_losses = [p.loss for p in train(alone, task, config).history]
    models = {s: build_model(scoring.model_name(s), task, seed=5) for s in ("bilinear", "additive")}
    out = scoring.race(models, task, config, budget_seconds=None, final_checks=False)
    assert [p["loss"] for p in out["bilinear"].curve] == pytest.approx(alone_losses, abs=1e-5)
    assert out["additive"].steps == 20 and out["additive"].test_exact_match is None


def test_stopping_the_race_stops_every_model_at_its_next_turn():
    task = get_task("dates")
    models = scoring.new_models(task, seed=0)
    reports = []

    def on_progress(report):
        reports.append(report)
        return len(reports) < 2  # stop after the second model's first turn

    out = scoring.race(models, task, scoring.race_config(0), budget_seconds=60, on_progress=on_progress)
    assert len(reports) == 2 and [r.turn for r in reports] == ["dot", "scaled_dot"]
    assert {s: r.stopped for s, r in out.items()} == dict.fromkeys(scoring.SCORES, "stopped")
    assert all(r.steps <= 20 for r in out.values())
    assert out["dot"].test_exact_match is None  # no final checks on a stopped model


def test_a_page_stop_reaches_every_model_of_the_race_within_its_turn():
    task = get_task("dates")
    models = scoring.new_models(task, seed=0)
    event = threading.Event()
    config = scoring.race_config(0, report_every=10_000, eval_size=20)  # one turn would be 10,000 steps
    threading.Timer(0.5, event.set).start()  # the page's Stop, during the first model's first turn
    with stop_when(event):
        out = scoring.race(models, task, config, budget_seconds=None)
    assert {s: r.stopped for s, r in out.items()} == dict.fromkeys(scoring.SCORES, "stopped")
    assert all(r.steps < 10_000 for r in out.values())


def test_a_budget_stops_a_model_by_its_own_compute_time():
    task = get_task("dates")
    models = {"dot": build_model("gru-dot", task, seed=0)}
    out = scoring.race(models, task, scoring.race_config(0, target_exact_match=None), budget_seconds=0.01)
    assert out["dot"].stopped == "budget" and out["dot"].steps == scoring.REPORT_EVERY


def test_a_failing_model_fails_the_race_without_leaving_threads_behind():
    task = get_task("dates")
    broken = build_model("gru-additive", task, seed=0)

    def fail(*args):
        raise RuntimeError("broken on purpose")

    broken.forward = fail
    models = {"dot": build_model("gru-dot", task, seed=0), "additive": broken}
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="broken on purpose"):
        scoring.race(models, task, scoring.race_config(0), budget_seconds=30)
    assert threading.active_count() == before


def test_race_wants_its_own_time_budget():
    with pytest.raises(ValueError, match="budget_seconds"):
        scoring.race({}, get_task("dates"), scoring.race_config(0, max_seconds=5), budget_seconds=5)
    with pytest.raises(ValueError, match="outside"):
        scoring.new_race(0, 0)


# -------------------------------------------------------------------------------------- shipped results
def test_the_shipped_results_have_all_four_with_consistent_fields():
    data = json.loads(scoring.RESULTS.read_text(encoding="utf-8"))
    for key in ("command", "date", "machine", "seeds", "task", "budget_seconds", "train_config"):
        assert key in data, key
    assert data["task"] == scoring.TASK and data["command"].startswith("python scripts/scoring_functions_results.py")
    results = scoring.load_results()
    assert set(results.runs) == set(scoring.SCORES)
    for score in scoring.SCORES:
        runs = results.runs[score]
        assert [r.seed for r in runs] == data["seeds"]
        for r in runs:
            steps = [p["step"] for p in r.curve]
            assert steps == sorted(steps) and steps[-1] == r.steps
            assert r.exact_match == r.curve[-1]["exact_match"]
            for level in scoring.LEVELS:
                assert r.reached[scoring.level_key(level)] == scoring.first_reached(r.curve, level)
            assert r.stopped in ("target", "budget", "max_steps")
            assert 0 <= r.test_exact_match <= 1 and 0 <= r.alignment_accuracy <= 1
        probe = results.probe[score]
        z = np.asarray(probe["attention"])
        assert z.shape == (len(probe["target_tokens"]), len(probe["source_tokens"]))
        assert np.allclose(z.sum(axis=1), 1.0, atol=1e-3)
    assert results.score_parameters == {"dot": 0, "scaled_dot": 0, "bilinear": 64 * 64, "additive": 8320}


def test_results_that_do_not_fit_are_refused_with_a_reason():
    data = json.loads(scoring.RESULTS.read_text(encoding="utf-8"))
    broken = json.loads(json.dumps(data))
    del broken["models"]["additive"]
    with pytest.raises(ValueError, match="must have models"):
        scoring.results_from_dict(broken)
    broken = json.loads(json.dumps(data))
    del broken["models"]["dot"]["runs"][0]["curve"]
    with pytest.raises(ValueError, match="lacks curve"):
        scoring.results_from_dict(broken)
    broken = json.loads(json.dumps(data))
    broken["models"]["dot"]["probe"]["target_tokens"].append("x")
    with pytest.raises(ValueError, match="does not match"):
        scoring.results_from_dict(broken)
    with pytest.raises(FileNotFoundError, match="scoring_functions_results.py"):
        scoring.load_results(scoring.RESULTS.with_name("nothing.json"))


# ---------------------------------------------------------------------------------------------- exercises
def test_exercise_answers_are_computed():
    results = scoring.load_results()
    ex = {e.key: e for e in scoring.exercises(results)}
    assert ex["scoring_functions.ex1"].answer == pytest.approx(2.0)
    assert ex["scoring_functions.ex1"].check(2.0).correct and not ex["scoring_functions.ex1"].check(4.0).correct
    assert ex["scoring_functions.ex2"].choices[ex["scoring_functions.ex2"].answer] == "only bilinear and additive"
    assert ex["scoring_functions.ex3"].answer == 64 * 128
    steps = {
        s: np.median([r.reached["0.95"]["step"] for r in runs]) for s, runs in results.runs.items()
    }  # every score reaches 95% in the shipped race
    best = min(steps, key=steps.get)
    assert ex["scoring_functions.ex4"].choices[ex["scoring_functions.ex4"].answer] == scoring.LABELS[best]
    assert [e.key for e in scoring.exercises(None)] == [
        "scoring_functions.ex1",
        "scoring_functions.ex2",
        "scoring_functions.ex3",
    ]


def test_observations_are_read_off_the_results():
    results = scoring.load_results()
    lines = scoring.observations(results)
    steps = {s: np.median([r.reached["0.95"]["step"] for r in runs]) for s, runs in results.runs.items()}
    assert lines[0].startswith(f"Fewest steps to 95%: **{scoring.LABELS[min(steps, key=steps.get)]}**")
    align = {s: np.median([r.alignment_accuracy for r in runs]) for s, runs in results.runs.items()}
    assert f"**{scoring.LABELS[max(align, key=align.get)]}**" in lines[-1]
    per_step = {s: np.median([r.seconds / r.steps for r in runs]) for s, runs in results.runs.items()}
    assert f"Slowest step: **{scoring.LABELS[max(per_step, key=per_step.get)]}**" in lines[2]
