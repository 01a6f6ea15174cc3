"""The head interventions against their definitions (a forced copy of the model's own weights changes nothing;
zeroing a head is its knock-out and its slice of W^O removed), the planted bugs against a hand-written layer, and
the importance measures and Kendall's τ against known values."""

import dataclasses
import math

import pytest
import torch
import torch.nn.functional as F

from minimodels import head_interventions as hands
from minimodels.attention import causal_mask
from minimodels.attention_only import AttentionOnlyConfig, AttentionOnlyDecoder, CausalSelfAttention

CONFIG = AttentionOnlyConfig(vocab_size=12, d_model=16, n_heads=2, n_layers=2, max_len=10)
TOL = 1e-5


@pytest.fixture
def model():
    torch.manual_seed(3)
    return AttentionOnlyDecoder(CONFIG).eval()


@pytest.fixture
def tokens():
    return torch.randint(12, (4, 10), generator=torch.Generator().manual_seed(5))


def test_forcing_a_head_to_its_own_weights_changes_nothing(model, tokens):
    intact = model(tokens)
    for layer in range(2):
        for head in range(2):
            own = intact.attention[f"layer{layer + 1}"][:, head]  # (B, T, T)
            forced = model(tokens, override=hands.intervention(layer, head, "force", forced=own))
            torch.testing.assert_close(forced.logits, intact.logits, atol=TOL, rtol=0)


