"""The scoring-functions lesson: the four scores against their textbook formulas, parameter counts, the race
and the shipped results."""

import dataclasses
import json
import math
import threading

import numpy as np
import pytest
import torch

from lessons import scoring_functions
from lessons.common import charts
from lessons.common.comparison import Comparison
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
    c = scoring_functions.compare_scores(8, 5, seed=3)
    q, K = c.query.astype(float), c.keys.astype(float)
    assert np.allclose(c.scores["dot"], K @ q, atol=1e-5)
    assert np.allclose(c.scores["scaled_dot"], K @ q / math.sqrt(8), atol=1e-5)
    modules = scoring_functions.score_modules(8, seed=3)  # the same seed draws the same untrained weights
    W = modules["bilinear"].W.weight.detach().numpy()
    assert np.allclose(c.scores["bilinear"], [q @ W @ k for k in K], atol=1e-4)
    a = modules["additive"]
    Wq, Wk, b = a.W_q.weight.detach().numpy(), a.W_k.weight.detach().numpy(), a.W_k.bias.detach().numpy()
    v = a.v.weight.detach().numpy()[0]
    assert np.allclose(c.scores["additive"], [v @ np.tanh(Wq @ q + Wk @ k + b) for k in K], atol=1e-4)


@pytest.mark.parametrize("score", scoring_functions.SCORES)
def test_softmax_rows_sum_to_one_and_the_context_is_their_weighted_sum(score):
    c = scoring_functions.compare_scores(16, 7, seed=1)
    e, a = c.scores[score].astype(float), c.weights[score]
    assert a.sum() == pytest.approx(1.0, abs=1e-5) and (a >= 0).all()
    assert np.allclose(a, np.exp(e - e.max()) / np.exp(e - e.max()).sum(), atol=1e-5)
    assert np.allclose(c.contexts[score], a @ c.keys, atol=1e-5)


def test_a_copied_query_wins_the_dot_scores_and_scaling_softens_them():
    c = scoring_functions.compare_scores(64, 6, seed=0, copy_of=2)
    assert np.array_equal(c.query, c.keys[2])
    assert c.key_labels[2] == "k3 = q"
    for score in ("dot", "scaled_dot"):
        assert int(np.argmax(c.weights[score])) == 2
    assert c.weights["dot"].max() > c.weights["scaled_dot"].max()
    assert scoring_functions.entropy_bits(c.weights["dot"]) < scoring_functions.entropy_bits(c.weights["scaled_dot"])
    rows = {r["score"]: r for r in scoring_functions.comparison_rows(c)}
    assert rows["dot"]["on key"] == "k3 = q"


def test_entropy_is_zero_for_one_hot_and_log2_n_for_uniform():
    assert scoring_functions.entropy_bits(np.array([0.0, 1.0, 0.0])) == 0.0
    assert scoring_functions.entropy_bits(np.full(8, 1 / 8)) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("d", "n", "copy_of", "message"),
    [(0, 3, None, "between 1 and"), (1024, 3, None, "between 1 and"), (8, 1, None, "between 2 and"),
     (8, 40, None, "between 2 and"), (8, 3, 3, "no key k4")],
)  # fmt: skip
def test_bad_example_sizes_get_a_clear_message(d, n, copy_of, message):
    assert message in scoring_functions.check_example(d, n, copy_of)
    with pytest.raises(ValueError, match=message):
        scoring_functions.compare_scores(d, n, copy_of=copy_of)


# ------------------------------------------------------------------------------------- parameter counts
@pytest.mark.parametrize("d", [2, 16, 64])
def test_parameter_counts_follow_the_shapes(d):
    counts = scoring_functions.parameter_counts(d)
    assert counts == {"dot": 0, "scaled_dot": 0, "bilinear": d * d, "additive": d * d + d * d + d + d}


def test_unequal_sizes_drop_the_dot_scores_and_bilinear_is_d_by_d_prime():
    counts = scoring_functions.parameter_counts(64, 128, hidden=32)
    assert counts == {"bilinear": 64 * 128, "additive": 64 * 32 + 128 * 32 + 32 + 32}
    # the page's equation names every parameter counted: W₁ (d'' × (d + d')), b₁ and w₂ (d'' each)
    assert all(name in scoring_functions.EQUATIONS["additive"] for name in ("W_1", "b_1", "w_2"))
    assert [s for s in scoring_functions.SCORES if scoring_functions.accepts_sizes(s, 64, 128)] == [
        "bilinear",
        "additive",
    ]
    assert all(scoring_functions.accepts_sizes(s, 8, 8) for s in scoring_functions.SCORES)


def test_the_seq2seq_models_score_parameters():
    task = get_task("dates")
    counts = {
        s: scoring_functions.score_parameters(build_model(scoring_functions.model_name(s), task))
        for s in scoring_functions.SCORES
    }
    D, A = 64, 64
    assert counts == {"dot": 0, "scaled_dot": 0, "bilinear": D * D, "additive": D * A + D * A + A + A}


