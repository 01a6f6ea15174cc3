"""The lesson's seeded random cells: seeded without touching the global random state, biased and scaled where asked."""

import math

import pytest
import torch

from lessons.rnn_cells import seeded_cells


def test_make_cell_is_seeded_and_leaves_the_global_random_state_alone():
    before = torch.random.get_rng_state()
    a = seeded_cells.make_cell("LSTM", 8, seed=3)
    assert torch.equal(torch.random.get_rng_state(), before)
    b = seeded_cells.make_cell("LSTM", 8, seed=3)
    c = seeded_cells.make_cell("LSTM", 8, seed=4)
    assert torch.equal(a.weight_hh, b.weight_hh) and not torch.equal(a.weight_hh, c.weight_hh)
    assert a.weight_hh.abs().max() <= 1 / math.sqrt(8)  # PyTorch's own initialisation range
    with pytest.raises(ValueError, match="unknown cell"):
        seeded_cells.make_cell("Transformer", 8, seed=0)


def test_gate_bias_shifts_only_the_keep_gate_and_scale_the_recurrent_weights():
    H = 4
    plain = seeded_cells.make_cell("LSTM", H, seed=0)
    biased = seeded_cells.make_cell("LSTM", H, seed=0, gate_bias=2.0, recurrent_scale=3.0)
    shift = biased.bias_ih - plain.bias_ih
    torch.testing.assert_close(shift[H : 2 * H], torch.full((H,), 2.0))  # the forget gate, PyTorch's order i f g o
    assert shift[:H].abs().max() == 0 and shift[2 * H :].abs().max() == 0
    torch.testing.assert_close(biased.weight_hh, 3.0 * plain.weight_hh)
