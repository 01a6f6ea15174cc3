"""The bottleneck lesson's numbers: accuracy by length, the shipped results, the squeeze, live runs, exercises."""

import dataclasses
import html
import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from lessons import seq2seq_bottleneck
from lessons.common.comparison import Comparison, Run
from minimodels.tokenizers import EOS_ID, PAD_ID

A, B, C, D = 4, 5, 6, 7  # character ids (0-3 are the specials)


# ------------------------------------------------------------------------------------ accuracy by length
def test_accuracy_by_length_on_a_hand_made_example():
    source_lengths = torch.tensor([3, 3, 4, 4])  # two strings of 2 characters, two of 3 (EOS counted)
    target_out = torch.tensor(
        [
            [A, B, EOS_ID, PAD_ID],
            [A, B, EOS_ID, PAD_ID],
            [A, B, C, EOS_ID],
            [A, B, C, EOS_ID],
        ]
    )
    predicted = torch.tensor(
        [
            [A, B, EOS_ID, PAD_ID, PAD_ID],  # right
            [A, C, EOS_ID, PAD_ID, PAD_ID],  # one character wrong: 2 of 3 positions
            [A, B, EOS_ID, PAD_ID, PAD_ID],  # stops one character early: 2 of 4
            [A, B, C, D, EOS_ID],  # runs on past the end: 3 of 4
        ]
    )
    acc = seq2seq_bottleneck.accuracy_by_length(predicted, target_out, source_lengths)
    assert acc.lengths == (2, 3)
    assert acc.counts == (2, 2)
    assert acc.exact_match == (0.5, 0.0)
    assert acc.token_accuracy == pytest.approx((5 / 6, 5 / 8))


def test_accuracy_by_length_handles_a_prediction_narrower_than_the_target():
    target_out = torch.tensor([[A, B, C, EOS_ID]])
    acc = seq2seq_bottleneck.accuracy_by_length(torch.tensor([[A]]), target_out, torch.tensor([4]))
    assert acc.exact_match == (0.0,) and acc.token_accuracy == (0.25,)


def test_longest_length_above_stops_at_the_first_length_below_the_level():
    acc = seq2seq_bottleneck.LengthAccuracy((2, 3, 4, 5), (1.0, 0.6, 0.4, 0.7), (1.0, 0.9, 0.8, 0.9), (1, 1, 1, 1))
    assert seq2seq_bottleneck.longest_length_above(acc) == 3
    assert seq2seq_bottleneck.longest_length_above(acc, level=0.3) == 5
    assert seq2seq_bottleneck.longest_length_above(acc, level=1.01) == 0
    assert seq2seq_bottleneck.mean_over(acc, (2, 3)) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        seq2seq_bottleneck.mean_over(acc, (40,))


def test_evaluate_by_length_scores_greedy_output_the_same_in_any_chunks():
    model = seq2seq_bottleneck.build("gru-none", 16).eval()
    batch = seq2seq_bottleneck.scored_batch(3)
    whole = seq2seq_bottleneck.evaluate_by_length(model, batch)
    assert whole.lengths == tuple(range(seq2seq_bottleneck.MIN_LEN, seq2seq_bottleneck.MAX_LEN + 1))
    assert whole.counts == (3,) * len(whole.lengths)
    assert all(0.0 <= v <= 1.0 for v in whole.exact_match + whole.token_accuracy)
    assert seq2seq_bottleneck.evaluate_by_length(model, batch, batch_size=7) == whole  # chunks padded and joined right
    from minimodels.decode import greedy

    out = greedy(model, batch.source, batch.source_lengths, max_len=batch.target_out.size(1))
    assert seq2seq_bottleneck.accuracy_by_length(out.tokens, batch.target_out, batch.source_lengths) == whole


# ------------------------------------------------------------------------------------- shipped results
@pytest.fixture(scope="module")
def results():
    return seq2seq_bottleneck.load_results()