# ---------------------------------------------------------------------------------------------- scaling
def test_dot_scores_spread_like_sqrt_d_and_scaled_ones_stay_near_one():
    rows = scoring_functions.scaling_curve(5, ds=(4, 64, 512), samples=256)
    by = {(r["d"], r["score"]): r for r in rows}
    for d in (4, 64, 512):
        assert by[(d, "dot")]["std of scores"] == pytest.approx(math.sqrt(d), rel=0.15)
        assert by[(d, "scaled dot")]["std of scores"] == pytest.approx(1.0, rel=0.15)
    assert by[(512, "dot")]["mean largest α"] > 0.9 > by[(512, "scaled dot")]["mean largest α"]
    assert by[(512, "dot")]["mean largest α"] > by[(4, "dot")]["mean largest α"]


def test_scaling_curves_of_every_n_read_one_draw():
    scores = scoring_functions.scaling_scores(ds=(4, 64), samples=64, seed=1)
    assert scores[64]["dot"].shape == (64, 1, scoring_functions.MAX_KEYS)
    assert torch.allclose(scores[64]["scaled_dot"], scores[64]["dot"] / 8)
    drawn = scoring_functions.scaling_curve(3, ds=(4, 64), samples=64, seed=1)
    assert scoring_functions.scaling_curve(3, ds=(4, 64), samples=64, seed=1, scores=scores) == drawn
    assert scoring_functions.scaling_curve(4, ds=(4, 64), samples=64, seed=1, scores=scores) != drawn
    with pytest.raises(ValueError):
        scoring_functions.scaling_curve(scoring_functions.MAX_KEYS + 1)


# ----------------------------------------------------------------------------------------------- charts
def test_comparison_chart_has_scores_and_softmax_for_each():
    example = scoring_functions.compare_scores(8, 4, copy_of=1)
    spec = scoring_functions.comparison_chart(example)
    rows = spec["data"]["values"]
    assert len(rows) == 2 * 4 * len(scoring_functions.SCORES)  # raw scores and softmax, 4 keys, each score
    for name in scoring_functions.SCORES:
        mine = [r for r in rows if r["score"] == scoring_functions.LABELS[name]]
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
    assert (
        scoring_functions.comparison_chart(scoring_functions.compare_scores(8, 5))["vconcat"] == spec["vconcat"]
    )  # only data changes
    large = charts.presenter_vega(spec, 1.35)  # presenter mode: larger, same numbers
    assert large["data"] == spec["data"] and large["vconcat"][0]["height"] > top["height"]
    assert large["vconcat"][0]["encoding"]["column"]["header"]["labelFontSize"] == 17  # the scores' names
    assert scoring_functions.comparison_chart(example) == spec  # the large copy left the shared spec as it was


def test_attention_grid_draws_one_heatmap_per_score_with_safe_labels():
    maps = {
        s: {"attention": np.full((2, 3), 1 / 3), "source_tokens": ["<b>", " ", "</s>"], "target_tokens": ["a", "b"]}
        for s in scoring_functions.SCORES
    }
    fig = scoring_functions.attention_grid(maps)
    assert [t.type for t in fig.data] == ["heatmap"] * 4
    ticks = fig.layout.xaxis.ticktext
    assert ticks[0] == "&lt;b&gt;" and ticks[1] == scoring_functions.SPACE
    maps["dot"]["attention"] = np.zeros((3, 3))
    with pytest.raises(ValueError, match="does not match"):
        scoring_functions.attention_grid(maps)
    with pytest.raises(ValueError):
        scoring_functions.attention_grid({})


def test_race_charts_draw_every_seed_and_the_mean_against_steps_or_seconds():
    results = scoring_functions.load_results()
    loss, accuracy = scoring_functions.race_charts(results, x="seconds")
    assert loss["encoding"]["x"]["title"] == "seconds of its own training" and loss["title"] == "Loss"
    seeds = [v for v in loss["data"]["values"] if v["kind"] == "seed" and v["label"] == "dot"]
    assert sorted((v["seed"], v["x"], v["y"]) for v in seeds) == sorted(
        (r.seed, p["seconds"], p["loss"]) for r in results.runs_of("dot") for p in r.curve
    )  # every report of every seed, in its own seconds
    assert accuracy["layer"][-1]["encoding"]["y"]["axis"]["format"] == "%"  # exact match in per cent
    assert accuracy["encoding"]["color"]["scale"]["range"] == [
        scoring_functions.COLORS[s] for s in scoring_functions.SCORES
    ]
    steps, _ = scoring_functions.race_charts(results)
    assert {v["x"] for v in steps["data"]["values"]} == {p["step"] for r in results.runs for p in r.curve}
    with pytest.raises(ValueError):
        scoring_functions.race_charts(results, x="loss")