def test_zeroing_a_head_is_its_knock_out_and_its_slice_of_w_o_removed(model, tokens):
    zeroed = model(tokens, override=hands.intervention(1, 0, "zero")).logits
    keep = torch.ones(2, 2)
    keep[1, 0] = 0.0
    torch.testing.assert_close(zeroed, model(tokens, keep).logits, atol=TOL, rtol=0)
    cut = AttentionOnlyDecoder(CONFIG)
    cut.load_state_dict(model.state_dict())
    with torch.no_grad():
        cut.layers[1].W_o.weight[:, : CONFIG.d_model // 2] = 0.0  # head 1's columns of W^O
    torch.testing.assert_close(zeroed, cut(tokens).logits, atol=TOL, rtol=0)
    assert (zeroed - model(tokens).logits).abs().max() > 1e-3  # the head did contribute


def test_other_heads_keep_their_weights(model, tokens):
    intact = model(tokens).attention["layer2"]
    changed = model(tokens, override=hands.intervention(1, 0, "uniform")).attention["layer2"]
    torch.testing.assert_close(changed[:, 1], intact[:, 1])
    assert (changed[:, 0] - intact[:, 0]).abs().max() > 1e-3


def test_uniform_weights_are_one_over_the_keys_each_query_reads(model, tokens):
    weights = model(tokens, override=hands.intervention(0, 1, "uniform")).attention["layer1"][:, 1]  # (B, T, T)
    expected = causal_mask(10).float() / torch.arange(1, 11)[:, None]
    torch.testing.assert_close(weights, expected.expand_as(weights))


@pytest.mark.parametrize("future", [False, True])
def test_a_permutation_shuffles_each_row_over_its_readable_keys(future):
    torch.manual_seed(0)
    weights = torch.rand(3, 2, 7, 7)
    allowed = causal_mask(7).mT if future else causal_mask(7)
    weights = weights * allowed
    weights = weights / weights.sum(-1, keepdim=True)
    shuffled = hands.permuted(weights, allowed, torch.Generator().manual_seed(1))
    assert torch.equal(shuffled * ~allowed, torch.zeros_like(shuffled))  # nothing moves onto a masked key
    torch.testing.assert_close(shuffled.sort(-1).values, weights.sort(-1).values)  # the same numbers, moved
    assert not torch.allclose(shuffled, weights)


def test_a_permuted_head_changes_the_output_and_the_same_seed_repeats_it(model, tokens):
    a = model(tokens, override=hands.intervention(1, 1, "permute", seed=4)).logits
    b = model(tokens, override=hands.intervention(1, 1, "permute", seed=4)).logits
    assert torch.equal(a, b)
    assert (a - model(tokens).logits).abs().max() > 1e-3


def test_bad_interventions_are_refused():
    with pytest.raises(ValueError, match="kind"):
        hands.intervention(0, 0, "scramble")
    with pytest.raises(ValueError, match="forced"):
        hands.intervention(0, 0, "force")
    with pytest.raises(ValueError, match="forced"):
        hands.intervention(0, 0, "zero", forced=torch.eye(3))


def _by_hand(layer: CausalSelfAttention, x: torch.Tensor, scale: float, allowed: torch.Tensor) -> torch.Tensor:
    B, T, d = x.shape
    q, k, v = layer.W_qkv(x).split(d, dim=-1)
    q, k, v = (t.view(B, T, layer.n_heads, layer.d_k).transpose(1, 2) for t in (q, k, v))
    scores = (q @ k.transpose(-1, -2)) * scale
    weights = scores.masked_fill(~allowed, -math.inf).softmax(-1)
    return layer.W_o((weights @ v).transpose(1, 2).reshape(B, T, d))


@pytest.mark.parametrize(("scaled", "future"), [(True, False), (False, False), (True, True)])
def test_the_planted_bugs_are_the_layer_written_with_them(scaled, future):
    torch.manual_seed(2)
    layer = CausalSelfAttention(16, 2, scaled=scaled, future=future)
    x = torch.randn(2, 6, 16)
    allowed = causal_mask(6).mT if future else causal_mask(6)
    expected = _by_hand(layer, x, 1 / math.sqrt(8) if scaled else 1.0, allowed)
    torch.testing.assert_close(layer(x)[0], expected, atol=TOL, rtol=0)


def test_the_wrong_side_mask_lets_a_position_see_the_future():
    torch.manual_seed(1)
    model = AttentionOnlyDecoder(dataclasses.replace(CONFIG, future=True))
    weights = model(torch.randint(12, (2, 10))).attention["layer1"]
    assert torch.equal(weights * causal_mask(10).float().tril(-1), torch.zeros_like(weights))  # no past key
    assert (weights * causal_mask(10).mT.float().triu(1)).sum() > 0  # future keys read


def test_importance_is_zero_for_tokens_a_causal_query_cannot_read(model, tokens):
    targets = tokens.roll(-1, 1)
    future = ~causal_mask(10)
    loo = hands.leave_one_out(model, tokens, targets)
    grad = hands.gradient_times_input(model, tokens, targets)
    assert loo.shape == grad.shape == (4, 10, 10)
    assert loo[:, future].abs().max() < 1e-5 and grad[:, future].abs().max() == 0
    assert loo[:, ~future].abs().max() > 1e-3 and grad[:, ~future].abs().max() > 1e-3


def test_leave_one_out_is_the_log_probability_lost(model, tokens):
    targets = tokens.roll(-1, 1)
    loo = hands.leave_one_out(model, tokens, targets, shift=3)
    changed = tokens.clone()
    changed[:, 2] = (changed[:, 2] + 3) % 12
    log_p = F.log_softmax(model(tokens).logits, -1).gather(-1, targets[..., None])[..., 0]
    log_q = F.log_softmax(model(changed).logits, -1).gather(-1, targets[..., None])[..., 0]
    torch.testing.assert_close(loo[:, :, 2], log_p - log_q, atol=TOL, rtol=0)


def test_gradient_times_input_matches_a_finite_difference_along_the_token_vector(model, tokens):
    targets = tokens.roll(-1, 1)
    grad = hands.gradient_times_input(model, tokens, targets)
    embedded = model.embedding(tokens).detach()

    def log_p(e):
        logits = model(tokens, embedded=e).logits
        return F.log_softmax(logits, -1).gather(-1, targets[..., None])[0, 7, 0]

    step = 1e-3
    bigger, smaller = embedded.clone(), embedded.clone()
    bigger[0, 4] *= 1 + step  # e_4 scaled both ways: a central difference of step · (∇ · e_4), error O(step²)
    smaller[0, 4] *= 1 - step
    with torch.no_grad():  # the estimate is plain arithmetic on two forward passes, no graph needed
        estimate = (log_p(bigger) - log_p(smaller)) / (2 * step)
    # float32 log-probabilities differ in their last digits from run to run of the kernels: a relative margin too
    assert abs(abs(float(estimate)) - float(grad[0, 7, 4])) < 1e-3 + 1e-2 * abs(float(grad[0, 7, 4]))


def test_kendall_tau_b_against_known_values():
    every = torch.ones(3, dtype=torch.bool)
    assert float(hands.kendall_tau(torch.tensor([1.0, 2, 3]), torch.tensor([1.0, 2, 3]), every)) == pytest.approx(1)
    assert float(hands.kendall_tau(torch.tensor([1.0, 2, 3]), torch.tensor([3.0, 2, 1]), every)) == pytest.approx(-1)
    assert float(hands.kendall_tau(torch.tensor([1.0, 2, 3]), torch.tensor([1.0, 3, 2]), every)) == pytest.approx(1 / 3)
    x, y = torch.tensor([12.0, 2, 1, 12, 2]), torch.tensor([1.0, 4, 7, 1, 0])  # ties in both: SciPy's example
    assert float(hands.kendall_tau(x, y, torch.ones(5, dtype=torch.bool))) == pytest.approx(-0.47140452079103173)
    some = torch.tensor([True, True, True, False])  # the fourth entry is not read
    a, b = torch.tensor([1.0, 2, 3, 0]), torch.tensor([1.0, 2, 3, 9])
    assert float(hands.kendall_tau(a, b, some)) == pytest.approx(1)