def test_shipped_results_hold_every_model_and_context_size_and_say_how_they_were_made(results):
    assert seq2seq_bottleneck.hidden_sizes(results) == seq2seq_bottleneck.CONTEXT_SIZES
    assert results.variants == tuple(seq2seq_bottleneck.MODELS) and len(results.seeds) >= 3  # TEACHING: ≥ 3 seeds
    assert results.labels == seq2seq_bottleneck.MODELS
    for model in seq2seq_bottleneck.MODELS:
        for d in seq2seq_bottleneck.CONTEXT_SIZES:
            run = seq2seq_bottleneck.shipped_run(results, model, d)
            assert run.value("steps") == seq2seq_bottleneck.STEPS and run.seed == results.seeds[0]
            accuracy = seq2seq_bottleneck.accuracy_of(results, model, d)
            assert accuracy.lengths == tuple(range(seq2seq_bottleneck.MIN_LEN, seq2seq_bottleneck.MAX_LEN + 1))
            assert sum(accuracy.counts) == len(seq2seq_bottleneck.lesson_task().test)
            assert set(run.extra["outputs"]) == set(seq2seq_bottleneck.EXAMPLES)
            assert run.value("seconds") > 0 and run.extra["parameters"] > 0
    meta = results.meta
    assert meta["command"].startswith("python scripts/seq2seq_bottleneck_results.py")
    assert meta["script"] == seq2seq_bottleneck.SCRIPT and meta["seeds"] == list(results.seeds)
    assert meta["task"] == {
        "name": seq2seq_bottleneck.TASK,
        "seed": seq2seq_bottleneck.TASK_SEED,
        "options": seq2seq_bottleneck.TASK_OPTIONS,
    }
    for key in ("date", "machine", "train_config", "load_average_before"):
        assert key in meta
    # the curve drawn is the mean over the seeds at each length
    runs = results.runs_of("gru-none", {"hidden_size": 64})
    mean = tuple(sum(r.curve[i]["exact_match"] for r in runs) / len(runs) for i in range(3))
    assert seq2seq_bottleneck.accuracy_of(results, "gru-none", 64).exact_match[:3] == pytest.approx(mean)


def test_the_bottleneck_curve_falls_with_length_without_attention(results):
    """The issue's test: the shipped curve without attention falls with length, at every context size."""
    for d in seq2seq_bottleneck.CONTEXT_SIZES:
        none = seq2seq_bottleneck.accuracy_of(results, "gru-none", d)
        short, long = none.lengths[:3], none.lengths[-3:]
        assert seq2seq_bottleneck.mean_over(none, short) >= 0.8, d
        assert seq2seq_bottleneck.mean_over(none, long) <= 0.05, d
        assert (
            seq2seq_bottleneck.mean_over(none, short, "token_accuracy")
            > seq2seq_bottleneck.mean_over(none, long, "token_accuracy") + 0.3
        )
        # a downward trend, not just two ends: exact match against length correlates strongly negatively
        assert np.corrcoef(none.lengths, none.exact_match)[0, 1] < -0.7, d


def test_attention_copies_longer_strings_than_the_fixed_vector_at_every_context_size(results):
    for d in seq2seq_bottleneck.CONTEXT_SIZES:
        none = seq2seq_bottleneck.accuracy_of(results, "gru-none", d)
        attn = seq2seq_bottleneck.accuracy_of(results, "gru-additive", d)
        assert seq2seq_bottleneck.longest_length_above(attn) >= seq2seq_bottleneck.longest_length_above(none) + 4, d
        middle = [n for n in none.lengths if 8 <= n <= 12]
        assert seq2seq_bottleneck.mean_over(attn, middle) > seq2seq_bottleneck.mean_over(none, middle) + 0.4, d


def test_a_bigger_context_holds_a_little_more(results):
    reach = [
        seq2seq_bottleneck.longest_length_above(seq2seq_bottleneck.accuracy_of(results, "gru-none", d))
        for d in seq2seq_bottleneck.hidden_sizes(results)
    ]
    assert reach[-1] > reach[0]
    assert reach[-1] < seq2seq_bottleneck.MAX_LEN  # but not everything: the curve still falls


def test_summary_quotes_the_measured_numbers(results):
    text = seq2seq_bottleneck.summary(results, 64)
    none = seq2seq_bottleneck.accuracy_of(results, "gru-none", 64)
    assert f"up to length {seq2seq_bottleneck.longest_length_above(none)}" in text
    assert f"{seq2seq_bottleneck.mean_over(none, none.lengths[:3]):.0%}" in text


