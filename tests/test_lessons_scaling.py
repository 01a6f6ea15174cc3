"""The scaling lesson's numbers: the variance of q·k against d_k within its sampling error, the softmax's
saturation and Jacobian, the lecture's example, and the two trained models' scores."""

import dataclasses
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
import torch

from lessons import scaling
from lessons import scoring_functions as scoring
from lessons.common.comparison import Run
from lessons.common.pretrained import CHECKPOINTS, load_pretrained
from minimodels.tasks import get_task


def exact_variance_se(d_k: int, n: int) -> float:
    """Standard error of the sample variance of q·k for N(0, 1) components, from the exact moments:
    σ² = d_k and μ₄ = E[(q·k)⁴] = 3d_k² + 6d_k (each term q_i k_i has variance 1 and fourth moment 9)."""
    sigma2, mu4 = d_k, 3 * d_k**2 + 6 * d_k
    return math.sqrt((mu4 - (n - 3) / (n - 1) * sigma2**2) / n)


def two_sided_z(alpha: float, tests: int) -> float:
    """The normal quantile for a family-wise two-sided level ``alpha`` over ``tests`` comparisons (Bonferroni)."""
    return NormalDist().inv_cdf(1 - alpha / (2 * tests))


# ------------------------------------------------------------------------------------------ variance of q·k
SEEDS = (0, 1, 2)
SAMPLES = 2000


@pytest.fixture(scope="module")
def sweeps():
    return {seed: scaling.variance_sweep(samples=SAMPLES, seed=seed) for seed in SEEDS}


def test_variance_of_q_dot_k_is_d_k_within_sampling_error(sweeps):
    """Var(q·k) = d_k: every measured variance lies within z standard errors of d_k, the standard error computed
    exactly from the sample size, z for a 1-in-1000 family-wise false alarm over every d_k and seed."""
    z = two_sided_z(1e-3, len(SEEDS) * len(scaling.D_SWEEP))
    for seed, points in sweeps.items():
        assert [p.d_k for p in points] == list(scaling.D_SWEEP)
        for p in points:
            assert p.samples == SAMPLES
            assert abs(p.variance - p.d_k) <= z * exact_variance_se(p.d_k, SAMPLES), (seed, p)
            assert abs(p.mean) <= z * math.sqrt(p.d_k / SAMPLES), (seed, p)  # E[q·k] = 0, SE √(d_k / n)
            assert abs(p.scaled_variance - 1) <= z * exact_variance_se(p.d_k, SAMPLES) / p.d_k, (seed, p)


def test_the_variance_test_can_fail(sweeps):
    """The tolerance is narrow enough to reject a wrong law: Var = √d_k, 2·d_k or 1 lies outside it."""
    z = two_sided_z(1e-3, len(SEEDS) * len(scaling.D_SWEEP))
    big = sweeps[0][-1]
    se = exact_variance_se(big.d_k, SAMPLES)
    assert abs(big.variance - math.sqrt(big.d_k)) > z * se
    assert abs(big.variance - 2 * big.d_k) > z * se
    assert abs(big.variance - 1) > z * se


def test_the_reported_standard_error_matches_the_exact_one(sweeps):
    """The page's error bars are estimated from each sample's fourth moment; pooled over seeds, they agree with the
    exact standard error within the estimate's own sampling error (a few per cent at n = 2000)."""
    for i, d_k in enumerate(scaling.D_SWEEP):
        estimated = np.mean([sweeps[seed][i].variance_se for seed in SEEDS])
        assert estimated == pytest.approx(exact_variance_se(d_k, SAMPLES), rel=0.15), d_k


