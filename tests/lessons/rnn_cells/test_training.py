"""The RNN-cells lesson's agreement task and its three-cell training (lessons.rnn_cells.training)."""

import json

import pytest
import torch

from lessons.common.comparison import Comparison, Run
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
    assert results.variants == rt.VARIANTS and len(results.seeds) >= 3
    assert results.param_values("distance") == rt.DISTANCES
    assert results.meta["script"] == rt.SCRIPT and results.meta["command"].startswith("python " + rt.SCRIPT)
    for key in ("date", "machine", "seeds", "recipe"):
        assert key in results.meta
    assert results.meta["recipe"]["lr"] == rt.LR and results.meta["recipe"]["max_steps"] == rt.STEPS  # the page's
    for kind in rt.VARIANTS:
        for d in rt.DISTANCES:
            runs = results.runs_of(kind, {"distance": d})
            assert sorted(r.seed for r in runs) == list(results.seeds)
            assert all(0 <= r.value(rt.ACCURACY) <= 1 for r in runs)
            assert all(r.value("steps") <= results.meta["recipe"]["max_steps"] for r in runs)
    # the lesson's point, in its own numbers: both gated cells carry the subject further than the plain RNN
    longest = max(rt.DISTANCES)
    for kind in ("GRU", "LSTM"):
        assert results.compare(kind, "RNN", rt.ACCURACY, where={"distance": longest}).outcome == "better"
        assert max(rt.solved_at(results, kind)) > max(rt.solved_at(results, "RNN"), default=0)


def test_the_shipped_chart_draws_every_seed_and_the_mean_over_a_chance_line():
    results = rt.load_results()
    spec = rt.results_chart(results)
    curves, rule, text = spec["layer"]
    assert rule["mark"]["type"] == "rule" and text["mark"]["text"] == "chance"
    assert rule["encoding"]["y"]["datum"] == rt.chance(max(rt.DISTANCES)) == pytest.approx(0.5, abs=0.05)
    means = {(v["label"], v["x"]): v["mean"] for v in spec["data"]["values"] if v["kind"] == "mean"}
    seeds = [v for v in spec["data"]["values"] if v["kind"] == "seed"]
    assert len(seeds) == len(rt.VARIANTS) * len(rt.DISTANCES) * len(results.seeds)
    assert any(v["kind"] == "mean" and v["n"] == len(results.seeds) and v["sd"] > 0 for v in spec["data"]["values"])
    rnn_20 = [r.value(rt.ACCURACY) for r in results.runs_of("RNN", {"distance": 20})]
    assert means[("RNN", 20.0)] == pytest.approx(sum(rnn_20) / len(rnn_20))
    assert ("LSTM, forget bias 1", 20.0) in means  # the fourth variant under its label
    assert "encoding" not in spec  # the chance line must not take the curves' x and colour
    assert curves["encoding"]["color"]["scale"]["range"] == [rt.COLORS[k] for k in rt.VARIANTS]


def comparison(accuracy: dict[str, list[float]], distance: int = 40, variants=rt.KINDS) -> Comparison:
    """A constructed comparison: each cell's accuracy per seed at one distance."""
    runs = [
        Run(kind, seed, {"distance": distance}, final={rt.ACCURACY: a, "steps": 300, "seconds": 1.0})
        for kind, values in accuracy.items()
        for seed, a in enumerate(values)
    ]
    return Comparison(variants, tuple(runs), {"script": rt.SCRIPT})


def test_the_summary_says_what_the_shipped_numbers_say():
    results = rt.load_results()
    shipped = rt.results_summary(results)
    longest = max(rt.DISTANCES)
    for kind in ("GRU", "LSTM"):  # computed from the file, whichever way it went
        sentence = results.compare(kind, "RNN", rt.ACCURACY, where={"distance": longest}).sentence(
            ".0%", f"held-out accuracy at T = {longest}"
        )
        assert f"- {sentence}" in shipped.splitlines()
    stuck = rt.at_chance(results, "RNN")
    assert stuck and f"RNN at T = {', '.join(map(str, stuck))}" in shipped  # the page says where a cell is at chance
    assert f"Still at chance ({rt.chance(longest):.0%}" in shipped


def test_chance_is_computed_from_the_held_out_answers():
    _, y = rt.held_out(40)
    share = float(y.float().mean())
    assert rt.chance(40) == max(share, 1 - share)
    assert rt.chance(40) < rt.chance_ceiling(40) < rt.chance(40) + 0.1  # 3 standard errors of 256 answers: ~9 points


def test_at_chance_names_the_cells_no_seed_of_which_beat_a_guesser():
    stuck = comparison({"RNN": [0.5, 0.53, 0.49], "GRU": [1, 1, 0.99], "LSTM": [0.5, 0.9, 0.5]})
    assert rt.at_chance(stuck, "RNN") == [40] and rt.at_chance(stuck, "GRU") == []
    assert rt.at_chance(stuck, "LSTM") == []  # one seed learned: not "at chance", though not solved either
    summary = rt.results_summary(stuck)
    assert "Still at chance" in summary and "RNN at T = 40" in summary.split("Still at chance")[1].splitlines()[0]
    learned = rt.results_summary(comparison({"RNN": [0.9, 0.95, 0.99], "GRU": [1, 1, 0.99], "LSTM": [1, 1, 1]}))
    assert "No cell is at chance" in learned and "Still at chance" not in learned


