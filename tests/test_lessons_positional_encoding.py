"""The positional-encoding lesson's numbers: the table, the offset rotation, the similarity, permutation
equivariance (on MultiHeadAttention and on TinyTransformer encoders), the shipped models and results."""

import dataclasses
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from lessons import positional_encoding
from lessons.common.comparison import Comparison, Run
from minimodels.attention import MultiHeadAttention
from minimodels.positional import sinusoidal_encoding
from minimodels.tasks import get_task
from minimodels.train import build_model, model_config

TASK = get_task(positional_encoding.TASK)


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
def test_multi_head_attention_is_permutation_equivariant_without_positions_only():
    torch.manual_seed(0)
    layer = MultiHeadAttention(16, 4).double()
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    order = torch.tensor(positional_encoding.permutation("random shuffle", 7, seed=3))
    assert order.tolist() != list(range(7))
    with torch.no_grad():
        out, _ = layer(x, x, x)
        shuffled, _ = layer(x[:, order], x[:, order], x[:, order])
        assert (shuffled - out[:, order]).abs().max() < 1e-12
        pe = sinusoidal_encoding(7, 16).double()
        out, _ = layer(x + pe, x + pe, x + pe)
        xp = x[:, order] + pe
        shuffled, _ = layer(xp, xp, xp)
        assert (shuffled - out[:, order]).abs().max() > 1e-2


@pytest.mark.parametrize("encoding", positional_encoding.ENCODINGS)
def test_a_tiny_transformer_encoder_is_equivariant_exactly_when_it_has_no_positions(encoding):
    model = build_model("transformer", TASK, seed=0, positional=encoding).eval()
    check = positional_encoding.equivariance(
        model, TASK, encoding, "abcdef1", positional_encoding.permutation("rotate by one", 7)
    )
    assert check.shuffled == "bcdef1a"
    if encoding == "none":
        assert check.difference < 1e-5
        np.testing.assert_allclose(check.attention_back, check.attention, atol=1e-6)
    else:
        assert check.difference > 1e-2
        assert np.abs(check.attention_back - check.attention).max() > 1e-3


def test_equivariance_refuses_an_order_that_is_not_a_permutation():
    model = build_model("transformer", TASK, seed=0, positional="none").eval()
    with pytest.raises(ValueError, match="permutation"):
        positional_encoding.equivariance(model, TASK, "none", "abc", [0, 0, 1])


@pytest.mark.parametrize("kind", positional_encoding.PERMUTATIONS)
def test_permutations_are_permutations(kind):
    for n in (2, 5, 10):
        assert sorted(positional_encoding.permutation(kind, n, seed=4)) == list(range(n))
    assert positional_encoding.permutation("reverse", 4) == [3, 2, 1, 0]
    with pytest.raises(ValueError):
        positional_encoding.permutation("sideways", 4)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "a", "abcdefghijk", "x" * 100_000, "<b>hi</b>", "😀😀😀", "שלום", "ABC", "a b"],
)
def test_bad_strings_are_refused_with_a_message(text):
    parsed = positional_encoding.parse_text(text)
    assert parsed.error and not parsed.text


def test_good_strings_are_kept():
    assert positional_encoding.parse_text("  a3f9 ") == positional_encoding.ParsedText("a3f9")


# ------------------------------------------------------------------------------------ shipped models
def test_shipped_models_one_per_encoding():
    for encoding in positional_encoding.ENCODINGS:
        model, meta = positional_encoding.load_model(encoding)
        assert model.config.positional == encoding and meta["task"] == positional_encoding.TASK
    with pytest.raises(ValueError):
        positional_encoding.load_model("rotary")


def test_without_positions_every_anagram_gets_the_same_output_and_with_them_the_map_is_anti_diagonal():
    none, _ = positional_encoding.load_model("none")
    text = positional_encoding.DEFAULT_TEXT
    assert positional_encoding.predict(none, TASK, text) == positional_encoding.predict(none, TASK, text[::-1])
    maps = {
        e: positional_encoding.cross_attention(positional_encoding.load_model(e)[0], TASK, e, text)
        for e in positional_encoding.ENCODINGS
    }
    for encoding in ("sinusoidal", "learned"):
        assert maps[encoding].weights.shape == (len(text) + 1, len(text) + 1)
        assert maps[encoding].anti_diagonal > maps["none"].anti_diagonal
        assert positional_encoding.predict(positional_encoding.load_model(encoding)[0], TASK, text) == text[::-1]