def test_variance_with_error_on_a_sample_with_known_moments():
    n = 1000
    x = torch.tensor([-1.0, 1.0] * (n // 2))  # mean 0, every |x| = 1: m₂ = 1, m₄ = 1
    s2, se = scaling.variance_with_error(x)
    assert s2 == pytest.approx(n / (n - 1))
    assert se == pytest.approx(math.sqrt((1 - (n - 3) / (n - 1) * (n / (n - 1)) ** 2) / n))
    with pytest.raises(ValueError):
        scaling.variance_with_error(torch.ones(3))


def test_same_seed_same_figures_and_sample_bounds():
    a = scaling.variance_sweep(ds=(4, 64), samples=100, seed=3)
    assert a == scaling.variance_sweep(ds=(4, 64), samples=100, seed=3)
    assert a != scaling.variance_sweep(ds=(4, 64), samples=100, seed=4)
    with pytest.raises(ValueError):
        scaling.variance_sweep(samples=10**6)


def test_variance_chart_and_rows():
    points = scaling.variance_sweep(ds=(1, 16, 256), samples=500)
    spec = scaling.variance_chart(points)
    by = {}
    for row in spec["data"]["values"]:
        by.setdefault(row["series"], []).append(row)
    assert list(by) == list(scaling.VARIANCE_SERIES)
    assert [r["variance"] for r in by["theory: Var = d_k"]] == [1, 16, 256]
    assert [r["variance"] for r in by[f"measured: {scaling.LABELS['dot']}"]] == [p.variance for p in points]
    scaled = by[f"measured: {scaling.LABELS['scaled_dot']}"]
    assert [r["high"] - r["variance"] for r in scaled] == pytest.approx([1.96 * p.scaled_variance_se for p in points])
    assert json.loads(scaling._variance_chart_spec())["layer"]  # the data-less chart, made once
    rows = scaling.variance_rows(points)
    assert [r["theory"] for r in rows] == [1, 16, 256]
    assert all(r["theory inside"] == (abs(r["Var(q·k)"] - r["theory"]) <= r["± 1.96 SE"] + 0.01) for r in rows)


# ------------------------------------------------------------------------------------------------- softmax
def test_softmax_jacobian_is_autograd_s():
    e = torch.randn(5, dtype=torch.float64)
    expected = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), e)
    assert torch.allclose(scaling.softmax_jacobian(torch.softmax(e, -1)), expected)


def test_entropy_bits_of_uniform_and_one_hot():
    assert float(scaling.entropy_bits(torch.full((8,), 1 / 8))) == pytest.approx(3.0)
    assert float(scaling.entropy_bits(torch.tensor([1.0, 0.0, 0.0]))) == 0.0


def test_unscaled_softmax_saturates_and_its_gradient_vanishes_as_d_k_grows():
    rows = scaling.softmax_sweep(8, ds=(1, 16, 1024), samples=400)
    by = {(r["d_k"], r["score"]): r for r in rows}
    dot, scaled = scaling.LABELS["dot"], scaling.LABELS["scaled_dot"]
    assert by[(1, dot)] == {**by[(1, scaled)], "score": dot}  # √1 = 1: the same numbers
    assert by[(1024, dot)]["largest α"] > by[(16, dot)]["largest α"] > by[(1, dot)]["largest α"]
    assert by[(1024, dot)]["saturated rows"] > 0.5
    assert by[(1024, dot)]["entropy (bits)"] < 0.1 * by[(1024, scaled)]["entropy (bits)"]
    assert by[(1024, dot)]["gradient ‖∂α/∂e‖"] < 0.25 * by[(1024, scaled)]["gradient ‖∂α/∂e‖"]
    uniform = scaling.uniform_statistics(8)
    assert uniform["entropy (bits)"] == pytest.approx(3.0)
    for d_k in (16, 1024):  # scaled: well below the uniform ceiling but nowhere near saturated, whatever d_k
        assert 0.5 * uniform["entropy (bits)"] < by[(d_k, scaled)]["entropy (bits)"] < uniform["entropy (bits)"]
        assert by[(d_k, scaled)]["saturated rows"] < 0.05
    with pytest.raises(ValueError):
        scaling.softmax_sweep(1)


