"""Section 1, the split: by hand against our module and PyTorch's, shapes, refused splits, the parameter count."""

import pytest
import torch
from torch import nn

from lessons.multi_head_attention import split
from minimodels.attention import MultiHeadAttention


def torch_pair(d_model: int, n_heads: int, seed: int = 0):
    """A torch.nn.MultiheadAttention with non-zero biases everywhere, and our copy of it."""
    torch.manual_seed(seed)
    reference = nn.MultiheadAttention(d_model, n_heads, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_bias.normal_()
        reference.out_proj.bias.normal_()
    return reference, MultiHeadAttention.from_torch(reference).eval()


@pytest.mark.parametrize(("d_model", "n_heads"), [(8, 1), (12, 3), (16, 4), (64, 8), (32, 16)])
def test_heads_by_hand_reproduce_our_module_and_pytorchs(d_model, n_heads):
    reference, ours = torch_pair(d_model, n_heads)
    X = torch.randn(5, d_model)
    hb = split.heads_by_hand(ours, X)
    x = X[None]
    with torch.inference_mode():
        our_out, our_weights = ours(x, x, x)
        torch_out, torch_weights = reference(x, x, x, need_weights=True, average_attn_weights=False)
    torch.testing.assert_close(hb.output, our_out[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(hb.output, torch_out[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(hb.weights, our_weights[0], atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(hb.weights, torch_weights[0], atol=1e-6, rtol=1e-5)


def test_the_split_has_the_lectures_shapes_and_each_head_is_a_block_of_columns():
    _, ours = torch_pair(64, 8)
    X = torch.randn(3, 64)
    hb = split.heads_by_hand(ours, X)
    assert (hb.n_heads, hb.d_model, hb.d_k) == (8, 64, 8)
    for name in ("Q", "K", "V", "Z"):
        assert getattr(hb, name).shape == (8, 3, 8)
    assert hb.weights.shape == (8, 3, 3)
    assert hb.concat.shape == hb.output.shape == (3, 64)
    torch.testing.assert_close(hb.weights.sum(-1), torch.ones(8, 3))
    with torch.inference_mode():
        Q = ours.W_q(X)  # (3, 64)
    torch.testing.assert_close(hb.Q[2], Q[:, 16:24])  # head 3 owns columns 16..23
    torch.testing.assert_close(hb.concat[:, 16:24], hb.Z[2])  # ... and puts its Z back there


def test_split_example_matches_both_references_and_counts_parameters():
    ex = split.split_example(("Thinking", "Machines"), 512, 8, seed=3)
    assert all(v < 1e-5 for v in ex.differences.values()), ex.differences
    assert ex.parameters == {
        "W^Q": 512 * 512 + 512,
        "W^K": 512 * 512 + 512,
        "W^V": 512 * 512 + 512,
        "W^O": 512 * 512 + 512,
    }
    rows = split.shape_rows(ex)
    shapes = [r["shape"] for r in rows]
    assert shapes[0] == "2 × 512"
    assert shapes[1].startswith("8 × (2 × 64)")
    assert shapes[2].startswith("8 × 2 × 2")
    assert shapes[4].startswith("2 × 512 (h · d_k = 8 · 64)")
    assert sum(r["learned numbers"] for r in rows) == 4 * (512 * 512 + 512)
    other = split.split_example(("Thinking", "Machines"), 512, 8, seed=4)
    assert not torch.equal(ex.heads.weights, other.heads.weights)


def test_refused_splits_and_empty_input():
    assert split.head_choices(8) == (1, 2, 4, 8)
    assert 16 in split.head_choices(512)
    assert split.check_split(8, 16) and "whole" in split.check_split(8, 16)
    assert split.check_split(100, 4)
    assert split.check_split(64, 8) is None
    with pytest.raises(ValueError, match="whole"):
        split.split_example(("a",), 8, 16)
    with pytest.raises(ValueError):
        split.split_example((), 64, 8)
    assert split.parse("").error
    assert split.parse("w " * (split.MAX_TOKENS + 1)).error
    assert split.parse("<b>hi</b> 🙂").tokens == ("<b>hi</b>", "🙂")


def test_the_parameter_count_is_counted_on_modules_and_its_sentence_follows_the_counts():
    rows, sentence = split.parameter_table(64)
    assert [r["heads h"] for r in rows] == list(split.head_choices(64))
    assert [r["d_k = d_model / h"] for r in rows] == [64 // h for h in split.head_choices(64)]
    counted = [sum(p.numel() for p in MultiHeadAttention(64, r["heads h"]).parameters()) for r in rows]
    assert [r["learned numbers in W^Q, W^K, W^V, W^O"] for r in rows] == counted
    assert "every h (1, 2, 4, 8, 16) gives the same **16,640**" in sentence
    assert "Changing d_model changes it: d_model = 32 has 4,224 = 4 · (32² + 32)" in sentence
    # the sentence is computed from the counts: counts that moved with h would be said to move
    moved = split.parameter_sentence(64, {1: 16640, 8: 20000}, (32, 16640))
    assert "the count changes with h: 16,640 at h = 1, 20,000 at h = 8" in moved and "add none" not in moved
    assert "Changing d_model leaves it" in moved
    assert split.other_d_model(8) == 16 and split.other_d_model(512) == 256
    assert "does not move" not in split.TEXT
