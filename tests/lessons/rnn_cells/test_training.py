"""Section 5's recipe: the agreement task, the models and their gate maps, the training loop, the shipped results."""

import json

import pytest
import torch

from lessons.rnn_cells import agreement, training
from tests.helpers import recipe_of


def test_a_batch_is_a_subject_then_distractors_and_its_label_is_the_subject():
    x, y = training.make_batch(12, 64, torch.Generator().manual_seed(0))
    assert x.shape == (64, 13) and y.shape == (64,)
    assert torch.equal(x[:, 0], y)  # cat = 0 -> was, cats = 1 -> were
    assert set(y.tolist()) == {0, 1}
    assert x[:, 1:].min() >= len(training.SUBJECTS) and x[:, 1:].max() < len(
        training.VOCAB
    )  # no subject among the distractors
    again, _ = training.make_batch(12, 64, torch.Generator().manual_seed(0))
    assert torch.equal(x, again)
    with pytest.raises(ValueError):
        training.make_batch(0, 4, torch.Generator())


def test_the_probe_and_the_held_out_set_are_fixed():
    words = training.words(training.probe(20)[0])
    assert len(words) == 21 and words[0] == "cat" and set(words[1:]) <= set(training.FILLERS)
    assert words == training.words(training.probe(20)[0])
    x1, y1 = training.held_out(10)
    x2, y2 = training.held_out(10)
    assert torch.equal(x1, x2) and torch.equal(y1, y2) and x1.shape == (training.EVAL_SIZE, 11)


def test_same_seed_same_weights_and_the_keep_gates_start_open():
    a, b = training.new_models(3), training.new_models(3)
    for kind in training.KINDS:
        assert all(torch.equal(p, q) for p, q in zip(a[kind].parameters(), b[kind].parameters(), strict=True))
    example = training.probe(8)[0]
    assert training.gate_map(a["RNN"], example) is None
    for kind in ("GRU", "LSTM"):
        gates = training.gate_map(a[kind], example)
        assert gates.shape == (training.HIDDEN, 9)
        assert ((gates >= 0) & (gates <= 1)).all()
        assert gates.mean() > 0.85  # the keep-gate bias sits on the right rows (σ(3) ≈ 0.95; a wrong row: ≈ 0.5)


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_the_gate_maps_cell_is_the_fused_layer_step_by_step(kind):
    model = training.new_models(1)[kind]
    example = training.probe(6)[0]
    with torch.no_grad():
        states, _ = model.rnn(model.embedding(example[None, :]))  # (1, T+1, H), torch's fused kernel
        cell, state = training.cell_of(model), None
        for e in model.embedding(example[None, :]).unbind(1):
            state, _ = cell(e, state)
    last = state[0] if kind == "LSTM" else state
    torch.testing.assert_close(last, states[:, -1], atol=1e-5, rtol=1e-5)


def test_the_standard_variant_is_an_lstm_whose_forget_gate_starts_at_sigma_1():
    models = training.new_models(0, training.VARIANTS)
    assert models[training.STANDARD].kind == "LSTM"
    example = training.probe(8)[0]
    standard, ours = (
        training.gate_map(models[training.STANDARD], example).mean(),
        training.gate_map(models["LSTM"], example).mean(),
    )
    assert 0.6 < standard < 0.85 < ours  # σ(1) ≈ 0.73 against σ(3) ≈ 0.95 (the other weights shift it a little)


def test_training_teaches_the_gated_cells_in_a_few_steps():
    models = training.new_models(0)
    reports = []
    histories = training.train(models, 10, seed=0, steps=100, on_progress=reports.append)
    for kind in ("GRU", "LSTM"):
        assert histories[kind][-1].accuracy >= 0.95, (kind, histories[kind])
    assert [p.step for p in histories["RNN"][:2]] == [0, training.REPORT_EVERY]
    assert all(0.3 < h[0].accuracy < 0.7 for h in histories.values())  # untrained: about chance
    last = reports[-1]
    assert set(last.gates) == {"GRU", "LSTM"} and last.gates["LSTM"].shape == (training.HIDDEN, 11)
    assert last.answers["GRU"] == "was" and last.tokens[0] == "cat"  # the probe is "cat …": trained, it says was
    assert 0 <= last.exact_match <= 1 and last.seconds > 0


