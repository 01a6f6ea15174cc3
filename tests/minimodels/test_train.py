"""The training engine: it learns, reports, stops when asked, is deterministic, and its checkpoints round-trip.

Small seeded runs on ``copy``/``reverse`` (learned in a few hundred steps by a tiny model) keep this fast.
"""

import json
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import minimodels.train as train_package
from minimodels.checkpoints import check_tokenizers, load_checkpoint, save_checkpoint
from minimodels.decode import greedy
from minimodels.tasks import get_task
from minimodels.train import (
    MODEL_NAMES,
    TrainConfig,
    _backward,
    _length_slices,
    _lr_factor,
    _teacher_forced_exact_match,
    _WeightAverage,
    alignment_accuracy,
    build_model,
    evaluate,
    exact_match,
    main,
    main_map_name,
    stop_event,
    stop_requested,
    stop_when,
    train,
)
from tests.helpers import ROOT

CHECKPOINTS = ROOT / "assets" / "checkpoints"
SMALL = {"embedding_size": 16, "hidden_size": 32, "attention_size": 16}
QUICK = {"max_seconds": None, "target_exact_match": None, "eval_size": 100}


def _copy():
    return get_task("copy")


def test_model_names_cover_every_seq2seq_choice_and_the_transformer():
    for cell in ("rnn", "gru", "lstm"):
        for attention in ("none", "additive", "dot", "scaled_dot", "bilinear"):
            assert f"{cell}-{attention}" in MODEL_NAMES
    assert "transformer" in MODEL_NAMES
    task = _copy()
    for name in MODEL_NAMES:  # every name builds, sized for the task
        model = build_model(name, task)
        assert model.config.source_vocab_size == task.source_tokenizer.vocab_size
    with pytest.raises(ValueError, match="unknown model"):
        build_model("gru-cosine", task)
    with pytest.raises(ValueError, match="no field"):
        build_model("gru-dot", task, hidden=3)


def test_same_seed_same_initial_weights():
    task = _copy()
    a, b, c = (build_model("gru-additive", task, seed=s) for s in (0, 0, 1))
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
    assert not torch.equal(a.out.weight, c.out.weight)


def test_exact_match_needs_every_token_and_the_eos():
    target = torch.tensor([[5, 6, 2], [5, 6, 2], [5, 6, 2], [5, 2, 0]])
    predicted = torch.tensor([[5, 6, 2, 0], [5, 6, 7, 2], [5, 6, 5, 5], [5, 2, 0, 0]])
    assert exact_match(predicted, target).tolist() == [True, False, False, True]


@pytest.mark.slow  # trains a model or starts a Python process
def test_training_learns_copy_and_reports_the_probe():
    task = _copy()
    model = build_model("gru-dot", task, seed=0, **SMALL)
    reports = []
    config = TrainConfig(max_steps=150, report_every=50, **QUICK)
    result = train(model, task, config, reports.append)
    assert [r.step for r in reports] == [50, 100, 150]
    assert result.steps == 150 and result.stopped == "max_steps"
    assert reports[-1].loss < 0.5 * reports[0].loss
    assert reports[-1].exact_match > 0.5 > reports[0].exact_match
    last = reports[-1]
    assert last.attention_name == "cross"
    assert isinstance(last.attention, np.ndarray)
    assert last.attention.shape == (len(last.target_tokens), len(last.source_tokens))
    np.testing.assert_allclose(last.attention.sum(-1), 1.0, rtol=1e-5)
    assert last.source_tokens[-1] == "</s>" and last.target_tokens[-1] == "</s>"
    assert last.source_tokens[:-1] == list(task.probe.source)
    assert set(last.as_json()) == {"step", "seconds", "loss", "exact_match", "prediction"}


@pytest.mark.parametrize("check_every", [None, 5])
@pytest.mark.slow  # trains a model or starts a Python process
def test_training_stops_at_the_target(check_every):
    """At a report, or (check_every) at a step between reports, always on the held-out greedy exact match."""
    task = get_task("reverse")
    model = build_model("gru-additive", task, seed=0, **SMALL)
    config = TrainConfig(
        max_steps=400, report_every=25, check_every=check_every, target_exact_match=0.5, max_seconds=None, eval_size=100
    )
    result = train(model, task, config)
    assert result.stopped == "target"
    assert result.exact_match >= 0.5
    assert result.steps < 400 and result.steps % (check_every or 25) == 0
    assert result.history[-1].step == result.steps  # the check that stopped it is reported
    assert result.evaluations >= len(result.history) and 0 < result.evaluation_seconds < result.seconds
    if check_every is None:
        assert result.evaluations == len(result.history)  # one per report, none between them
    held_out = task.encoded("valid").select(torch.arange(100))
    assert evaluate(model, held_out) == result.exact_match


