"""The positional-encoding lesson's numbers: the table, the offset rotation, the similarity, permutation
equivariance (on MultiHeadAttention and on TinyTransformer encoders), the shipped models and results."""

import json
import math

import numpy as np
import pytest
import torch

from lessons import positional_encoding as positional
from minimodels.attention import MultiHeadAttention
from minimodels.positional import sinusoidal_encoding
from minimodels.tasks import get_task
from minimodels.train import build_model

TASK = get_task(positional.TASK)


# ------------------------------------------------------------------------------------------- the table
@pytest.mark.parametrize("d", [4, 16, 128])
def test_the_float64_table_is_the_models_table(d):
    exact = positional.exact_encoding(np.arange(positional.MAX_LENGTH), d)
    assert exact.dtype == np.float64
    np.testing.assert_allclose(exact, sinusoidal_encoding(positional.MAX_LENGTH, d).double().numpy(), atol=1e-6)
    np.testing.assert_allclose(positional.encoding_table(50, d), exact[:50], atol=1e-6)


def test_frequencies_follow_the_formula_and_odd_d_is_refused():
    omegas = positional.frequencies(8)
    assert omegas[0] == 1.0
    assert omegas[2] == pytest.approx(10000 ** (-4 / 8))
    assert positional.wavelengths(8)[0] == pytest.approx(2 * math.pi)
    with pytest.raises(ValueError, match="even"):
        positional.frequencies(7)


# ---------------------------------------------------------------------------------- the offset rotation
@pytest.mark.parametrize("d", positional.D_CHOICES)
@pytest.mark.parametrize("k", [0, 1, 5, 37])
def test_offset_is_a_linear_map_with_residual_below_1e_6(d, k):
    check = positional.offset_check(d, k, pos=3)
    assert check.residual <= 1e-6
    assert check.pair_residuals.max() <= 1e-6
    np.testing.assert_allclose(check.rotated, check.pe_target, atol=1e-6)
    # the matrix is orthogonal (a rotation per pair) and the same whatever pos is
    np.testing.assert_allclose(check.matrix @ check.matrix.T, np.eye(d), atol=1e-12)
    np.testing.assert_array_equal(check.matrix, positional.offset_check(d, k, pos=50).matrix)


def test_the_wrong_offset_leaves_a_large_residual():
    """The residual measures something: M_(k+1) does not map PE_p to PE_(p+k)."""
    d, k, n = 16, 5, 100
    pe = positional.exact_encoding(np.arange(n), d)
    wrong = positional.offset_matrix(d, k + 1)
    assert np.abs(pe[k:] - pe[: n - k] @ wrong.T).max() > 0.1


def test_rotation_angle_of_one_pair():
    check = positional.offset_check(16, 5)
    assert check.angles[1] == pytest.approx(5 * 10000 ** (-2 / 16))
    R = positional.rotation(float(check.omegas[1]), 5)
    np.testing.assert_allclose(R, check.matrix[2:4, 2:4])
    rows = check.rows()
    assert len(rows) == 8 and rows[1]["dimensions"] == "2, 3"


def test_offset_check_refuses_positions_off_the_table():
    with pytest.raises(ValueError):
        positional.offset_check(16, 10, pos=195, n_positions=200)


# ------------------------------------------------------------------------------------------ similarity
def test_similarity_depends_only_on_the_offset_and_peaks_at_zero():
    d, n = 32, 60
    sim = positional.similarity(n, d)
    by_offset = positional.similarity_by_offset(d, n - 1)
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
    order = torch.tensor(positional.permutation("random shuffle", 7, seed=3))
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


@pytest.mark.parametrize("encoding", positional.ENCODINGS)
def test_a_tiny_transformer_encoder_is_equivariant_exactly_when_it_has_no_positions(encoding):
    model = build_model("transformer", TASK, seed=0, positional=encoding).eval()
    check = positional.equivariance(model, TASK, encoding, "abcdef1", positional.permutation("rotate by one", 7))
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
        positional.equivariance(model, TASK, "none", "abc", [0, 0, 1])


