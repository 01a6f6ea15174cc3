"""The attention-only decoder's attention against PyTorch's own, its causal maps, and its knock-out switch."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from minimodels.attention import causal_mask
from minimodels.attention_only import AttentionOnlyConfig, AttentionOnlyDecoder, CausalSelfAttention

TOL = 1e-5


@pytest.mark.parametrize(("d_model", "n_heads", "T"), [(8, 1, 1), (16, 2, 7), (32, 4, 12), (24, 3, 5)])
def test_the_layer_matches_torch_multihead_attention_with_a_causal_mask(d_model, n_heads, T):
    torch.manual_seed(d_model + T)
    theirs = nn.MultiheadAttention(d_model, n_heads, batch_first=True).eval()
    ours = CausalSelfAttention.from_torch(theirs)
    x = torch.randn(3, T, d_model)
    future = ~causal_mask(T)  # torch's bool attn_mask is True where attention is NOT allowed
    ref, ref_weights = theirs(x, x, x, attn_mask=future, average_attn_weights=False)
    out, weights = ours(x)
    assert weights.shape == (3, n_heads, T, T)
    assert (out - ref).abs().max() <= TOL
    assert (weights - ref_weights).abs().max() <= TOL


@pytest.mark.parametrize("seed", range(4))
def test_each_head_matches_torch_scaled_dot_product_attention_is_causal(seed):
    torch.manual_seed(seed)
    layer = CausalSelfAttention(16, 2)
    x = torch.randn(2, 9, 16)
    q, k, v = layer.W_qkv(x).split(16, dim=-1)
    q, k, v = (t.view(2, 9, 2, 8).transpose(1, 2) for t in (q, k, v))  # (B, h, T, d_k)
    heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, h, T, d_k)
    ref = layer.W_o(heads.transpose(1, 2).reshape(2, 9, 16))
    out, _ = layer(x)
    assert (out - ref).abs().max() <= TOL


def test_a_knocked_out_head_is_its_output_zeroed_before_w_o():
    torch.manual_seed(0)
    layer = CausalSelfAttention(16, 2)
    x = torch.randn(2, 6, 16)
    q, k, v = layer.W_qkv(x).split(16, dim=-1)
    q, k, v = (t.view(2, 6, 2, 8).transpose(1, 2) for t in (q, k, v))
    heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    heads[:, 1] = 0.0  # head 2 out
    ref = layer.W_o(heads.transpose(1, 2).reshape(2, 6, 16))
    out, weights = layer(x, keep=torch.tensor([1.0, 0.0]))
    assert (out - ref).abs().max() <= TOL
    assert (out - layer(x)[0]).abs().max() > 1e-3  # the head did contribute
    torch.testing.assert_close(weights, layer(x)[1])  # the maps are still returned as computed


def test_the_decoder_is_causal_and_returns_every_layers_maps():
    torch.manual_seed(1)
    model = AttentionOnlyDecoder(AttentionOnlyConfig(vocab_size=10, d_model=16, n_heads=2, n_layers=2, max_len=12))
    tokens = torch.randint(10, (3, 12))
    out = model(tokens)
    assert out.logits.shape == (3, 12, 10)
    assert sorted(out.attention) == ["layer1", "layer2"]
    for w in out.attention.values():
        assert w.shape == (3, 2, 12, 12)
        assert torch.all(w.triu(1) == 0)  # nothing on a later position
        torch.testing.assert_close(w.sum(-1), torch.ones(3, 2, 12))
    changed = tokens.clone()
    changed[:, 8:] = (changed[:, 8:] + 1) % 10
    torch.testing.assert_close(model(changed).logits[:, :8], out.logits[:, :8])  # the future changes nothing before


def test_every_head_knocked_out_leaves_the_embedding_read_out():
    torch.manual_seed(2)
    model = AttentionOnlyDecoder(AttentionOnlyConfig(vocab_size=10, d_model=16, n_heads=2, n_layers=2, max_len=8))
    tokens = torch.randint(10, (2, 8))
    # with every head off a layer adds only W^O's bias; what reaches the read-out is the embedding plus the biases
    x = model.embedding(tokens) + model.position[:8] + sum(layer.W_o.bias for layer in model.layers)
    out = model(tokens, keep=torch.zeros(2, 2))
    torch.testing.assert_close(out.logits, model.unembed(x))


def test_a_sequence_longer_than_the_position_table_is_refused():
    model = AttentionOnlyDecoder(AttentionOnlyConfig(max_len=4))
    with pytest.raises(ValueError, match="position table"):
        model(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="divisible"):
        AttentionOnlyConfig(d_model=10, n_heads=3)
