"""The scaling lesson's numbers: the variance of q·k against d_k within its sampling error, the softmax's
saturation and Jacobian, the lecture's example, the self-attention layer trained at four sizes of d_k (every
sentence turned by swapped numbers), lesson 4's GRU race and what the two scores cost."""

import dataclasses
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
import torch

from lessons import scaling
from lessons import scoring_functions as scoring
from lessons.common.comparison import Comparison, Run


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


# ------------------------------------------------------------------------ the self-attention layer, d_k 8 … 512
def test_the_two_models_of_a_seed_start_equal_and_differ_only_in_the_attention_module():
    a, b = (scaling.recall_model(32, s, seed=3) for s in ("dot", "scaled_dot"))
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)
    assert type(a.attention).__name__ == "DotProductAttention"
    assert type(b.attention).__name__ == "ScaledDotProductAttention"
    state = torch.random.get_rng_state()
    scaling.recall_model(8, "dot", seed=5)
    assert torch.equal(state, torch.random.get_rng_state())  # the seed does not move torch's global generator
    with pytest.raises(ValueError, match="d_k must be one of"):
        scaling.recall_model(7, "dot", 0)
    with pytest.raises(ValueError, match="scale must be one of"):
        scaling.recall_model(8, "additive", 0)


def test_recall_batches_ask_about_a_present_key_and_answer_its_value():
    batch = scaling.recall_batch(200, torch.Generator().manual_seed(0))
    assert batch.keys.shape == (200, scaling.RECALL_ITEMS)
    assert all(len(set(row.tolist())) == scaling.RECALL_ITEMS for row in batch.keys)  # distinct keys
    where = (batch.keys == batch.question[:, None]).float().argmax(-1)
    assert torch.equal(batch.values[torch.arange(200), where], batch.answer)
    logits, weights = scaling.recall_model(8, "dot", 0)(batch)
    assert logits.shape == (200, scaling.RECALL_VALUES)
    assert weights.shape == (200, scaling.RECALL_ITEMS + 1, scaling.RECALL_ITEMS + 1)


def test_at_step_0_the_unscaled_softmax_saturates_as_d_k_grows_and_the_scaled_one_does_not():
    test = scaling.recall_test()
    states = {(s, d): scaling.initial_state(scaling.recall_model(d, s, 0), test) for s in scaling.SCORES
              for d in (8, 512)}  # fmt: skip
    alpha, entropy = "initial largest α", "initial entropy (bits)"
    assert states["dot", 512][alpha] > 0.9 > states["dot", 8][alpha] > states["scaled_dot", 8][alpha]
    assert states["dot", 512][entropy] < 0.3 < states["dot", 8][entropy]
    assert abs(states["scaled_dot", 512][alpha] - states["scaled_dot", 8][alpha]) < 0.1  # one scale for every d_k
    assert all(0 < state["initial ‖∂L/∂W^Q‖"] < math.inf for state in states.values())


def test_train_recall_learns_and_records_its_curve():
    run = scaling.train_recall(32, "scaled_dot", seed=0, steps=60)
    assert (run.variant, run.seed, run.params) == ("scaled_dot", 0, {"d_k": 32})
    assert [p["step"] for p in run.curve] == [0, 25, 50, 60]
    assert run.curve[-1]["accuracy"] > run.curve[0]["accuracy"] + 0.2  # it learns, from chance (1/16)
    assert run.final["test accuracy"] == run.curve[-1]["accuracy"]
    assert set(scaling.INIT_METRICS) <= set(run.final)
    stopped = scaling.train_recall(8, "dot", seed=0, steps=60, on_report=lambda point: point["step"] < 25)
    assert stopped.curve[-1]["step"] == 25


def _comparison(accuracy: dict, big_gradient: float = 1e-4) -> Comparison:
    """Made-up results: (score, d_k) -> final accuracies of three seeds; step-0 figures that saturate unscaled."""
    runs = []
    for (score, d), values in accuracy.items():
        for seed, value in enumerate(values):
            big = score == "dot" and d > 8
            final = {"test accuracy": value, "test loss": 1 - value, "steps to 90%": None, "trained largest α": 0.9,
                     "initial largest α": 0.97 if big else 0.4, "initial entropy (bits)": 0.1 if big else 2.5,
                     "initial ‖∂L/∂W^Q‖": (big_gradient if big else 0.05) * (1 + seed / 10),
                     "initial ‖∂L/∂W^K‖": 0.05}  # fmt: skip
            curve = ({"step": 0, "seconds": 0.0, "loss": 2.7, "accuracy": 0.06, "largest α": 0.4},
                     {"step": 25, "seconds": 0.1, "loss": 1 - value, "accuracy": value, "largest α": 0.9})  # fmt: skip
            runs.append(Run(score, seed, {"d_k": d}, curve, final))
    return Comparison(scaling.SCORES, tuple(runs), {"train_config": scaling.recall_config(25)}, scaling.LABELS)


