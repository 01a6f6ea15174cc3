"""A student's live pair: both models trained one after the other, each as it would alone, stopped, probed."""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from lessons.seq2seq_bottleneck import experiment, live_training, rerun, scoring
from minimodels.tokenizers import EOS_ID
from tests.helpers import recipe_of


def test_one_run_trains_both_models_one_after_the_other(pair_run):
    models, results, reports = pair_run
    assert list(results) == list(live_training.LIVE_ORDER) == ["gru-additive", "gru-none"]
    assert all(r.steps == 8 and r.stopped == "max_steps" for r in results.values())
    assert [(r.turn, r.step) for r in reports] == [
        ("gru-additive", 4),
        ("gru-additive", 8),
        ("gru-none", 12),
        ("gru-none", 16),
    ]
    seconds = [r.seconds for r in reports]
    assert seconds == sorted(seconds) and seconds[2] > results["gru-additive"].seconds  # one timeline
    last = reports[-1]
    assert [r.step for r in last.reports["gru-none"]] == [4, 8] and [r.step for r in last.reports["gru-additive"]] == [
        4,
        8,
    ]
    assert reports[1].reports["gru-none"] == ()  # not started yet
    for name, model in models.items():
        live = last.latest(name)
        assert live.model == name and live.hidden_size == 16 and last.hidden_size == 16 and last.seed == 2
        assert model.config.hidden_size == 16 and model.config.attention == name.removeprefix("gru-")
        assert live.accuracy.counts == (2,) * (experiment.MAX_LEN - experiment.MIN_LEN + 1)
        probe = live_training.probe_decode(model)
        assert live.prediction == probe.prediction and live.written == probe.written
        assert live.label == experiment.describe(model) and live.label.startswith("unidirectional")
    assert last.latest("gru-none").attention is None and not last.bidirectional
    np.testing.assert_array_equal(last.attention, last.latest("gru-additive").attention)
    np.testing.assert_array_equal(
        last.latest("gru-additive").attention, live_training.probe_decode(models["gru-additive"]).attention
    )
    assert reports[0].attention is not None and not np.allclose(reports[0].attention, last.attention)  # it learns
    assert reports[3].loss == last.latest("gru-none").loss  # the panel reads the model training now


@pytest.mark.parametrize("name", live_training.LIVE_ORDER)
def test_each_model_of_the_pair_trains_exactly_as_it_would_alone(pair_run, name):
    """Same seed, same data, same recipe: each model of the pair is the one trained on its own."""
    models, _, _ = pair_run
    alone = experiment.build(name, 16, seed=2)
    config = dataclasses.replace(
        experiment.train_config(name, steps=8), seed=2, report_every=4, threads=1, lr=live_training.LIVE_LR
    )
    experiment.train_model(alone, config)
    for (key, ours), theirs in zip(models[name].state_dict().items(), alone.state_dict().values(), strict=True):
        torch.testing.assert_close(ours, theirs, msg=key)


def test_the_second_model_gets_the_first_ones_steps_in_the_time_it_left(monkeypatch):
    """A busy server that cuts the first model short must not let the second train longer."""
    limits = []

    def fake_train(model, config, on_progress):
        limits.append((config.max_steps, config.max_seconds, config.seed))
        steps = 37 if len(limits) == 1 else config.max_steps  # the first is cut by the clock at step 37
        return SimpleNamespace(steps=steps, seconds=19.0, stopped="max_seconds")

    monkeypatch.setattr(live_training, "train_model", fake_train)
    _, train_fn = live_training.new_training(16, seed=5, steps=150, budget_seconds=30.0, per_length=1)
    results = train_fn(lambda report: True)
    assert list(results) == list(live_training.LIVE_ORDER)
    assert limits == [(150, pytest.approx(30.0 * live_training.FIRST_SHARE), 5), (37, pytest.approx(11.0), 5)]