def test_a_malformed_results_file_is_refused_with_a_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON.*seq2seq_bottleneck_results.py"):
        seq2seq_bottleneck.load_results(bad)
    data = json.loads(seq2seq_bottleneck.RESULTS_PATH.read_text(encoding="utf-8"))
    data["runs"][0]["curve"] = "flat"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="curve must be a list"):
        seq2seq_bottleneck.load_results(bad)
    data["runs"] = []
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="no runs"):
        seq2seq_bottleneck.load_results(bad)
    other = Comparison(("dot",), (Run("dot", 0, {"hidden_size": 16}),))
    with pytest.raises(ValueError, match="gru-none, gru-additive"):
        seq2seq_bottleneck.load_results(other.save(tmp_path / "other.json"))
    with pytest.raises(FileNotFoundError, match="seq2seq_bottleneck_results.py"):
        seq2seq_bottleneck.load_results(tmp_path / "missing.json")


def test_a_measured_run_reads_back_as_the_scores_it_was_made_of(tmp_path):
    accuracy = seq2seq_bottleneck.LengthAccuracy((2, 3), (1.0, 0.5), (1.0, 0.75), (4, 2))
    model = seq2seq_bottleneck.build("gru-none", 16)
    result = SimpleNamespace(steps=8, seconds=1.5, loss=0.25, stopped="max_steps")
    runs = tuple(
        seq2seq_bottleneck.measured_run(name, model, result, accuracy, {"jane": "jane"}, seed=3)
        for name in seq2seq_bottleneck.MODELS
    )
    saved = Comparison(tuple(seq2seq_bottleneck.MODELS), runs, {"script": seq2seq_bottleneck.SCRIPT})
    back = seq2seq_bottleneck.load_results(saved.save(tmp_path / "s.json"))
    assert seq2seq_bottleneck.accuracy_of(back, "gru-none", 16) == accuracy
    run = seq2seq_bottleneck.shipped_run(back, "gru-additive", 16)
    assert (run.seed, run.params, run.final) == (3, {"hidden_size": 16}, {"loss": 0.25, "seconds": 1.5, "steps": 8})
    assert run.extra == {"parameters": sum(p.numel() for p in model.parameters()), "stopped": "max_steps",
                         "outputs": {"jane": "jane"}}  # fmt: skip
    with pytest.raises(LookupError, match="D = 32"):
        seq2seq_bottleneck.accuracy_of(back, "gru-none", 32)


def shipped_like(none: list[float], attn: list[float], d: int = 64) -> Comparison:
    """A constructed comparison: exact match by length (2, 3, …) of each model at one D, one seed."""

    def run(model: str, scores: list[float]) -> Run:
        curve = [{"length": n + 2, "exact_match": v, "token_accuracy": v, "count": 10} for n, v in enumerate(scores)]
        return Run(model, 0, {"hidden_size": d}, curve, {"steps": 800, "seconds": 1.0, "loss": 0.1},
                   {"parameters": 1, "outputs": {}})  # fmt: skip

    return Comparison(("gru-none", "gru-additive"), (run("gru-none", none), run("gru-additive", attn)))


def test_the_summary_says_which_model_copies_longer_whichever_way_the_numbers_go():
    falls, holds = [1.0, 0.9, 0.6, 0.2, 0.0, 0.0], [1.0, 1.0, 1.0, 0.9, 0.8, 0.7]
    text = seq2seq_bottleneck.summary(shipped_like(falls, holds), 64)
    assert "**without attention** exact match is 83% on strings of 2–4 characters and 7% on 5–7" in text
    assert "up to length 4. **With attention** it is 100% and 80%, at 50% or more up to length 7." in text
    swapped = seq2seq_bottleneck.summary(shipped_like(holds, falls), 64)
    assert "**without attention** exact match is 100% on strings of 2–4 characters and 80% on 5–7" in swapped
    assert "up to length 7. **With attention** it is 83% and 7%, at 50% or more up to length 4." in swapped


# ----------------------------------------------------------------------------- a tiny seeded training
def test_a_tiny_seeded_training_without_attention_already_fails_on_long_strings():
    """Not the shipped file: a fresh model trained here for a few seconds shows the same fall."""
    model = seq2seq_bottleneck.build("gru-none", 16, seed=0)
    result = seq2seq_bottleneck.train_model(model, seq2seq_bottleneck.train_config("gru-none", steps=250))
    assert result.steps == 250
    acc = seq2seq_bottleneck.evaluate_by_length(model.eval(), seq2seq_bottleneck.scored_batch(30))
    assert seq2seq_bottleneck.mean_over(acc, (2, 3)) >= 0.3  # it learned to copy short strings…
    assert seq2seq_bottleneck.mean_over(acc, range(8, seq2seq_bottleneck.MAX_LEN + 1)) <= 0.02  # …and not long ones
    assert acc.token_accuracy[0] > acc.token_accuracy[-1] + 0.3


