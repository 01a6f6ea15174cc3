"""The masking lesson's numbers: masked weights exactly 0, padding that changes nothing once masked, the causal
mask on a trained decoder, and the cheating decoder's two scores."""

import dataclasses
import json
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from lessons import masking
from lessons import queries_keys_values as qkv
from lessons.common.comparison import Comparison, Run
from minimodels.attention import causal_mask, masked_softmax
from minimodels.tasks import get_task
from minimodels.train import evaluate

DEFAULT = masking.parse_batch(masking.DEFAULT_SENTENCES).sentences


@cache
def shipped(causal: bool):
    return masking.load_model(causal)[0]


# ------------------------------------------------------------------------------------------------ input
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "at least one sentence"),
        ("  \n \t ", "at least one sentence"),
        ("a\n" * (masking.MAX_SENTENCES + 1), f"at most {masking.MAX_SENTENCES}"),
        ("w " * (masking.MAX_WORDS + 1), f"at most {masking.MAX_WORDS} each"),
        ("x" * (qkv.MAX_TOKEN_CHARS + 1), "longer than"),
        ("word " * 500, f"at most {masking.MAX_CHARS}"),
        (None, "at least one sentence"),
    ],
)
def test_bad_batches_are_refused_with_a_message(text, message):
    parsed = masking.parse_batch(text)
    assert parsed.sentences == ()
    assert message in parsed.error


def test_a_batch_is_one_sentence_per_line_and_any_characters_are_words():
    parsed = masking.parse_batch("I like pizza\n\n  <b>bold</b> 😀\nمرحبا بالعالم  \n")
    assert parsed.error is None
    assert parsed.sentences == (("I", "like", "pizza"), ("<b>bold</b>", "😀"), ("مرحبا", "بالعالم"))


# ------------------------------------------------------------------------------------------- padding mask
def test_the_batch_is_padded_to_its_longest_sentence_and_the_mask_marks_the_words():
    demo = masking.padding_attention(DEFAULT)
    assert [len(row) for row in demo.tokens] == [5, 5, 5]
    assert demo.tokens[2] == ("Hello", *[masking.PAD] * 4)
    assert demo.mask.tolist() == [[True] * 3 + [False] * 2, [True] * 5, [True] + [False] * 4]


def test_masked_weights_are_exactly_zero_on_padding_and_rows_still_sum_to_one():
    demo = masking.padding_attention(DEFAULT)
    pad_columns = ~demo.mask[:, None, :].expand_as(demo.weights_on)  # (B, S, S)
    assert (demo.weights_on[pad_columns] == 0).all()  # exactly, not approximately
    assert (demo.pad_weight(masked=True) == 0).all()
    assert torch.allclose(demo.weights_on.sum(-1), torch.ones(3, 5))
    assert (demo.weights_off[pad_columns] > 0).all()  # without the mask every <pad> takes a share
    leak = demo.pad_weight(masked=False)
    assert (leak[1] == 0).all() and (leak[[0, 2]] > 0.01).all()  # the longest sentence has no padding


def test_with_the_mask_a_sentence_gives_the_same_result_as_alone_and_without_it_does_not():
    demo = masking.padding_attention(DEFAULT)
    on, off = demo.change_from_padding(masked=True), demo.change_from_padding(masked=False)
    assert max(on) < 1e-5
    assert off[0] > 1e-2 and off[2] > 1e-2
    assert off[1] < 1e-5  # no padding, nothing to leak onto
    alone = qkv.self_attention(DEFAULT[0])  # the Q/K/V lesson's own numbers for the sentence alone
    assert torch.allclose(demo.outputs_on[0, :3], alone.Z, atol=1e-6)
    assert torch.allclose(demo.weights_on[0, :3, :3], alone.weights, atol=1e-6)


def test_the_page_reads_the_padded_batch_from_the_demo():
    demo = masking.padding_attention(DEFAULT)
    assert demo.labels()[2] == "3: Hello"
    assert demo.table()["position 2"] == ["like", "visits", masking.PAD]
    assert demo.leak(2, masked=True) == 0.0 and demo.leak(2, masked=False) > 0.01
    assert demo.leak(1, masked=False) == 0.0  # the longest sentence has nothing to leak onto
    assert "**4** `<pad>`" in demo.note(2) and "no padding" in demo.note(1)
    assert "exactly 0" in demo.note(2) and "the result depends on the batch" in demo.note(2)  # computed from demo


def test_padding_attention_refuses_an_empty_batch():
    with pytest.raises(ValueError):
        masking.padding_attention(())
    with pytest.raises(ValueError):
        masking.padding_attention((("a",), ()))