# ------------------------------------------------------------------------------------------------ table
def run(score, seed, points, test=0.9, align=0.5, seconds_per_step=0.1):
    """A run of ``score`` whose held-out exact match was ``em`` at each (step, em) of ``points``."""
    curve = [{"step": s, "seconds": s * seconds_per_step, "loss": 1 / s, "exact_match": em} for s, em in points]
    return scoring_functions.run_of(score, seed, curve, "target", test, align if test is not None else None)


def race_of(*runs, models=None) -> Comparison:
    variants = tuple(s for s in scoring_functions.SCORES if any(r.variant == s for r in runs))
    return Comparison(variants, runs, {"models": models or {}}, scoring_functions.LABELS)


def test_a_run_reads_its_figures_off_its_curve():
    r = run("dot", 0, [(10, 0.5), (20, 0.92), (30, 0.96)])
    assert r.final["steps to 90%"] == 20 and r.final["seconds to 90%"] == 2.0
    assert r.final["steps to 95%"] == 30 and r.final["steps"] == 30 and r.final["held-out exact match"] == 0.96
    assert r.final["seconds per 100 steps"] == pytest.approx(10.0)
    assert run("dot", 0, [(10, 0.5)]).final["steps to 90%"] is None  # never reached
    empty = scoring_functions.run_of("dot", 0, [], "stopped")
    assert empty.final["steps"] == 0 and empty.extra["stopped"] == "stopped"


def test_table_gives_mean_sd_and_n_and_says_when_a_level_was_not_reached():
    c = race_of(
        run("dot", 0, [(10, 0.5), (20, 0.92), (30, 0.96)]), run("dot", 1, [(10, 0.91), (20, 0.97)]),
        run("dot", 2, [(10, 0.2), (20, 0.5), (30, 0.93), (40, 0.99)]), run("additive", 0, [(10, 0.3), (20, 0.6)]),
        models={"dot": {"parameters": {"score": 0}}, "additive": {"parameters": {"score": 10}}},
    )  # fmt: skip
    rows = {r["score"]: r for r in scoring_functions.table_rows(c)}
    assert list(rows) == ["dot", "additive (MLP)"]
    dot = rows["dot"]
    assert dot["n"] == 3 and dot["parameters"] == 0
    assert dot["steps to 90%"] == "20 ± 10"  # 20, 10, 30
    assert dot["steps to 95%"] == "30 ± 10"  # 30, 20, 40
    assert dot["seconds to 90%"] == "2.0 ± 1.0"
    assert dot["test exact match"] == "90.0% ± 0.0%"
    assert rows["additive (MLP)"]["steps to 90%"] == "not reached (1 of 1)"
    assert rows["additive (MLP)"]["parameters"] == 10
    assert rows["additive (MLP)"]["attends from"].startswith("sₜ₋₁")
    per_seed = scoring_functions.seed_rows(c)
    assert [(r["score"], r["seed"], r["steps to 90%"], r["stopped by"]) for r in per_seed] == [
        ("dot", 0, 20, "target"),
        ("dot", 1, 10, "target"),
        ("dot", 2, 30, "target"),
        ("additive (MLP)", 0, None, "target"),
    ]
    c = race_of(run("dot", 0, [(10, 0.96)]), run("dot", 1, [(10, 0.99)]), run("dot", 2, [(10, 0.2)], test=None))
    (row,) = scoring_functions.table_rows(c)
    assert row["steps to 95%"] == "10 ± 0 (n = 2; 1 of 3 not reached)"
    assert row["test exact match"] == "90.0% ± 0.0% (n = 2; 1 of 3 not measured)"  # stopped before its checks
    assert "parameters" not in row  # a live race does not record them


