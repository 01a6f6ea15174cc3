"""The lesson's exercises: every answer computed by the lesson's functions, none read off the page or found by
bisection."""

import math

import torch

from lessons import rnn_cells
from lessons.rnn_cells import standard_network


def test_exercise_answers_come_from_the_computation():
    demo = standard_network.sharing_demo(seeds=(0,), steps=60)
    by_key = {ex.key: ex for ex in rnn_cells.exercises()}
    assert len(by_key) >= 3
    assert by_key["rnn_cells.ex1"].check(0.67).correct and not by_key["rnn_cells.ex1"].check(0.15).correct
    sigma3 = 1 / (1 + math.exp(-3))
    assert by_key["rnn_cells.ex2"].check(sigma3**40).correct and not by_key["rnn_cells.ex2"].check(3.0).correct
    assert "0.143" in by_key["rnn_cells.ex2"].explanation and "σ(1)" in by_key["rnn_cells.ex2"].explanation
    window = sum(p.numel() for p in torch.nn.Linear(25 * 4, 10).parameters())  # counted by torch, not typed
    assert by_key["rnn_cells.ex3"].check(window).correct and not by_key["rnn_cells.ex3"].check(4 * 10 + 10).correct
    assert str(window) in by_key["rnn_cells.ex3"].explanation
    assert "rnn_cells.ex4" not in by_key  # asked in section 2, before its table, not in the tail
    ex4 = standard_network.sharing_prediction(demo)  # graded against what the trained window network did
    assert ex4.check(demo.probe["window network"][0]).correct
    assert "(1 of 1 seeds)" in ex4.explanation
    assert by_key["rnn_cells.ex5"].check("many-to-many").correct
    assert not by_key["rnn_cells.ex5"].check("many-to-many, encoder–decoder").correct


def test_no_exercise_is_a_reading_of_the_page_or_a_bisection():
    demo = standard_network.sharing_demo(seeds=(0,), steps=60)
    for ex in [*rnn_cells.exercises(), standard_network.sharing_prediction(demo)]:
        assert ex.prompt.startswith(("Compute by hand", "Predict")) or ex.is_choice
        assert "chart" not in ex.hint and "Read" not in ex.hint  # the old "Read the curves at that distance"
        wrong = ex.check((ex.answer + 1) % len(ex.choices) if ex.is_choice else ex.answer * 3 + 7)
        assert not wrong.correct and "Worked answer" in wrong.message and "too" not in wrong.message.split(".")[0]
