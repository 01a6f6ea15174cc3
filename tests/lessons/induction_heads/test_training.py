"""The recipe and its readings: the two scores on hand-made maps, the knock-out switch, and an induction head that
forms on a fixed seed."""

import numpy as np
import pytest
import torch

from lessons.induction_heads import training
from lessons.induction_heads.sequences import VOCAB
from minimodels.models import ModelOutput


class Scripted(torch.nn.Module):
    """A stand-in model whose every head attends to the key ``offset`` places back (or to itself at the start)."""

    def __init__(self, offsets):
        super().__init__()
        self.offsets = offsets  # (L, h) offsets
        self.layers = [None] * len(offsets)

    def forward(self, tokens, keep=None):
        B, T = tokens.shape
        maps = {}
        for layer, row in enumerate(self.offsets):
            w = torch.zeros(B, len(row), T, T)
            for head, offset in enumerate(row):
                for i in range(T):
                    w[:, head, i, max(0, i - offset)] = 1.0
            maps[f"layer{layer + 1}"] = w
        logits = torch.nn.functional.one_hot(tokens, VOCAB).float()  # predicts the token it holds
        return ModelOutput(logits, maps)


def test_the_scores_find_a_previous_token_head_and_a_prefix_matching_head():
    R = training.probe()[0].size(1) // 2
    reading = training.read(Scripted([[1, 0], [R - 1, 0]]))
    assert reading.previous_token[0, 0] == pytest.approx(1.0)
    assert reading.previous_token[1, 1] == pytest.approx(0.0)
    assert reading.prefix_matching[1, 0] == pytest.approx(1.0)  # i − R + 1 is R − 1 places back
    assert reading.prefix_matching[0, 0] == pytest.approx(0.0)
    assert reading.strongest == (1, 0) and reading.previous_head == (0, 0)


def test_the_accuracies_read_the_right_halves():
    # a model that predicts the token it holds is right where the next token equals this one: by chance only
    reading = training.read(Scripted([[1, 0], [1, 0]]))
    assert reading.accuracy_random < 0.2 and reading.accuracy_copy < 0.2
    assert reading.loss_random > 0 and reading.attention.shape[:2] == (2, 2)


def test_knocked_out_switches_one_head_off():
    keep = training.knocked_out(1, 0)
    assert keep.shape == (training.CONFIG.n_layers, training.CONFIG.n_heads)
    assert keep.sum() == keep.numel() - 1 and keep[1, 0] == 0


def test_formed_at_is_the_first_report_at_the_level_and_none_when_never():
    curve = [{"step": s, "induction score": v} for s, v in ((25, 0.05), (50, 0.31), (75, 0.6))]
    assert training.formed_at(curve) == 50
    assert training.formed_at(curve[:1]) is None


def test_a_report_point_holds_every_heads_scores():
    model, reports = training.train(0, steps=3, report_every=2)
    assert [r.step for r in reports] == [2, 3]
    point = reports[-1].point()
    for layer, head in training.HEADS:
        name = training.head_name(layer, head)
        assert 0 <= point[f"prefix {name}"] <= 1 and 0 <= point[f"previous {name}"] <= 1
    assert point["induction score"] == pytest.approx(float(np.max(reports[-1].reading.prefix_matching[-1])))


@pytest.mark.slow
def test_the_recipe_forms_an_induction_head_on_seed_0():
    torch.set_num_threads(1)
    _, reports = training.train(0, steps=900)
    curve = [r.point() for r in reports]
    formed = training.formed_at(curve)
    assert formed is not None
    last = reports[-1].reading
    assert last.strongest[0] == 1  # the strongest prefix-matching head is in layer 2
    assert last.accuracy_copy > 0.6 and last.accuracy_random < 0.1
    intact = training.read(_)
    without = training.read(_, training.knocked_out(*last.previous_head))
    assert without.accuracy_copy < intact.accuracy_copy - 0.2  # the previous-token head is needed