# ------------------------------------------------------------------------------------------------- race
@pytest.mark.slow  # trains a model or starts a Python process
def test_a_tiny_seeded_race_of_one_score_learns():
    task = get_task("dates")
    models = {"dot": build_model("gru-dot", task, seed=0)}
    reports = []
    out = scoring_functions.race(
        models, task, scoring_functions.race_config(0, max_steps=60), budget_seconds=None, on_progress=reports.append
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
    config = scoring_functions.race_config(5, max_steps=20)
    alone = build_model("gru-bilinear", task, seed=5)
    alone_losses = [p.loss for p in train(alone, task, config).history]
    models = {s: build_model(scoring_functions.model_name(s), task, seed=5) for s in ("bilinear", "additive")}
    out = scoring_functions.race(models, task, config, budget_seconds=None, final_checks=False)
    assert [p["loss"] for p in out["bilinear"].curve] == pytest.approx(alone_losses, abs=1e-5)
    assert out["additive"].final["steps"] == 20 and out["additive"].final["test exact match"] is None


def test_stopping_the_race_stops_every_model_at_its_next_turn():
    task = get_task("dates")
    models = scoring_functions.new_models(task, seed=0)
    reports = []

    def on_progress(report):
        reports.append(report)
        return len(reports) < 2  # stop after the second model's first turn

    out = scoring_functions.race(
        models, task, scoring_functions.race_config(0), budget_seconds=60, on_progress=on_progress
    )
    assert len(reports) == 2 and [r.turn for r in reports] == ["dot", "scaled_dot"]
    assert {s: r.extra["stopped"] for s, r in out.items()} == dict.fromkeys(scoring_functions.SCORES, "stopped")
    assert all(r.final["steps"] <= 20 for r in out.values())
    assert out["dot"].final["test exact match"] is None  # no final checks on a stopped model


@pytest.mark.slow  # trains a model or starts a Python process
def test_a_page_stop_reaches_every_model_of_the_race_within_its_turn():
    task = get_task("dates")
    models = scoring_functions.new_models(task, seed=0)
    event = threading.Event()
    config = scoring_functions.race_config(0, report_every=10_000, eval_size=20)  # one turn would be 10,000 steps
    threading.Timer(0.5, event.set).start()  # the page's Stop, during the first model's first turn
    with stop_when(event):
        out = scoring_functions.race(models, task, config, budget_seconds=None)
    assert {s: r.extra["stopped"] for s, r in out.items()} == dict.fromkeys(scoring_functions.SCORES, "stopped")
    assert all(r.final["steps"] < 10_000 for r in out.values())


def test_a_budget_stops_a_model_by_its_own_compute_time():
    task = get_task("dates")
    models = {"dot": build_model("gru-dot", task, seed=0)}
    out = scoring_functions.race(
        models, task, scoring_functions.race_config(0, target_exact_match=None), budget_seconds=0.01
    )
    assert out["dot"].extra["stopped"] == "budget" and out["dot"].final["steps"] == scoring_functions.REPORT_EVERY


def test_a_failing_model_fails_the_race_without_leaving_threads_behind():
    task = get_task("dates")
    broken = build_model("gru-additive", task, seed=0)

    def fail(*args):
        raise RuntimeError("broken on purpose")

    broken.forward = fail
    models = {"dot": build_model("gru-dot", task, seed=0), "additive": broken}
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="broken on purpose"):
        scoring_functions.race(models, task, scoring_functions.race_config(0), budget_seconds=30)
    assert threading.active_count() == before


def test_race_wants_its_own_time_budget():
    with pytest.raises(ValueError, match="budget_seconds"):
        scoring_functions.race({}, get_task("dates"), scoring_functions.race_config(0, max_seconds=5), budget_seconds=5)
    with pytest.raises(ValueError, match="outside"):
        scoring_functions.new_race(0, 0)


# -------------------------------------------------------------------------------------- shipped results
def test_the_shipped_results_have_all_four_with_consistent_fields():
    data = json.loads(scoring_functions.RESULTS.read_text(encoding="utf-8"))
    meta = data["meta"]
    for key in ("command", "date", "machine", "seeds", "task", "budget_seconds", "train_config", "script"):
        assert key in meta, key
    assert meta["task"] == scoring_functions.TASK and meta["command"].startswith(
        "python scripts/scoring_functions_results.py"
    )
    assert meta["script"] == "scripts/scoring_functions_results.py"
    results = scoring_functions.load_results()
    assert results.variants == scoring_functions.SCORES and list(results.seeds) == meta["seeds"] == [0, 1, 2]
    for score in scoring_functions.SCORES:
        runs = results.runs_of(score)
        assert [r.seed for r in runs] == meta["seeds"]
        for r in runs:
            steps = [p["step"] for p in r.curve]
            assert steps == sorted(steps) and steps[-1] == r.final["steps"]
            assert r.final["held-out exact match"] == r.curve[-1]["exact_match"]
            for level in scoring_functions.LEVELS:
                assert r.final[scoring_functions.level_metric("steps", level)] == r.reached("exact_match", level)
            assert r.extra["stopped"] in ("target", "budget", "max_steps")
            assert 0 <= r.final["test exact match"] <= 1 and 0 <= r.final["alignment accuracy"] <= 1
        probe = scoring_functions.shipped_maps(results)[score]
        z = np.asarray(probe["attention"])
        assert z.shape == (len(probe["target_tokens"]), len(probe["source_tokens"])) and probe["seed"] == 0
        assert np.allclose(z.sum(axis=1), 1.0, atol=1e-3)
    parameters = {s: m["parameters"]["score"] for s, m in meta["models"].items()}
    assert parameters == {"dot": 0, "scaled_dot": 0, "bilinear": 64 * 64, "additive": 8320}


