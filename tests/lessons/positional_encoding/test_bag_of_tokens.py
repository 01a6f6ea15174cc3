"""The positional-encoding lesson's numbers: the table, the offset rotation, the similarity, permutation
equivariance (on one self-attention and on the small encoders), the shipped models and the measured results."""

import dataclasses
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from lessons import positional_encoding
from lessons.common.comparison import Comparison, Run
from minimodels.positional import sinusoidal_encoding
from minimodels.small import SelfAttention


# ------------------------------------------------------------------------------------------- the table
@pytest.mark.parametrize("d", [4, 16, 128])
def test_the_float64_table_is_the_models_table(d):
    exact = positional_encoding.exact_encoding(np.arange(positional_encoding.MAX_LENGTH), d)
    assert exact.dtype == np.float64
    np.testing.assert_allclose(
        exact, sinusoidal_encoding(positional_encoding.MAX_LENGTH, d).double().numpy(), atol=1e-6
    )
    np.testing.assert_allclose(positional_encoding.encoding_table(50, d), exact[:50], atol=1e-6)


def test_frequencies_follow_the_formula_and_odd_d_is_refused():
    omegas = positional_encoding.frequencies(8)
    assert omegas[0] == 1.0
    assert omegas[2] == pytest.approx(10000 ** (-4 / 8))
    assert positional_encoding.wavelengths(8)[0] == pytest.approx(2 * math.pi)
    with pytest.raises(ValueError, match="even"):
        positional_encoding.frequencies(7)


# ---------------------------------------------------------------------------------- the offset rotation
@pytest.mark.parametrize("d", positional_encoding.D_CHOICES)
@pytest.mark.parametrize("k", [0, 1, 5, 37])
def test_offset_is_a_linear_map_with_residual_below_1e_6(d, k):
    check = positional_encoding.offset_check(d, k, pos=3)
    assert check.residual <= 1e-6
    assert check.pair_residuals.max() <= 1e-6
    np.testing.assert_allclose(check.rotated, check.pe_target, atol=1e-6)
    # the matrix is orthogonal (a rotation per pair) and the same whatever pos is
    np.testing.assert_allclose(check.matrix @ check.matrix.T, np.eye(d), atol=1e-12)
    np.testing.assert_array_equal(check.matrix, positional_encoding.offset_check(d, k, pos=50).matrix)


def test_the_wrong_offset_leaves_a_large_residual():
    """The residual measures something: M_(k+1) does not map PE_p to PE_(p+k)."""
    d, k, n = 16, 5, 100
    pe = positional_encoding.exact_encoding(np.arange(n), d)
    wrong = positional_encoding.offset_matrix(d, k + 1)
    assert np.abs(pe[k:] - pe[: n - k] @ wrong.T).max() > 0.1


def test_rotation_angle_of_one_pair():
    check = positional_encoding.offset_check(16, 5)
    assert check.angles[1] == pytest.approx(5 * 10000 ** (-2 / 16))
    R = positional_encoding.rotation(float(check.omegas[1]), 5)
    np.testing.assert_allclose(R, check.matrix[2:4, 2:4])
    rows = check.rows()
    assert len(rows) == 8 and rows[1]["dimensions"] == "2, 3"


def test_offset_check_refuses_positions_off_the_table():
    with pytest.raises(ValueError):
        positional_encoding.offset_check(16, 10, pos=195, n_positions=200)


# ------------------------------------------------------------------------------------------ similarity
def test_similarity_depends_only_on_the_offset_and_peaks_at_zero():
    d, n = 32, 60
    sim = positional_encoding.similarity(n, d)
    by_offset = positional_encoding.similarity_by_offset(d, n - 1)
    for p in range(0, n, 7):
        for q in range(0, n, 5):
            assert sim[p, q] == pytest.approx(by_offset[abs(p - q)], abs=1e-4)
    assert by_offset[0] == pytest.approx(d / 2)
    assert by_offset[1:].max() < by_offset[0]
    assert by_offset[1] > by_offset[10]  # nearby positions are more alike than far ones


# ------------------------------------------------------------------------------- permutation equivariance
def test_self_attention_is_permutation_equivariant_without_positions_only():
    torch.manual_seed(0)
    layer = SelfAttention(16).double()
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    order = torch.tensor(positional_encoding.permutation("random shuffle", 7, seed=3))
    assert order.tolist() != list(range(7))
    with torch.no_grad():
        out, _ = layer(x)
        shuffled, _ = layer(x[:, order])
        assert (shuffled - out[:, order]).abs().max() < 1e-12
        pe = sinusoidal_encoding(7, 16).double()
        out, _ = layer(x + pe)
        shuffled, _ = layer(x[:, order] + pe)
        assert (shuffled - out[:, order]).abs().max() > 1e-2


