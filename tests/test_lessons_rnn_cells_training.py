"""The RNN-cells lesson's agreement task and its three-cell training (lessons.rnn_cells.training)."""

import json

import pytest
import torch

from lessons.rnn_cells import training as rt


def test_a_batch_is_a_subject_then_distractors_and_its_label_is_the_subject():
    x, y = rt.make_batch(12, 64, torch.Generator().manual_seed(0))
    assert x.shape == (64, 13) and y.shape == (64,)
    assert torch.equal(x[:, 0], y)  # cat = 0 -> was, cats = 1 -> were
    assert set(y.tolist()) == {0, 1}
    assert x[:, 1:].min() >= len(rt.SUBJECTS) and x[:, 1:].max() < len(rt.VOCAB)  # no subject among the distractors
    again, _ = rt.make_batch(12, 64, torch.Generator().manual_seed(0))
    assert torch.equal(x, again)
    with pytest.raises(ValueError):
        rt.make_batch(0, 4, torch.Generator())


def test_the_probe_and_the_held_out_set_are_fixed():
    words = rt.words(rt.probe(20)[0])
    assert len(words) == 21 and words[0] == "cat" and set(words[1:]) <= set(rt.FILLERS)
    assert words == rt.words(rt.probe(20)[0])
    x1, y1 = rt.held_out(10)
    x2, y2 = rt.held_out(10)
    assert torch.equal(x1, x2) and torch.equal(y1, y2) and x1.shape == (rt.EVAL_SIZE, 11)


def test_same_seed_same_weights_and_the_keep_gates_start_open():
    a, b = rt.new_models(3), rt.new_models(3)
    for kind in rt.KINDS:
        assert all(torch.equal(p, q) for p, q in zip(a[kind].parameters(), b[kind].parameters(), strict=True))
    example = rt.probe(8)[0]
    assert rt.gate_map(a["RNN"], example) is None
    for kind in ("GRU", "LSTM"):
        gates = rt.gate_map(a[kind], example)
        assert gates.shape == (rt.HIDDEN, 9)
        assert ((gates >= 0) & (gates <= 1)).all()
        assert gates.mean() > 0.85  # the keep-gate bias sits on the right rows (σ(3) ≈ 0.95; a wrong row: ≈ 0.5)


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_the_gate_maps_cell_is_the_fused_layer_step_by_step(kind):
    model = rt.new_models(1)[kind]
    example = rt.probe(6)[0]
    with torch.no_grad():
        states, _ = model.rnn(model.embedding(example[None, :]))  # (1, T+1, H), torch's fused kernel
        cell, state = rt.cell_of(model), None
        for e in model.embedding(example[None, :]).unbind(1):
            state, _ = cell(e, state)
    last = state[0] if kind == "LSTM" else state
    torch.testing.assert_close(last, states[:, -1], atol=1e-5, rtol=1e-5)


def test_training_teaches_the_gated_cells_in_a_few_steps():
    models = rt.new_models(0)
    reports = []
    histories = rt.train(models, 10, seed=0, steps=100, on_progress=reports.append)
    for kind in ("GRU", "LSTM"):
        assert histories[kind][-1].accuracy >= 0.95, (kind, histories[kind])
    assert [p.step for p in histories["RNN"][:2]] == [0, rt.REPORT_EVERY]
    assert all(0.3 < h[0].accuracy < 0.7 for h in histories.values())  # untrained: about chance
    last = reports[-1]
    assert set(last.gates) == {"GRU", "LSTM"} and last.gates["LSTM"].shape == (rt.HIDDEN, 11)
    assert last.answers["GRU"] == "was" and last.tokens[0] == "cat"  # the probe is "cat …": trained, it says was
    assert 0 <= last.exact_match <= 1 and last.seconds > 0


def test_a_false_from_on_progress_stops_the_run_at_its_first_report():
    models = rt.new_models(0)
    reports = []

    def stop(r):
        reports.append(r)
        return False

    histories = rt.train(models, 20, seed=0, steps=300, on_progress=stop)
    assert len(reports) == 1 and all([p.step for p in h] == [0, rt.REPORT_EVERY] for h in histories.values())
    assert rt.replay_frame(reports[0]).shape == (rt.HIDDEN, 21)


def test_new_run_checks_its_inputs():
    with pytest.raises(ValueError):
        rt.new_run(7, 0, 10)
    with pytest.raises(ValueError):
        rt.new_run(20, 0, 0)


def test_the_shipped_results_load_and_cover_every_cell_distance_and_seed():
    results = rt.load_results()
    assert results.distances == rt.DISTANCES
    for kind in rt.KINDS:
        for d in results.distances:
            assert len(results.accuracy[kind][d]) == len(results.seeds)
            assert all(0 <= a <= 1 for a in results.accuracy[kind][d])
            assert all(s <= results.meta["recipe"]["max_steps"] for s in results.steps[kind][d])
    fig = rt.results_figure(results)
    assert len(fig.data) == 2 * len(rt.KINDS)
    assert "At T = 40" in rt.results_summary(results)


def test_bad_results_are_refused_with_a_reason(tmp_path):
    with pytest.raises(FileNotFoundError, match="rnn_cells_results.py"):
        rt.load_results(tmp_path / "rnn_cells.json")
    data = json.loads(rt.RESULTS.read_text(encoding="utf-8"))
    del data["cells"]["GRU"]
    with pytest.raises(ValueError, match="cells"):
        rt.results_from_dict(data)
    data = json.loads(rt.RESULTS.read_text(encoding="utf-8"))
    data["cells"]["LSTM"]["accuracy"].popitem()
    with pytest.raises(ValueError, match="LSTM"):
        rt.results_from_dict(data)
