import math

import pytest
import torch

from minimodels.positional import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    sinusoidal_encoding,
)


@pytest.mark.parametrize("d", [4, 7, 16])
def test_sinusoidal_matches_the_formula(d):
    pe = sinusoidal_encoding(50, d)
    assert pe.shape == (50, d)
    for pos in (0, 1, 13, 49):
        for j in range(d):
            i2 = j - j % 2
            angle = pos / 10000 ** (i2 / d)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert abs(pe[pos, j].item() - expected) < 1e-6


def test_offset_is_a_rotation_per_frequency():
    d, k = 16, 5
    pe = sinusoidal_encoding(40, d).double()
    for i in range(d // 2):
        w = 1 / 10000 ** (2 * i / d)
        R = torch.tensor([[math.cos(w * k), -math.sin(w * k)], [math.sin(w * k), math.cos(w * k)]], dtype=torch.float64)
        pair = pe[:, 2 * i : 2 * i + 2]  # rows (sin, cos); [sin, cos](a + b) = [sin, cos](a) @ R(b)
        assert (pair[:-k] @ R - pair[k:]).abs().max() < 1e-6


def test_modules_add_positions():
    x = torch.zeros(2, 6, 8)
    torch.testing.assert_close(SinusoidalPositionalEncoding(8, 32)(x)[0], sinusoidal_encoding(6, 8))
    learned = LearnedPositionalEmbedding(32, 8)
    y = learned(x)
    torch.testing.assert_close(y[1], learned.embedding.weight[:6])
    with pytest.raises(ValueError, match="max_len"):
        learned(torch.zeros(1, 40, 8))