# ------------------------------------------------------------------------------------- the student's text
@pytest.mark.parametrize("bad", ["", "   ", "\n\t", None, 42, "🙂🙂🙂", "!!!"])
def test_unusable_text_is_refused_with_a_message(bad):
    parsed = seq2seq_bottleneck.parse_text(bad)
    assert parsed.text == "" and parsed.tokens == () and parsed.message


def test_text_is_lower_cased_cut_and_unknown_characters_marked():
    assert seq2seq_bottleneck.parse_text("Jane  Visits\nAfrica") == seq2seq_bottleneck.ParsedText(
        "jane visits africa", tuple("jane visits africa"), None
    )
    long = seq2seq_bottleneck.parse_text("jane visits africa in september")
    assert long.text == "jane visits africa" and "first 18" in long.message
    html = seq2seq_bottleneck.parse_text("<b>hi</b>")
    assert html.tokens == ("<unk>", "b", "<unk>", "h", "i", "<unk>", "<unk>", "b", "<unk>")
    assert "5 characters" in html.message and "<b>" not in html.message
    assert seq2seq_bottleneck.parse_text("x" * 100_000).text == "x" * seq2seq_bottleneck.MAX_LEN


def test_the_context_has_d_numbers_whatever_the_length():
    model = seq2seq_bottleneck.build("gru-none", 32).eval()
    short, long = seq2seq_bottleneck.squeeze(model, "ab"), seq2seq_bottleneck.squeeze(model, "jane visits africa")
    assert short.context.shape == long.context.shape == (32,)
    assert short.states.shape == (3, 32) and long.states.shape == (19, 32)
    assert long.tokens[-1] == "</s>" and long.tokens[:4] == tuple("jane")
    np.testing.assert_allclose(long.context, long.states[-1])  # c = h_S
    assert long.sensitivity.shape == (18,) and (long.sensitivity >= 0).all()


def test_the_states_and_c_share_one_pair_of_axes_and_each_character_gets_a_bar_beside_its_row():
    result = seq2seq_bottleneck.squeeze(seq2seq_bottleneck.build("gru-none", 16).eval(), "ab a")
    fig = seq2seq_bottleneck.squeeze_figure(result)
    states, context, bars = fig.data
    np.testing.assert_array_equal(states.z, result.states)
    np.testing.assert_array_equal(context.z[0], result.context)
    layout = fig.layout.to_plotly_json()
    assert {states.xaxis, context.xaxis} == {None} and "xaxis3" not in layout and "yaxis2" not in layout
    assert layout["yaxis"]["ticktext"] == ["h1 · a", "h2 · b", "h3 · ␣", "h4 · a", "h5 · &lt;/s&gt;", "c = h5"]
    assert layout["yaxis"]["tickvals"] == [0, 1, 2, 3, 4, 6]  # c under a blank row
    assert layout["coloraxis"]["cmax"] == -layout["coloraxis"]["cmin"] == float(np.abs(result.states).max())
    assert (bars.type, bars.xaxis, bars.yaxis) == ("bar", "x2", "y")  # the states' rows, its own x axis
    assert list(bars.y) == [0, 1, 2, 3]  # beside h1 … h4: the characters, not the end mark
    np.testing.assert_array_equal(bars.x, result.sensitivity)
    assert list(bars.customdata) == ["h1 · a", "h2 · b", "h3 · ␣", "h4 · a"]  # named on hover
    assert layout["xaxis"]["domain"][1] < layout["xaxis2"]["domain"][0]  # side by side, not overlapping


def test_an_untrained_encoder_forgets_the_start_of_a_long_string():
    model = seq2seq_bottleneck.build("gru-none", 32).eval()
    s = seq2seq_bottleneck.squeeze(model, "jane visits africa").sensitivity
    assert s[-1] > 10 * s[0]
    assert s[-3:].mean() > s[:3].mean()


