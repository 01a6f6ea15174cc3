"""The Q/K/V lesson's numbers against the lecture's worked example."""

import math

import numpy as np
import pytest
import torch

from lessons import queries_keys_values
from minimodels.attention import scaled_dot_product_attention


@pytest.mark.parametrize("seed", [0, 1, 2, 17])
def test_thinking_machines_reproduces_the_lecture_exactly(seed):
    ex = queries_keys_values.thinking_machines(seed)
    assert ex.d_k == 64
    assert ex.scores.tolist() == [112.0, 96.0]  # exact, not approximately
    assert float(ex.q1 @ ex.keys[0]) == 112.0 and float(ex.q1 @ ex.keys[1]) == 96.0
    assert ex.scaled.tolist() == [14.0, 12.0]
    assert [round(float(w), 2) for w in ex.weights] == [0.88, 0.12]
    torch.testing.assert_close(ex.z1, ex.weights[0] * ex.values[0] + ex.weights[1] * ex.values[1])


def test_worked_example_vectors_are_small_integers():
    ex = queries_keys_values.thinking_machines()
    assert torch.equal(ex.keys, ex.keys.round()) and ex.keys.abs().max() <= 3
    assert set(ex.q1.tolist()) <= {-1.0, 1.0}


def test_soft_lookup_weights_follow_key_similarity():
    lookup = queries_keys_values.soft_lookup("words for mammals", sharpness=3.0)
    assert math.isclose(float(lookup.weights.sum()), 1.0, rel_tol=1e-6)
    ranked = [lookup.keys[i] for i in lookup.weights.argsort(descending=True)]
    assert set(ranked[:2]) == {"sheep", "bull"}
    assert lookup.values[lookup.keys.index("sheep")] == "koyun"


def test_soft_lookup_sharpness_interpolates_between_uniform_and_hard():
    flat = queries_keys_values.soft_lookup("people", sharpness=0.0)
    torch.testing.assert_close(
        flat.weights, torch.full((len(queries_keys_values.TABLE),), 1 / len(queries_keys_values.TABLE))
    )
    hard = queries_keys_values.soft_lookup("things in nature", sharpness=40.0)
    top = hard.weights.sort(descending=True).values
    assert top[:2].sum() > 0.99  # river and plant share the top score
    with pytest.raises(ValueError, match="unknown query"):
        queries_keys_values.soft_lookup("nonsense")


def test_parse_sentence_refuses_bad_input_with_a_message():
    assert queries_keys_values.parse_sentence("Thinking Machines").tokens == ("Thinking", "Machines")
    for bad in ["", "  \n\t", " ".join(["w"] * (queries_keys_values.MAX_TOKENS + 1)), "x" * 41]:
        parsed = queries_keys_values.parse_sentence(bad)
        assert parsed.tokens == () and parsed.error
    assert queries_keys_values.parse_sentence("<b>bold</b> 🙂").tokens == ("<b>bold</b>", "🙂")


def test_self_attention_is_the_matrix_formula():
    tokens = ("the", "cat", "sat", "on", "the", "mat")
    r = queries_keys_values.self_attention(tokens, d_model=8, d_k=4, seed=3)
    assert r.weights.shape == (6, 6)
    torch.testing.assert_close(r.weights.sum(-1), torch.ones(6))
    torch.testing.assert_close(r.weights, torch.softmax(r.Q @ r.K.T / 2.0, dim=-1))
    out, _ = scaled_dot_product_attention(r.Q, r.K, r.V)
    torch.testing.assert_close(r.Z, out)
    torch.testing.assert_close(r.X[0], r.X[4])  # the same word, the same embedding
    assert not torch.equal(queries_keys_values.self_attention(tokens, 8, 4, seed=4).weights, r.weights)


def test_exercise_answers_come_from_the_computation():
    by_key = {ex.key: ex for ex in queries_keys_values.exercises()}
    assert by_key["queries_keys_values.ex1"].check(0.12).correct
    assert not by_key["queries_keys_values.ex1"].check(0.88).correct
    assert by_key["queries_keys_values.ex2"].check(1 / (1 + math.exp(-1))).correct  # softmax(7, 6)[0]
    assert by_key["queries_keys_values.ex4"].check(0).correct and not by_key["queries_keys_values.ex4"].check(1).correct


def test_worked_table_is_the_lectures_table():
    table = queries_keys_values.worked_table(queries_keys_values.thinking_machines())
    assert table[""] == ["Score  q₁·kᵢ", "Divide by √d_k = 8", "Softmax", "Softmax × value"]
    assert table["Thinking"] == ["112", "14", "0.88", "0.88 · v₁"]
    assert table["Machines"] == ["96", "12", "0.12", "0.12 · v₂"]


def test_wider_vectors_with_the_same_dot_products_give_a_flatter_softmax():
    ex = queries_keys_values.thinking_machines()
    torch.testing.assert_close(queries_keys_values.weights_at(ex, 64), ex.weights)
    assert [round(float(w), 3) for w in queries_keys_values.weights_at(ex, 256)] == [0.731, 0.269]
    spreads = [float(queries_keys_values.weights_at(ex, d)[0]) for d in (1, 4, 16, 64, 256, 1024)]
    assert spreads == sorted(spreads, reverse=True) and spreads[-1] > 0.5  # flatter as d_k grows, Thinking first


def test_figures_draw_the_computed_numbers():
    ex = queries_keys_values.thinking_machines()
    vectors = queries_keys_values.vectors_figure(ex)
    z = np.asarray(vectors.data[0].z)
    assert z.shape == (6, ex.d_k)
    np.testing.assert_allclose(z[0], ex.q1.numpy())
    np.testing.assert_allclose(z[5], ex.z1.numpy(), atol=1e-6)
    lookup = queries_keys_values.soft_lookup("people", 3.0)
    bars = queries_keys_values.lookup_figure(lookup)
    assert bars.data[0].y[0] == "sheep → koyun" and bars.layout.title.text == "p(i | “people”)"
    np.testing.assert_allclose(bars.data[0].x, lookup.weights.numpy())
    tokens = ("I", "like", "pizza")
    result = queries_keys_values.self_attention(tokens, d_model=8, d_k=4)
    np.testing.assert_allclose(queries_keys_values.attention_figure(result).data[0].z, result.weights.numpy())
    strips = queries_keys_values.matrix_figures(result)
    assert list(strips) == ["Q = XW^Q", "K = XW^K", "V = XW^V"]
    for figure, matrix in zip(strips.values(), (result.Q, result.K, result.V), strict=True):
        np.testing.assert_allclose(np.asarray(figure.data[0].z), matrix.numpy(), atol=1e-6)
