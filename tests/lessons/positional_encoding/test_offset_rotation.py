"""The positional-encoding lesson's offset rotation (section 3): M_k maps every PE_p to PE_(p+k) up to
rounding, the wrong offset does not, and the numbers under the figures follow the figures."""

import numpy as np
import pytest

from lessons.positional_encoding import nearby_positions, offset_rotation, sinusoid_table


@pytest.mark.parametrize("d", sinusoid_table.D_CHOICES)
@pytest.mark.parametrize("k", [0, 1, 5, 37])
def test_offset_is_a_linear_map_with_residual_below_1e_6(d, k):
    check = offset_rotation.offset_check(d, k, pos=3)
    assert check.residual <= 1e-6
    assert check.pair_residuals.max() <= 1e-6
    np.testing.assert_allclose(check.rotated, check.pe_target, atol=1e-6)
    # the matrix is orthogonal (a rotation per pair) and the same whatever pos is
    np.testing.assert_allclose(check.matrix @ check.matrix.T, np.eye(d), atol=1e-12)
    np.testing.assert_array_equal(check.matrix, offset_rotation.offset_check(d, k, pos=50).matrix)


def test_the_wrong_offset_leaves_a_large_residual():
    """The residual measures something: M_(k+1) does not map PE_p to PE_(p+k)."""
    d, k, n = 16, 5, 100
    pe = sinusoid_table.exact_encoding(np.arange(n), d)
    wrong = offset_rotation.offset_matrix(d, k + 1)
    assert np.abs(pe[k:] - pe[: n - k] @ wrong.T).max() > 0.1


def test_rotation_angle_of_one_pair():
    check = offset_rotation.offset_check(16, 5)
    assert check.angles[1] == pytest.approx(5 * 10000 ** (-2 / 16))
    R = offset_rotation.rotation(float(check.omegas[1]), 5)
    np.testing.assert_allclose(R, check.matrix[2:4, 2:4])
    rows = check.rows()
    assert len(rows) == 8 and rows[1]["dimensions"] == "2, 3"


def test_offset_check_refuses_positions_off_the_table():
    with pytest.raises(ValueError):
        offset_rotation.offset_check(16, 10, pos=195, n_positions=200)


def test_captions_follow_their_figures_numbers():
    assert "d/2 = 32" in nearby_positions.similarity_caption(64)
    check = offset_rotation.offset_check(16, 5, 3)
    (residual, rows, at_pos) = offset_rotation.offset_metrics(check)
    assert residual == ("max |PE_(p+5) − M_k PE_p|, every p", f"{check.residual:.1e}")
    assert rows == ("rows checked", str(sinusoid_table.MAX_LENGTH - 5))
    assert at_pos[0] == "|PE_8 − M_k PE_3| at pos = 3" and float(at_pos[1]) < 1e-12