def test_the_forget_bias_sentence_follows_the_numbers():
    variants = rt.VARIANTS
    base = {"RNN": [0.5, 0.5, 0.5], "GRU": [1, 1, 1]}
    better = comparison(base | {"LSTM": [1, 1, 0.99], rt.STANDARD: [0.5, 0.49, 0.52]}, variants=variants)
    assert "LSTM beats LSTM, forget bias 1" in rt.results_summary(better)
    swapped = comparison(base | {"LSTM": [0.5, 0.49, 0.52], rt.STANDARD: [1, 1, 0.99]}, variants=variants)
    assert "LSTM does not beat LSTM, forget bias 1" in rt.results_summary(swapped)


def test_the_standard_variant_is_an_lstm_whose_forget_gate_starts_at_sigma_1():
    models = rt.new_models(0, rt.VARIANTS)
    assert models[rt.STANDARD].kind == "LSTM"
    example = rt.probe(8)[0]
    standard, ours = rt.gate_map(models[rt.STANDARD], example).mean(), rt.gate_map(models["LSTM"], example).mean()
    assert 0.6 < standard < 0.85 < ours  # σ(1) ≈ 0.73 against σ(3) ≈ 0.95 (the other weights shift it a little)


def test_the_summary_says_what_the_numbers_say_whichever_way_they_go():
    gated_win = rt.results_summary(comparison({"RNN": [0.5, 0.52, 0.49], "GRU": [1, 1, 0.99], "LSTM": [0.98, 1, 1]}))
    assert "GRU beats RNN" in gated_win and "LSTM beats RNN" in gated_win
    assert "GRU at T = 40; LSTM at T = 40" in gated_win and "RNN at T = none" in gated_win
    rnn_win = rt.results_summary(comparison({"RNN": [1, 1, 0.99], "GRU": [0.5, 0.52, 0.49], "LSTM": [0.6, 0.5, 0.55]}))
    assert "GRU does not beat RNN" in rnn_win and "LSTM does not beat RNN" in rnn_win and "beats" not in rnn_win
    assert "RNN at T = 40;" in rnn_win and "GRU at T = none" in rnn_win
    one_seed = rt.results_summary(comparison({"RNN": [0.5], "GRU": [1.0], "LSTM": [1.0]}))
    assert "GRU and RNN are too close to call" in one_seed and "beats" not in one_seed  # one seed: an anecdote


def test_a_measured_run_is_the_cell_trained_beside_the_others():
    """The script trains each cell alone; the page trains the three in turn on the same batches: the same run."""
    together = rt.train(rt.new_models(1), 10, seed=1, steps=50)
    for kind in rt.KINDS:
        run = rt.measured_run(kind, 1, 10, steps=50)
        assert (run.variant, run.seed, run.params) == (kind, 1, {"distance": 10})
        assert [p["accuracy"] for p in run.curve] == [p.accuracy for p in together[kind]]
        assert run.value(rt.ACCURACY) == round(together[kind][-1].accuracy, 4)
        assert run.value("steps") == together[kind][-1].step


def test_bad_results_are_refused_with_a_reason(tmp_path):
    with pytest.raises(FileNotFoundError, match="rnn_cells_results.py"):
        rt.load_results(tmp_path / "rnn_cells.json")
    data = json.loads(rt.RESULTS.read_text(encoding="utf-8"))
    data["variants"].remove("GRU")
    data["runs"] = [r for r in data["runs"] if r["variant"] != "GRU"]
    (tmp_path / "two.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="RNN, GRU, LSTM"):
        rt.load_results(tmp_path / "two.json")
    data = json.loads(rt.RESULTS.read_text(encoding="utf-8"))
    data["runs"][3]["final"]["accuracy"] = "high"
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="rnn_cells_results.py"):
        rt.load_results(tmp_path / "bad.json")


def test_the_live_curves_are_one_seed_per_cell_over_the_chance_line():
    histories = {kind: (rt.Point(0, 0.0, 0.7, 0.5), rt.Point(25, 1.0, 0.5, 0.5 + 0.1 * i))
                 for i, kind in enumerate(rt.KINDS)}  # fmt: skip
    spec = rt.live_curves(histories)
    curves, rule, _ = spec["layer"]
    rows = spec["data"]["values"]
    assert rule["encoding"]["y"]["datum"] == 0.5  # chance
    assert curves["encoding"]["color"]["scale"]["range"] == [rt.COLORS[k] for k in rt.KINDS]
    assert {row["kind"] for row in rows} == {"mean"}  # one seed a cell: no band, no faint seed lines
    assert {(r["label"], r["x"], r["mean"]) for r in rows} == {
        (k, s, acc) for i, k in enumerate(rt.KINDS) for s, acc in ((0, 0.5), (25, 0.5 + 0.1 * i))
    }


def test_a_live_report_draws_its_gates_and_says_each_cells_answer():
    example = rt.probe(5)[0]
    models = rt.new_models(0)
    report = rt.report(models, {k: [] for k in models}, 5, example)
    fig = rt.report_gates(report)
    assert fig.layout.title.text == "Keep gates on one fixed example at step 0 (T = 5): dark = keep the memory"
    assert len(fig.data) == 2  # the GRU's and the LSTM's keep gates
    text = rt.answers_text(report)
    assert text == ", ".join(f"{kind} says *{report.answers[kind]}*" for kind in rt.KINDS)


def test_the_live_run_trains_the_three_cells_and_is_not_started():
    run = rt.live_run(5, 0, 5.0)
    assert run.status == "queued" and set(run.model) == set(rt.KINDS)
    with pytest.raises(ValueError):
        rt.live_run(7, 0, 5.0)
