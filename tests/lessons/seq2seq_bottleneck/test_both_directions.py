"""Section 2: what each direction of a bidirectional encoder has read, and the c it hands on."""

import numpy as np
import pytest
import torch

from lessons.seq2seq_bottleneck import both_directions, experiment, one_vector
from minimodels.tokenizers import EOS_ID


@torch.inference_mode()
def test_what_each_direction_has_read_is_what_a_bidirectional_gru_computes():
    """tokens_read and directions_read against the model: ←hᵢ changes when x_j changes only for j ≥ i."""
    model = experiment.build("gru-none", 16, bidirectional=True).eval()
    ids = experiment.lesson_task().source_tokenizer.encode("pizza")
    S, H = len(ids) + 1, 8
    base = model.encode(torch.tensor([[*ids, EOS_ID]]), torch.tensor([S])).states[0]  # (S, 16)
    for j in range(len(ids)):  # change x_j (0-based) and see which states move
        changed = list(ids)
        changed[j] = experiment.lesson_task().source_tokenizer.encode("q")[0]  # no q in pizza
        other = model.encode(torch.tensor([[*changed, EOS_ID]]), torch.tensor([S])).states[0]
        for i in range(1, S + 1):  # 1-based positions
            forward_moved = not torch.allclose(other[i - 1, :H], base[i - 1, :H])
            backward_moved = not torch.allclose(other[i - 1, H:], base[i - 1, H:])
            reads_fwd = j + 1 <= i  # x_{j+1} is among x_1..x_i
            reads_bwd = j + 1 >= i
            assert forward_moved == reads_fwd and backward_moved == reads_bwd, (i, j)
            assert both_directions.tokens_read(S, i, "forward") == i
            assert both_directions.tokens_read(S, i, "backward") == S - i + 1
    rows = both_directions.directions_read([*"pizza", "</s>"])
    assert rows[1] == {
        "i": 2,
        "xᵢ": "i",
        "→hᵢ has read (left to right)": "pi (2)",
        "←hᵢ has read (right to left)": "izza</s> (5)",
    }
    with pytest.raises(ValueError, match="outside"):
        both_directions.tokens_read(6, 7, "forward")


def test_a_bidirectional_squeeze_hands_on_the_forward_last_and_the_backward_first_state():
    result = one_vector.squeeze(experiment.build("gru-none", 16, bidirectional=True).eval(), "jane")
    assert result.bidirectional and result.states.shape == (5, 16) and result.context.shape == (16,)
    np.testing.assert_allclose(result.context[:8], result.states[-1, :8], rtol=1e-6)  # →h_S
    np.testing.assert_allclose(result.context[8:], result.states[0, 8:], rtol=1e-6)  # ←h_1
    assert one_vector.squeeze_figure(result).layout.yaxis.ticktext[-1] == "c = [→h5; ←h1]"
