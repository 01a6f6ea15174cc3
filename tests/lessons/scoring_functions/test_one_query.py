"""Section 2: one query scored the four ways with the modules' own weights, the softmax and the context, what scaling
does to the spread of the dot scores, and the chart of the example."""

import math

import numpy as np
import pytest
import torch

from lessons.common import vega
from lessons.scoring_functions import four_scores, one_query


def test_the_example_is_scored_by_the_formulas_with_the_modules_own_weights():
    c = one_query.compare_scores(8, 5, seed=3)
    q, K = c.query.astype(float), c.keys.astype(float)
    assert np.allclose(c.scores["dot"], K @ q, atol=1e-5)
    assert np.allclose(c.scores["scaled_dot"], K @ q / math.sqrt(8), atol=1e-5)
    modules = four_scores.score_modules(8, seed=3)  # the same seed draws the same untrained weights
    W = modules["bilinear"].W.weight.detach().numpy()
    assert np.allclose(c.scores["bilinear"], [q @ W @ k for k in K], atol=1e-4)
    a = modules["additive"]
    Wq, Wk, b = a.W_q.weight.detach().numpy(), a.W_k.weight.detach().numpy(), a.W_k.bias.detach().numpy()
    v = a.v.weight.detach().numpy()[0]
    assert np.allclose(c.scores["additive"], [v @ np.tanh(Wq @ q + Wk @ k + b) for k in K], atol=1e-4)


@pytest.mark.parametrize("score", four_scores.SCORES)
def test_softmax_rows_sum_to_one_and_the_context_is_their_weighted_sum(score):
    c = one_query.compare_scores(16, 7, seed=1)
    e, a = c.scores[score].astype(float), c.weights[score]
    assert a.sum() == pytest.approx(1.0, abs=1e-5) and (a >= 0).all()
    assert np.allclose(a, np.exp(e - e.max()) / np.exp(e - e.max()).sum(), atol=1e-5)
    assert np.allclose(c.contexts[score], a @ c.keys, atol=1e-5)


def test_a_copied_query_wins_the_dot_scores_and_scaling_softens_them():
    c = one_query.compare_scores(64, 6, seed=0, copy_of=2)
    assert np.array_equal(c.query, c.keys[2])
    assert c.key_labels[2] == "k3 = q"
    for score in ("dot", "scaled_dot"):
        assert int(np.argmax(c.weights[score])) == 2
    assert c.weights["dot"].max() > c.weights["scaled_dot"].max()
    assert one_query.entropy_bits(c.weights["dot"]) < one_query.entropy_bits(c.weights["scaled_dot"])
    rows = {r["score"]: r for r in one_query.comparison_rows(c)}
    assert rows["dot"]["on key"] == "k3 = q"


def test_entropy_is_zero_for_one_hot_and_log2_n_for_uniform():
    assert one_query.entropy_bits(np.array([0.0, 1.0, 0.0])) == 0.0
    assert one_query.entropy_bits(np.full(8, 1 / 8)) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("d", "n", "copy_of", "message"),
    [(0, 3, None, "between 1 and"), (1024, 3, None, "between 1 and"), (8, 1, None, "between 2 and"),
     (8, 40, None, "between 2 and"), (8, 3, 3, "no key k4")],
)  # fmt: skip
def test_bad_example_sizes_get_a_clear_message(d, n, copy_of, message):
    assert message in one_query.check_example(d, n, copy_of)
    with pytest.raises(ValueError, match=message):
        one_query.compare_scores(d, n, copy_of=copy_of)


def test_dot_scores_spread_like_sqrt_d_and_scaled_ones_stay_near_one():
    rows = one_query.scaling_curve(5, ds=(4, 64, 512), samples=256)
    by = {(r["d"], r["score"]): r for r in rows}
    for d in (4, 64, 512):
        assert by[(d, "dot")]["std of scores"] == pytest.approx(math.sqrt(d), rel=0.15)
        assert by[(d, "scaled dot")]["std of scores"] == pytest.approx(1.0, rel=0.15)
    assert by[(512, "dot")]["mean largest α"] > 0.9 > by[(512, "scaled dot")]["mean largest α"]
    assert by[(512, "dot")]["mean largest α"] > by[(4, "dot")]["mean largest α"]


def test_scaling_curves_of_every_n_read_one_draw():
    scores = one_query.scaling_scores(ds=(4, 64), samples=64, seed=1)
    assert scores[64]["dot"].shape == (64, 1, one_query.MAX_KEYS)
    assert torch.allclose(scores[64]["scaled_dot"], scores[64]["dot"] / 8)
    drawn = one_query.scaling_curve(3, ds=(4, 64), samples=64, seed=1)
    assert one_query.scaling_curve(3, ds=(4, 64), samples=64, seed=1, scores=scores) == drawn
    assert one_query.scaling_curve(4, ds=(4, 64), samples=64, seed=1, scores=scores) != drawn
    with pytest.raises(ValueError):
        one_query.scaling_curve(one_query.MAX_KEYS + 1)


def test_comparison_chart_has_scores_and_softmax_for_each():
    example = one_query.compare_scores(8, 4, copy_of=1)
    spec = one_query.comparison_chart(example)
    rows = spec["data"]["values"]
    assert len(rows) == 2 * 4 * len(four_scores.SCORES)  # raw scores and softmax, 4 keys, each score
    for name in four_scores.SCORES:
        mine = [r for r in rows if r["score"] == four_scores.LABELS[name]]
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
    assert one_query.comparison_chart(one_query.compare_scores(8, 5))["vconcat"] == spec["vconcat"]  # only data changes
    large = vega.presenter_vega(spec, 1.35)  # presenter mode: larger, same numbers
    assert large["data"] == spec["data"] and large["vconcat"][0]["height"] > top["height"]
    assert large["vconcat"][0]["encoding"]["column"]["header"]["labelFontSize"] == 17  # the scores' names
    assert one_query.comparison_chart(example) == spec  # the large copy left the shared spec as it was