def test_copy_text_feeds_the_string_and_its_end_mark_to_greedy_decoding():
    from minimodels.decode import greedy

    model = seq2seq_bottleneck.build("gru-additive", 16).eval()
    task = seq2seq_bottleneck.lesson_task()
    source = torch.tensor([[*task.source_tokenizer.encode("jane"), EOS_ID]])  # (1, 5)
    out = greedy(model, source, torch.tensor([5]), max_len=2 * seq2seq_bottleneck.MAX_LEN + 2)
    assert seq2seq_bottleneck.copy_text(model, "jane") == task.target_tokenizer.decode(out.sequences()[0])


# --------------------------------------------------------------------------------------- live training
@pytest.fixture(scope="module")
def pair_run():
    """One tiny run of both models (D = 16, 8 steps each, a report every 4) and its reports."""
    models, train_fn = seq2seq_bottleneck.new_training(16, seed=2, steps=8, per_length=2, report_every=4)
    reports = []
    results = train_fn(lambda report: reports.append(report) or True)
    return models, results, reports


def test_one_run_trains_both_models_one_after_the_other(pair_run):
    models, results, reports = pair_run
    assert list(results) == list(seq2seq_bottleneck.LIVE_ORDER) == ["gru-additive", "gru-none"]
    assert all(r.steps == 8 and r.stopped == "max_steps" for r in results.values())
    assert [(r.turn, r.step) for r in reports] == [
        ("gru-additive", 4), ("gru-additive", 8), ("gru-none", 12), ("gru-none", 16),
    ]  # fmt: skip
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
        assert live.accuracy.counts == (2,) * (seq2seq_bottleneck.MAX_LEN - seq2seq_bottleneck.MIN_LEN + 1)
        assert live.prediction == seq2seq_bottleneck.copy_text(model, seq2seq_bottleneck.PROBE_TEXT)
    assert last.latest("gru-none").attention is None
    np.testing.assert_array_equal(last.attention, last.latest("gru-additive").attention)
    np.testing.assert_array_equal(
        last.latest("gru-additive").attention, seq2seq_bottleneck.probe_attention(models["gru-additive"])
    )
    assert reports[0].attention is not None and not np.allclose(reports[0].attention, last.attention)  # it learns
    assert reports[3].loss == last.latest("gru-none").loss  # the panel reads the model training now


@pytest.mark.parametrize("name", seq2seq_bottleneck.LIVE_ORDER)
def test_each_model_of_the_pair_trains_exactly_as_it_would_alone(pair_run, name):
    """Same seed, same data, same recipe: each model of the pair is the one trained on its own."""
    models, _, _ = pair_run
    alone = seq2seq_bottleneck.build(name, 16, seed=2)
    config = dataclasses.replace(seq2seq_bottleneck.train_config(name, steps=8), seed=2, report_every=4, threads=1)
    seq2seq_bottleneck.train_model(alone, config)
    for (key, ours), theirs in zip(models[name].state_dict().items(), alone.state_dict().values(), strict=True):
        torch.testing.assert_close(ours, theirs, msg=key)


def test_the_second_model_gets_the_first_ones_steps_in_the_time_it_left(monkeypatch):
    """A busy server that cuts the first model short must not let the second train longer."""
    limits = []

    def fake_train(model, config, on_progress):
        limits.append((config.max_steps, config.max_seconds, config.seed))
        steps = 37 if len(limits) == 1 else config.max_steps  # the first is cut by the clock at step 37
        return SimpleNamespace(steps=steps, seconds=19.0, stopped="max_seconds")

    monkeypatch.setattr(seq2seq_bottleneck, "train_model", fake_train)
    _, train_fn = seq2seq_bottleneck.new_training(16, seed=5, steps=150, budget_seconds=30.0, per_length=1)
    results = train_fn(lambda report: True)
    assert list(results) == list(seq2seq_bottleneck.LIVE_ORDER)
    assert limits == [(150, pytest.approx(30.0 * seq2seq_bottleneck.FIRST_SHARE), 5), (37, pytest.approx(11.0), 5)]


def test_stopping_during_the_first_model_never_starts_the_second():
    models, train_fn = seq2seq_bottleneck.new_training(16, steps=200, per_length=2, report_every=2)
    reports = []

    def on_progress(report):
        reports.append(report)
        return len(reports) < 2  # stop at the second report

    results = train_fn(on_progress)
    first, second = seq2seq_bottleneck.LIVE_ORDER
    assert list(results) == [first] and results[first].stopped == "callback"
    assert len(reports) == 2 and reports[-1].step == 4 and reports[-1].reports[second] == ()
    untouched = seq2seq_bottleneck.build(second, 16)
    for ours, fresh in zip(models[second].parameters(), untouched.parameters(), strict=True):
        torch.testing.assert_close(ours, fresh)


