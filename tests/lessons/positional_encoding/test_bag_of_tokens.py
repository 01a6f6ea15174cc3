"""The positional-encoding lesson's permutation equivariance (section 4): on one self-attention and on the
small encoders, the student's strings and shuffles, the shipped models, and the captions computed from the checks."""

import dataclasses

import numpy as np
import pytest
import torch

from lessons.positional_encoding import bag_of_tokens, models
from minimodels.positional import sinusoidal_encoding
from minimodels.small import SelfAttention


def test_self_attention_is_permutation_equivariant_without_positions_only():
    torch.manual_seed(0)
    layer = SelfAttention(16).double()
    x = torch.randn(1, 7, 16, dtype=torch.float64)
    order = torch.tensor(bag_of_tokens.permutation("random shuffle", 7, seed=3))
    assert order.tolist() != list(range(7))
    with torch.no_grad():
        out, _ = layer(x)
        shuffled, _ = layer(x[:, order])
        assert (shuffled - out[:, order]).abs().max() < 1e-12
        pe = sinusoidal_encoding(7, 16).double()
        out, _ = layer(x + pe)
        shuffled, _ = layer(x[:, order] + pe)
        assert (shuffled - out[:, order]).abs().max() > 1e-2


@pytest.mark.parametrize("encoding", models.ENCODINGS)
def test_a_small_encoder_is_equivariant_exactly_when_it_has_no_positions(encoding):
    model = models.new_model(encoding, 0).eval()
    check = bag_of_tokens.equivariance(model, encoding, "abcdefg", bag_of_tokens.permutation("rotate by one", 7))
    assert check.shuffled == "bcdefga"
    if encoding == "none":
        assert check.difference < 1e-5
        np.testing.assert_allclose(check.attention_back, check.attention, atol=1e-6)
    else:
        assert check.difference > 10 * bag_of_tokens.EQUIVARIANT
        assert np.abs(check.attention_back - check.attention).max() > 1e-4


def test_equivariance_refuses_an_order_that_is_not_a_permutation():
    with pytest.raises(ValueError, match="permutation"):
        bag_of_tokens.equivariance(models.new_model("none", 0), "none", "abc", [0, 0, 1])


@pytest.mark.parametrize("kind", bag_of_tokens.PERMUTATIONS)
def test_permutations_are_permutations(kind):
    for n in (2, 5, 10):
        assert sorted(bag_of_tokens.permutation(kind, n, seed=4)) == list(range(n))
    assert bag_of_tokens.permutation("reverse", 4) == [3, 2, 1, 0]
    with pytest.raises(ValueError):
        bag_of_tokens.permutation("sideways", 3)


@pytest.mark.parametrize("text", ["", "a", "x" * 33, "Position", "abc1", "a b", "<b>x</b>", "x" * 5000])
def test_bad_strings_are_refused_with_a_message(text):
    assert bag_of_tokens.parse_text(text).error


def test_good_strings_are_kept():
    assert bag_of_tokens.parse_text(" position ").text == "position"
    assert bag_of_tokens.parse_text("x" * 32).error is None


def test_the_shipped_models_write_the_previous_letter_only_with_positions():
    maps = bag_of_tokens.shipped_maps("position")
    by = {m.positional: m for m in maps}
    assert by["sinusoidal"].prediction[1:] == by["learned"].prediction[1:] == "positio"
    assert by["sinusoidal"].on_previous == by["learned"].on_previous == 1.0
    assert not models.is_right(by["none"].prediction, "position")
    checks = bag_of_tokens.shipped_checks("position", tuple(bag_of_tokens.permutation("reverse", 8)))
    none = checks[0]
    assert none.shuffled_prediction == "".join(none.prediction[i] for i in none.order)  # equivariant, exactly


def test_the_captions_under_the_checks_are_computed_from_them():
    checks = bag_of_tokens.shipped_checks("position", tuple(bag_of_tokens.permutation("reverse", 8)))
    none, sinusoidal = checks[0], checks[1]
    assert "cannot tell the shuffled string from the string" in bag_of_tokens.pair_caption(none)
    assert "a different input" in bag_of_tokens.pair_caption(sinusoidal)
    assert "moved with their letters" in bag_of_tokens.set_text(checks)
    told_apart = dataclasses.replace(none, shuffled_prediction="x" * 8)  # a none that told them apart
    assert "under the shuffle." in bag_of_tokens.set_text([told_apart])
    caption = bag_of_tokens.shipped_caption(models.load_model("none")[1])
    assert "seed 0" in caption and f"{models.STEPS} training steps" in caption


def test_maps_caption_quotes_the_text_and_every_output_and_flags_long_strings():
    maps = [bag_of_tokens.AttentionMap(e, [], np.zeros((1, 1)), f"out-{e}", None) for e in models.ENCODINGS]
    caption = bag_of_tokens.maps_caption("ab", maps, quote=lambda t: f"[{t}]")
    assert all(f"{e} → [out-{e}]" in caption for e in models.ENCODINGS)
    assert "longer than any" not in caption and "largest weight" not in caption  # no share to give
    shared = [dataclasses.replace(m, on_previous=0.5) for m in maps]
    assert "(the first row left out): none 50%, sinusoidal 50%, learned 50%." in bag_of_tokens.maps_caption(
        "ab", shared
    )
    assert "longer than any" in bag_of_tokens.maps_caption("a" * 20, maps)
