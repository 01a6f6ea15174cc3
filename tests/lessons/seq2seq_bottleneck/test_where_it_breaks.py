"""Section 3's sentences and charts: computed from the seeds, and they flip when the numbers do."""

import numpy as np

from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from lessons.seq2seq_bottleneck import experiment, pooling, shipped, where_it_breaks


def test_summary_quotes_the_measured_numbers(results):
    text = where_it_breaks.summary(results, 64)
    long = shipped.length_spread(results, "gru-additive", 64, where_it_breaks.LONG)
    assert long.n == len(results.seeds) and long.text() in text
    assert shipped.reach_spread(results, "gru-none", 64).text(".1f") in text


def shipped_like(
    none: list[float],
    attn: list[float],
    d: int = 64,
    seeds=(0, 1, 2),
    jitter: float = 0.01,
    mean: list[float] | None = None,
) -> Comparison:
    """A constructed comparison: exact match by length (2, 3, …) of each model at one D, each seed ``jitter`` apart
    (``mean``: the mean-pooled model's, at the same D)."""

    def run(model: str, scores: list[float], seed: int) -> Run:
        wobble = jitter * (seed - 1)
        curve = [
            {"length": n + 2, "exact_match": min(1.0, max(0.0, v + wobble)), "token_accuracy": v, "count": 10}
            for n, v in enumerate(scores)
        ]
        return Run(
            model,
            seed,
            {"hidden_size": d},
            curve,
            {"steps": 800, "seconds": 1.0, "loss": 0.1},
            {"parameters": 1, "outputs": {}},
        )

    arms = [("gru-none", none), ("gru-additive", attn)] + ([(experiment.POOLED, mean)] if mean else [])
    runs = tuple(run(m, v, seed) for m, v in arms for seed in seeds)
    return Comparison(tuple(m for m, _ in arms), runs)