def test_softmax_charts_hold_the_sweep_and_the_uniform_reference():
    rows = scaling.softmax_sweep(8, ds=(1, 16, 1024), samples=100)
    charts = scaling.softmax_charts(rows, 8)
    uniform = scaling.uniform_statistics(8)
    for panel, spec in zip(scaling.SOFTMAX_PANELS, charts, strict=True):
        assert spec["title"] == f"{panel} of softmax"
        values = spec["data"]["values"]
        measured = [(v["d_k"], v["series"], v["value"]) for v in values if v["series"] != scaling.UNIFORM]
        assert measured == [(r["d_k"], r["score"], r[panel]) for r in rows]
        assert {(v["d_k"], v["value"]) for v in values if v["series"] == scaling.UNIFORM} == {
            (d, uniform[panel]) for d in (1, 16, 1024)
        }
    assert [c["encoding"]["color"]["legend"] is not None for c in charts] == [False, True, False]  # one legend


def test_one_query_uses_the_same_scores_for_both_maps():
    example = scaling.one_query(5, seed=2)
    assert example.scores.shape == (len(scaling.HEATMAP_DS), 5)
    for name in scaling.SCORES:
        assert np.allclose(example.weights[name].sum(1), 1.0)
    assert np.allclose(example.weights["dot"][0], example.weights["scaled_dot"][0])  # d_k = 1
    root = np.sqrt(np.array(scaling.HEATMAP_DS))[:, None]
    expected = np.exp(example.scores / root) / np.exp(example.scores / root).sum(1, keepdims=True)
    assert np.allclose(example.weights["scaled_dot"], expected)
    fig = scaling.one_query_figure(example)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert list(fig.data[0].y) == [f"d_k = {d}" for d in scaling.HEATMAP_DS]


def test_the_lecture_example():
    ex = scaling.lecture_example()
    assert ex.scaled == (14.0, 12.0)
    assert [round(a, 2) for a in ex.weights_scaled] == [0.88, 0.12]  # the lecture's table
    assert ex.weights_unscaled[1] == pytest.approx(1 / (1 + math.exp(16)))
    assert ex.gradient_unscaled < 1e-6 < 0.1 < ex.gradient_scaled
    rows = scaling.lecture_rows(ex)
    assert rows[2] == {"": "Softmax", "Thinking": "0.88", "Machines": "0.12"}
    caption = scaling.gradient_caption(ex)
    assert f"**{ex.gradient_scaled:.3f}** with the division" in caption
    assert f"**{ex.gradient_unscaled:.1e}** without" in caption and ex.gradient_unscaled > 0


# ------------------------------------------------------------------------------------------ trained models
@pytest.fixture(scope="module")
def models():
    return {s: load_pretrained(scaling.TASK, scaling.MODEL_NAMES[s])[0] for s in scaling.SCORES}


def test_the_two_checkpoints_differ_only_in_the_scale(models):
    configs = {s: vars(m.config) for s, m in models.items()}
    assert {k: v for k, v in configs["dot"].items() if k != "attention"} == {
        k: v for k, v in configs["scaled_dot"].items() if k != "attention"
    }
    fresh = scaling.new_models(get_task(scaling.TASK), seed=3)
    a, b = (fresh[s].state_dict() for s in scaling.SCORES)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_read_models_aligns_with_each_or_passes_the_refusal_on(models):
    alignments = scaling.read_models(models, scaling.DEFAULT_DATE)
    assert [a.output for a in alignments.values()] == ["2026-11-22", "2026-11-22"]
    assert "Type a date" in scaling.read_models(models, "  ")


