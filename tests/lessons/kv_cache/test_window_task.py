"""The capital-letter task: one capital per sequence, the answer is its letter, and the ceiling counts what a window
can see."""

import pytest
import torch

from lessons.kv_cache import window_task as w


def test_every_sequence_has_one_capital_then_the_question_and_the_answer_is_its_letter():
    tokens, answers = w.sequences(200, torch.Generator().manual_seed(0))
    assert tokens.shape == (200, w.LETTERS + 1)
    assert bool((tokens[:, -1] == w.ID[w.ASK]).all())
    capitals = (tokens[:, :-1] >= w.ID["A"]) & (tokens[:, :-1] <= w.ID["Z"])
    assert capitals.sum(1).tolist() == [1] * 200
    for row, answer in zip(tokens, answers, strict=True):
        capital = w.VOCAB[int(row[:-1][row[:-1] >= w.ID["A"]][0])]
        assert w.VOCAB[int(answer)] == capital.lower()


def test_the_capital_lies_anywhere_from_1_to_L_positions_back():
    tokens, _ = w.sequences(5000, torch.Generator().manual_seed(1))
    where = ((tokens[:, :-1] >= w.ID["A"]) & (tokens[:, :-1] <= w.ID["Z"])).float().argmax(1)
    distance = w.LETTERS - where
    assert int(distance.min()) == 1 and int(distance.max()) == w.LETTERS


def test_the_ceiling_is_the_share_in_sight_plus_a_guess_in_26_for_the_rest():
    assert w.ceiling(w.LETTERS + 1) == pytest.approx(1.0)
    assert w.ceiling(1) == pytest.approx(1 / 26)
    assert w.ceiling(13) == pytest.approx(12 / 24 + 12 / 24 / 26)


@pytest.mark.slow
def test_a_short_training_with_the_whole_window_beats_one_that_sees_one_letter():
    full, _ = w.train_window(w.LETTERS + 1, seed=0, steps=150)
    narrow, _ = w.train_window(2, seed=0, steps=150)
    test = w.sequences(500, torch.Generator().manual_seed(3))
    assert w.accuracy(full, *test) > 0.5 > w.ceiling(2) + 0.1 > w.accuracy(narrow, *test)