def test_results_that_do_not_fit_are_refused_with_a_reason(tmp_path):
    data = json.loads(scoring_functions.RESULTS.read_text(encoding="utf-8"))

    def refused(change, match):
        broken = json.loads(json.dumps(data))
        change(broken)
        path = tmp_path / "scoring_functions.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(ValueError, match=match) as error:
            scoring_functions.load_results(path)
        assert "scoring_functions_results.py" in str(error.value)

    def without_additive(d):
        d["variants"].remove("additive")
        d["runs"] = [r for r in d["runs"] if r["variant"] != "additive"]

    refused(without_additive, "must compare the scores")
    refused(lambda d: d["runs"].pop(), "has runs for seeds")
    refused(lambda d: d["runs"][0]["final"].pop("steps to 95%"), "lacks steps to 95%")
    refused(lambda d: d["runs"][0]["extra"]["probe"]["target_tokens"].append("x"), "does not match")
    refused(lambda d: d["runs"][0]["extra"].pop("probe"), "one probe map")
    refused(lambda d: d.pop("format"), "format")
    with pytest.raises(FileNotFoundError, match="scoring_functions_results.py"):
        scoring_functions.load_results(scoring_functions.RESULTS.with_name("nothing.json"))


# ---------------------------------------------------------------------------------------------- exercises
def mean_steps(results, level):
    return {s: np.mean([r.final[scoring_functions.level_metric("steps", level)] for r in results.runs_of(s)])
            for s in scoring_functions.SCORES}  # fmt: skip


def test_exercise_answers_are_computed():
    results = scoring_functions.load_results()
    sweep = scoring_functions.load_sweep(results)
    ex = {e.key: e for e in scoring_functions.exercises(results, sweep)}
    assert ex["scoring_functions.ex1"].answer == pytest.approx(2.0)
    assert ex["scoring_functions.ex1"].check(2.0).correct and not ex["scoring_functions.ex1"].check(4.0).correct
    assert "= 4" in ex["scoring_functions.ex1"].explanation and "4 / 2 = 2" in ex["scoring_functions.ex1"].explanation
    assert ex["scoring_functions.ex2"].choices[ex["scoring_functions.ex2"].answer] == "only bilinear and additive"
    assert (
        ex["scoring_functions.ex3"].answer == 64 * 128 and "64 × 128 = 8,192" in ex["scoring_functions.ex3"].explanation
    )
    # the GRU's state entries shrink as d grows (PyTorch's U(-1/√d, 1/√d)), so its q·k does not widen like √d
    small, large = scoring_functions.fresh_stats("dot", 64), scoring_functions.fresh_stats("dot", 256)
    assert large["query variance"] < small["query variance"] / 2
    ex4 = ex["scoring_functions.ex4"]
    wider = large["score sd"] / small["score sd"] > 1.5
    assert ex4.choices[ex4.answer] == scoring_functions.WIDER[0 if wider else 1]
    assert f"{small['score sd']:.2f} at d = 64" in ex4.explanation
    # the unshown arm of the sweep: small entries at the largest d
    ex5 = ex["scoring_functions.ex5"]
    arm = {"d": max(scoring_functions.SWEEP_DS), "sigma": round(scoring_functions.SMALL_SIGMA, 4)}
    alpha = {s: sweep.spread(scoring_functions.early_metric(), s, arm).mean for s in scoring_functions.SWEEP_SCORES}
    verdict = sweep.compare("scaled_dot", "dot", scoring_functions.early_metric(), where=arm)
    assert ex5.answer == scoring_functions.verdict_choice(verdict)
    if verdict.clear:
        winner = max(alpha, key=alpha.get)
        assert ex5.choices[ex5.answer].startswith({"dot": "unscaled", "scaled_dot": "scaled"}[winner])
    for e in ex.values():  # never a figure to read off the page: no "look at", and every explanation is worked
        assert "look at" not in e.prompt.lower() and "read it off" not in e.prompt.lower()
        assert any(ch.isdigit() for ch in e.explanation)
    assert [e.key for e in scoring_functions.exercises(None)] == [f"scoring_functions.ex{i}" for i in range(1, 5)]


def test_the_prediction_follows_the_measured_models(monkeypatch):
    """ex4's answer is the fresh models' own ratio: feed it widening scores and the answer flips."""
    stats = {64: {"score sd": 0.4, "query variance": 0.05, "key variance": 0.05},
             256: {"score sd": 0.9, "query variance": 0.05, "key variance": 0.05}}  # fmt: skip
    monkeypatch.setattr(scoring_functions, "fresh_stats", lambda score, d, seed=0: stats[d])
    ex4 = next(e for e in scoring_functions.exercises(None) if e.key == "scoring_functions.ex4")
    assert ex4.choices[ex4.answer] == scoring_functions.WIDER[0]
    stats[256]["score sd"] = 0.3
    ex4 = next(e for e in scoring_functions.exercises(None) if e.key == "scoring_functions.ex4")
    assert ex4.choices[ex4.answer] == scoring_functions.WIDER[1]