def test_a_false_from_on_progress_stops_the_run_at_its_first_report():
    models = training.new_models(0)
    reports = []

    def stop(r):
        reports.append(r)
        return False

    histories = training.train(models, 20, seed=0, steps=300, on_progress=stop)
    assert len(reports) == 1 and all([p.step for p in h] == [0, training.REPORT_EVERY] for h in histories.values())
    assert training.replay_frame(reports[0]).shape == (training.HIDDEN, 21)


def test_new_run_checks_its_inputs():
    with pytest.raises(ValueError):
        training.new_run(7, 0, 10)
    with pytest.raises(ValueError):
        training.new_run(20, 0, 0)


def test_the_live_run_trains_the_three_cells_and_is_not_started():
    run = training.live_run(5, 0, 5.0)
    assert run.status == "queued" and set(recipe_of(run)[0]) == set(training.KINDS)
    with pytest.raises(ValueError):
        training.live_run(7, 0, 5.0)


def test_a_measured_run_is_the_cell_trained_beside_the_others():
    """The script trains each cell alone; the page trains the three in turn on the same batches: the same run."""
    together = training.train(training.new_models(1), 10, seed=1, steps=50)
    for kind in training.KINDS:
        run = training.measured_run(kind, 1, 10, steps=50)
        assert (run.variant, run.seed, run.params) == (kind, 1, {"distance": 10})
        assert [p["accuracy"] for p in run.curve] == [p.accuracy for p in together[kind]]
        assert run.value(training.ACCURACY) == round(together[kind][-1].accuracy, 4)
        assert run.value("steps") == together[kind][-1].step


def test_the_shipped_results_load_and_cover_every_cell_distance_and_seed():
    results = training.load_results()
    assert results.variants == training.VARIANTS and len(results.seeds) >= 3
    assert results.param_values("distance") == training.DISTANCES
    assert results.meta["script"] == training.SCRIPT and results.meta["command"].startswith("python " + training.SCRIPT)
    for key in ("date", "machine", "seeds", "recipe"):
        assert key in results.meta
    assert (
        results.meta["recipe"]["lr"] == training.LR and results.meta["recipe"]["max_steps"] == training.STEPS
    )  # the page's
    for kind in training.VARIANTS:
        for d in training.DISTANCES:
            runs = results.runs_of(kind, {"distance": d})
            assert sorted(r.seed for r in runs) == list(results.seeds)
            assert all(0 <= r.value(training.ACCURACY) <= 1 for r in runs)
            assert all(r.value("steps") <= results.meta["recipe"]["max_steps"] for r in runs)
    # the lesson's point, in its own numbers: both gated cells carry the subject further than the plain RNN
    longest = max(training.DISTANCES)
    for kind in ("GRU", "LSTM"):
        assert results.compare(kind, "RNN", training.ACCURACY, where={"distance": longest}).outcome == "better"
        assert max(agreement.solved_at(results, kind)) > max(agreement.solved_at(results, "RNN"), default=0)


def test_bad_results_are_refused_with_a_reason(tmp_path):
    with pytest.raises(FileNotFoundError, match="rnn_cells_results.py"):
        training.load_results(tmp_path / "rnn_cells.json")
    data = json.loads(training.RESULTS.read_text(encoding="utf-8"))
    data["variants"].remove("GRU")
    data["runs"] = [r for r in data["runs"] if r["variant"] != "GRU"]
    (tmp_path / "two.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="RNN, GRU, LSTM"):
        training.load_results(tmp_path / "two.json")
    data = json.loads(training.RESULTS.read_text(encoding="utf-8"))
    data["runs"][3]["final"]["accuracy"] = "high"
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="rnn_cells_results.py"):
        training.load_results(tmp_path / "bad.json")


def test_chance_is_computed_from_the_held_out_answers():
    _, y = training.held_out(40)
    share = float(y.float().mean())
    assert training.chance(40) == max(share, 1 - share)
    assert (
        training.chance(40) < training.chance_ceiling(40) < training.chance(40) + 0.1
    )  # 3 standard errors of 256 answers: ~9 points
