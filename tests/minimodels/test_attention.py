"""Our attention against PyTorch's own, and the properties every lesson relies on."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from minimodels.attention import (
    AdditiveAttention,
    BilinearAttention,
    DotProductAttention,
    MultiHeadAttention,
    ScaledDotProductAttention,
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
)

TOL = 1e-5
SEEDS = range(6)


def _shapes(seed):
    g = torch.Generator().manual_seed(seed)
    B, h, Tq, Tk, d, dv = (
        int(torch.randint(lo, hi, (1,), generator=g)) for lo, hi in [(1, 5), (1, 5), (1, 9), (1, 9), (1, 33), (1, 17)]
    )
    return B, h, Tq, Tk, d, dv


@pytest.mark.parametrize("seed", SEEDS)
def test_sdpa_matches_torch_unmasked(seed):
    torch.manual_seed(seed)
    B, h, Tq, Tk, d, dv = _shapes(seed)
    q, k, v = torch.randn(B, h, Tq, d), torch.randn(B, h, Tk, d), torch.randn(B, h, Tk, dv)
    out, w = scaled_dot_product_attention(q, k, v)
    ref = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (B, h, Tq, dv) and w.shape == (B, h, Tq, Tk)
    assert (out - ref).abs().max() <= TOL
    torch.testing.assert_close(w.sum(-1), torch.ones(B, h, Tq))


@pytest.mark.parametrize("seed", SEEDS)
def test_sdpa_matches_torch_with_random_bool_mask(seed):
    torch.manual_seed(seed)
    B, h, Tq, Tk, d, dv = _shapes(seed)
    q, k, v = torch.randn(B, h, Tq, d), torch.randn(B, h, Tk, d), torch.randn(B, h, Tk, dv)
    mask = torch.rand(B, 1, Tq, Tk) < 0.6
    mask[..., 0] = True  # torch's kernel returns NaN for fully masked rows; compare where defined
    out, w = scaled_dot_product_attention(q, k, v, mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert (out - ref).abs().max() <= TOL
    assert torch.all(w.masked_select(~mask.expand_as(w)) == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(B, h, Tq))


@pytest.mark.parametrize("T", [1, 2, 5, 11])
def test_sdpa_causal_matches_torch_is_causal(T):
    torch.manual_seed(T)
    q, k, v = torch.randn(3, 2, T, 8), torch.randn(3, 2, T, 8), torch.randn(3, 2, T, 4)
    out, w = scaled_dot_product_attention(q, k, v, causal_mask(T))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert (out - ref).abs().max() <= TOL
    assert torch.all(w.triu(diagonal=1) == 0)


def test_unscaled_is_plain_dot_product():
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 16), torch.randn(2, 4, 16), torch.randn(2, 4, 5)
    out, w = scaled_dot_product_attention(q, k, v, scale=False)
    ref = F.scaled_dot_product_attention(q, k, v, scale=1.0)
    assert (out - ref).abs().max() <= TOL
    torch.testing.assert_close(w, torch.softmax(q @ k.transpose(-1, -2), -1))


def test_fully_masked_row_gives_zeros_not_nan():
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    mask = torch.tensor([[[True, False, True], [False, False, False]]])
    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert not torch.isnan(out).any() and not torch.isnan(w).any()
    assert torch.all(w[0, 1] == 0) and torch.all(out[0, 1] == 0)
    assert torch.isclose(w[0, 0].sum(), torch.tensor(1.0))


def test_masks_true_means_allowed():
    m = padding_mask(torch.tensor([3, 1]), 4)
    assert m.tolist() == [[True, True, True, False], [True, False, False, False]]
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("with_padding", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_multihead_matches_torch(seed, with_padding, bias):
    torch.manual_seed(seed)
    B, h, Tq, Tk, _, _ = _shapes(seed)
    d_model = h * int(torch.randint(1, 9, (1,)))
    ref = nn.MultiheadAttention(d_model, h, bias=bias, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(ref)
    query, key, value = torch.randn(B, Tq, d_model), torch.randn(B, Tk, d_model), torch.randn(B, Tk, d_model)
    lengths = torch.randint(1, Tk + 1, (B,))
    allowed = padding_mask(lengths, Tk) if with_padding else torch.ones(B, Tk, dtype=torch.bool)
    ref_out, ref_w = ref(
        query,
        key,
        value,
        key_padding_mask=~allowed if with_padding else None,
        need_weights=True,
        average_attn_weights=False,
    )
    out, w = ours(query, key, value, mask=allowed[:, None, None, :])
    assert out.shape == (B, Tq, d_model) and w.shape == (B, h, Tq, Tk)
    assert (out - ref_out).abs().max() <= TOL
    assert (w - ref_w).abs().max() <= TOL
    assert torch.all(w.masked_select(~allowed[:, None, None, :].expand_as(w)) == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(B, h, Tq))


def test_multihead_causal_matches_torch():
    torch.manual_seed(1)
    ref = nn.MultiheadAttention(16, 4, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(ref)
    x = torch.randn(2, 6, 16)
    ref_out, ref_w = ref(x, x, x, attn_mask=~causal_mask(6), average_attn_weights=False)
    out, w = ours(x, x, x, mask=causal_mask(6))
    assert (out - ref_out).abs().max() <= TOL and (w - ref_w).abs().max() <= TOL


def test_multihead_keeps_no_weights_on_itself():
    m = MultiHeadAttention(8, 2)
    before = set(vars(m))
    m(torch.randn(1, 3, 8), torch.randn(1, 3, 8), torch.randn(1, 3, 8))
    assert set(vars(m)) == before


def test_multihead_rejects_indivisible_heads():
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 3)


def _score_modules(d):
    return {
        "dot": DotProductAttention(),
        "scaled_dot": ScaledDotProductAttention(),
        "bilinear": BilinearAttention(d, d),
        "additive": AdditiveAttention(d, d, 7),
    }


@pytest.mark.parametrize("name", ["dot", "scaled_dot", "bilinear", "additive"])
def test_score_modules_weights_and_masks(name):
    torch.manual_seed(0)
    d = 6
    module = _score_modules(d)[name]
    query, keys, values = torch.randn(3, d), torch.randn(3, 5, d), torch.randn(3, 5, 4)
    mask = padding_mask(torch.tensor([5, 3, 1]), 5)
    context, w = module(query, keys, values, mask)
    assert context.shape == (3, 4) and w.shape == (3, 5)
    torch.testing.assert_close(w.sum(-1), torch.ones(3))
    assert torch.all(w[~mask] == 0)
    torch.testing.assert_close(context, (w.unsqueeze(1) @ values).squeeze(1))
    # many queries at once give the same rows as one query at a time
    queries = torch.randn(3, 2, d)
    ctx_many, w_many = module(queries, keys, values, mask[:, None, :])
    for t in range(2):
        ctx_one, w_one = module(queries[:, t], keys, values, mask)
        torch.testing.assert_close(w_many[:, t], w_one)
        torch.testing.assert_close(ctx_many[:, t], ctx_one)


def test_score_functions_are_the_textbook_formulas():
    torch.manual_seed(0)
    d = 4
    q, K = torch.randn(1, d), torch.randn(1, 3, d)
    mods = _score_modules(d)
    dot = K[0] @ q[0]
    torch.testing.assert_close(mods["dot"].score(q[:, None], K)[0, 0], dot)
    torch.testing.assert_close(mods["scaled_dot"].score(q[:, None], K)[0, 0], dot / d**0.5)
    W = mods["bilinear"].W.weight  # (d_q, d_k)
    torch.testing.assert_close(mods["bilinear"].score(q[:, None], K)[0, 0], K[0] @ W.T @ q[0])
    a = mods["additive"]
    hidden = [torch.tanh(a.W_q.weight @ q[0] + a.W_k.weight @ K[0, i] + a.W_k.bias) for i in range(3)]
    manual = torch.stack([a.v.weight[0] @ hid for hid in hidden])
    torch.testing.assert_close(a.score(q[:, None], K)[0, 0], manual)