def test_checks_between_reports_wait_for_the_training_batch():
    """The teacher-forced share of exactly right rows: every token (EOS included) must be the argmax; PAD is not."""
    target_out = torch.tensor([[5, 6, 2], [5, 2, 0]])  # (B, T): target + EOS, PAD
    logits = torch.nn.functional.one_hot(target_out, 8).float()  # (B, T, V): the gold token everywhere
    assert _teacher_forced_exact_match(logits, target_out) == 1.0
    logits[1, 2] = torch.nn.functional.one_hot(torch.tensor(7), 8)  # a wrong guess at a PAD position is ignored
    assert _teacher_forced_exact_match(logits, target_out) == 1.0
    logits[0, 2] = torch.nn.functional.one_hot(torch.tensor(7), 8)  # a wrong EOS is not
    assert _teacher_forced_exact_match(logits, target_out) == 0.5


def test_length_slices_cut_the_padding_but_not_the_gradient():
    """A batch computed in slices of similar source length: less padding, the same loss and gradient."""
    lengths = torch.tensor([3, 10, 3, 4, 3])
    assert [p.tolist() for p in _length_slices(lengths, 1)] == [[0, 2, 4, 3, 1]]
    assert [p.tolist() for p in _length_slices(lengths, 2)] == [[0, 2, 4, 3], [1]]  # 4×4 + 1×10 < 5×10
    assert [p.tolist() for p in _length_slices(lengths, 3)] == [[0, 2, 4], [3], [1]]
    assert len(_length_slices(torch.tensor([5, 5, 5]), 3)) == 1  # one length: nothing to gain from a cut
    task = get_task("dates")
    data, rows = task.encoded("train"), torch.arange(64)
    results = []
    for slices in (1, 3):
        model = build_model("transformer", task, seed=0, d_model=32, n_heads=2, d_ff=64)
        loss, right = _backward(model, data, rows, data.source_lengths, slices)
        results.append((loss, right, [p.grad for p in model.parameters()]))
    (loss, right, grads), (sliced_loss, sliced_right, sliced_grads) = results
    assert torch.allclose(loss, sliced_loss, rtol=1e-5) and right == sliced_right
    assert all(torch.allclose(g, s, rtol=1e-4, atol=1e-6) for g, s in zip(grads, sliced_grads, strict=True))


@pytest.mark.slow  # trains a model or starts a Python process
def test_weight_average_follows_its_formula_and_is_what_training_returns():
    """An exponential moving average of the weights, ramped up (see _WeightAverage), evaluated and returned."""
    model = torch.nn.Linear(2, 1)
    average = _WeightAverage(model, decay=0.9)
    expected = [p.detach().clone() for p in model.parameters()]
    for step in range(1, 30):
        with torch.no_grad():
            for p in model.parameters():
                p.add_(1.0)
        decay = min(0.9, (1 + step) / (10 + step))
        expected = [decay * e + (1 - decay) * p.detach() for e, p in zip(expected, model.parameters(), strict=True)]
        average.update(step)
    own = [p.detach().clone() for p in model.parameters()]
    with average.applied():  # the model holds the average for a while...
        assert all(torch.allclose(p, e) for p, e in zip(model.parameters(), expected, strict=True))
        assert not torch.allclose(model.weight, own[0])  # it lags the weights
    assert all(torch.equal(p, o) for p, o in zip(model.parameters(), own, strict=True))  # ...then its own again
    average.copy_back()
    assert all(torch.allclose(p, e) for p, e in zip(model.parameters(), expected, strict=True))

    task = get_task("reverse")
    held_out = task.encoded("valid").select(torch.arange(100))
    results = {}
    for decay in (None, 0.9):
        model = build_model("gru-additive", task, seed=0, **SMALL)
        seen = []  # what a callback looking at the model itself finds at each report

        def look(report, model=model, seen=seen):
            model.eval()
            seen.append((evaluate(model, held_out), report.exact_match))
            model.train()

        result = train(model, task, TrainConfig(max_steps=100, report_every=50, average=decay, **QUICK), look)
        assert evaluate(model, held_out) == result.exact_match  # the model returned is the model evaluated
        assert [mine for mine, _ in seen] == [reported for _, reported in seen]  # and the model reported on
        results[decay] = model.state_dict()
    assert results[None].keys() == results[0.9].keys()  # checkpoints keep their keys
    assert not all(torch.equal(results[None][k], results[0.9][k]) for k in results[None])