# ---------------------------------------------------------------------------------- shipped results
def test_shipped_results_parse_and_say_none_is_worst():
    results = positional_encoding.load_results()
    assert results.variants == positional_encoding.ENCODINGS and len(results.seeds) >= 3  # TEACHING: ≥ 3 seeds
    assert results.meta["script"] == positional_encoding.SCRIPT and results.meta["command"]
    rows = positional_encoding.results_rows(results)
    assert [r["encoding"] for r in rows] == [positional_encoding.LABELS[e] for e in positional_encoding.ENCODINGS]
    n = len(results.seeds)
    assert [r["n"] for r in rows] == [n, n, n]
    assert rows[0]["steps to 90%"] == f"never ({n} of {n})"  # none never gets there
    for run in results.runs:
        assert run.curve[-1]["step"] == run.value("steps") == results.meta["steps"]
        # "steps to 90%" is the curve's first check at or above 90%
        assert run.value("steps to 90%") == run.reached("exact_match", 0.9)
    for encoding in ("sinusoidal", "learned"):
        assert results.compare(encoding, "none", "test exact").outcome == "better"
    assert positional_encoding.lowest_test_exact(results) == "none"
    params = {e: positional_encoding.parameters(results, e) for e in positional_encoding.ENCODINGS}
    assert params["learned"] > params["sinusoidal"] == params["none"]
    accuracy, loss = positional_encoding.results_curves(results, x="seconds")
    assert accuracy["encoding"]["x"]["title"] == "seconds" and loss["encoding"]["x"]["title"] == "seconds"
    means = [v for v in accuracy["data"]["values"] if v["kind"] == "mean"]
    assert {v["label"] for v in means} == set(positional_encoding.LABELS.values())


def swapped(results: Comparison, a: str, b: str) -> Comparison:
    """The same comparison with the runs of ``a`` and ``b`` traded: a result that goes the other way."""
    other = {a: b, b: a}
    runs = [Run(other.get(r.variant, r.variant), r.seed, r.params, r.curve, r.final, r.extra) for r in results.runs]
    return dataclasses.replace(results, runs=tuple(runs))


def test_the_pages_sentences_agree_with_the_numbers_and_follow_them_when_they_turn():
    results = positional_encoding.load_results()
    lines = positional_encoding.observations(results)
    sinusoidal = results.spread("test exact", "sinusoidal").text(".1%")
    assert lines[0].startswith(f"sinusoidal (fixed) beats none (no positions) on test exact match: {sinusoidal}")
    assert lines[1].startswith("learned (one vector each) beats none (no positions) on test exact match")
    assert "too close to call" in lines[2]  # 98.1% ± 1.5% against 98.5% ± 0.2% over three seeds
    assert lines[-1] == "Never reached 90% within the budget: none (no positions)."
    turned = positional_encoding.observations(swapped(results, "sinusoidal", "none"))
    assert turned[0].startswith("sinusoidal (fixed) does not beat none (no positions) on test exact match;")
    assert turned[-1] == "Never reached 90% within the budget: sinusoidal (fixed)."
    assert positional_encoding.lowest_test_exact(swapped(results, "learned", "none")) == "learned"
    # a clear gap between the two encodings with positions is said as clearly
    apart = [Run(r.variant, r.seed, r.params, r.curve, r.final | {"test exact": 0.5 + 0.01 * r.seed}, r.extra)
             if r.variant == "learned" else r for r in results.runs]  # fmt: skip
    assert positional_encoding.observations(dataclasses.replace(results, runs=tuple(apart)))[2].startswith(
        "sinusoidal (fixed) beats learned (one vector each) on test exact match"
    )


