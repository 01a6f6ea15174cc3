"""RoPE and ALiBi against their papers' formulas, written out directly (loops, explicit matrices), and the model that
uses them against the course's plain attention.

RoPE (Su et al., RoFormer): pair (x_{2i}, x_{2i+1}) of the vector at position m is turned by m·θ_i, θ_i =
10000^{-2i/d}; equivalently the vector is multiplied by a block-diagonal matrix of 2×2 rotations; and the score of a
turned query and key depends on the positions only through their difference. ALiBi (Press et al.): head h of H adds
−m_h·(i − j) to the score of query i and key j, with m_h = 2^{-8h/H}.
"""

import math

import pytest
import torch

from minimodels.attention import causal_mask, scaled_dot_product_attention
from minimodels.positional import (
    ALiBi,
    RotaryPositionalEmbedding,
    alibi_bias,
    alibi_slopes,
    rotary_frequencies,
    rotate_pairs,
)
from minimodels.positioned import SCHEMES, PositionedConfig, PositionedDecoder


def rotation_matrix(m: int, d: int) -> torch.Tensor:
    """RoFormer's R^d_{Θ,m}: block-diagonal, block i the 2×2 rotation by m·θ_i, θ_i = 10000^(−2i/d)."""
    R = torch.zeros(d, d, dtype=torch.float64)
    for i in range(d // 2):
        a = m * 10000 ** (-2 * i / d)
        R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor(
            [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], dtype=torch.float64
        )
    return R


@pytest.mark.parametrize("d", [2, 4, 8, 16])
def test_rope_turns_each_pair_by_m_theta_as_the_papers_block_matrix(d):
    x = torch.randn(11, d, dtype=torch.float64, generator=torch.Generator().manual_seed(d))
    turned = rotate_pairs(x, torch.arange(11))
    for m in range(11):
        torch.testing.assert_close(turned[m], rotation_matrix(m, d) @ x[m], rtol=0, atol=1e-12)
    # one pair by hand: pair 1 of d = 8 at m = 20 turns by 20 · 10000^(−1/4) = 2 rad
    assert rotary_frequencies(8)[1].item() == pytest.approx(0.1)


def test_rope_keeps_lengths_and_position_zero_is_not_turned():
    x = torch.randn(3, 9, 8, dtype=torch.float64)
    turned = rotate_pairs(x, torch.arange(9))
    torch.testing.assert_close(turned.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(turned[:, 0], x[:, 0])
    assert not torch.allclose(turned[:, 1], x[:, 1])


def test_rope_scores_depend_on_the_distance_alone():
    d = 16
    q, k = torch.randn(2, d, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    positions = torch.arange(40)
    Q = rotate_pairs(q.expand(40, d), positions)  # the same query at every position
    K = rotate_pairs(k.expand(40, d), positions)
    scores = Q @ K.T  # (m, n)
    for offset in (-30, -1, 0, 1, 7, 39):
        diagonal = torch.diagonal(scores, offset=offset)
        assert float(diagonal.max() - diagonal.min()) < 1e-12
        n_minus_m = offset
        torch.testing.assert_close(diagonal[0], q @ rotation_matrix(n_minus_m, d) @ k)  # qᵀ R_{n−m} k
    assert float(scores.diagonal(1).mean() - scores.diagonal(5).mean()) != 0.0  # and it does depend on the distance


def test_rope_module_turns_queries_and_keys_of_every_head_from_an_offset():
    rope = RotaryPositionalEmbedding(4)
    q, k = torch.randn(2, 2, 3, 5, 4, dtype=torch.float64)  # (B, H, T, d_k) each
    q2, k2 = rope(q, k, offset=6)
    torch.testing.assert_close(q2[1, 2, 4], rotation_matrix(10, 4) @ q[1, 2, 4])
    torch.testing.assert_close(k2[0, 0, 0], rotation_matrix(6, 4) @ k[0, 0, 0])
    with pytest.raises(ValueError):
        RotaryPositionalEmbedding(5)


@pytest.mark.parametrize("H", [1, 2, 4, 8, 16])
def test_alibi_slopes_are_the_papers_geometric_sequence(H):
    slopes = alibi_slopes(H)
    assert slopes.tolist() == pytest.approx([2 ** (-8 * h / H) for h in range(1, H + 1)])
    if H == 8:
        assert slopes.tolist() == pytest.approx([1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256])
    assert slopes[1:].tolist() == pytest.approx((slopes[:-1] * slopes[0]).tolist())  # ratio = first term


def test_alibi_bias_is_minus_slope_times_distance_for_every_head_query_and_key():
    H, T = 4, 7
    bias = alibi_bias(H, T)
    assert bias.shape == (H, T, T)
    for h in range(H):
        m = 2 ** (-8 * (h + 1) / H)
        for i in range(T):
            for j in range(i + 1):
                assert bias[h, i, j].item() == pytest.approx(-m * (i - j))
    torch.testing.assert_close(ALiBi(H)(T, torch.float64), bias)
    with pytest.raises(ValueError):
        alibi_slopes(0)


def _model(positional: str, seed: int = 0) -> PositionedDecoder:
    torch.manual_seed(seed)
    return PositionedDecoder(PositionedConfig(vocab_size=12, d_model=16, n_heads=4, positional=positional, max_len=20))


@pytest.mark.parametrize("positional", SCHEMES)
def test_the_models_attention_is_the_papers_formula_written_out(positional):
    """softmax(q·k/√d_k + b) under the causal mask, with q, k turned by R_m for RoPE and b = −m_h(i − j) for ALiBi,
    computed here with explicit matrices and the course's plain attention."""
    model = _model(positional).double()
    tokens = torch.randint(4, 12, (3, 9), generator=torch.Generator().manual_seed(1))
    out = model(tokens)
    att = model.attention
    x = model.embed(tokens)  # (B, T, d)
    B, T, d = x.shape
    q = att.W_q(x).view(B, T, 4, 4).transpose(1, 2)  # (B, H, T, d_k)
    k = att.W_k(x).view(B, T, 4, 4).transpose(1, 2)
    v = att.W_v(x).view(B, T, 4, 4).transpose(1, 2)
    if positional == "rope":
        q = torch.stack([q[:, :, m] @ rotation_matrix(m, 4).T for m in range(T)], dim=2)  # R_m q for each m
        k = torch.stack([k[:, :, m] @ rotation_matrix(m, 4).T for m in range(T)], dim=2)
    if positional == "alibi":
        scores = q @ k.transpose(-2, -1) / 2.0  # √d_k = 2
        for h in range(4):
            m_h = 2 ** (-8 * (h + 1) / 4)
            scores[:, h] -= m_h * (torch.arange(T)[:, None] - torch.arange(T)[None, :])
        weights = torch.softmax(scores.masked_fill(~causal_mask(T), float("-inf")), dim=-1)
        heads = weights @ v
    else:
        heads, weights = scaled_dot_product_attention(q, k, v, causal_mask(T))
    torch.testing.assert_close(out.attention["self"], weights)
    expected = model.out(att.W_o(heads.transpose(1, 2).reshape(B, T, d)))
    torch.testing.assert_close(out.logits, expected)


def test_rope_and_alibi_read_any_length_the_tables_stop_at_max_len():
    long = torch.randint(4, 12, (1, 30))
    for positional in ("none", "rope", "alibi"):
        assert _model(positional)(long).logits.shape == (1, 30, 12)
    for positional in ("sinusoidal", "learned"):
        with pytest.raises(ValueError, match="exceeds max_len"):
            _model(positional)(long)


def test_a_query_never_reads_a_later_key():
    model = _model("alibi")
    tokens = torch.randint(4, 12, (2, 8))
    changed = tokens.clone()
    changed[:, 5:] = 3
    a, b = model(tokens).logits, model(changed).logits
    torch.testing.assert_close(a[:, :5], b[:, :5])


def test_an_unknown_scheme_or_odd_head_size_is_refused():
    with pytest.raises(ValueError, match="positional"):
        PositionedConfig(positional="rotary")
    with pytest.raises(ValueError, match="even"):
        PositionedConfig(d_model=12, n_heads=4)
