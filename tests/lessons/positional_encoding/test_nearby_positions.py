"""The positional-encoding lesson's similarity of positions (section 2): a function of their offset alone."""

import pytest

from lessons.positional_encoding import nearby_positions


def test_similarity_depends_only_on_the_offset_and_peaks_at_zero():
    d, n = 32, 60
    sim = nearby_positions.similarity(n, d)
    by_offset = nearby_positions.similarity_by_offset(d, n - 1)
    for p in range(0, n, 7):
        for q in range(0, n, 5):
            assert sim[p, q] == pytest.approx(by_offset[abs(p - q)], abs=1e-4)
    assert by_offset[0] == pytest.approx(d / 2)
    assert by_offset[1:].max() < by_offset[0]
    assert by_offset[1] > by_offset[10]  # nearby positions are more alike than far ones