def test_live_training_refuses_an_unknown_context_size_or_budget():
    with pytest.raises(ValueError, match="D = 20"):
        seq2seq_bottleneck.new_training(20)
    with pytest.raises(ValueError, match="budget"):
        seq2seq_bottleneck.new_training(16, budget_seconds=0)


def test_probe_attention_is_a_distribution_over_the_source_for_each_output_character():
    tokens = seq2seq_bottleneck.probe_tokens()
    assert tokens[:5] == ["j", "a", "n", "e", "␣"] and tokens[-1] == "</s>"
    assert len(tokens) == len(seq2seq_bottleneck.PROBE_TEXT) + 1
    alpha = seq2seq_bottleneck.probe_attention(seq2seq_bottleneck.build("gru-additive", 16).eval())
    assert alpha.shape == (len(tokens), len(tokens))
    np.testing.assert_allclose(alpha.sum(axis=1), 1.0, rtol=1e-5)
    assert seq2seq_bottleneck.probe_attention(seq2seq_bottleneck.build("gru-none", 16).eval()) is None


def test_the_live_figures_draw_each_model_that_has_started(pair_run):
    _, _, reports = pair_run
    early = seq2seq_bottleneck.progress_chart(reports[1])
    assert [t.name for t in early.data] == ["with attention"]
    late = seq2seq_bottleneck.progress_chart(reports[-1])
    assert [t.name for t in late.data] == ["without attention", "with attention"]
    assert list(late.data[1].y) == [r.exact_match for r in reports[-1].reports["gru-additive"]]
    attended = reports[-1].latest("gru-additive")
    heatmap = seq2seq_bottleneck.probe_heatmap(attended)
    np.testing.assert_allclose(np.asarray(heatmap.data[0].z), attended.attention)
    assert [html.unescape(t) for t in heatmap.layout.xaxis.ticktext] == seq2seq_bottleneck.probe_tokens()  # escaped
    with pytest.raises(ValueError, match="no attention"):
        seq2seq_bottleneck.probe_heatmap(reports[-1].latest("gru-none"))


# ------------------------------------------------------------------------------------------- charts
def test_length_chart_draws_both_models_the_other_sizes_and_the_students_runs(results):
    own = [("yours: without attention, D = 32, 10 steps", seq2seq_bottleneck.accuracy_of(results, "gru-none", 16))]
    fig = seq2seq_bottleneck.length_chart(results, 32, "token_accuracy", own=own)
    names = [trace.name for trace in fig.data]
    assert names[-3:-1] == ["shipped: without attention, D = 32", "shipped: with attention, D = 32"]
    assert names[-1].startswith("yours") and fig.data[-1].line.dash == "dash"
    assert sum("D = " in n and "shipped" not in n and "yours" not in n for n in names) == 3
    assert list(fig.data[-2].y) == list(seq2seq_bottleneck.accuracy_of(results, "gru-additive", 32).token_accuracy)
    lone = seq2seq_bottleneck.length_chart(results, 32, others=False)
    assert len(lone.data) == 2
    only_own = seq2seq_bottleneck.length_chart(None, 32, own=own)  # no shipped results: the student's curves alone
    assert [trace.name for trace in only_own.data] == [own[0][0]]


def test_grid_heatmap_has_a_row_per_context_size_and_a_column_per_length(results):
    fig = seq2seq_bottleneck.grid_heatmap(results, "exact_match")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    z = np.asarray(fig.data[0].z)
    assert z.shape == (
        len(seq2seq_bottleneck.CONTEXT_SIZES),
        seq2seq_bottleneck.MAX_LEN - seq2seq_bottleneck.MIN_LEN + 1,
    )
    np.testing.assert_allclose(
        z[0], seq2seq_bottleneck.accuracy_of(results, "gru-none", seq2seq_bottleneck.CONTEXT_SIZES[0]).exact_match
    )


