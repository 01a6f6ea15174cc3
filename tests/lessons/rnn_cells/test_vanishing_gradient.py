"""Section 3: the Jacobian norms against autograd's, cells side by side, and what the gates do to the gradient."""

import math

import altair as alt
import numpy as np
import pytest
import torch

from lessons.rnn_cells import seeded_cells, vanishing_gradient


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
def test_jacobian_norms_match_autograds_full_jacobian(kind):
    cell = seeded_cells.make_cell(kind, 3, seed=5, dtype=torch.float64)
    x = torch.randn(6, seeded_cells.INPUT_SIZE, dtype=torch.float64, generator=torch.Generator().manual_seed(0))

    def last_state(x):
        state = seeded_cells.zero_state(kind, 1, 3, torch.float64)
        for t in range(x.shape[0]):
            state, _ = cell(x[t : t + 1], state)
        return (state[0] if kind == "LSTM" else state)[0]

    J = torch.autograd.functional.jacobian(last_state, x)  # (H, T, I)
    norms, keep = vanishing_gradient.jacobian_norms(cell, x)
    torch.testing.assert_close(norms[0], J.pow(2).sum(dim=(0, 2)).sqrt())
    assert math.isnan(keep[0]) if kind == "RNN" else 0 < keep[0] < 1


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
def test_cells_side_by_side_give_each_cells_own_numbers(kind):
    seeds = (0, 3, 7)
    cells = [seeded_cells.make_cell(kind, 4, s, gate_bias=1.5, recurrent_scale=2.0, dtype=torch.float64) for s in seeds]
    xs = [vanishing_gradient.random_sequence(9, s) for s in seeds]
    norms, keep = vanishing_gradient.jacobian_norms(
        vanishing_gradient.side_by_side(cells), torch.cat(xs, dim=1), groups=len(seeds)
    )
    assert norms.shape == (len(seeds), 9)
    for g, (cell, x) in enumerate(zip(cells, xs, strict=True)):
        alone, kept = vanishing_gradient.jacobian_norms(cell, x)
        torch.testing.assert_close(norms[g], alone[0], rtol=1e-12, atol=0)
        torch.testing.assert_close(keep[g], kept[0], rtol=1e-12, atol=0, equal_nan=True)
    assert not torch.allclose(norms[0], norms[1])  # three different cells, not one repeated


def test_the_experiment_averages_each_seeds_own_gradient():
    exp = vanishing_gradient.vanishing_experiment(length=12, gate_bias=1.0, seeds=(0, 1))
    for kind in seeded_cells.CELLS:
        runs = [vanishing_gradient.gradient_norms(kind, 12, s, gate_bias=1.0) for s in (0, 1)]
        np.testing.assert_allclose(exp.norms[kind], np.sqrt(runs[0][0] * runs[1][0]), rtol=1e-12)
        if kind != "RNN":
            assert exp.keep[kind] == pytest.approx((runs[0][1] + runs[1][1]) / 2, rel=1e-12)


def test_plain_rnn_gradient_vanishes_with_distance():
    exp = vanishing_gradient.vanishing_experiment(length=40, seeds=(0, 1))
    rnn = exp.norms["RNN"]
    assert rnn.shape == (40,)
    assert all(rnn[d] > rnn[d + 5] for d in range(0, 35, 5))
    assert rnn[39] < 1e-8 * rnn[0]


def test_keep_gates_near_one_let_the_gradient_through():
    shut = vanishing_gradient.vanishing_experiment(length=40, gate_bias=0.0, seeds=(0, 1))
    open_ = vanishing_gradient.vanishing_experiment(length=40, gate_bias=4.0, seeds=(0, 1))
    assert open_.keep["LSTM"] > 0.9 > 0.6 > shut.keep["LSTM"]
    assert open_.keep["GRU"] > 0.9 > 0.6 > shut.keep["GRU"]
    for kind in ("GRU", "LSTM"):
        assert open_.at(30)[kind] > 1e3 * shut.at(30)[kind]
        assert open_.at(30)[kind] > 1e3 * open_.at(30)["RNN"]
    torch.testing.assert_close(torch.tensor(open_.norms["RNN"]), torch.tensor(shut.norms["RNN"]))  # no gate to bias


def test_large_recurrent_weights_make_the_rnn_gradient_explode():
    exp = vanishing_gradient.vanishing_experiment(length=40, recurrent_scale=4.0, seeds=(0, 1))
    assert exp.norms["RNN"][30] > exp.norms["RNN"][0]
    assert "explodes" in vanishing_gradient.gradient_summary(exp)
    assert "explodes" not in vanishing_gradient.gradient_summary(
        vanishing_gradient.vanishing_experiment(length=40, seeds=(0, 1))
    )


def test_gradient_chart_draws_each_seed_and_the_mean_and_spread_of_the_logs():
    exp = vanishing_gradient.vanishing_experiment(length=20, seeds=(0, 1, 2))
    spec = vanishing_gradient.gradient_chart(exp)
    assert "T = 20" in spec["title"] and "3 seeds" in spec["title"]
    values = spec["data"]["values"]
    seeds = [v for v in values if v["kind"] == "seed"]
    assert len(seeds) == 3 * 3 * 20  # every cell, seed and distance, each a faint line
    for kind in seeded_cells.CELLS:  # the mean line is the log of the geometric mean the sentences quote
        means = sorted((v["x"], v["mean"], v["sd"]) for v in values if v["kind"] == "mean" and v["label"] == kind)
        np.testing.assert_allclose([m for _, m, _ in means], np.log10(exp.norms[kind]), rtol=1e-9)
        np.testing.assert_allclose(
            [sd for _, _, sd in means], np.log10(exp.per_seed[kind]).std(axis=0, ddof=1), rtol=1e-9, atol=1e-12
        )
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["area", "line", "line"]  # band, seeds, mean
    alt.LayerChart.from_dict(spec)  # Altair validates it against the Vega-Lite schema
    one = vanishing_gradient.gradient_chart(vanishing_gradient.vanishing_experiment(length=10, seeds=(0,)))
    assert "mean ± sd" not in one["title"] and len(one["data"]["values"]) == 3 * 10  # one seed: one line, no band
