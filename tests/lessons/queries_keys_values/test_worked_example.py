"""The Q/K/V lesson's worked example against the lecture's "Thinking Machines": its exact numbers, its table,
its sentence, the same dot products at other d_k, and the figures that draw them (and the database's and the matrix
form's figures)."""

import dataclasses

import numpy as np
import pytest
import torch

from lessons.queries_keys_values import database, matrix_form, worked_example


@pytest.mark.parametrize("seed", [0, 1, 2, 17])
def test_thinking_machines_reproduces_the_lecture_exactly(seed):
    ex = worked_example.thinking_machines(seed)
    assert ex.d_k == 64
    assert ex.scores.tolist() == [112.0, 96.0]  # exact, not approximately
    assert float(ex.q1 @ ex.keys[0]) == 112.0 and float(ex.q1 @ ex.keys[1]) == 96.0
    assert ex.scaled.tolist() == [14.0, 12.0]
    assert [round(float(w), 2) for w in ex.weights] == [0.88, 0.12]
    torch.testing.assert_close(ex.z1, ex.weights[0] * ex.values[0] + ex.weights[1] * ex.values[1])


def test_worked_example_vectors_are_small_integers():
    ex = worked_example.thinking_machines()
    assert torch.equal(ex.keys, ex.keys.round()) and ex.keys.abs().max() <= 3
    assert set(ex.q1.tolist()) <= {-1.0, 1.0}


def test_worked_table_is_the_lectures_table():
    table = worked_example.worked_table(worked_example.thinking_machines())
    assert table[""] == ["Score  q₁·kᵢ", "Divide by √d_k = 8", "Softmax", "Softmax × value"]
    assert table["Thinking"] == ["112", "14", "0.88", "0.88 · v₁"]
    assert table["Machines"] == ["96", "12", "0.12", "0.12 · v₂"]


def test_wider_vectors_with_the_same_dot_products_give_a_flatter_softmax():
    ex = worked_example.thinking_machines()
    torch.testing.assert_close(worked_example.weights_at(ex, 64), ex.weights)
    assert [round(float(w), 3) for w in worked_example.weights_at(ex, 256)] == [0.731, 0.269]
    spreads = [float(worked_example.weights_at(ex, d)[0]) for d in (1, 4, 16, 64, 256, 1024)]
    assert spreads == sorted(spreads, reverse=True) and spreads[-1] > 0.5  # flatter as d_k grows, Thinking first


def test_figures_draw_the_computed_numbers():
    ex = worked_example.thinking_machines()
    vectors = worked_example.vectors_figure(ex)
    z = np.asarray(vectors.data[0].z)
    assert z.shape == (6, ex.d_k)
    np.testing.assert_allclose(z[0], ex.q1.numpy())
    np.testing.assert_allclose(z[5], ex.z1.numpy(), atol=1e-6)
    lookup = database.soft_lookup("people", 3.0)
    bars = database.lookup_figure(lookup)
    assert bars.data[0].y[0] == "sheep → koyun" and bars.layout.title.text == "p(i | “people”)"
    np.testing.assert_allclose(bars.data[0].x, lookup.weights.numpy())
    tokens = ("I", "like", "pizza")
    result = matrix_form.self_attention(tokens, d_model=8, d_k=4)
    np.testing.assert_allclose(matrix_form.attention_figure(result).data[0].z, result.weights.numpy())
    strips = matrix_form.matrix_figures(result)
    assert list(strips) == ["Q = XW^Q", "K = XW^K", "V = XW^V"]
    for figure, matrix in zip(strips.values(), (result.Q, result.K, result.V), strict=True):
        np.testing.assert_allclose(np.asarray(figure.data[0].z), matrix.numpy(), atol=1e-6)


def test_the_worked_sentence_follows_the_weights():
    ex = worked_example.thinking_machines()
    assert worked_example.worked_sentence(ex).startswith(
        "z₁ leans towards v₁: 88% of it is *Thinking*'s value and 12% *Machines*'s."
    )
    swapped = dataclasses.replace(ex, weights=ex.weights.flip(0))
    assert worked_example.worked_sentence(swapped).startswith(
        "z₁ leans towards v₂: 88% of it is *Machines*'s value and 12% *Thinking*'s."
    )
    even = dataclasses.replace(ex, weights=torch.tensor([0.5, 0.5]))
    assert worked_example.worked_sentence(even).startswith("z₁ is an even mix")