def test_stopping_during_the_first_model_never_starts_the_second():
    models, train_fn = live_training.new_training(16, steps=200, per_length=2, report_every=2)
    reports = []

    def on_progress(report):
        reports.append(report)
        return len(reports) < 2  # stop at the second report

    results = train_fn(on_progress)
    first, second = live_training.LIVE_ORDER
    assert list(results) == [first] and results[first].stopped == "callback"
    assert len(reports) == 2 and reports[-1].step == 4 and reports[-1].reports[second] == ()
    untouched = experiment.build(second, 16)
    for ours, fresh in zip(models[second].parameters(), untouched.parameters(), strict=True):
        torch.testing.assert_close(ours, fresh)


def test_live_training_refuses_an_unknown_context_size_or_budget():
    with pytest.raises(ValueError, match="D = 20"):
        live_training.new_training(20)
    with pytest.raises(ValueError, match="budget"):
        live_training.new_training(16, budget_seconds=0)


def test_the_probe_is_the_models_own_greedy_output_and_its_attention_one_row_per_token_it_wrote():
    from minimodels.decode import greedy

    tokens = rerun.probe_tokens()
    assert tokens[:5] == ["j", "a", "n", "e", "␣"] and tokens[-1] == "</s>"
    assert len(tokens) == len(live_training.PROBE_TEXT) + 1
    model = experiment.build("gru-additive", 16).eval()
    probe = live_training.probe_decode(model)
    task = experiment.lesson_task()
    source = torch.tensor([[*task.source_tokenizer.encode(live_training.PROBE_TEXT), EOS_ID]])
    out = greedy(model, source, torch.tensor([source.size(1)]), max_len=len(live_training.PROBE_TEXT) + 4)
    T = int(out.lengths[0])
    assert len(probe.written) == T and probe.attention.shape == (T, len(tokens))
    np.testing.assert_allclose(probe.attention, out.attention["cross"][0, :T].numpy())  # not teacher forced
    np.testing.assert_allclose(probe.attention.sum(axis=1), 1.0, rtol=1e-5)
    assert probe.prediction == task.target_tokenizer.decode(out.sequences()[0])
    assert scoring.copy_text(model, live_training.PROBE_TEXT).startswith(probe.prediction)
    assert live_training.probe_decode(experiment.build("gru-none", 16).eval()).attention is None


def test_a_live_pair_can_be_bidirectional_and_says_so(monkeypatch):
    models, train_fn = live_training.new_training(16, seed=1, steps=2, per_length=1, report_every=2, bidirectional=True)
    reports = []
    train_fn(lambda report: reports.append(report) or True)
    assert all(m.config.bidirectional and m.config.decoder_size == 16 for m in models.values())
    assert reports[-1].bidirectional and reports[-1].latest("gru-none").label.startswith("bidirectional GRU encoder")
    fig = rerun.live_length_chart(None, reports[-1])
    assert [t.name for t in fig.data] == [
        "yours: without attention, bidirectional, D = 16, 2 steps",
        "yours: with attention, bidirectional, D = 16, 2 steps",
    ]


def test_finished_model_and_replay_frame_follow_the_reports(pair_run):
    models, _, reports = pair_run
    assert live_training.finished_model(None, reports[-1], "gru-none") is None
    assert live_training.finished_model(models, None, "gru-none") is None
    assert live_training.finished_model(models, reports[0], "gru-none") is None  # stopped before it started
    assert live_training.finished_model(models, reports[-1], "gru-none") is models["gru-none"]
    assert live_training.replay_frame(reports[0]) is reports[0].attention is not None
    assert live_training.replay_frame(reports[-1]) is None  # the model without attention's turn


def test_new_run_is_the_live_pair_with_the_live_settings(monkeypatch):
    monkeypatch.setattr(live_training, "LIVE_STEPS", 4)
    monkeypatch.setattr(live_training, "LIVE_REPORT_EVERY", 4)
    monkeypatch.setattr(live_training, "LIVE_PER_LENGTH", 1)
    run = live_training.new_run(16, seed=1)
    assert run.status == "queued" and set(recipe_of(run)[0]) == set(experiment.MODELS)
    assert run.start().wait(120) and run.status == "finished", run.error
    assert [(r.turn, r.step, r.seed) for r in run.snapshots] == [("gru-additive", 4, 1), ("gru-none", 8, 1)]