def test_broken_results_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="positional_encoding_results.py"):
        positional_encoding.load_results(tmp_path / "missing.json")
    path = tmp_path / "positional_encoding.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="positional_encoding_results.py"):
        positional_encoding.load_results(path)
    data = json.loads(positional_encoding.RESULTS.read_text(encoding="utf-8"))
    data["variants"].remove("learned")
    data["runs"] = [r for r in data["runs"] if r["variant"] != "learned"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="must compare the encodings"):
        positional_encoding.load_results(path)
    data = json.loads(positional_encoding.RESULTS.read_text(encoding="utf-8"))
    del data["runs"][0]["curve"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="lacks curve"):
        positional_encoding.load_results(path)


# ----------------------------------------------------------------------------------------- exercises
def test_exercise_answers_are_computed():
    results, none = positional_encoding.load_results(), positional_encoding.load_model("none")[0]
    exercises = {ex.key: ex for ex in positional_encoding.exercises(results, none)}
    assert exercises["positional_encoding.ex1"].answer == pytest.approx(5 * 10000 ** (-2 / 16))
    assert exercises["positional_encoding.ex2"].answer == pytest.approx(math.cos(2) + math.cos(0.02), abs=1e-6)
    assert "-0.416 + 1.000 = 0.584" in exercises["positional_encoding.ex2"].explanation  # a worked solution
    ex3 = exercises["positional_encoding.ex3"]
    assert ex3.choices[ex3.answer] == "the same output" and ex3.prompt.startswith("**Predict")
    ex4 = exercises["positional_encoding.ex4"]
    verdict = results.compare("sinusoidal", "learned", "test exact")
    assert ex4.choices[ex4.answer] == {"better": "sinusoidal (fixed)", "worse": "learned (one vector each)",
                                       "too close": "too close to call"}[verdict.outcome]  # fmt: skip
    extra = positional_encoding.parameters(results, "learned") - positional_encoding.parameters(results, "sinusoidal")
    assert f"cost {extra:,} more parameters" in ex4.prompt
    assert {ex.key for ex in positional_encoding.exercises(None, None)} == {
        "positional_encoding.ex1",
        "positional_encoding.ex2",
    }
    for ex in exercises.values():  # none asks to read the page's table
        assert "Read" not in ex.hint and "above" not in ex.prompt


def test_the_race_prediction_follows_the_numbers():
    """Build a comparison where learned is clearly ahead, then one where sinusoidal is: the answer turns with it."""
    results = positional_encoding.load_results()

    def with_test_exact(variant: str, value: float) -> Comparison:
        runs = [Run(r.variant, r.seed, r.params, r.curve, r.final | {"test exact": value + 0.001 * r.seed}, r.extra)
                if r.variant == variant else r for r in results.runs]  # fmt: skip
        return dataclasses.replace(results, runs=tuple(runs))

    learned_ahead = positional_encoding.race_prediction(with_test_exact("sinusoidal", 0.5))
    assert learned_ahead.choices[learned_ahead.answer] == "learned (one vector each)"
    assert "fit reverse's positions better" in learned_ahead.explanation
    sinusoidal_ahead = positional_encoding.race_prediction(with_test_exact("learned", 0.5))
    assert sinusoidal_ahead.choices[sinusoidal_ahead.answer] == "sinusoidal (fixed)"


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
    assert "the same output for the string and for its shuffle" in positional_encoding.set_text(checks)
    told_apart = dataclasses.replace(none, shuffled_prediction=none.prediction + "x")  # a none that told them apart
    assert "the decoder's own outputs so far differ" in positional_encoding.set_text([told_apart])
    moved = dataclasses.replace(none, attention_back=none.attention_back + 0.1)
    assert "a different input" in positional_encoding.pair_caption(moved)
    d = model_config(positional_encoding.MODEL, get_task(positional_encoding.TASK)).d_model
    assert f"(d = {d})" in positional_encoding.equivariance_caption()
    results = positional_encoding.load_results()
    extra = positional_encoding.parameters(results, "learned") - positional_encoding.parameters(results, "sinusoidal")
    assert f"{extra:,} more parameters" in positional_encoding.measured_text(results)
    assert "more parameters" not in positional_encoding.measured_text(None)


