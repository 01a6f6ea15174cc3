"""The masking lesson's numbers: masked weights exactly 0, padding that changes nothing once masked, the causal
mask on a trained decoder, and the cheating decoder's two scores."""

import dataclasses
import json
import math
from functools import cache

import numpy as np
import pytest
import torch

from lessons import masking
from lessons import queries_keys_values as qkv
from lessons.common.comparison import Comparison, Run
from minimodels.attention import causal_mask, masked_softmax

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


# --------------------------------------------------------------------------------- the word=cipher task
def test_sequences_are_word_separator_cipher():
    assert masking.cipher("xyzabc") == "abcdef" and masking.cipher(masking.PROBE) == "vhtxhqfh"
    seqs = masking.sequences(masking.encode_word("sequence"))
    assert seqs.shape == (1, 2 * masking.WORD + 1)
    tok = masking.tokenizer()
    assert tok.decode(seqs[0, : masking.WORD].tolist()) == "sequence"
    assert tok.decode(seqs[0, masking.WORD + 1 :].tolist()) == "vhtxhqfh"
    assert masking.input_labels("sequence") == [*"sequence", "=", *"vhtxhqf"]
    words = masking.random_words(50, torch.Generator().manual_seed(0))
    assert set(tok.decode(words.flatten().tolist())) <= set(masking.LETTERS)


@pytest.mark.parametrize("text", ["", "short", "toolongword", "sequenc3", "séquence"])
def test_bad_words_are_refused_with_a_message(text):
    assert masking.parse_word(text).error


def test_good_words_are_kept_lowercased():
    assert masking.parse_word(" Sequence ").word == "sequence"


def test_the_loss_floor_is_the_random_letters_share_of_ln_26():
    assert masking.loss_floor() == pytest.approx(7 / 16 * math.log(26))


def test_the_causal_decoder_reads_only_the_past_and_the_cheater_reads_the_next_position():
    seqs = masking.sequences(masking.encode_word("sequence"))[:, :-1]
    for causal in (True, False):
        model = masking.new_model(causal, 0)
        weights = model(seqs).attention["self"][0]
        assert (masking.future_weight(weights) == 0.0) is causal
        # changing a later token changes an earlier row's output only without the mask
        changed = seqs.clone()
        changed[0, -1] = seqs[0, 0]
        same = torch.allclose(model(seqs).logits[0, :-1], model(changed).logits[0, :-1])
        assert same is causal


def test_generation_feeds_the_model_its_own_output():
    model = shipped(True)
    prompt = masking.sequences(masking.encode_word("abcdefgh"))[:, : masking.WORD + 1]
    new, weights = model.generate(prompt, masking.WORD)
    assert masking.tokenizer().decode(new[0].tolist()) == "defghijk"  # the shipped causal decoder ciphers it
    assert weights.shape == (1, 2 * masking.WORD, 2 * masking.WORD)


def test_the_shipped_decoders_read_back_and_ahead_as_the_caption_says():
    normal, cheater = masking.shipped_view(True, "sequence"), masking.shipped_view(False, "sequence")
    assert normal.free_running == "vhtxhqfh" and cheater.free_running != "vhtxhqfh"
    assert masking.future_weight(normal.attention) == 0.0 and masking.future_weight(cheater.attention) > 0.5
    back = masking.diagonal_weight(normal.attention, -masking.WORD, first_row=masking.WORD)
    ahead = masking.diagonal_weight(cheater.attention, 1)
    caption = masking.maps_caption(normal, cheater)
    assert f"put {back:.0%} of their weight" in caption and f"put {ahead:.0%} of their weight" in caption
    rows = masking.outputs_table(normal, cheater)
    assert [r["generating on its own"] for r in rows] == [normal.free_running, cheater.free_running]
    assert masking.load_model(True) is masking.load_model(True)  # loaded once, shared


def test_diagonal_weight_reads_the_right_diagonal():
    w = np.eye(4)[[1, 2, 3, 3]]  # row t reads t + 1 (the last row reads itself)
    assert masking.diagonal_weight(w, 1) == 1.0 and masking.diagonal_weight(w, 0) == pytest.approx(1 / 4)
    assert masking.diagonal_weight(np.eye(4)[[0, 0, 0, 1]], -2, first_row=2) == 1.0