HELPS = {("dot", 8): (0.8, 0.82, 0.78), ("scaled_dot", 8): (0.81, 0.79, 0.8),
         ("dot", 512): (0.4, 0.45, 0.5), ("scaled_dot", 512): (0.97, 0.98, 0.96)}  # fmt: skip


def test_the_headline_and_every_sentence_follow_the_numbers():
    results = _comparison(HELPS)
    headline = scaling.recall_headline(results)
    assert headline.startswith("After 25 steps, the scale clearly helps at d_k = 512: at d_k = 512, 97% ± 1%")
    assert "At d_k = 8 the two are too close to call: there, scaling does not matter." in headline
    lines = scaling.recall_observations(results)
    assert lines[0].startswith("d_k = 8: scaled q·k / √d_k and unscaled q·k are too close to call")
    assert lines[1].startswith("d_k = 512: scaled q·k / √d_k beats unscaled q·k on held-out accuracy")
    assert "to **0.97** at d_k = 512" in lines[2] and "to **0.10 bits**" in lines[2]
    assert "d_k = 512: 0.00011 ± 1e-05 (n = 3) unscaled, smaller than 0.055" in lines[4]
    assert "does not start with a vanishing gradient" not in lines[4]
    ex4, ex5 = scaling.recall_prediction(results), scaling.threshold_prediction(results)
    assert ex4.choices[ex4.answer] == "clearly lower" and "mean largest α of 0.97" in ex4.prompt
    assert ex5.choices[ex5.answer] == "d_k = 512"
    # the numbers swapped: unscaled ahead at 512; every sentence and answer turns
    swapped = _comparison({**HELPS, ("dot", 512): HELPS["scaled_dot", 512], ("scaled_dot", 512): HELPS["dot", 512]})
    headline = scaling.recall_headline(swapped)
    assert (
        "is not clearly better at any d_k" in headline
        and "At d_k = 512 the unscaled model is clearly ahead" in headline
    )
    assert "does not beat unscaled q·k" in scaling.recall_observations(swapped)[1]
    larger = _comparison(HELPS, big_gradient=1.0)
    assert "unscaled, larger than" in scaling.recall_observations(larger)[4]
    assert "does not start with a vanishing gradient at W^Q" in scaling.recall_observations(larger)[4]
    ex4, ex5 = scaling.recall_prediction(swapped), scaling.threshold_prediction(swapped)
    assert ex4.choices[ex4.answer] == "clearly higher" and ex5.choices[ex5.answer] == "at none of them"
    both = _comparison({**HELPS, ("dot", 8): (0.3, 0.31, 0.29)})
    assert scaling.threshold_prediction(both).choices[scaling.threshold_prediction(both).answer] == "d_k = 8"


def test_rows_charts_and_text_of_the_results():
    results = _comparison(HELPS)
    rows = scaling.recall_rows(results)
    scaled, unscaled = scaling.LABELS["scaled_dot"], scaling.LABELS["dot"]
    assert [(r["d_k"], r["score"]) for r in rows] == [(8, scaled), (8, unscaled), (512, scaled), (512, unscaled)]
    assert rows[3]["largest α at step 0"] == "0.97 ± 0.00"
    assert rows[2]["held-out accuracy at the end"] == "97% ± 1%"
    for chart in [*scaling.recall_init_charts(results), scaling.final_accuracy_chart(results),
                  *scaling.recall_curves(results, 512, x="seconds")]:  # fmt: skip
        json.dumps(chart)
        assert chart["encoding"]["color"]["scale"]["domain"] == [scaling.LABELS[s] for s in scaling.SCORES]
    assert scaling.recall_init_charts(results)[0]["encoding"]["x"]["axis"]["values"] == [8, 512]
    assert "for 25 Adam steps (lr 0.003" in scaling.recall_text(results)
    assert f"for {scaling.RECALL_STEPS} Adam steps" in scaling.recall_text(None)


def test_the_shipped_results_load_and_a_missing_or_foreign_file_is_refused(tmp_path):
    results = scaling.load_results()
    assert len(results.seeds) >= 3 and results.param_values("d_k") == scaling.RECALL_D_K
    assert results.meta["command"].startswith("python scripts/scaling_results.py")
    with pytest.raises(FileNotFoundError, match="scaling_results.py"):
        scaling.load_results(tmp_path / "scaling.json")
    other = Comparison(("a", "b"), (Run("a", 0), Run("b", 0)))
    other.save(tmp_path / "scaling.json")
    with pytest.raises(ValueError, match="compares"):
        scaling.load_results(tmp_path / "scaling.json")