@pytest.mark.parametrize("encoding", positional_encoding.ENCODINGS)
def test_a_small_encoder_is_equivariant_exactly_when_it_has_no_positions(encoding):
    model = positional_encoding.new_model(encoding, 0).eval()
    check = positional_encoding.equivariance(
        model, encoding, "abcdefg", positional_encoding.permutation("rotate by one", 7)
    )
    assert check.shuffled == "bcdefga"
    if encoding == "none":
        assert check.difference < 1e-5
        np.testing.assert_allclose(check.attention_back, check.attention, atol=1e-6)
    else:
        assert check.difference > 10 * positional_encoding.EQUIVARIANT
        assert np.abs(check.attention_back - check.attention).max() > 1e-4


def test_equivariance_refuses_an_order_that_is_not_a_permutation():
    with pytest.raises(ValueError, match="permutation"):
        positional_encoding.equivariance(positional_encoding.new_model("none", 0), "none", "abc", [0, 0, 1])


@pytest.mark.parametrize("kind", positional_encoding.PERMUTATIONS)
def test_permutations_are_permutations(kind):
    for n in (2, 5, 10):
        assert sorted(positional_encoding.permutation(kind, n, seed=4)) == list(range(n))
    assert positional_encoding.permutation("reverse", 4) == [3, 2, 1, 0]
    with pytest.raises(ValueError):
        positional_encoding.permutation("sideways", 3)


@pytest.mark.parametrize("text", ["", "a", "x" * 33, "Position", "abc1", "a b", "<b>x</b>", "x" * 5000])
def test_bad_strings_are_refused_with_a_message(text):
    assert positional_encoding.parse_text(text).error


def test_good_strings_are_kept():
    assert positional_encoding.parse_text(" position ").text == "position"
    assert positional_encoding.parse_text("x" * 32).error is None


# ------------------------------------------------------------------------------------------------ the task
def test_the_targets_are_the_previous_letters_and_the_first_and_padding_are_not_scored():
    tokens, lengths = positional_encoding.strings(5, (2, 6), torch.Generator().manual_seed(0))
    targets = positional_encoding.previous_letters(tokens)
    assert (targets[:, 0] == 0).all()
    for row, n in zip(range(5), lengths.tolist(), strict=True):
        assert targets[row, 1:n].tolist() == tokens[row, : n - 1].tolist()
        assert (targets[row, n:] == 0).all()
    assert positional_encoding.is_right("xab", "abc") and not positional_encoding.is_right("abc", "abc")


def test_scores_count_the_scored_positions_and_the_ones_beyond():
    class Oracle(torch.nn.Module):  # writes the previous letter up to position 3, then the letter itself
        def forward(self, tokens, lengths):
            gold = positional_encoding.previous_letters(tokens)
            guess = torch.where(torch.arange(tokens.size(1)) < 3, gold, tokens)
            return SimpleNamespace(logits=torch.nn.functional.one_hot(guess, 40).float())

    tokens, lengths = positional_encoding.strings(4, 6, torch.Generator().manual_seed(1))
    s = positional_encoding.scores(Oracle(), tokens, lengths, beyond=3)
    assert s["accuracy"] == pytest.approx(2 / 5, abs=0.11)  # positions 1, 2 right of 1..5 (repeats may hit)
    assert s["beyond"] < 0.5 and s["exact"] == 0.0
    assert positional_encoding.scores(Oracle(), tokens[:, :3], lengths.clamp(max=3), beyond=3)["beyond"] is None


def test_the_learned_table_keeps_the_rows_no_string_reaches():
    model, curve = positional_encoding.train_encoder("learned", 0, steps=positional_encoding.REPORT_EVERY)
    assert curve[-1]["step"] == positional_encoding.REPORT_EVERY
    rows = positional_encoding.untrained_rows(model, 0)
    assert rows == list(range(positional_encoding.TRAIN_MAX, positional_encoding.MAX_LEN))
    assert positional_encoding.untrained_rows(positional_encoding.new_model("sinusoidal", 0), 0) == []


# ------------------------------------------------------------------------------------ the shipped models
def test_shipped_models_one_per_encoding():
    for encoding in positional_encoding.ENCODINGS:
        model, meta = positional_encoding.load_model(encoding)
        assert model.config.positional == encoding and meta["seed"] == 0
    assert positional_encoding.load_model("none") is positional_encoding.load_model("none")
    with pytest.raises(ValueError):
        positional_encoding.load_model("rotary")