FALLS = [1.0, 0.95, 0.9, 0.6, 0.3, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # lengths 2-18


HOLDS = [1.0] * 11 + [0.98, 0.97, 0.96, 0.95, 0.94, 0.93]


def test_the_summary_says_which_model_copies_longer_whichever_way_the_numbers_go(rule_on_made_up_seeds):
    text = where_it_breaks.summary(shipped_like(FALLS, HOLDS), 64)
    assert "With attention beats without attention on exact match on strings of 13–18 characters" in text
    assert "5.0 ± 0.0 (n = 3) without attention and 18.0 ± 0.0 (n = 3) with attention" in text
    swapped = where_it_breaks.summary(shipped_like(HOLDS, FALLS), 64)
    assert "With attention does not beat without attention on exact match on strings of 13–18" in swapped
    assert "18.0 ± 0.0 (n = 3) without attention and 5.0 ± 0.0 (n = 3) with attention" in swapped
    close = where_it_breaks.summary(shipped_like(HOLDS, HOLDS, jitter=0.05), 64)
    assert "too close to call on exact match on strings of 13–18" in close
    one_seed = where_it_breaks.summary(shipped_like(FALLS, HOLDS, seeds=(0,)), 64)
    assert "too close to call" in one_seed and "anecdote" in one_seed  # one seed never makes a claim


def sweep_like(attn_by_d: dict[int, list[float]], none_by_d: dict[int, list[float]]) -> Comparison:
    runs = []
    for d in attn_by_d:
        runs += shipped_like(none_by_d[d], attn_by_d[d], d).runs
    return Comparison(("gru-none", "gru-additive"), tuple(runs))


def test_the_overview_names_the_context_sizes_where_attention_falls_and_flips_with_the_numbers(rule_on_made_up_seeds):
    weak = [1.0] * 11 + [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    later = [1.0, 1.0, 1.0, 0.9, 0.8, 0.6, 0.4, 0.1] + [0.0] * 9
    text = where_it_breaks.overview(sweep_like({16: weak, 64: HOLDS}, {16: FALLS, 64: later}))
    assert (
        "With attention beats without attention on strings of 13–18 characters (exact match, over the seeds) at "
        "D = 16, 64." in text
    )
    assert "copied at 90% or more on every seed at D = 64; not at D = 16 (40% ± 1% (n = 3)): there at least" in text
    assert "Without attention, D = 64 beats D = 16 on the longest length copied at least half the time" in text
    flipped = where_it_breaks.overview(sweep_like({16: HOLDS, 64: weak}, {16: later, 64: FALLS}))
    assert "at D = 16; not at D = 64" in flipped
    assert "Without attention, D = 64 does not beat D = 16" in flipped
    none_beat = where_it_breaks.overview(sweep_like({16: FALLS, 64: FALLS}, {16: FALLS, 64: FALLS}))
    assert "With attention does not clearly beat without attention on strings of 13–18 characters at any D" in none_beat
    assert "copied at 90% or more on every seed at no D" in none_beat


def test_the_shipped_charts_draw_every_seed_and_the_mean_with_its_spread(results):
    spec = where_it_breaks.shipped_chart(results, 64, "exact_match")
    rows = spec["data"]["values"]
    labels = {r["label"] for r in rows}
    assert labels == {"without attention", "with attention"}  # the mean-pooled model is drawn in its own section
    seeds = {r["seed"] for r in rows if r["kind"] == "seed"}
    assert seeds == set(results.seeds)
    means = [r["mean"] for r in rows if r["kind"] == "mean" and r["label"] == "without attention"]
    np.testing.assert_allclose(means, shipped.accuracy_of(results, "gru-none", 64).exact_match)
    assert {r["n"] for r in rows if r["kind"] == "mean"} == {len(results.seeds)}
    pooled = where_it_breaks.shipped_chart(results, 64, variants=pooling.POOL_ORDER)
    assert {r["label"] for r in pooled["data"]["values"]} == set(experiment.LABELS.values())
    text = where_it_breaks.shipped_models(results, 64, pooling.POOL_ORDER)
    for model in pooling.POOL_ORDER:
        assert shipped.shipped_run(results, model, 64).extra["model"] in text


def test_grid_heatmap_has_a_row_per_context_size_and_a_column_per_length(results):
    fig = where_it_breaks.grid_heatmap(results, "exact_match")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    z = np.asarray(fig.data[0].z)
    assert z.shape == (
        len(experiment.CONTEXT_SIZES),
        experiment.MAX_LEN - experiment.MIN_LEN + 1,
    )
    np.testing.assert_allclose(z[0], shipped.accuracy_of(results, "gru-none", experiment.CONTEXT_SIZES[0]).exact_match)


def test_every_figure_the_lessons_verdicts_compare_has_its_drift_measured_under_the_same_name(results, monkeypatch):
    """``bench/drift.py`` measures, per run, what :func:`where_it_breaks.drift_figures` returns; the verdicts ask the
    drift file for their figures by name. Every name a verdict of sections 3 and 4 asks for, whichever metric the
    page shows, is one the drift measurement writes (else the rule finds no drift and calls nothing)."""
    from lessons.common import verdicts

    asked = set()
    monkeypatch.setattr(verdicts, "measured_drift", lambda metric, results=None: asked.add((metric, results)) or 0.0)
    for metric in experiment.METRICS:
        for d in shipped.hidden_sizes(results):
            where_it_breaks.summary(results, d, metric)
        where_it_breaks.overview(results, metric)
        pooling.pooling_summary(results, metric)
    measured = set(where_it_breaks.drift_figures(results.runs[0]))
    assert {name for name, _ in asked} <= measured, sorted({name for name, _ in asked} - measured)
    assert {where for _, where in asked} == {"seq2seq_bottleneck"}  # this lesson's own slice of the drift file
    assert len(asked) >= 6  # both metrics' short, long, every-length and longest-length figures