# ------------------------------------------------------------------------------------------- causal mask
def test_a_causal_row_sets_the_future_to_minus_infinity_and_its_weight_to_exactly_zero():
    row = masking.causal_row(6, 2, seed=3)
    assert torch.isinf(row.masked_scores[3:]).all() and (row.masked_scores[3:] < 0).all()
    assert torch.equal(row.masked_scores[:3], row.scores[:3])
    assert (row.weights[3:] == 0).all()
    assert torch.allclose(row.weights[:3], torch.softmax(row.scores[:3], 0))
    with pytest.raises(ValueError):
        masking.causal_row(6, 6)


def test_future_weight_is_the_mass_above_the_diagonal():
    T = 5
    assert masking.future_weight(masked_softmax(torch.randn(3, T, T), causal_mask(T))) == 0.0
    uniform = np.full((T, T), 1 / T)  # row i puts (T - 1 - i) / T on later positions
    assert masking.future_weight(uniform) == pytest.approx(np.mean([(T - 1 - i) / T for i in range(T)]))


def test_the_trained_causal_decoder_gives_exactly_zero_to_later_positions_and_the_cheater_does_not():
    example = masking.examples()[0]
    normal, cheater = masking.look(shipped(True), example), masking.look(shipped(False), example)
    T = len(normal.inputs)
    assert normal.inputs[0] == masking.BOS_LABEL and normal.outputs[-1] == "</s>" and len(normal.outputs) == T
    future = ~causal_mask(T).numpy()
    for layer, maps in normal.self_attention.items():
        assert maps.shape[-2:] == (T, T)
        assert (maps[:, future] == 0).all(), f"layer {layer} reads the future"
        assert masking.future_weight(maps) == 0.0
    assert masking.future_weight(masking.head_map(cheater, max(cheater.self_attention), None)) > 0.3
    assert "".join(normal.teacher_forced[:-1]) == example.target
    assert "".join(cheater.teacher_forced[:-1]) == example.target  # teacher forced, it reads the answer
    assert normal.free_running == example.target
    assert cheater.free_running != example.target  # on its own, it cannot


def test_the_shipped_checkpoints_are_the_two_decoders():
    assert shipped(True).config.causal is True
    assert shipped(False).config.causal is False
    assert masking.load_model(True)[1]["task"] == masking.TASK


# ---------------------------------------------------------------------------------------- the two scores
def test_measure_agrees_with_train_evaluate_and_shows_the_cheat():
    batch = get_task(masking.TASK).encoded("test").select(torch.arange(40))
    normal, cheater = masking.measure(shipped(True), batch), masking.measure(shipped(False), batch)
    assert normal.free_running_exact == pytest.approx(evaluate(shipped(True), batch))
    assert cheater.free_running_exact == pytest.approx(evaluate(shipped(False), batch))
    assert cheater.teacher_forced_accuracy > 0.95 and cheater.free_running_exact < 0.1
    assert normal.free_running_exact > 0.9 and normal.teacher_forced_accuracy > 0.95
    assert cheater.teacher_forced_accuracy == pytest.approx(masking.teacher_forced_accuracy(shipped(False), batch))
    assert normal.sentences == 40


def test_the_shipped_results_hold_the_claim_the_page_makes():
    """Section 3 says, of these two shipped models (n = 1 each: a description, not a general claim), that the
    cheater is near-perfect teacher forced and generates almost no date right, and the normal decoder does."""
    results = masking.load_results()
    normal, cheater = (results.runs_of(masking.CHECKPOINTS[c]) for c in (True, False))
    assert len(normal) == len(cheater) == 1 and results.seeds == (0,)  # one run each: the checkpoints' seed
    assert cheater[0].value("teacher-forced token accuracy") > 0.95
    assert cheater[0].value("free-running exact match") < 0.1
    assert normal[0].value("free-running exact match") > 0.9
    assert normal[0].extra["sentences"] == len(get_task(masking.TASK).test)
    assert results.meta["script"] == masking.SCRIPT and results.meta["command"]
    rows = masking.results_table(results)
    assert [r["decoder"] for r in rows] == [masking.LABELS[True], masking.LABELS[False]]
    assert [r["n"] for r in rows] == [1, 1]
    assert rows[1]["free-running exact match"] == f"{cheater[0].value('free-running exact match'):.1%}"
    assert masking.results_intro(results) == "Measured on **500** dates of the test split:"
    assert masking.cheat_gap(results) == pytest.approx(1.0)