# ---------------------------------------------------------------------------------------------- sentences
def test_observations_are_read_off_the_results():
    results = scoring_functions.load_results()
    lines = scoring_functions.observations(results)
    at_95 = mean_steps(results, 0.95)
    tied = [
        scoring_functions.LABELS[s] for s in scoring_functions.SCORES if at_95[s] == pytest.approx(min(at_95.values()))
    ]
    assert lines[0].startswith("Fewest steps to 95%, on average: " + " and ".join(f"**{t}**" for t in tied))
    assert "too close to call" in lines[0]  # a tie is never a win
    align = {s: results.spread("alignment accuracy", s).mean for s in scoring_functions.SCORES}
    assert f"**{scoring_functions.LABELS[max(align, key=align.get)]}**" in lines[-1]
    per_step = {s: results.spread("seconds per 100 steps", s).mean for s in scoring_functions.SCORES}
    assert f"Slowest step: **{scoring_functions.LABELS[max(per_step, key=per_step.get)]}**" in lines[2]


def test_every_sentence_says_which_way_the_numbers_go_and_whether_it_is_clear():
    """Each observation, fed a race that goes one way and then the other, names the right score and says "beats"
    only when the gap is larger than the spread over seeds."""

    def race(dot_steps, additive_steps, dot_align, additive_align, dot_speed, additive_speed):
        runs = []
        for seed, (d, a) in enumerate(zip(dot_steps, additive_steps, strict=True)):
            runs.append(run("dot", seed, [(d - 10, 0.5), (d, 0.96)], align=dot_align[seed], seconds_per_step=dot_speed))
            runs.append(run("additive", seed, [(a - 10, 0.5), (a, 0.96)], align=additive_align[seed],
                            seconds_per_step=additive_speed))  # fmt: skip
        return race_of(*runs)

    clear = scoring_functions.observations(
        race([100, 110, 120], [300, 310, 320], [0.9, 0.91, 0.92], [0.5, 0.51, 0.52], 0.1, 0.3)
    )
    assert clear[0].startswith("Fewest steps to 95%, on average: **dot**.")
    assert "dot beats additive (MLP) on steps to 95%" in clear[0]
    assert clear[2].startswith("Slowest step: **additive (MLP)**, 3.0× the time of dot's")
    assert "dot beats additive (MLP) on seconds per 100 steps" in clear[2]
    assert clear[3].startswith("Sharpest alignment with the gold one, on average: **dot** (91%")
    assert "dot beats additive (MLP) on alignment accuracy" in clear[3]

    other = scoring_functions.observations(
        race([300, 310, 320], [100, 110, 120], [0.5, 0.51, 0.52], [0.9, 0.91, 0.92], 0.3, 0.1)
    )
    assert other[0].startswith("Fewest steps to 95%, on average: **additive (MLP)**.")
    assert "additive (MLP) beats dot on steps to 95%" in other[0]
    assert other[2].startswith("Slowest step: **dot**") and "additive (MLP) beats dot" in other[2]
    assert other[3].startswith("Sharpest alignment with the gold one, on average: **additive (MLP)**")

    close = scoring_functions.observations(
        race([100, 200, 300], [150, 250, 350], [0.5, 0.7, 0.9], [0.6, 0.8, 1.0], 0.1, 0.1)
    )
    assert close[0].startswith("Fewest steps to 95%, on average: **dot**.") and "too close to call" in close[0]
    assert "too close to call" in close[3] and " beats " not in close[3]

    one_seed = scoring_functions.observations(race([100], [300], [0.9], [0.5], 0.1, 0.3))  # one seed is an anecdote
    assert all("too close to call" in line and " beats " not in line for line in one_seed)


# --------------------------------------------------------------------------- why dot leads, where scaling matters
def test_the_race_models_scores_spread_like_root_d_sigma_squared_and_scaling_flattens_them():
    task = get_task(scoring_functions.TASK)
    models = scoring_functions.new_models(task, seed=0)
    dot, scaled = (scoring_functions.race_score_stats(models[s].eval(), task) for s in ("dot", "scaled_dot"))
    assert dot["d"] == 64 and dot["query variance"] == scaled["query variance"]  # the same weights from one seed
    assert dot["score sd"] == pytest.approx(scoring_functions.predicted_sd(dot), rel=0.25)
    assert scaled["score sd"] == pytest.approx(dot["score sd"] / 8, rel=1e-4)
    assert dot["score sd"] < 1 and dot["uniform α"] < scaled["largest α"] < dot["largest α"] < 0.5
    with pytest.raises(ValueError, match="sₜ₋₁"):
        scoring_functions.race_score_stats(models["additive"], task)


def stats(sd, peak, d=64):
    return {"d": d, "query variance": 0.05, "key variance": 0.05, "score sd": sd, "largest α": peak, "uniform α": 0.09}