@pytest.mark.parametrize(
    "options,message",
    [
        ({"decay": True, "warmup_steps": 0}, "warmup_steps"),
        ({"check_every": 0}, "check_every"),
        ({"length_slices": 0}, "length_slices"),
        ({"average": 1.0}, "average"),
    ],
)
def test_train_config_rejects_settings_that_cannot_train(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**options)
    TrainConfig(decay=True, warmup_steps=1)  # the smallest warm-up the decay can start from


def test_learning_rate_warms_up_then_decays_as_the_power_asked():
    paper = TrainConfig(lr=1.0, warmup_steps=50, decay=True)  # step s is the (s + 1)-th update
    faster = TrainConfig(lr=1.0, warmup_steps=50, decay=True, decay_power=1.0)
    assert _lr_factor(24, paper) == _lr_factor(24, faster) == 0.5  # the same linear warm-up
    assert _lr_factor(49, paper) == _lr_factor(49, faster) == 1.0  # the same peak
    assert _lr_factor(199, paper) == pytest.approx(0.5) and _lr_factor(199, faster) == pytest.approx(0.25)
    assert _lr_factor(199, TrainConfig(warmup_steps=50)) == 1.0  # no decay: flat after the warm-up


def test_returning_false_stops_cleanly_and_the_model_stays_usable():
    task = _copy()
    model = build_model("gru-additive", task, seed=0, **SMALL)
    seen = []

    def stop_at_second(progress):
        seen.append(progress.step)
        return len(seen) < 2

    result = train(model, task, TrainConfig(max_steps=1000, report_every=10, **QUICK), stop_at_second)
    assert result.stopped == "callback"
    assert result.steps == 20 and seen == [10, 20]
    batch = task.encoded("valid").select(torch.arange(8))
    out = greedy(model, batch.source, batch.source_lengths, max_len=12)
    assert out.tokens.shape[0] == 8
    assert not model.training


def test_a_stop_event_ends_the_run_after_its_current_step_not_at_the_next_report():
    task = _copy()
    model = build_model("gru-additive", task, seed=0, **SMALL)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    event, reports = threading.Event(), []
    threading.Timer(0.3, event.set).start()  # a Stop button pressed by someone else, while the run trains

    with stop_when(event):
        assert not stop_requested()
        result = train(model, task, TrainConfig(max_steps=20_000, report_every=10_000, **QUICK), reports.append)
    assert result.stopped == "callback"
    assert 0 < result.steps < 10_000  # reports are 10,000 steps apart: only the event stopped it
    assert [p.step for p in reports] == [result.steps]  # stopped before a first report: one look at the model
    assert any(not torch.equal(before[k], v) for k, v in model.state_dict().items())  # what it learnt is kept
    assert stop_event() is None and not stop_requested()  # only inside the block, only in this thread


def test_a_stop_event_set_by_anyone_stops_the_run_even_when_on_progress_continues():
    task = _copy()
    model = build_model("gru-additive", task, seed=0, **SMALL)
    event, steps_seen = threading.Event(), []
    config = TrainConfig(max_steps=20_000, report_every=5, **QUICK)

    def on_progress(progress):
        steps_seen.append(progress.step)
        if progress.step == 10:
            event.set()  # as a Stop button would, between two reports

    with stop_when(event):
        result = train(model, task, config, on_progress)
    assert result.stopped == "callback" and result.steps == 10 and steps_seen == [5, 10]  # on_progress said go on


def _train_weights(seed=0, steps=12):
    task = _copy()
    model = build_model("gru-additive", task, seed=seed, **SMALL)
    train(model, task, TrainConfig(seed=seed, max_steps=steps, report_every=6, **QUICK))
    return model.state_dict()


@pytest.mark.slow  # trains a model or starts a Python process
def test_training_is_deterministic_for_a_seed_even_in_parallel_threads():
    alone = _train_weights()
    other_seed = _train_weights(seed=1)
    results = [None, None]

    def run(i):
        results[i] = _train_weights()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for result in results:
        assert all(torch.equal(alone[k], result[k]) for k in alone)
    assert not all(torch.equal(alone[k], other_seed[k]) for k in alone)


