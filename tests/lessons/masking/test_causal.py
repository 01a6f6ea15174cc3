"""The causal mask (section 2): a row of scores with the future at −∞, the weight above the diagonal, and the two
shipped decoders reading back and ahead as the caption says."""

import numpy as np
import pytest
import torch

from lessons.masking import causal, cheating, decoders, word_cipher
from minimodels.attention import causal_mask, masked_softmax


def test_a_causal_row_sets_the_future_to_minus_infinity_and_its_weight_to_exactly_zero():
    row = causal.causal_row(6, 2, seed=3)
    assert torch.isinf(row.masked_scores[3:]).all() and (row.masked_scores[3:] < 0).all()
    assert torch.equal(row.masked_scores[:3], row.scores[:3])
    assert (row.weights[3:] == 0).all()
    assert torch.allclose(row.weights[:3], torch.softmax(row.scores[:3], 0))
    with pytest.raises(ValueError):
        causal.causal_row(6, 6)


def test_causal_mask_figure_and_row_caption():
    fig = causal.causal_mask_figure(["s", "e", "="])
    np.testing.assert_array_equal(np.asarray(fig.data[0].z, dtype=float), np.tril(np.ones((3, 3))))
    assert fig.layout.title.text == "causal_mask(3): 1 = allowed"
    caption = causal.causal_row_caption(causal.causal_row(3, 1), "e", quote=lambda t: f"[{t}]")
    assert caption.startswith("Random scores (seeded) for query 2 ([e]): keys after it get −∞")


def test_future_weight_is_the_mass_above_the_diagonal():
    T = 5
    assert causal.future_weight(masked_softmax(torch.randn(3, T, T), causal_mask(T))) == 0.0
    uniform = np.full((T, T), 1 / T)  # row i puts (T - 1 - i) / T on later positions
    assert causal.future_weight(uniform) == pytest.approx(np.mean([(T - 1 - i) / T for i in range(T)]))


def test_the_shipped_decoders_read_back_and_ahead_as_the_caption_says():
    normal, cheater = decoders.shipped_view(True, "sequence"), decoders.shipped_view(False, "sequence")
    assert normal.free_running == "vhtxhqfh" and cheater.free_running != "vhtxhqfh"
    assert causal.future_weight(normal.attention) == 0.0 and causal.future_weight(cheater.attention) > 0.5
    back = causal.diagonal_weight(normal.attention, -word_cipher.WORD, first_row=word_cipher.WORD)
    ahead = causal.diagonal_weight(cheater.attention, 1)
    caption = causal.maps_caption(normal, cheater)
    assert f"put {back:.0%} of their weight" in caption and f"put {ahead:.0%} of their weight" in caption
    rows = cheating.outputs_table(normal, cheater)
    assert [r["generating on its own"] for r in rows] == [normal.free_running, cheater.free_running]
    assert decoders.load_model(True) is decoders.load_model(True)  # loaded once, shared


def test_diagonal_weight_reads_the_right_diagonal():
    w = np.eye(4)[[1, 2, 3, 3]]  # row t reads t + 1 (the last row reads itself)
    assert causal.diagonal_weight(w, 1) == 1.0 and causal.diagonal_weight(w, 0) == pytest.approx(1 / 4)
    assert causal.diagonal_weight(np.eye(4)[[0, 0, 0, 1]], -2, first_row=2) == 1.0