def with_scores(results, dot_end_sd=6.5):
    """``results`` with statistics of the softmax at the start and the end in every dot and scaled dot run."""
    scores = {"dot": {"start": stats(0.4, 0.14), "end": stats(dot_end_sd, 0.9)},
              "scaled_dot": {"start": stats(0.05, 0.09), "end": stats(1.2, 0.3)}}  # fmt: skip
    runs = [dataclasses.replace(r, extra={**r.extra, "scores": scores[r.variant]}) if r.variant in scores else r
            for r in results.runs]  # fmt: skip
    return dataclasses.replace(results, runs=tuple(runs))


def test_why_dot_leads_is_written_from_the_measured_statistics():
    fast, slow = [(10, 0.96)], [(10, 0.5), (20, 0.96)]
    race = race_of(run("dot", 0, fast), run("scaled_dot", 0, slow), run("dot", 1, fast), run("scaled_dot", 1, slow))
    assert scoring_functions.why_dot_leads(race) == ""  # no statistics, no explanation
    text = scoring_functions.why_dot_leads(with_scores(race))
    assert "σ_q² = 0.050" in text and "√64·√(0.050·0.050) = 0.40" in text and "measured 0.40 ± 0.00 (n = 2)" in text
    assert "largest α 0.140 ± 0.000 (n = 2), where a uniform one gives 0.090" in text
    assert "sd 6.5 ± 0.0 (n = 2) (dot)" in scoring_functions.why_dot_leads(with_scores(race, 6.5))
    assert "far below the √d = 8" in text and "the softmax is not saturated" in text
    wide = dataclasses.replace(race, runs=tuple(dataclasses.replace(r, extra={**r.extra, "scores": {
        "start": {**r.extra["scores"]["start"], "score sd": 8.0, "largest α": 0.9}, "end": r.extra["scores"]["end"]}})
        for r in with_scores(race).runs))  # fmt: skip
    flipped = scoring_functions.why_dot_leads(wide)  # scores as wide as unit-variance ones: the words follow
    assert "against the √d = 8" in flipped and "the softmax is already peaked" in flipped


def retrieval(score, seed, d, alpha, sigma=1.0, sd=1.0, peak=0.3):
    metric = scoring_functions.early_metric()
    final = {"score sd at step 0": sd, "largest α at step 0": peak, metric: alpha, "accuracy": 1.0,
             "α on the right key": alpha, "accuracy after 50 steps": 1.0}  # fmt: skip
    curve = ({"step": 0, "loss": 1.0, "accuracy": 0.1, "alpha": 0.06}, {"step": 50, "loss": 0.5, "accuracy": 0.9,
             "alpha": alpha})  # fmt: skip
    return scoring_functions.Run(score, seed, params={"d": d, "sigma": round(sigma, 4)}, curve=curve, final=final)


def sweep_of(alphas: dict, small: tuple = (0.98, 0.16)) -> Comparison:
    """A sweep where, at each d, dot and scaled dot put ``alphas[d]`` = (dot, scaled) on the right key (± 0.01)."""
    runs = []
    for d, (dot, scaled) in alphas.items():
        for seed in range(3):
            runs += [
                retrieval("dot", seed, d, dot + 0.01 * seed),
                retrieval("scaled_dot", seed, d, scaled + 0.01 * seed),
            ]
    for seed in range(3):
        runs += [retrieval("dot", seed, max(alphas), small[0], scoring_functions.SMALL_SIGMA),
                 retrieval("scaled_dot", seed, max(alphas), small[1], scoring_functions.SMALL_SIGMA)]  # fmt: skip
    return Comparison(scoring_functions.SWEEP_SCORES, tuple(runs), {"seeds": [0, 1, 2]}, scoring_functions.LABELS)


def test_where_scaling_matters_is_computed_from_the_sweep_and_flips_with_it():
    sweep = sweep_of({4: (0.07, 0.07), 16: (0.24, 0.21), 64: (0.55, 0.79), 256: (0.75, 0.98)})
    summary = scoring_functions.sweep_summary(sweep)
    assert summary == ("scaling clearly helps at d = 64, 256; it makes no difference larger than the spread over "
                       "seeds at d = 4; unscaled dot is clearly ahead at d = 16")  # fmt: skip
    lines = scoring_functions.sweep_lines(sweep)
    assert lines[2].startswith("d = 64: scaled dot beats dot") and "too close to call" in lines[0]
    swapped = sweep_of({4: (0.07, 0.07), 16: (0.21, 0.24), 64: (0.79, 0.55), 256: (0.98, 0.75)})
    assert scoring_functions.sweep_summary(swapped) == ("scaling clearly helps at d = 16; it makes no difference "
        "larger than the spread over seeds at d = 4; unscaled dot is clearly ahead at d = 64, 256")  # fmt: skip
    assert "Here scaling clearly helps at d = 64, 256" in scoring_functions.sweep_caption(sweep)
    assert scoring_functions.sweep_problem(sweep) is None
    ex5 = next(e for e in scoring_functions.exercises(None, sweep) if e.key == "scoring_functions.ex5")
    assert ex5.choices[ex5.answer] == "unscaled dot, clearly"
    ex5 = next(e for e in scoring_functions.exercises(None, sweep_of({4: (0.1, 0.1)}, small=(0.16, 0.98)))
               if e.key == "scoring_functions.ex5")  # fmt: skip
    assert ex5.choices[ex5.answer] == "scaled dot, clearly"