@pytest.mark.parametrize("kind", positional.PERMUTATIONS)
def test_permutations_are_permutations(kind):
    for n in (2, 5, 10):
        assert sorted(positional.permutation(kind, n, seed=4)) == list(range(n))
    assert positional.permutation("reverse", 4) == [3, 2, 1, 0]
    with pytest.raises(ValueError):
        positional.permutation("sideways", 4)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "a", "abcdefghijk", "x" * 100_000, "<b>hi</b>", "😀😀😀", "שלום", "ABC", "a b"],
)
def test_bad_strings_are_refused_with_a_message(text):
    parsed = positional.parse_text(text)
    assert parsed.error and not parsed.text


def test_good_strings_are_kept():
    assert positional.parse_text("  a3f9 ") == positional.ParsedText("a3f9")


# ------------------------------------------------------------------------------------ shipped models
def test_shipped_models_one_per_encoding():
    for encoding in positional.ENCODINGS:
        model, meta = positional.load_model(encoding)
        assert model.config.positional == encoding and meta["task"] == positional.TASK
    with pytest.raises(ValueError):
        positional.load_model("rotary")


def test_without_positions_every_anagram_gets_the_same_output_and_with_them_the_map_is_anti_diagonal():
    none, _ = positional.load_model("none")
    text = positional.DEFAULT_TEXT
    assert positional.predict(none, TASK, text) == positional.predict(none, TASK, text[::-1])
    maps = {e: positional.cross_attention(positional.load_model(e)[0], TASK, e, text) for e in positional.ENCODINGS}
    for encoding in ("sinusoidal", "learned"):
        assert maps[encoding].weights.shape == (len(text) + 1, len(text) + 1)
        assert maps[encoding].anti_diagonal > maps["none"].anti_diagonal
        assert positional.predict(positional.load_model(encoding)[0], TASK, text) == text[::-1]


# ---------------------------------------------------------------------------------- shipped results
def test_shipped_results_parse_and_say_none_is_worst():
    results = positional.load_results()
    rows = positional.results_rows(results)
    assert [r["encoding"] for r in rows] == [positional.LABELS[e] for e in positional.ENCODINGS]
    for encoding in positional.ENCODINGS:
        for run in results.runs[encoding]:
            assert run.curve[-1]["step"] == run.steps == results.meta["steps"]
    test = {e: max(r.test_exact_match for r in results.runs[e]) for e in positional.ENCODINGS}
    assert test["none"] < min(test["sinusoidal"], test["learned"])
    assert results.parameters["learned"] > results.parameters["sinusoidal"] == results.parameters["none"]
    assert positional.observations(results)
    accuracy, loss = positional.results_curves(results, x="seconds")
    assert accuracy.to_dict()["encoding"]["x"]["field"] == "seconds"


def test_broken_results_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="positional_encoding_results.py"):
        positional.load_results(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="encodings"):
        positional.results_from_dict({})
    data = json.loads(positional.RESULTS.read_text(encoding="utf-8"))
    del data["encodings"]["learned"]["runs"][0]["curve"]
    with pytest.raises(ValueError, match="lacks curve"):
        positional.results_from_dict(data)


# ----------------------------------------------------------------------------------------- exercises
def test_exercise_answers_are_computed():
    exercises = {ex.key: ex for ex in positional.exercises(positional.load_results(), positional.load_model("none")[0])}
    assert exercises["positional_encoding.ex1"].answer == pytest.approx(5 * 10000 ** (-2 / 16))
    assert exercises["positional_encoding.ex2"].answer == pytest.approx(math.cos(2) + math.cos(0.02), abs=1e-6)
    ex3 = exercises["positional_encoding.ex3"]
    assert ex3.choices[ex3.answer] == "the same output"
    ex4 = exercises["positional_encoding.ex4"]
    assert ex4.choices[ex4.answer] == positional.LABELS["none"]
    assert {ex.key for ex in positional.exercises(None, None)} == {"positional_encoding.ex1", "positional_encoding.ex2"}


# ------------------------------------------------------------------------------------- live training
def test_live_training_refuses_bad_arguments_and_builds_the_chosen_encoding():
    """The run itself is trained in the page test (a short budget, to its end)."""
    with pytest.raises(ValueError):
        positional.new_training("rotary", 0, 10)
    with pytest.raises(ValueError):
        positional.new_training("sinusoidal", 0, 1000)
    model, train_fn = positional.new_training("learned", 3, 10.0)
    assert model.config.positional == "learned" and callable(train_fn)
    config = positional.live_config(10.0, 3)
    assert config.max_seconds == 10.0 and config.seed == 3 and config.threads == 1