# ------------------------------------------------------------------------------------- live training
def test_live_training_refuses_bad_arguments_and_builds_the_chosen_encoding():
    """The run itself is trained in the page test (a short budget, to its end)."""
    with pytest.raises(ValueError):
        positional_encoding.new_training("rotary", 0, 10)
    with pytest.raises(ValueError):
        positional_encoding.new_training("sinusoidal", 0, 1000)
    model, train_fn = positional_encoding.new_training("learned", 3, 10.0)
    assert model.config.positional == "learned" and callable(train_fn)
    config = positional_encoding.live_config(10.0, 3)
    assert config.max_seconds == 10.0 and config.seed == 3 and config.threads == 1


# ------------------------------------------------------------------- what the page shows, computed here
def test_default_dims_exist_for_every_d_model():
    assert positional_encoding.default_dims(64) == [0, 1, 6, 20, 62]
    assert positional_encoding.default_dims(4) == [0, 1, 2]  # d − 2 = 2; 6 and 20 do not exist
    for d in positional_encoding.D_CHOICES:
        assert all(0 <= j < d for j in positional_encoding.default_dims(d))


def test_captions_follow_their_figures_numbers():
    assert "d/2 = 32" in positional_encoding.similarity_caption(64)
    assert "d/2 = 2" in positional_encoding.similarity_caption(4)
    check = positional_encoding.offset_check(16, 5, 3)
    (residual, rows, at_pos) = positional_encoding.offset_metrics(check)
    assert residual == ("max |PE_(p+5) − M_k PE_p|, every p", f"{check.residual:.1e}")
    assert rows == ("rows checked", str(positional_encoding.MAX_LENGTH - 5))
    assert at_pos[0] == "|PE_8 − M_k PE_3| at pos = 3" and float(at_pos[1]) < 1e-12
    caption = positional_encoding.shipped_caption()
    assert positional_encoding.architecture() in caption and "sinusoidal" in caption


def test_cross_attention_caption_quotes_the_text_and_every_output():
    maps = [positional_encoding.CrossAttention(e, [], [], np.zeros((1, 1)), f"out-{e}", None)
            for e in positional_encoding.ENCODINGS]  # fmt: skip
    caption = positional_encoding.cross_attention_caption("a3f9", maps, quote=lambda t: f"[{t}]")
    assert "reverse of [a3f9]" in caption
    assert caption.endswith(
        "Greedy outputs: none → [out-none], sinusoidal → [out-sinusoidal], learned → [out-learned]."
    )


def test_provenance_note_reads_the_meta_and_survives_a_bare_one():
    meta = {"steps": 600, "report_every": 50, "machine": {"processor": "x86", "torch": "2.9"}, "load_1min_after": 1.5}
    note = positional_encoding.provenance_note(meta)
    assert "600 steps each" in note and "every 50 steps" in note and "x86, torch 2.9" in note and "1.5 after" in note
    assert "?, torch ?" in positional_encoding.provenance_note({})


def test_pretrained_keys_name_the_shipped_checkpoints():
    from lessons.common.pretrained import load_pretrained

    for encoding, key in positional_encoding.PRETRAINED_KEYS.items():
        assert "-".join(key) == positional_encoding.checkpoint_name(encoding)
        assert load_pretrained(*key)[0].config.positional == encoding


def test_snapshot_figure_and_new_run():
    snapshot = SimpleNamespace(step=30, source_tokens=["a", "b", "</s>"], target_tokens=["b", "a", "</s>"],
                               attention=np.eye(3), prediction="ba")  # fmt: skip
    fig = positional_encoding.snapshot_figure(snapshot, "learned")
    assert fig.layout.annotations[0].text == "learned (one vector each) · step 30"
    np.testing.assert_array_equal(fig.data[0].z, np.eye(3))
    run = positional_encoding.new_run("none", 0, 5)
    assert run.status == "queued" and run.model.config.positional == "none"
    with pytest.raises(ValueError, match="unknown encoding"):
        positional_encoding.new_run("rotary", 0, 5)