def test_the_headline_follows_both_measurements():
    sweep = sweep_of({4: (0.07, 0.07), 64: (0.55, 0.79)})
    fast, slow = [(10, 0.92)], [(10, 0.5), (30, 0.92)]
    dot_first = with_scores(race_of(*(run(s, seed, fast if s == "dot" else slow) for s in ("dot", "scaled_dot")
                                      for seed in range(3))))  # fmt: skip
    text = scoring_functions.headline(dot_first, sweep)
    assert "scaling clearly helps at d = 64" in text and "unscaled dot learns faster than scaled dot" in text
    assert "q·k starts with sd 0.40 (largest α 0.14), where unit-variance vectors at d = 64 start at sd 1.0" in text
    scaled_first = with_scores(race_of(*(run(s, seed, slow if s == "dot" else fast) for s in ("dot", "scaled_dot")
                                         for seed in range(3))))  # fmt: skip
    assert "scaled dot learns faster than unscaled dot" in scoring_functions.headline(scaled_first, sweep)
    tied = with_scores(race_of(*(run(s, seed, fast) for s in ("dot", "scaled_dot") for seed in range(3))))
    assert "too close to call" in scoring_functions.headline(tied, None)
    assert scoring_functions.headline(None, sweep) == ""


def test_the_reduced_race_starts_saturated_without_scaling_and_is_seeded():
    config = scoring_functions.RetrievalConfig(d=64, steps=20, every=10, held_out=200, early=10)
    dot = scoring_functions.retrieval_run("dot", config, seed=0)
    scaled = scoring_functions.retrieval_run("scaled_dot", config, seed=0)
    assert dot.final["score sd at step 0"] == pytest.approx(8.0, rel=0.25)  # √64 for unit-variance entries
    assert scaled.final["score sd at step 0"] == pytest.approx(1.0, rel=0.25)
    assert dot.final["largest α at step 0"] > 0.7 > 0.4 > scaled.final["largest α at step 0"]
    assert [p["step"] for p in dot.curve] == [0, 10, 20] and dot.params == {"d": 64, "sigma": 1.0}
    assert scoring_functions.retrieval_run("dot", config, seed=0) == dot  # same seed, same run
    small = scoring_functions.retrieval_run("dot", dataclasses.replace(config, sigma=scoring_functions.SMALL_SIGMA), 0)
    assert small.final["score sd at step 0"] == pytest.approx(8.0 * 0.05, rel=0.3)  # √d·σ², not √d


def test_the_shipped_sweep_has_every_d_and_seed_and_draws_its_spread():
    results = scoring_functions.load_results()
    sweep = scoring_functions.load_sweep(results)
    assert sweep.param_values("d") == scoring_functions.SWEEP_DS and len(sweep.seeds) >= 3
    for config in scoring_functions.sweep_configs():
        for score in scoring_functions.SWEEP_SCORES:
            assert len(sweep.runs_of(score, {"d": config.d, "sigma": round(config.sigma, 4)})) == len(sweep.seeds)
    for r in results.runs:  # the race's dot models carry what their softmax saw, at the start and the end
        if r.variant in scoring_functions.STAT_SCORES:
            assert set(r.extra["scores"]) == {"start", "end"} and r.extra["scores"]["start"]["d"] == 64
    by_d, curves = scoring_functions.sweep_charts(sweep, 256)
    for chart in (by_d, curves):
        kinds = {v["kind"] for v in chart["data"]["values"]}
        assert {"seed", "mean"} <= kinds and any(
            v.get("kind") == "mean" and v["n"] >= 3 for v in chart["data"]["values"]
        )
    assert by_d["encoding"]["x"]["scale"]["type"] == "log"
    rows = scoring_functions.sweep_rows(sweep)
    assert [(r["d"], r["score"]) for r in rows] == [(d, label) for d in scoring_functions.SWEEP_DS
                                                    for label in ("dot", "scaled dot")]  # fmt: skip
    assert all(r["n"] == len(sweep.seeds) for r in rows)
    broken = dataclasses.replace(sweep, runs=tuple(r for r in sweep.runs if r.params["d"] != 16 or r.seed == 0))
    assert "1 seed(s) of dot at d = 16" in scoring_functions.sweep_problem(broken)
    assert scoring_functions.load_sweep(dataclasses.replace(results, meta={})) is None
