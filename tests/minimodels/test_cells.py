"""Our gate-by-gate cells against torch.nn's fused ones over a 10-step sequence."""

import pytest
import torch
from torch import nn

from minimodels.cells import GRUCell, LSTMCell, RNNCell

TOL = 1e-5


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(
    ("ours_cls", "ref_cls"), [(RNNCell, nn.RNNCell), (GRUCell, nn.GRUCell), (LSTMCell, nn.LSTMCell)]
)
def test_cell_matches_torch_over_ten_steps(seed, bias, ours_cls, ref_cls):
    torch.manual_seed(seed)
    B, I, H = 3, 1 + seed * 3, 2 + seed * 4
    ref = ref_cls(I, H, bias=bias)
    ours = ours_cls.from_torch(ref)
    xs = torch.randn(10, B, I)
    h0 = torch.randn(B, H)
    state_ref = (h0, torch.randn(B, H)) if ref_cls is nn.LSTMCell else h0
    state_ours = state_ref
    for x in xs:
        state_ref = ref(x, state_ref)
        state_ours, gates = ours(x, state_ours)
        pairs = zip(state_ours, state_ref, strict=True) if isinstance(state_ref, tuple) else [(state_ours, state_ref)]
        for a, b in pairs:
            assert (a - b).abs().max() <= TOL
        for g in gates.values():
            assert g.shape == (B, H)


def test_gru_gates_explain_the_update():
    torch.manual_seed(0)
    cell = GRUCell(3, 5)
    x, h = torch.randn(2, 3), torch.randn(2, 5)
    h_new, g = cell(x, h)
    assert set(g) == {"update", "reset", "candidate"}
    torch.testing.assert_close(h_new, g["update"] * g["candidate"] + (1 - g["update"]) * h)
    assert torch.all((g["update"] > 0) & (g["update"] < 1))


def test_lstm_gates_explain_the_update():
    torch.manual_seed(0)
    cell = LSTMCell(3, 5)
    x, h, c = torch.randn(2, 3), torch.randn(2, 5), torch.randn(2, 5)
    (h_new, c_new), g = cell(x, (h, c))
    assert set(g) == {"input", "forget", "output", "candidate"}
    torch.testing.assert_close(c_new, g["input"] * g["candidate"] + g["forget"] * c)
    torch.testing.assert_close(h_new, g["output"] * torch.tanh(c_new))


def test_from_torch_rejects_the_wrong_kind():
    with pytest.raises(TypeError):
        GRUCell.from_torch(nn.LSTMCell(2, 3))


def test_cells_start_from_zero_state():
    cell = RNNCell(2, 3)
    x = torch.randn(4, 2)
    h, _ = cell(x)
    h0, _ = cell(x, torch.zeros(4, 3))
    torch.testing.assert_close(h, h0)