def test_transformer_trains_and_reports_a_head_mean_map():
    task = _copy()
    model = build_model("transformer", task, seed=0, d_model=32, n_heads=2, d_ff=64, encoder_layers=1, decoder_layers=1)
    config = TrainConfig(max_steps=40, report_every=20, lr=3e-3, warmup_steps=10, **QUICK)
    reports = []
    train(model, task, config, reports.append)
    assert reports[-1].loss < reports[0].loss
    last = reports[-1]
    assert last.attention_name == main_map_name(model) == "decoder.0.cross"
    assert last.attention.shape == (len(last.target_tokens), len(last.source_tokens))
    assert last.attention_maps["decoder.0.cross"].shape == (2, *last.attention.shape)
    assert last.attention_maps["encoder.0.self"].shape == (2, len(last.source_tokens), len(last.source_tokens))


@pytest.mark.slow  # trains a model or starts a Python process
def test_alignment_accuracy_rewards_the_right_map():
    task = _copy()
    model = build_model("gru-dot", task, seed=0, **SMALL)
    before = alignment_accuracy(model, task, "test", limit=100)
    train(model, task, TrainConfig(max_steps=250, report_every=250, **QUICK))
    after = alignment_accuracy(model, task, "test", limit=100)
    assert set(after) == {"accuracy", "tokens", "maps"} and after["tokens"] > 100
    assert after["accuracy"] > 0.8 > before["accuracy"]
    assert alignment_accuracy(build_model("gru-none", task), task) == {}


# ------------------------------------------------------------------------------------------ checkpoints
def test_checkpoint_round_trips_bit_exactly(tmp_path):
    task = _copy()
    model = build_model("lstm-bilinear", task, seed=3, bidirectional=True, **SMALL)
    train(model, task, TrainConfig(max_steps=5, report_every=5, **QUICK))
    path = save_checkpoint(tmp_path / "ck", model, model_name="lstm-bilinear", task=task, seed=3, training={"x": 1})
    loaded, meta = load_checkpoint(path)
    assert meta["kind"] == "seq2seq" and meta["model"] == "lstm-bilinear" and meta["task"] == "copy"
    assert meta["config"]["bidirectional"] is True and meta["training"] == {"x": 1}
    assert loaded.config == model.config
    original = model.state_dict()
    assert set(loaded.state_dict()) == set(original)
    assert all(torch.equal(v, original[k]) for k, v in loaded.state_dict().items())
    batch = task.encoded("valid").select(torch.arange(16))
    a = model(batch.source, batch.source_lengths, batch.target_in)
    b = loaded(batch.source, batch.source_lengths, batch.target_in)
    assert torch.equal(a.logits, b.logits) and torch.equal(a.attention["cross"], b.attention["cross"])
    check_tokenizers(meta, task)
    with pytest.raises(ValueError, match="tokenizer differs"):
        check_tokenizers(meta, get_task("dates"))
    # a plain state_dict, loadable without unpickling code
    state = torch.load(path / "weights.pt", weights_only=True)
    assert set(state) == set(original)


def test_transformer_checkpoint_round_trips(tmp_path):
    task = _copy()
    model = build_model("transformer", task, seed=0, d_model=16, n_heads=2, d_ff=32, positional="learned")
    path = save_checkpoint(tmp_path / "tf", model, model_name="transformer", task=task)
    loaded, meta = load_checkpoint(path / "config.json")
    assert meta["kind"] == "transformer" and loaded.config == model.config
    batch = task.encoded("valid").select(torch.arange(4))
    assert torch.equal(
        model(batch.source, batch.source_lengths, batch.target_in).logits,
        loaded(batch.source, batch.source_lengths, batch.target_in).logits,
    )


def test_loading_a_non_checkpoint_fails_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a checkpoint"):
        load_checkpoint(tmp_path)


ALL_SHIPPED = sorted(p.parent for p in CHECKPOINTS.glob("*/config.json"))
# the one-layer models of lessons 7 and 8 (minimodels.small) are no seq2seq translators: their lessons' tests check
# what they do (tests/test_lessons_masking.py, tests/test_lessons_positional_encoding.py)
ONE_LAYER = [p for p in ALL_SHIPPED if json.loads((p / "config.json").read_text()).get("kind", "").startswith("small-")]
SHIPPED = [p for p in ALL_SHIPPED if p not in ONE_LAYER]


def test_the_lessons_checkpoints_are_shipped():
    names = {p.name for p in SHIPPED}
    expected = {f"dates-{m}" for m in ("gru-additive", "gru-none", "gru-dot", "gru-scaled_dot", "gru-bilinear")}
    assert expected | {"dates-transformer"} <= names


