"""What a softmax does with rows of scores: its Jacobian is autograd's, its entropy is log₂ N when uniform and 0 when
one-hot."""

import pytest
import torch

from lessons.scaling import scores


def test_softmax_jacobian_is_autograd_s():
    e = torch.randn(5, dtype=torch.float64)
    expected = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), e)
    assert torch.allclose(scores.softmax_jacobian(torch.softmax(e, -1)), expected)


def test_entropy_bits_of_uniform_and_one_hot():
    assert float(scores.entropy_bits(torch.full((8,), 1 / 8))) == pytest.approx(3.0)
    assert float(scores.entropy_bits(torch.tensor([1.0, 0.0, 0.0]))) == 0.0
