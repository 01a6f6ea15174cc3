"""The positions-that-travel lesson's task and model: the targets, the scores at any length, a short training that
learns, and the schemes refused by name."""

import pytest
import torch

from lessons.positions_that_travel import training
from minimodels.tokenizers import PAD_ID


def test_every_scheme_builds_and_reads_four_times_the_training_length():
    tokens, lengths = training.test_strings(training.TRAIN_MAX * 4, n=3)
    assert tokens.shape == (3, 64)
    for scheme in ("none", "sinusoidal", "learned", "rope", "alibi"):
        model = training.new_model(scheme, 0)
        s = training.scores(model, tokens, lengths)
        assert 0.0 <= s["accuracy"] <= 1.0 and s["beyond"] is not None
    with pytest.raises(ValueError, match="choose from"):
        training.model_config("rotary")


def test_scores_count_every_letter_but_the_first_and_the_padding():
    tokens, lengths = training.strings(4, (3, 6), torch.Generator().manual_seed(0))
    gold = training.previous_letters(tokens)
    assert (gold[:, 0] == PAD_ID).all()

    VOCAB = training.model_config("none").vocab_size

    class Oracle(torch.nn.Module):
        def forward(self, tokens, lengths=None):
            logits = torch.nn.functional.one_hot(training.previous_letters(tokens), VOCAB).float()
            return type("Out", (), {"logits": logits})()

    assert training.scores(Oracle(), tokens, lengths)["accuracy"] == 1.0


@pytest.mark.slow
def test_a_short_training_with_rope_learns_the_task():
    reports = []
    model, curve = training.train_model("rope", 0, steps=200, on_report=lambda p, m: reports.append(p))
    assert curve and reports == curve
    assert curve[-1]["accuracy"] > max(0.5, curve[0]["accuracy"])
    weights, written = training.attention_on(model, "abcdef")
    assert weights.shape == (6, 6) and len(written) == 6