def test_the_shipped_models_write_the_previous_letter_only_with_positions():
    maps = positional_encoding.shipped_maps("position")
    by = {m.positional: m for m in maps}
    assert by["sinusoidal"].prediction[1:] == by["learned"].prediction[1:] == "positio"
    assert by["sinusoidal"].on_previous == by["learned"].on_previous == 1.0
    assert not positional_encoding.is_right(by["none"].prediction, "position")
    checks = positional_encoding.shipped_checks("position", tuple(positional_encoding.permutation("reverse", 8)))
    none = checks[0]
    assert none.shuffled_prediction == "".join(none.prediction[i] for i in none.order)  # equivariant, exactly


# ------------------------------------------------------------------------------------ the measured results
def test_shipped_results_have_three_seeds_every_length_and_say_what_they_measured():
    results = positional_encoding.load_results()
    assert len(results.seeds) >= 3
    assert set(results.param_values("length")) == set(positional_encoding.LENGTHS)
    lines = positional_encoding.observations(results)
    assert lines[0].startswith("sinusoidal (fixed) beats none (no positions) on accuracy at 16 letters")
    assert lines[1].startswith("learned (one vector each) beats none (no positions)")
    assert lines[3].startswith("sinusoidal (fixed) beats learned (one vector each) on accuracy at positions 17–32")
    assert "rows 17–32" in lines[4] and "exactly as initialised" in lines[4]
    rows = positional_encoding.results_rows(results)
    assert [r["encoding"] for r in rows] == [positional_encoding.LABELS[e] for e in positional_encoding.ENCODINGS]
    assert rows[2]["parameters"] - rows[1]["parameters"] == positional_encoding.MAX_LEN * positional_encoding.D_MODEL
    chart = positional_encoding.length_chart(results)
    assert {v["x"] for v in chart["data"]["values"]} == set(map(float, positional_encoding.LENGTHS))
    assert "15 of the 31 scored letters" in positional_encoding.length_caption()
    accuracy, loss = positional_encoding.results_curves(results)
    assert accuracy["data"]["values"] and loss["data"]["values"]


def _with(results: Comparison, variant: str, metric: str, value: float, length: int) -> Comparison:
    runs = [
        dataclasses.replace(r, final={**r.final, metric: value + 0.001 * r.seed})
        if r.variant == variant and r.params["length"] == length
        else r
        for r in results.runs
    ]
    return dataclasses.replace(results, runs=tuple(runs))


def test_the_sentences_and_the_prediction_follow_the_numbers_when_they_turn():
    results = positional_encoding.load_results()
    turned = _with(results, "learned", "accuracy beyond", 0.9, positional_encoding.MAX_LEN)
    lines = positional_encoding.observations(turned)
    assert lines[3].startswith("sinusoidal (fixed) does not beat learned (one vector each)")
    ex = positional_encoding.race_prediction(turned)
    assert ex.choices[ex.answer] == "learned (one vector each)"
    ex = positional_encoding.race_prediction(results)
    assert ex.choices[ex.answer] == "sinusoidal (fixed)" and "never received a gradient" in ex.explanation
    worse = _with(results, "sinusoidal", "accuracy", 0.05, positional_encoding.TRAIN_MAX)
    assert positional_encoding.observations(worse)[0].startswith("sinusoidal (fixed) does not beat none")
    moved = dataclasses.replace(
        results, runs=tuple(dataclasses.replace(r, extra={**r.extra, "untrained rows": []}) for r in results.runs)
    )
    assert positional_encoding.learned_rows_sentence(moved) == "Every row of the learned table moved during training."


def test_broken_results_are_refused(tmp_path):
    path = tmp_path / "positional_encoding.json"
    only_one = Comparison(("none",), (Run("none", 0, {"length": 16}, final={"accuracy": 0.1}),)).to_dict()
    for content in ("{}", json.dumps(only_one)):
        path.write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match="positional_encoding_results.py"):
            positional_encoding.load_results(path)
    with pytest.raises(FileNotFoundError, match="positional_encoding_results.py"):
        positional_encoding.load_results(tmp_path / "missing.json")


# ----------------------------------------------------------------------------------------- exercises
def test_exercise_answers_are_computed():
    results, none = positional_encoding.load_results(), positional_encoding.load_model("none")[0]
    exercises = {ex.key: ex for ex in positional_encoding.exercises(results, none)}
    assert exercises["positional_encoding.ex1"].answer == pytest.approx(5 * 10000 ** (-2 / 16))
    assert exercises["positional_encoding.ex2"].answer == pytest.approx(math.cos(2) + math.cos(0.02), abs=1e-6)
    assert "-0.416 + 1.000 = 0.584" in exercises["positional_encoding.ex2"].explanation  # a worked solution
    ex3 = exercises["positional_encoding.ex3"]
    assert ex3.choices[ex3.answer] == "what it wrote under the string, reversed" and ex3.prompt.startswith("**Predict")
    assert exercises["positional_encoding.ex5"].answer == 16 and "32 − 16 = 16" in exercises[
        "positional_encoding.ex5"].explanation  # fmt: skip
    assert set(exercises) == {f"positional_encoding.ex{i}" for i in range(1, 6)}
    assert {ex.key for ex in positional_encoding.exercises(None, None)} == {
        "positional_encoding.ex1", "positional_encoding.ex2", "positional_encoding.ex5"}  # fmt: skip
    for ex in exercises.values():  # none asks to read the page's table
        assert "Read" not in (ex.hint or "") and "above" not in ex.prompt