# ------------------------------------------------------------------------------------ the measured results
def test_the_shipped_results_have_three_seeds_and_say_what_the_lesson_claims():
    results = masking.load_results()
    assert len(results.seeds) >= 3
    sentences = masking.results_sentences(results)
    assert sentences[0].startswith("no mask (cheating decoder) beats causal mask on final training loss")
    assert "it read the answer" in sentences[0]
    assert sentences[2].startswith("causal mask beats no mask (cheating decoder) on free-running exact match")
    assert masking.cheat_gap(results) > 0.5
    assert masking.results_table(results)[0]["n"] == len(results.seeds)


def _swapped(results: Comparison, *metrics: str) -> Comparison:
    """The same comparison with the two decoders' values of ``metrics`` exchanged, seed by seed."""
    by = {(r.variant, r.seed): r for r in results.runs}
    other = {"causal mask": "no mask", "no mask": "causal mask"}
    runs = [
        dataclasses.replace(r, final={**r.final, **{m: by[(other[r.variant], r.seed)].final[m] for m in metrics}})
        for r in results.runs
    ]
    return dataclasses.replace(results, runs=tuple(runs))


def test_the_sentences_turn_round_with_the_numbers():
    swapped = _swapped(masking.load_results(), *masking.METRICS)
    sentences = masking.results_sentences(swapped)
    assert sentences[0].startswith("no mask (cheating decoder) does not beat causal mask on final training loss")
    assert "It is not below" in sentences[0]
    assert sentences[2].startswith("causal mask does not beat no mask (cheating decoder)")
    prediction = masking.cheat_prediction(swapped)
    assert prediction.choices[prediction.answer].startswith("nearly all")
    assert (
        masking.cheat_prediction(masking.load_results())
        .choices[masking.cheat_prediction(masking.load_results()).answer]
        .startswith("almost none")
    )


def test_one_seed_a_side_is_never_a_clear_verdict():
    results = masking.load_results()
    one = dataclasses.replace(results, runs=tuple(r for r in results.runs if r.seed == 0))
    assert all("too close to call" in s for s in masking.results_sentences(one))


def test_the_page_text_states_no_result_it_has_not_measured():
    text = masking.train_text()
    assert "Predict before you train" in text
    for claim in ("collapses", "races to 100%", "stays near 0"):
        assert claim not in text
    assert not any(ch.isdigit() for ch in masking.CHEAT_TEXT.replace("t + 1", ""))


def test_unusable_results_files_are_refused_with_a_message(tmp_path):
    path = tmp_path / "masking.json"
    lacking = Comparison(("causal mask",), (Run("causal mask", 0, final={"x": 1.0}),)).to_dict()
    for content in ("{}", "[]", json.dumps(lacking)):
        path.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match="masking_results.py"):
            masking.load_results(path)
    with pytest.raises(FileNotFoundError, match="masking_results.py"):
        masking.load_results(tmp_path / "missing.json")


def test_a_tiny_training_writes_a_curve_and_the_runs_metrics():
    run, model = masking.trained_run(True, 0, steps=masking.REPORT_EVERY)
    assert run.variant == "causal mask" and run.curve[-1]["step"] == masking.REPORT_EVERY
    assert set(masking.METRICS) <= set(run.final) and model.config.causal


# ------------------------------------------------------------------------------------------- live training
@pytest.mark.slow  # trains a model or starts a Python process
def test_a_live_run_reports_both_measures_and_stops_when_asked():
    run = masking.new_run(False, 0, 30)
    reports = []
    run._train_fn(lambda p: reports.append(p) or False)  # stop at the first report
    (report,) = reports
    assert report.step == masking.LIVE_REPORT_EVERY and 0 <= report.exact_match <= 1
    assert report.attention.shape == (2 * masking.WORD, 2 * masking.WORD)
    rows = masking.two_measures_chart(reports)["data"]["values"]
    assert [(r["label"], r["mean"]) for r in rows] == [
        (masking.MEASURES[0], report.teacher_forced_accuracy),
        (masking.MEASURES[1], report.exact_match),
    ]
    fig = masking.snapshot_figure(report)
    assert fig.layout.title.text == f"self-attention on “{masking.PROBE}” at step {report.step}"
    with pytest.raises(ValueError):
        masking.new_run(True, 0, 0)


