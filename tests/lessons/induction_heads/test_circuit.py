"""The circuit section: how sudden a fall is, read from curves, and the prediction's answer computed both ways."""

import pytest

from lessons.induction_heads import circuit
from lessons.induction_heads import results as measured
from tests.lessons.induction_heads.conftest import curve


def test_a_sudden_fall_is_flat_early_and_mostly_in_one_window_and_a_steady_one_is_not():
    sudden = circuit.fall(curve(200, sudden=True))
    assert sudden.sudden and sudden.early == 0 and sudden.window == 1
    steady = circuit.fall(curve(None, sudden=False))
    assert not steady.sudden and steady.early > circuit.FLAT  # a fifth of the fall already in the first third
    assert circuit.fall(curve(None, sudden=True)) == circuit.Fall(0.0, 0.0, 0.0)  # it never fell


def test_the_shape_answer_follows_the_shipped_curves(make_results, typical):
    assert circuit.shape_exercise(typical).answer == 1  # flat, then most of the way down at once
    steady = make_results({v: [0.5] * 5 for v in measured.VARIANTS}, [None] * 5, sudden=False)
    assert circuit.shape_exercise(steady).answer == 0
    flat = make_results({v: [0.5] * 5 for v in measured.VARIANTS}, [None] * 5, sudden=True)
    assert circuit.shape_exercise(flat).answer == 2  # the copy's loss never fell


def test_the_exercises_explain_and_accept_only_their_answer(typical):
    for ex in (circuit.shape_exercise(typical), circuit.layer_exercise()):
        assert ex.is_choice and ex.key.startswith("induction_heads.")
        wrong = next(i for i in range(len(ex.choices)) if i != ex.answer)
        assert ex.check(ex.answer).correct and not ex.check(wrong).correct
    assert "5 shipped seeds of 400 steps: 5 fell suddenly" in circuit.shape_exercise(typical).explanation


def test_the_uniform_level_the_text_states_is_what_even_attention_scores():
    import torch

    from lessons.induction_heads import training
    from minimodels.models import ModelOutput

    class Even(torch.nn.Module):
        layers = [None, None]

        def forward(self, tokens, keep=None):
            B, T = tokens.shape
            w = torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]  # (T, T) even over i + 1 keys
            maps = {f"layer{n}": w.expand(B, 2, T, T) for n in (1, 2)}
            return ModelOutput(torch.zeros(B, T, 32), maps)

    assert training.read(Even()).prefix_matching[1, 0] == pytest.approx(circuit.EVEN, abs=1e-6)
    assert f"{circuit.EVEN:.1%}" in circuit.SCORES_TEXT
