"""The positional-encoding lesson's small models and their task: the previous-letter targets, the scores, the
learned table's untouched rows, and the shipped checkpoints."""

from types import SimpleNamespace

import pytest
import torch

from lessons.positional_encoding import models


def test_the_targets_are_the_previous_letters_and_the_first_and_padding_are_not_scored():
    tokens, lengths = models.strings(5, (2, 6), torch.Generator().manual_seed(0))
    targets = models.previous_letters(tokens)
    assert (targets[:, 0] == 0).all()
    for row, n in zip(range(5), lengths.tolist(), strict=True):
        assert targets[row, 1:n].tolist() == tokens[row, : n - 1].tolist()
        assert (targets[row, n:] == 0).all()
    assert models.is_right("xab", "abc") and not models.is_right("abc", "abc")


def test_scores_count_the_scored_positions_and_the_ones_beyond():
    class Oracle(torch.nn.Module):  # writes the previous letter up to position 3, then the letter itself
        def forward(self, tokens, lengths):
            gold = models.previous_letters(tokens)
            guess = torch.where(torch.arange(tokens.size(1)) < 3, gold, tokens)
            return SimpleNamespace(logits=torch.nn.functional.one_hot(guess, 40).float())

    tokens, lengths = models.strings(4, 6, torch.Generator().manual_seed(1))
    s = models.scores(Oracle(), tokens, lengths, beyond=3)
    assert s["accuracy"] == pytest.approx(2 / 5, abs=0.11)  # positions 1, 2 right of 1..5 (repeats may hit)
    assert s["beyond"] < 0.5 and s["exact"] == 0.0
    assert models.scores(Oracle(), tokens[:, :3], lengths.clamp(max=3), beyond=3)["beyond"] is None


def test_the_learned_table_keeps_the_rows_no_string_reaches():
    model, curve = models.train_encoder("learned", 0, steps=models.REPORT_EVERY)
    assert curve[-1]["step"] == models.REPORT_EVERY
    rows = models.untrained_rows(model, 0)
    assert rows == list(range(models.TRAIN_MAX, models.MAX_LEN))
    assert models.untrained_rows(models.new_model("sinusoidal", 0), 0) == []


def test_shipped_models_one_per_encoding():
    for encoding in models.ENCODINGS:
        model, meta = models.load_model(encoding)
        assert model.config.positional == encoding and meta["seed"] == 0
    assert models.load_model("none") is models.load_model("none")
    with pytest.raises(ValueError):
        models.load_model("rotary")