# ----------------------------------------------------------------------------------------- lesson 4's GRU race
def test_the_gru_race_is_the_scoring_lessons_own_runs(tmp_path):
    race, everything = scaling.load_gru_race(), scoring.load_results()
    assert race.variants == scaling.SCORES and race.seeds == everything.seeds and race.meta == everything.meta
    assert race.runs == tuple(r for r in everything.runs if r.variant in scaling.SCORES)
    with pytest.raises(FileNotFoundError, match="scoring_functions_results.py"):
        scaling.load_gru_race(tmp_path / "scoring_functions.json")


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
    moved = [r | {"largest α": 0.3 + 0.6 * (r["d_k"] == 1024)} for r in rows]
    assert "does not keep the softmax at one scale" in scaling.saturation_summary(moved)
    start = scaling.fresh_spread("dot")
    assert f"spread by only {start.raw_std:.2f}" in scaling.untrained_note(start)
    assert f"d_k = {start.d_k}, the GRU's state" in scaling.untrained_note(start)


def test_the_race_sentence_follows_the_race():
    """Whether the unscaled model stalled is computed from the race; swap the two models' runs and it turns."""
    race = scaling.load_gru_race()
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


# ------------------------------------------------------------------------------------- what the scores cost
def test_the_cost_is_measured_from_the_modules():
    cost = scaling.measure_score_cost(ds=(8, 32), lengths=(4, 16), repeats=2)
    assert cost.ds == [8, 32] and cost.lengths == [4, 16] and cost.threads == 1 and cost.repeats == 2
    assert len(cost.rows) == 2 * 2 * 2 * 2 and all(r["ms"] >= 0 for r in cost.rows)
    for d in (8, 32):
        for T in (4, 16):
            additive = cost.values("additive", d, T, "saved_bytes")[0]
            assert additive >= 4 * T * T * d  # the tanh layer's T·T·d floats are kept for its backward
            assert cost.values("scaled_dot", d, T, "saved_bytes")[0] < additive
    assert scaling.saved_bytes(scaling.score_module("scaled_dot", 8), 16, 8) >= 4 * 16 * 16  # the weights α
    time_chart, memory_chart = scaling.cost_charts(cost)
    assert time_chart["encoding"]["x"]["axis"]["values"] == [4, 16] and json.dumps(memory_chart)
    with pytest.raises(ValueError, match="score must be one of"):
        scaling.score_module("bilinear", 8)


def _cost(additive_ms: float, dot_ms: float) -> scaling.ScoreCost:
    rows = [{"score": s, "d": d, "T": T, "repeat": r, "ms": (additive_ms if s == "additive" else dot_ms) * d
             + r * 0.01, "saved_bytes": (T * T * d if s == "additive" else T * T) * 4}
            for s in scaling.COST_SCORES for d in (16, 256) for T in (8, 128) for r in range(3)]  # fmt: skip
    return scaling.ScoreCost(tuple(rows), 1, 3)


def test_the_cost_sentence_follows_the_measurement():
    said = scaling.cost_sentence(_cost(additive_ms=1.0, dot_ms=0.1))
    assert "at d = 256, T = 128, the dot product was faster, 10.0×" in said and "additive kept 256.0× the bytes" in said
    swapped = scaling.cost_sentence(_cost(additive_ms=0.1, dot_ms=1.0))
    assert "additive was faster" in swapped and "dot product was faster" not in swapped
    same = scaling.cost_sentence(_cost(additive_ms=0.1, dot_ms=0.1))
    assert "took about as long" in same


# ------------------------------------------------------------------------------------------------ exercises
def test_exercise_answers_are_computed():
    ex = {e.key: e for e in scaling.exercises()}
    assert scaling.EX_D_K not in scaling.D_SWEEP and scaling.EX_D_BIG not in scaling.D_SWEEP  # not on the page
    assert ex["scaling.ex1"].answer == pytest.approx(10.0) and ex["scaling.ex1"].check(10).correct
    assert not ex["scaling.ex1"].check(100).correct and "√100 = 10" in ex["scaling.ex1"].explanation
    assert ex["scaling.ex2"].answer == pytest.approx(1.0)
    T, d = scaling.COST_EX["T"], scaling.COST_EX["d"]
    assert T not in scaling.COST_LENGTHS and d not in scaling.COST_D
    assert ex["scaling.ex6"].answer == T * T * d and ex["scaling.ex6"].check(T * T * d).correct
    assert not ex["scaling.ex6"].check(T * T).correct and f"{T * T * d:,}" in ex["scaling.ex6"].explanation
    lecture = scaling.lecture_prediction()
    assert lecture.choices[lecture.answer] == "less than one in a million" and lecture.prompt.startswith("**Predict")
    assert "e^−16" in lecture.explanation
    assert len(scaling.exercises()) >= 3


def test_section_texts_read_their_numbers():
    assert "√64 = 8 before" in scaling.lecture_text()
    assert f"from {scaling.HEATMAP_DS[0]} to {scaling.HEATMAP_DS[-1]}" in scaling.one_query_text()
    assert f"Averaged over {scaling.SWEEP_SAMPLES} random queries" in scaling.softmax_charts_note(8)
    assert "log₂ N = 3.00 bits when uniform" in scaling.softmax_charts_note(8)