# ------------------------------------------------------------------------------------------- exercises
def test_exercise_answers_are_computed(results):
    exercises = {ex.key: ex for ex in seq2seq_bottleneck.exercises(results)}
    assert set(exercises) == {
        "seq2seq_bottleneck.ex1",
        "seq2seq_bottleneck.ex2",
        "seq2seq_bottleneck.ex3",
        "seq2seq_bottleneck.ex4",
    }
    n = len(seq2seq_bottleneck.EXAMPLES[-1])
    assert exercises["seq2seq_bottleneck.ex1"].answer == 32
    assert exercises["seq2seq_bottleneck.ex2"].answer == (n + 1) * 32
    reach = seq2seq_bottleneck.longest_length_above(seq2seq_bottleneck.accuracy_of(results, "gru-none", 64))
    assert exercises["seq2seq_bottleneck.ex3"].answer == reach
    assert exercises["seq2seq_bottleneck.ex3"].check(reach).correct
    assert not exercises["seq2seq_bottleneck.ex3"].check(reach + 1).correct
    assert (
        exercises["seq2seq_bottleneck.ex4"].check(0).correct
        and not exercises["seq2seq_bottleneck.ex4"].check(1).correct
    )


def test_exercises_without_results_skip_the_one_that_needs_them():
    keys = [ex.key for ex in seq2seq_bottleneck.exercises(None)]
    assert keys == ["seq2seq_bottleneck.ex1", "seq2seq_bottleneck.ex2", "seq2seq_bottleneck.ex4"]


# ------------------------------------------------------------------------------------------ page helpers
def test_parsed_text_says_what_is_refused_and_what_was_changed():
    refused = seq2seq_bottleneck.parse_text("   ")
    assert refused.error == refused.message and refused.note is None
    changed = seq2seq_bottleneck.parse_text("Jane 9")
    assert changed.error is None and changed.note == changed.message and "<unk>" in changed.note
    clean = seq2seq_bottleneck.parse_text(seq2seq_bottleneck.DEFAULT_TEXT)
    assert clean.error is None and clean.note is None and clean.text == seq2seq_bottleneck.DEFAULT_TEXT


def test_squeeze_random_is_the_seeded_untrained_encoder_built_once():
    encoder = seq2seq_bottleneck.random_encoder(16)
    assert encoder is seq2seq_bottleneck.random_encoder(16) and not encoder.training
    result = seq2seq_bottleneck.squeeze_random("jane", 16)
    again = seq2seq_bottleneck.squeeze(seq2seq_bottleneck.build("gru-none", 16).eval(), "jane")
    np.testing.assert_allclose(result.context, again.context, rtol=1e-6)
    assert result.context.shape == (16,)


def test_the_squeeze_caption_says_whose_weights_they_are():
    trained, random = seq2seq_bottleneck.squeeze_caption(True), seq2seq_bottleneck.squeeze_caption(False)
    assert trained.startswith("The bars beside the states") and random.startswith("The bars beside the states")
    assert "your trained weights" in trained and "random (seeded), not trained" in random


def test_finished_model_and_replay_frame_follow_the_reports(pair_run):
    models, _, reports = pair_run
    assert seq2seq_bottleneck.finished_model(None, reports[-1], "gru-none") is None
    assert seq2seq_bottleneck.finished_model(models, None, "gru-none") is None
    assert seq2seq_bottleneck.finished_model(models, reports[0], "gru-none") is None  # stopped before it started
    assert seq2seq_bottleneck.finished_model(models, reports[-1], "gru-none") is models["gru-none"]
    assert seq2seq_bottleneck.replay_frame(reports[0]) is reports[0].attention is not None
    assert seq2seq_bottleneck.replay_frame(reports[-1]) is None  # the model without attention's turn


def test_new_run_is_the_live_pair_with_the_live_settings(monkeypatch):
    monkeypatch.setattr(seq2seq_bottleneck, "LIVE_STEPS", 4)
    monkeypatch.setattr(seq2seq_bottleneck, "LIVE_REPORT_EVERY", 4)
    monkeypatch.setattr(seq2seq_bottleneck, "LIVE_PER_LENGTH", 1)
    run = seq2seq_bottleneck.new_run(16, seed=1)
    assert run.status == "queued" and set(run.model) == set(seq2seq_bottleneck.MODELS)
    assert run.start().wait(120) and run.status == "finished", run.error
    assert [(r.turn, r.step, r.seed) for r in run.snapshots] == [("gru-additive", 4, 1), ("gru-none", 8, 1)]