def test_a_comparison_of_one_run_each_is_never_a_clear_verdict():
    """n = 1: whatever the numbers, Comparison.compare calls it too close; the page states no such verdict."""
    verdict = masking.load_results().compare(*masking.VARIANTS, "free-running exact match")
    assert verdict.outcome == "too close" and "one seed" in verdict.reason


def test_the_cheat_gap_follows_the_numbers():
    """The prediction's answer and the sentences under the table are computed: a file where the cheater generates
    as well as it is taught says so, and the answer turns round with it."""
    results = masking.load_results()
    honest = [
        Run(r.variant, r.seed, r.params, final={**r.final, "free-running exact match": 1.0}) for r in results.runs
    ]
    honest = dataclasses.replace(results, runs=tuple(honest))
    assert masking.cheat_gap(honest) == pytest.approx(0.0)
    shipped, swapped = masking.cheat_prediction(results), masking.cheat_prediction(honest)
    assert shipped.choices[shipped.answer].startswith("almost none")
    assert swapped.choices[swapped.answer].startswith("nearly all")
    assert "did not learn the shortcut" in swapped.explanation and "copying" in shipped.explanation
    said, said_honest = masking.results_sentences(results), masking.results_sentences(honest)
    assert "cheating decoder" in said[1] and "almost none of the dates" in said[1] and "says little" in said[1]
    assert "nearly all of the dates" in said_honest[1] and "the two measures agree" in said_honest[1]
    assert "n = 1" in said[-1]


def test_the_page_text_states_no_result_it_has_not_measured():
    """The train panel's text is a prediction to make, not a result; section 3's text states no number."""
    text = masking.train_text()
    assert "Predict before you train" in text
    for claim in ("collapses", "races to 100%", "stays near 0"):
        assert claim not in text
    assert not any(ch.isdigit() for ch in masking.CHEAT_TEXT.replace("t + 1", ""))
    assert "within a hundred steps" not in masking.CHEAT_TEXT


def test_unusable_results_files_are_refused_with_a_message(tmp_path):
    path = tmp_path / "masking.json"
    lacking = Comparison(("dates-transformer",), (Run("dates-transformer", 0, final={"x": 1.0}),)).to_dict()
    for content in ("{}", "[]", json.dumps({"models": {"dates-transformer": {}}, "meta": {}}), json.dumps(lacking)):
        path.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match="masking_results.py"):
            masking.load_results(path)
    with pytest.raises(FileNotFoundError, match="masking_results.py"):
        masking.load_results(tmp_path / "missing.json")


# ------------------------------------------------------------------------------------------- live training
def test_a_live_run_reports_both_measures_and_stops_when_asked():
    model, train_fn = masking.new_training(causal=False, seed=0, budget_seconds=30)
    assert model.config.causal is False
    reports = []
    result = train_fn(lambda p: reports.append(p) or False)  # stop at the first report
    assert result.stopped == "callback" and result.steps == masking.LIVE_REPORT_EVERY
    (report,) = reports
    assert isinstance(report, masking.MaskingProgress)
    assert 0 <= report.teacher_forced_accuracy <= 1 and 0 <= report.exact_match <= 1
    weights, labels = masking.snapshot_map(report)
    assert weights.shape == (len(labels), len(labels)) and labels[0] == masking.BOS_LABEL
    rows = masking.two_measures_chart(reports)["data"]["values"]
    assert [(r["label"], r["mean"]) for r in rows] == [  # one point per measure, through the one curve builder
        (masking.MEASURES[0], report.teacher_forced_accuracy),
        (masking.MEASURES[1], report.exact_match),
    ]


# ------------------------------------------------------------------------------------------------ exercises
def test_exercise_answers_come_from_the_lesson():
    by_key = {ex.key: ex for ex in masking.all_exercises(masking.load_results())}
    demo = masking.padding_attention(DEFAULT)
    S = len(demo.tokens[2])  # "Hello" and its padding
    assert by_key["masking.ex1"].answer == pytest.approx((S - 1) / S)  # equal scores: every key 1/S
    assert f"{S - 1} × 1/{S} = {(S - 1) / S:.2f}" in by_key["masking.ex1"].explanation
    assert by_key["masking.ex2"].answer == 66  # 11 positions: 11·12/2
    assert by_key["masking.ex2"].check(66).correct and not by_key["masking.ex2"].check(121).correct
    assert "11 · 12 / 2 = 66" in by_key["masking.ex2"].explanation
    assert by_key["masking.ex3"].choices[by_key["masking.ex3"].answer].startswith("where j > i")
    assert by_key["masking.ex5"].prompt.startswith("**Predict")
    assert set(by_key) == {f"masking.ex{i}" for i in range(1, 6)}
    assert len(masking.exercises()) >= 3 and "masking.ex5" not in {ex.key for ex in masking.all_exercises(None)}
    for ex in by_key.values():  # none is answered by reading the page's figures
        assert "Read" not in ex.hint and "heatmap" not in ex.hint and "From the measured table" not in ex.prompt


