"""The positional-encoding lesson's table (section 1): the float64 table against the models' one, the
frequencies, and what the page shows of it, computed from it."""

import math

import numpy as np
import pytest

from lessons.positional_encoding import sinusoid_table
from minimodels.positional import sinusoidal_encoding


@pytest.mark.parametrize("d", [4, 16, 128])
def test_the_float64_table_is_the_models_table(d):
    exact = sinusoid_table.exact_encoding(np.arange(sinusoid_table.MAX_LENGTH), d)
    assert exact.dtype == np.float64
    np.testing.assert_allclose(exact, sinusoidal_encoding(sinusoid_table.MAX_LENGTH, d).double().numpy(), atol=1e-6)
    np.testing.assert_allclose(sinusoid_table.encoding_table(50, d), exact[:50], atol=1e-6)


def test_frequencies_follow_the_formula_and_odd_d_is_refused():
    omegas = sinusoid_table.frequencies(8)
    assert omegas[0] == 1.0
    assert omegas[2] == pytest.approx(10000 ** (-4 / 8))
    assert sinusoid_table.wavelengths(8)[0] == pytest.approx(2 * math.pi)
    with pytest.raises(ValueError, match="even"):
        sinusoid_table.frequencies(7)


def test_the_table_caption_is_computed_from_the_table_the_widgets_chose():
    wide = sinusoid_table.table_caption(sinusoid_table.encoding_table(100, 64))
    assert "barely change" in wide and "over these 100" in wide
    narrow = sinusoid_table.table_caption(sinusoid_table.encoding_table(200, 4))
    assert "moves visibly" in narrow and "barely change" not in narrow  # d = 4: the last pair turns every 628


def test_default_dims_exist_for_every_d_model():
    assert sinusoid_table.default_dims(64) == [0, 1, 6, 20, 62]
    assert sinusoid_table.default_dims(4) == [0, 1, 2]  # d − 2 = 2; 6 and 20 do not exist
    for d in sinusoid_table.D_CHOICES:
        assert all(0 <= j < d for j in sinusoid_table.default_dims(d))