def test_align_recomputes_the_scores_behind_the_weights(models):
    task = get_task(scaling.TASK)
    for score, model in models.items():
        a = scaling.align(model, task, scaling.DEFAULT_DATE)
        assert a.output == "2026-11-22"
        assert a.weights.shape == a.raw.shape == a.seen.shape == (len(a.target), len(a.source))
        softmax = np.exp(a.seen) / np.exp(a.seen).sum(1, keepdims=True)
        assert np.allclose(softmax, a.weights, atol=1e-5)
        divisor = math.sqrt(model.config.hidden_size) if score == "scaled_dot" else 1.0
        assert np.allclose(a.raw / divisor, a.seen, atol=1e-4)
    assert "Type a date" in scaling.align(models["dot"], task, "   ")
    odd = scaling.align(models["dot"], task, "<b>🙂</b> שלום")
    assert odd.source[0] == "<unk>" and odd.message


def test_alignment_figure_views_and_safe_labels(models):
    task = get_task(scaling.TASK)
    alignments = {s: scaling.align(m, task, "<b>May 1, 2020") for s, m in models.items()}
    fig = scaling.alignment_figure(alignments, "weights")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert "&lt;" in fig.layout.xaxis.ticktext[0] or "unk" in fig.layout.xaxis.ticktext[0]
    assert "<b>" not in json.dumps(fig.to_plotly_json()["layout"])
    raw = scaling.alignment_figure(alignments, "raw")
    bound = max(float(np.abs(a.raw).max()) for a in alignments.values())
    assert raw.layout.coloraxis.cmin == pytest.approx(-bound) and raw.layout.coloraxis.cmax == pytest.approx(bound)
    with pytest.raises(ValueError):
        scaling.alignment_figure(alignments, "logits")


def test_alignment_caption_names_the_shared_scale_only_for_scores():
    assert "red–blue" not in scaling.alignment_caption("weights")
    for view in ("raw", "seen"):
        caption = scaling.alignment_caption(view)
        assert caption.startswith("Rows: the characters each model wrote")
        assert caption.endswith("Both models share one red–blue scale, so their sizes compare.")


def test_score_spread_of_the_trained_models(models):
    task = get_task(scaling.TASK)
    spreads = {s: scaling.score_spread(m, task, s, limit=100) for s, m in models.items()}
    for s in spreads.values():
        assert s.d_k == 64 and s.rows > 100
        assert 0 < s.q_std <= 1 and 0 < s.k_std <= 1  # GRU states live in [−1, 1]
        assert s.raw_range[0] < 0 < s.raw_range[1]
        assert 0 < s.largest <= 1 and 0 <= s.saturated <= 1
    assert spreads["dot"].seen_std == pytest.approx(spreads["dot"].raw_std)
    assert spreads["scaled_dot"].seen_std == pytest.approx(spreads["scaled_dot"].raw_std / 8, rel=1e-4)
    rows = scaling.spread_rows(spreads)
    assert [r["model"] for r in rows] == [scaling.LABELS[s] for s in scaling.SCORES]
    lines = scaling.spread_observations(spreads)
    assert f"**{spreads['dot'].raw_std:.1f}**" in lines[1]
    assert "So the unscaled model's attention is the more peaked one" in lines[2]
    swapped = {"dot": spreads["scaled_dot"], "scaled_dot": spreads["dot"]}  # the other way round: said so
    assert "So the scaled model's attention is the more peaked one" in scaling.spread_observations(swapped)[2]
    fresh = scaling.fresh_spread("dot")
    assert fresh.raw_std < spreads["dot"].raw_std and fresh.largest < spreads["dot"].largest


def test_training_records_come_from_the_manifest():
    manifest = json.loads((CHECKPOINTS / "manifest.json").read_text(encoding="utf-8"))
    rows = scaling.training_records(manifest)
    assert [r["checkpoint"] for r in rows] == ["dates-gru-dot", "dates-gru-scaled_dot"]
    assert rows[0]["steps"] == manifest["dates-gru-dot"]["steps"]
    assert scaling.training_records({}) == []
    assert scaling.RECORDS_CAPTION.startswith(f"From {CHECKPOINTS.relative_to(CHECKPOINTS.parents[1])}/manifest.json")


