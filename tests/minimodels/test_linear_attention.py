"""Linear attention's recurrent form (running sums) equals its parallel form (a masked matrix), and the linear
Seq2Seq is a Seq2Seq whose weights are the linear ones."""

from __future__ import annotations

import pytest
import torch

from minimodels.attention import causal_mask
from minimodels.linear_attention import (
    LinearAttentionSeq2Seq,
    feature_map,
    linear_attention,
    linear_attention_recurrent,
    state_size,
)
from minimodels.seq2seq import Seq2SeqConfig


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("T", [1, 7, 33])
def test_the_recurrent_form_equals_the_causal_parallel_form(seed, T):
    g = torch.Generator().manual_seed(seed)
    q, k = (
        torch.randn(2, T, 8, generator=g, dtype=torch.float64),
        torch.randn(2, T, 8, generator=g, dtype=torch.float64),
    )
    v = torch.randn(2, T, 5, generator=g, dtype=torch.float64)
    parallel, weights = linear_attention(q, k, v, causal_mask(T))
    recurrent, (S, u) = linear_attention_recurrent(q, k, v)
    torch.testing.assert_close(recurrent, parallel, atol=1e-12, rtol=0)
    assert S.shape == (2, 8, 5) and u.shape == (2, 8)  # the state does not grow with T
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, T, dtype=torch.float64))
    assert float(weights.triu(1).abs().sum()) == 0.0


def test_the_last_state_read_by_any_query_is_the_unmasked_parallel_form():
    g = torch.Generator().manual_seed(9)
    q, k, v = (torch.randn(1, 6, 4, generator=g, dtype=torch.float64) for _ in range(3))
    _, (S, u) = linear_attention_recurrent(k, k, v)
    full, _ = linear_attention(q, k, v)
    phi = feature_map(q)
    torch.testing.assert_close((phi @ S) / (phi * u[:, None]).sum(-1, keepdim=True), full, atol=1e-12, rtol=0)


def test_the_feature_map_is_positive_and_the_weights_are_the_normalised_products():
    x = torch.tensor([-10.0, -1.0, 0.0, 2.0])  # float32 rounds 1 + (e^-x - 1) to 0 below about -16
    assert bool((feature_map(x) > 0).all())
    assert feature_map(x)[3] == 3.0
    q, k = torch.tensor([[[1.0, -1.0]]]), torch.tensor([[[0.0, 0.0], [1.0, 1.0]]])
    _, w = linear_attention(q, k, torch.eye(2)[None])
    sims = torch.tensor(
        [2.0 * 1.0 + 1.0 * feature_map(torch.tensor(-1.0)), 2.0 * 2.0 + 2.0 * feature_map(torch.tensor(-1.0))]
    )
    torch.testing.assert_close(w[0, 0], sims / sims.sum())
    assert state_size(64) == 64 * 64 + 64


def test_the_linear_seq2seq_attends_linearly_gives_padding_no_weight_and_needs_scaled_dot():
    config = Seq2SeqConfig(
        source_vocab_size=12, target_vocab_size=12, hidden_size=8, embedding_size=8, attention="scaled_dot"
    )
    torch.manual_seed(0)
    model = LinearAttentionSeq2Seq(config).eval()
    source = torch.tensor([[4, 5, 6, 2], [7, 2, 0, 0]])
    out = model(source, torch.tensor([4, 2]), torch.tensor([[1, 4, 5], [1, 7, 2]]))
    weights = out.attention["cross"]  # (B, T, S)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3))
    assert float(weights[1, :, 2:].detach().abs().sum()) == 0.0
    with pytest.raises(ValueError):
        LinearAttentionSeq2Seq(Seq2SeqConfig(source_vocab_size=12, target_vocab_size=12, attention="additive"))