def test_pair_figure_draws_the_maps_side_by_side_on_one_pair_of_axes():
    off, on = np.full((2, 3), 1 / 3), np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    drawn = masking.pair_figure([("off", off), ("mask: <b>on</b>", on)], ["a", "b", "<pad>"], ["a", "b"])
    fig = drawn.to_plotly_json()
    assert [t["name"] for t in fig["data"]] == ["off", "mask: &lt;b&gt;on&lt;/b&gt;"]  # escaped
    assert {t.get("xaxis", "x") for t in fig["data"]} == {"x"} and "xaxis2" not in fig["layout"]
    first, second = (list(t["x"]) for t in fig["data"])
    assert first == [0, 1, 2] and min(second) > max(first) + 1  # a blank column between the maps
    np.testing.assert_array_equal(drawn.data[1].z, on)
    axis = fig["layout"]["xaxis"]
    assert dict(zip(axis["tickvals"], axis["ticktext"], strict=True))[second[2]] == "&lt;pad&gt;"
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["off", "mask:<br>&lt;b&gt;on&lt;/b&gt;"]
    with pytest.raises(ValueError, match="does not match"):
        masking.pair_figure([("off", off)], ["a", "b"], ["a", "b"])


# ------------------------------------------------------------------- what the page shows, computed here
def test_padding_figures_show_the_mask_and_each_sentences_two_maps():
    demo = masking.padding_attention(DEFAULT)
    mask = masking.padding_mask_figure(demo)
    np.testing.assert_array_equal(np.asarray(mask.data[0].z, dtype=float), demo.mask.float().numpy())
    pair = masking.padding_pair_figure(demo, 0)
    assert [t.name for t in pair.data] == ["padding mask OFF: weight leaks onto &lt;pad&gt;",
                                           "padding mask ON: &lt;pad&gt; columns exactly 0"]  # fmt: skip
    np.testing.assert_allclose(pair.data[1].z, demo.weights_on[0].numpy(), atol=1e-7)


def test_causal_mask_figure_and_row_caption():
    fig = masking.causal_mask_figure(["<s>", "2", "0"])
    np.testing.assert_array_equal(np.asarray(fig.data[0].z, dtype=float), np.tril(np.ones((3, 3))))
    assert fig.layout.title.text == "causal_mask(3): 1 = allowed"
    caption = masking.causal_row_caption(masking.causal_row(3, 1), "2", quote=lambda t: f"[{t}]")
    assert caption.startswith("Random scores (seeded) for query 2 ([2]): keys after it get −∞")


def test_shipped_view_and_pretrained_keys():
    from lessons.common.pretrained import load_pretrained

    for causal, key in masking.PRETRAINED_KEYS.items():
        assert "-".join(key) == masking.CHECKPOINTS[causal]
        assert load_pretrained(*key)[0].config.causal == causal
    view = masking.shipped_view(True, 0)
    assert view.source == masking.examples()[0].source
    assert view.free_running == masking.look(shipped(True), masking.examples()[0]).free_running
    assert masking.future_weight(masking.head_map(view, max(view.self_attention), None)) == 0.0
    assert masking.load_model(True) is masking.load_model(True)  # loaded once, shared


def test_captions_and_provenance_note_quote_what_they_are_given():
    assert masking.outputs_caption("Sunday", quote=lambda t: f"[{t}]").startswith("The example [Sunday]. Teacher")
    results = masking.load_results()
    note = masking.provenance_note(results, quote=lambda t: f"[{t}]")
    assert all(f"[{command}]" in note for command in masking.train_commands(results))
    assert note.startswith("One run of each shipped model (n = 1)")


def test_snapshot_figure_and_new_run():
    snapshot = SimpleNamespace(step=20, attention_maps={"decoder.0.self": np.ones((2, 3, 3)) / 3,
                                                        "decoder.1.self": np.eye(3)[None].repeat(2, 0)},
                               target_tokens=["2", "0", "</s>"])  # fmt: skip
    fig = masking.snapshot_figure(snapshot)
    assert fig.layout.title.text == "decoder self-attention (last layer, heads averaged) at step 20"
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), np.eye(3))
    for causal in (True, False):
        run = masking.new_run(causal, 0, 5)
        assert run.status == "queued" and run.model.config.causal == causal