# ------------------------------------------------------------------------------------------------ exercises
def test_exercise_answers_come_from_the_lesson():
    by_key = {ex.key: ex for ex in masking.all_exercises(masking.load_results())}
    demo = masking.padding_attention(DEFAULT)
    S = len(demo.tokens[2])  # "Hello" and its padding
    assert by_key["masking.ex1"].answer == pytest.approx((S - 1) / S)  # equal scores: every key 1/S
    assert f"{S - 1} × 1/{S} = {(S - 1) / S:.2f}" in by_key["masking.ex1"].explanation
    assert by_key["masking.ex2"].answer == 136  # 16 positions: 16·17/2
    assert by_key["masking.ex2"].check(136).correct and not by_key["masking.ex2"].check(256).correct
    assert by_key["masking.ex3"].choices[by_key["masking.ex3"].answer].startswith("where j > i")
    floor = by_key["masking.ex4"]
    assert floor.answer == pytest.approx(masking.loss_floor()) and floor.check(1.425).correct
    assert not floor.check(math.log(26)).correct and f"{masking.loss_floor():.3f}" in floor.explanation
    assert by_key["masking.ex6"].prompt.startswith("**Predict")
    assert set(by_key) == {f"masking.ex{i}" for i in range(1, 7)}
    assert len(masking.exercises()) >= 3 and "masking.ex6" not in {ex.key for ex in masking.all_exercises(None)}
    for ex in by_key.values():  # none is answered by reading the page's figures
        assert "Read" not in (ex.hint or "") and "heatmap" not in (ex.hint or "")


def test_pair_figure_draws_the_maps_side_by_side_on_one_pair_of_axes():
    off, on = np.full((2, 3), 1 / 3), np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    drawn = masking.pair_figure([("off", off), ("mask: <b>on</b>", on)], ["a", "b", "<pad>"], ["a", "b"])
    fig = drawn.to_plotly_json()
    assert [t["name"] for t in fig["data"]] == ["off", "mask: &lt;b&gt;on&lt;/b&gt;"]  # escaped
    assert {t.get("xaxis", "x") for t in fig["data"]} == {"x"} and "xaxis2" not in fig["layout"]
    first, second = (list(t["x"]) for t in fig["data"])
    assert first == [0, 1, 2] and min(second) > max(first) + 1  # a blank column between the maps
    np.testing.assert_array_equal(drawn.data[1].z, on)
    with pytest.raises(ValueError, match="does not match"):
        masking.pair_figure([("off", off)], ["a", "b"], ["a", "b"])


def test_padding_figures_show_the_mask_and_each_sentences_two_maps():
    demo = masking.padding_attention(DEFAULT)
    mask = masking.padding_mask_figure(demo)
    np.testing.assert_array_equal(np.asarray(mask.data[0].z, dtype=float), demo.mask.float().numpy())
    pair = masking.padding_pair_figure(demo, 0)
    np.testing.assert_allclose(pair.data[1].z, demo.weights_on[0].numpy(), atol=1e-7)


def test_causal_mask_figure_and_row_caption():
    fig = masking.causal_mask_figure(["s", "e", "="])
    np.testing.assert_array_equal(np.asarray(fig.data[0].z, dtype=float), np.tril(np.ones((3, 3))))
    assert fig.layout.title.text == "causal_mask(3): 1 = allowed"
    caption = masking.causal_row_caption(masking.causal_row(3, 1), "e", quote=lambda t: f"[{t}]")
    assert caption.startswith("Random scores (seeded) for query 2 ([e]): keys after it get −∞")


def test_captions_quote_what_they_are_given_and_the_note_reads_the_results():
    assert masking.outputs_caption("sequence", quote=lambda t: f"[{t}]").startswith("The word [sequence]. Teacher")
    results = masking.load_results()
    assert masking.provenance_note(results).startswith(f"Means ± sd over seeds {', '.join(map(str, results.seeds))}")
    assert "lesson 10" in masking.NEXT_TEXT and "cross-attention" in masking.NEXT_TEXT
    assert "lesson 8" in masking.POSITIONS_NOTE