def test_the_small_checkpoints_are_the_ones_lessons_7_and_8_declare():
    from lessons.common import catalog

    declared = {
        f"{task}-{model}"
        for slug in ("masking", "positional_encoding")
        for task, model in catalog.lesson(slug).pretrained
    }
    assert {p.name for p in ONE_LAYER} == declared
    for path in ONE_LAYER:
        assert sum(f.stat().st_size for f in path.iterdir()) <= 2 * 1024 * 1024
        model, meta = load_checkpoint(path)
        assert meta["model"].startswith("small-") and sum(p.numel() for p in model.parameters()) > 0


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_checkpoint_loads_and_decodes_its_task(path):
    assert sum(f.stat().st_size for f in path.iterdir()) <= 2 * 1024 * 1024
    model, meta = load_checkpoint(path)
    task = get_task(meta["task"], seed=meta["task_seed"])
    check_tokenizers(meta, task)
    test = task.encoded("test").select(torch.arange(200))
    score = evaluate(model, test)
    recorded = meta["training"]["test_exact_match"]
    assert score >= min(0.9, recorded - 0.05), f"{path.name}: {score:.3f} on 200 test sentences"


# ------------------------------------------------------------------------------------------ command line
def _cli(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "minimodels.train", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


@pytest.mark.slow  # trains a model or starts a Python process
def test_cli_prints_json_lines_and_saves_a_checkpoint(tmp_path):
    out = tmp_path / "cli"
    run = _cli(
        "--task",
        "copy",
        "--model",
        "gru-dot",
        "--max-steps",
        "20",
        "--report-every",
        "10",
        "--threads",
        "1",
        "--seed",
        "0",
        "--eval-size",
        "50",
        "--set",
        "hidden_size=32",
        "--out",
        str(out),
        "--average",
        "0.5",
    )
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line["step"] for line in lines[:-1]] == [10, 20]
    final = lines[-1]
    assert {"steps", "seconds", "exact_match", "device", "test_exact_match", "checkpoint"} <= set(final)
    assert final["steps"] == 20 and final["device"] == "cpu" and final["stopped"] == "max_steps"
    model, meta = load_checkpoint(out)
    assert meta["config"]["hidden_size"] == 32
    assert meta["training"]["steps"] == 20 and "--max-steps 20" in meta["training"]["command"]
    assert meta["training"]["train_config"]["average"] == 0.5


@pytest.mark.slow  # trains a model or starts a Python process
def test_cli_rejects_an_unknown_model_without_a_traceback():
    run = _cli("--task", "copy", "--model", "gru-cosine")
    assert run.returncode == 2
    assert "unknown model 'gru-cosine'" in run.stderr and "choose from" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""


@pytest.mark.parametrize(
    "args,message",
    [
        (("--task", "klingon"), "unknown task 'klingon'"),
        (("--task", "copy", "--set", "hidden=3"), "has no field hidden"),
        (("--task", "copy", "--set", "hidden_size"), "FIELD=VALUE"),
        (("--task", "copy", "--average", "1.5"), "average must be a decay between 0 and 1"),
    ],
)
def test_cli_main_reports_bad_arguments_as_one_line(args, message, capsys):
    assert main([*args, "--max-steps", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and message in captured.err
    assert captured.out == ""


# ------------------------------------------------------------------------------------------- package API
# Every name the course imports from ``minimodels.train`` (lessons/, scripts/, bench/, minimodels/, tests/): the
# package split into one module per concern, and ``from minimodels.train import ...`` stays the one way in.
OLD_API = [
    "MODEL_NAMES",
    "Progress",
    "TrainConfig",
    "TrainResult",
    "_WeightAverage",
    "_backward",
    "_length_slices",
    "_lr_factor",
    "_teacher_forced_exact_match",
    "alignment_accuracy",
    "build_model",
    "default_train_config",
    "evaluate",
    "exact_match",
    "main",
    "main_map_name",
    "model_config",
    "model_from_config",
    "stop_event",
    "stop_requested",
    "stop_when",
    "train",
]


@pytest.mark.parametrize("name", OLD_API)
def test_the_old_api_is_still_importable_from_minimodels_train(name):
    assert hasattr(train_package, name), f"minimodels.train no longer exports {name}"
    assert callable(getattr(train_package, name)) or name == "MODEL_NAMES"


def test_every_name_in_all_is_defined_and_train_is_the_function():
    assert set(train_package.__all__) <= set(vars(train_package))
    assert callable(train_package.train) and train_package.train.__name__ == "train"  # not a submodule


@pytest.mark.slow  # trains a model or starts a Python process
def test_cli_help_exits_0():
    run = _cli("--help", timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: python -m minimodels.train")
    assert "--max-seconds" in run.stdout