def test_the_shipped_race_of_the_two_is_the_scoring_lessons_own_runs(tmp_path):
    race, everything = scaling.load_results(), scoring.load_results()
    assert race.variants == scaling.SCORES and race.seeds == everything.seeds and race.meta == everything.meta
    assert race.runs == tuple(r for r in everything.runs if r.variant in scaling.SCORES)
    for chart in scoring.race_charts(race, x="seconds"):
        assert chart["encoding"]["color"]["scale"]["domain"] == [scoring.LABELS[s] for s in scaling.SCORES]
        assert chart["encoding"]["x"]["title"] == "seconds of its own training"
    assert [r["score"] for r in scoring.table_rows(race)] == [scoring.LABELS[s] for s in scaling.SCORES]
    with pytest.raises(FileNotFoundError, match="scoring_functions_results.py"):
        scaling.load_results(tmp_path / "scoring_functions.json")


def test_training_records_that_cannot_be_read_give_a_message(tmp_path):
    assert [r["checkpoint"] for r in scaling.load_training_records()] == ["dates-gru-dot", "dates-gru-scaled_dot"]
    assert "cannot be read" in scaling.load_training_records(tmp_path / "manifest.json")
    (tmp_path / "manifest.json").write_text("{", encoding="utf-8")
    assert "cannot be read" in scaling.load_training_records(tmp_path / "manifest.json")


def test_the_summaries_are_computed_from_the_figures():
    points = scaling.variance_sweep(ds=(1, 16, 256), samples=500)
    inside = sum(r["theory inside"] for r in scaling.variance_rows(points))
    text = scaling.variance_summary(points)
    assert text.startswith(
        f"With 500 pairs per d_k, the theory Var = d_k lies inside the 95% interval at **{inside} of 3"
    )
    assert f"At d_k = 256 the measured variance is **{points[-1].variance:.0f} ±" in text
    rows = scaling.softmax_sweep(8, ds=(1, 1024), samples=200)
    worst = next(r for r in rows if r["d_k"] == 1024 and r["score"] == scaling.LABELS["dot"])
    text = scaling.saturation_summary(rows)
    assert text.startswith(f"At d_k = 1024, unscaled, **{worst['saturated rows']:.0%}**")
    scaled = [r for r in rows if r["score"] == scaling.LABELS["scaled_dot"]]
    low, high = min(r["largest α"] for r in scaled), max(r["largest α"] for r in scaled)
    assert f"stays between **{low:.2f} and {high:.2f}**" in text  # measured, no "same distribution" claim
    assert "keeps the softmax's input at one scale" in text and "same distribution" not in text
    # rows where the scaled softmax moves as much as the unscaled one: the sentence says so
    moved = [r | {"largest α": 0.3 + 0.6 * (r["d_k"] == 1024)} for r in rows]
    assert "does not keep the softmax at one scale" in scaling.saturation_summary(moved)
    start = scaling.fresh_spread("dot")
    assert f"spread by only {start.raw_std:.2f}" in scaling.untrained_note(start)


def test_the_race_sentence_follows_the_race():
    """Whether the unscaled model stalled is computed from the race; swap the two models' runs and it turns."""
    race = scaling.load_results()
    said = scaling.race_verdict(race)
    pace = race.compare("dot", "scaled_dot", "steps to 90%", higher_is_better=False)
    assert "did not stall" in said and race.spread("steps to 90%", "dot").text(".0f") in said
    assert {"better": "in fewer steps", "worse": "later", "too close": "as fast"}[pace.outcome] in said
    stalled = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "steps to 90%": None}) if r.variant == "dot"
               else r for r in race.runs]  # fmt: skip
    assert "did stall: it never reached 90%" in scaling.race_verdict(dataclasses.replace(race, runs=tuple(stalled)))
    slow = [Run(r.variant, r.seed, r.params, r.curve, {**r.final, "steps to 90%": 1000.0 + r.seed})
            if r.variant == "dot" else r for r in race.runs]  # fmt: skip
    assert "it reached 90%, later" in scaling.race_verdict(dataclasses.replace(race, runs=tuple(slow)))
    assert said in scaling.untrained_note(scaling.fresh_spread("dot"), race)
    assert "Here, the unscaled model did not stall" not in scaling.untrained_note(scaling.fresh_spread("dot"))


