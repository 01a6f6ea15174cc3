"""The shared readings: roles from a model's own scores, the effects of each change, the agreement figures."""

import torch

from lessons.attention_explains import measure
from lessons.induction_heads import training


def test_roles_take_each_layers_strongest_and_other_head(small_model):
    reading = training.read(small_model)
    found = measure.roles(reading)
    assert found["previous-token head"] == (0, int(reading.previous_token[0].argmax()))
    assert found["induction head"] == (1, int(reading.prefix_matching[1].argmax()))
    assert len(set(found.values())) == 4


def test_zeroing_a_head_reads_as_its_knock_out(small_model):
    moved = measure.effects(small_model)
    assert set(moved) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    keep = training.knocked_out(1, 0)
    assert moved[1, 0]["zero"].accuracy == training.read(small_model, keep).accuracy_copy
    assert all(e.kl >= 0 for per in moved.values() for e in per.values())


def test_agreement_is_within_its_bounds(small_model):
    agreed = measure.agreement(small_model, measure.importance(small_model, n=4))
    for a in agreed.values():
        assert -1 <= a.tau_leave_one_out <= 1 and -1 <= a.tau_gradient <= 1 and 0 <= a.top_agrees <= 1


def test_a_bug_is_planted_only_where_asked():
    assert measure.new_model(0).config.scaled and not measure.new_model(0).config.future
    assert not measure.new_model(0, "no 1/√d_k").config.scaled
    assert measure.new_model(0, "wrong-side mask").config.future
    a, b = measure.new_model(3), measure.new_model(3, "no 1/√d_k")
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))  # same draw
