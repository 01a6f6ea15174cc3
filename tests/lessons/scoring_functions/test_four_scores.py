"""Section 1: the four scores against their textbook formulas, and their parameters counted on the modules."""

import math

import pytest
import torch

from lessons.scoring_functions import four_scores
from minimodels.attention import AdditiveAttention, BilinearAttention, DotProductAttention, ScaledDotProductAttention


def test_scores_equal_the_textbook_formulas_on_a_hand_made_example():
    q = torch.tensor([[[1.0, 2.0]]])  # (1, 1, d=2)
    keys = torch.tensor([[[3.0, 0.0], [1.0, 1.0], [-1.0, 2.0]]])  # (1, 3, 2)
    assert DotProductAttention().score(q, keys).flatten().tolist() == [3.0, 3.0, 3.0]
    scaled = ScaledDotProductAttention().score(q, keys).flatten()
    assert torch.allclose(scaled, torch.full((3,), 3 / math.sqrt(2)))

    bilinear = BilinearAttention(2, 2)
    W = torch.tensor([[1.0, 2.0], [0.0, -1.0]])
    with torch.no_grad():
        bilinear.W.weight.copy_(W)
    expected = [float(q[0, 0] @ W @ k) for k in keys[0]]  # qᵀ W k
    assert bilinear.score(q, keys).flatten().tolist() == pytest.approx(expected)
    assert expected == [3.0, 1.0, -1.0]  # qᵀW = (1, 0)

    additive = AdditiveAttention(2, 2, 3)
    W1 = torch.tensor([[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, -0.5], [1.0, 1.0, 1.0, 1.0]])  # (d'' = 3, d + d' = 4)
    w2 = torch.tensor([1.0, -2.0, 0.5])
    with torch.no_grad():
        additive.W_q.weight.copy_(W1[:, :2])
        additive.W_k.weight.copy_(W1[:, 2:])
        additive.W_k.bias.zero_()
        additive.v.weight.copy_(w2[None])
    expected = [float(w2 @ torch.tanh(W1 @ torch.cat([q[0, 0], k]))) for k in keys[0]]  # w₂ᵀ tanh(W₁[q; k])
    assert additive.score(q, keys).flatten().tolist() == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("d", [2, 16, 64])
def test_parameter_counts_follow_the_shapes(d):
    counts = four_scores.parameter_counts(d)
    assert counts == {"dot": 0, "scaled_dot": 0, "bilinear": d * d, "additive": d * d + d * d + d + d}


def test_unequal_sizes_drop_the_dot_scores_and_bilinear_is_d_by_d_prime():
    counts = four_scores.parameter_counts(64, 128, hidden=32)
    assert counts == {"bilinear": 64 * 128, "additive": 64 * 32 + 128 * 32 + 32 + 32}
    # the page's equation names every parameter counted: W₁ (d'' × (d + d')), b₁ and w₂ (d'' each)
    assert all(name in four_scores.EQUATIONS["additive"] for name in ("W_1", "b_1", "w_2"))
    assert [s for s in four_scores.SCORES if four_scores.accepts_sizes(s, 64, 128)] == [
        "bilinear",
        "additive",
    ]
    assert all(four_scores.accepts_sizes(s, 8, 8) for s in four_scores.SCORES)