# ------------------------------------------------------------------- what the page shows, computed here
def test_the_table_caption_is_computed_from_the_table_the_widgets_chose():
    wide = positional_encoding.table_caption(positional_encoding.encoding_table(100, 64))
    assert "barely change" in wide and "over these 100" in wide
    narrow = positional_encoding.table_caption(positional_encoding.encoding_table(200, 4))
    assert "moves visibly" in narrow and "barely change" not in narrow  # d = 4: the last pair turns every 628


def test_the_captions_under_the_checks_are_computed_from_them():
    checks = positional_encoding.shipped_checks("position", tuple(positional_encoding.permutation("reverse", 8)))
    none, sinusoidal = checks[0], checks[1]
    assert "cannot tell the shuffled string from the string" in positional_encoding.pair_caption(none)
    assert "a different input" in positional_encoding.pair_caption(sinusoidal)
    assert "moved with their letters" in positional_encoding.set_text(checks)
    told_apart = dataclasses.replace(none, shuffled_prediction="x" * 8)  # a none that told them apart
    assert "under the shuffle." in positional_encoding.set_text([told_apart])
    caption = positional_encoding.shipped_caption(positional_encoding.load_model("none")[1])
    assert "seed 0" in caption and f"{positional_encoding.STEPS} training steps" in caption


def test_default_dims_exist_for_every_d_model():
    assert positional_encoding.default_dims(64) == [0, 1, 6, 20, 62]
    assert positional_encoding.default_dims(4) == [0, 1, 2]  # d − 2 = 2; 6 and 20 do not exist
    for d in positional_encoding.D_CHOICES:
        assert all(0 <= j < d for j in positional_encoding.default_dims(d))


def test_captions_follow_their_figures_numbers():
    assert "d/2 = 32" in positional_encoding.similarity_caption(64)
    check = positional_encoding.offset_check(16, 5, 3)
    (residual, rows, at_pos) = positional_encoding.offset_metrics(check)
    assert residual == ("max |PE_(p+5) − M_k PE_p|, every p", f"{check.residual:.1e}")
    assert rows == ("rows checked", str(positional_encoding.MAX_LENGTH - 5))
    assert at_pos[0] == "|PE_8 − M_k PE_3| at pos = 3" and float(at_pos[1]) < 1e-12


def test_maps_caption_quotes_the_text_and_every_output_and_flags_long_strings():
    maps = [positional_encoding.AttentionMap(e, [], np.zeros((1, 1)), f"out-{e}", None)
            for e in positional_encoding.ENCODINGS]  # fmt: skip
    caption = positional_encoding.maps_caption("ab", maps, quote=lambda t: f"[{t}]")
    assert all(f"{e} → [out-{e}]" in caption for e in positional_encoding.ENCODINGS)
    assert "longer than any" not in caption and "largest weight" not in caption  # no share to give
    shared = [dataclasses.replace(m, on_previous=0.5) for m in maps]
    assert "(the first row left out): none 50%, sinusoidal 50%, learned 50%." in positional_encoding.maps_caption(
        "ab", shared)  # fmt: skip
    assert "longer than any" in positional_encoding.maps_caption("a" * 20, maps)


def test_provenance_note_reads_the_meta_and_survives_a_bare_one():
    note = positional_encoding.provenance_note(positional_encoding.load_results().meta)
    assert note.startswith("Means ± sd over seeds 0, 1, 2: 800 steps")
    assert positional_encoding.provenance_note({}).startswith("Means ± sd over seeds : None steps")


def test_snapshot_figure_and_new_run():
    run = positional_encoding.new_run("learned", 0, 30)
    reports = []
    run._train_fn(lambda p: reports.append(p) or False)
    (report,) = reports
    assert report.step == positional_encoding.LIVE_REPORT_EVERY and report.attention.shape == (8, 8)
    fig = positional_encoding.snapshot_figure(report, "learned")
    assert fig.layout.annotations[0].text == f"learned (one vector each) · step {report.step}"
    with pytest.raises(ValueError):
        positional_encoding.new_run("rotary", 0, 5)
    with pytest.raises(ValueError):
        positional_encoding.new_run("none", 0, 0)