def test_new_race_checks_its_budget():
    with pytest.raises(ValueError, match="outside"):
        scaling.new_race(0, 0)
    models, train_fn = scaling.new_race(0, 5)
    assert set(models) == set(scaling.SCORES) and callable(train_fn)


def test_the_notes_above_the_charts_carry_their_numbers():
    note = scaling.softmax_charts_note(8)
    assert "log₂ N = 3.00 bits when uniform" in note and "diag(α) − ααᵀ" in note
    assert "log₂ N = 4.00 bits" in scaling.softmax_charts_note(16)
    race = scaling.race_note(scaling.load_results())
    assert race.startswith("The same two models raced from seeds 0, 1, 2 in the *Scoring functions*")
    assert "assets/results/scoring_functions.json, stop at 98% held-out exact match" in race


def test_new_run_is_an_unstarted_race_of_both_models():
    with pytest.raises(ValueError, match="outside"):
        scaling.new_run(0, 0)
    run = scaling.new_run(0, 5)
    assert run.status == "queued" and not run.snapshots  # the panel starts it
    assert set(run.model) == set(scaling.SCORES)


# ------------------------------------------------------------------------------------------------ exercises
def test_exercise_answers_are_computed(models):
    ex = {e.key: e for e in scaling.exercises()}
    assert scaling.EX_D_K not in scaling.D_SWEEP and scaling.EX_D_BIG not in scaling.D_SWEEP  # not on the page
    assert ex["scaling.ex1"].answer == pytest.approx(10.0) and ex["scaling.ex1"].check(10).correct
    assert not ex["scaling.ex1"].check(100).correct and "√100 = 10" in ex["scaling.ex1"].explanation
    assert ex["scaling.ex2"].answer == pytest.approx(1.0)
    lecture = scaling.lecture_prediction()
    assert lecture.choices[lecture.answer] == "less than one in a million" and lecture.prompt.startswith("**Predict")
    assert "e^−16" in lecture.explanation
    spreads = {
        "dot": scaling.ScoreSpread("dot", 64, 0.5, 0.5, 2.0, (-1, 1), 2.0, 0.4, 0.0, 1.0, 10),
        "scaled_dot": scaling.ScoreSpread("scaled_dot", 64, 0.5, 0.5, 9.0, (-1, 1), 1.1, 0.7, 0.1, 1.0, 10),
    }
    ex4 = scaling.peaked_prediction(spreads)
    assert ex4.choices[ex4.answer] == scaling.LABELS["scaled_dot"] and "more than the division" in ex4.explanation
    swapped = scaling.peaked_prediction({"dot": spreads["scaled_dot"], "scaled_dot": spreads["dot"]})
    assert swapped.choices[swapped.answer] == scaling.LABELS["dot"]
    assert len([*scaling.exercises(), lecture, ex4]) >= 3


def test_section_texts_read_their_numbers():
    assert "√64 = 8 before" in scaling.lecture_text()
    assert f"from {scaling.HEATMAP_DS[0]} to {scaling.HEATMAP_DS[-1]}" in scaling.one_query_text()
    assert f"Averaged over {scaling.SWEEP_SAMPLES} random queries" in scaling.softmax_charts_note(8)
    shipped = {s: load_pretrained(scaling.TASK, scaling.MODEL_NAMES[s]) for s in scaling.SCORES}
    text = scaling.trained_text(shipped)
    d = shipped["dot"][0].config.hidden_size
    assert f"d_k = {d}, the GRU's state" in text and f"q·k / √{d}" in text and "same seed (0)" in text
