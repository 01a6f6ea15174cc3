"""The Q/K/V lesson's matrix form on the student's sentence: the sentence is read or refused with a message, and
the attention is softmax(QKᵀ/√d_k)V."""

import torch

from lessons.queries_keys_values import matrix_form
from minimodels.attention import scaled_dot_product_attention


def test_parse_sentence_refuses_bad_input_with_a_message():
    assert matrix_form.parse_sentence("Thinking Machines").tokens == ("Thinking", "Machines")
    for bad in ["", "  \n\t", " ".join(["w"] * (matrix_form.MAX_TOKENS + 1)), "x" * 41]:
        parsed = matrix_form.parse_sentence(bad)
        assert parsed.tokens == () and parsed.error
    assert matrix_form.parse_sentence("<b>bold</b> 🙂").tokens == ("<b>bold</b>", "🙂")


def test_self_attention_is_the_matrix_formula():
    tokens = ("the", "cat", "sat", "on", "the", "mat")
    r = matrix_form.self_attention(tokens, d_model=8, d_k=4, seed=3)
    assert r.weights.shape == (6, 6)
    torch.testing.assert_close(r.weights.sum(-1), torch.ones(6))
    torch.testing.assert_close(r.weights, torch.softmax(r.Q @ r.K.T / 2.0, dim=-1))
    out, _ = scaled_dot_product_attention(r.Q, r.K, r.V)
    torch.testing.assert_close(r.Z, out)
    torch.testing.assert_close(r.X[0], r.X[4])  # the same word, the same embedding
    assert not torch.equal(matrix_form.self_attention(tokens, 8, 4, seed=4).weights, r.weights)
