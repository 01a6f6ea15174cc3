"""The experiment's models: a bidirectional encoder keeps D, and a tiny seeded training already shows the fall."""

import dataclasses

import pytest

from lessons.seq2seq_bottleneck import experiment, live_training, scoring


def test_a_bidirectional_model_keeps_d_with_half_per_direction_and_says_what_it_is():
    uni = experiment.build("gru-none", 32)
    bi = experiment.build("gru-additive", 32, bidirectional=True)
    assert (uni.config.hidden_size, uni.config.decoder_size) == (32, 32)
    assert (bi.config.hidden_size, bi.config.decoder_size, bi.config.bidirectional) == (16, 32, True)
    assert experiment.describe(uni) == (
        "unidirectional GRU encoder (D = 32) + GRU decoder, no attention (one context vector)"
    )
    assert experiment.describe(bi) == (
        "bidirectional GRU encoder (H = 16 per direction, D = 32) + GRU decoder, additive attention"
    )
    with pytest.raises(ValueError, match="even D"):
        experiment.build("gru-none", 33, bidirectional=True)


@pytest.mark.slow  # trains a model or starts a Python process
def test_a_tiny_seeded_training_without_attention_already_fails_on_long_strings():
    """Not the shipped file: a fresh model trained here for a few seconds shows the same fall."""
    model = experiment.build("gru-none", 16, seed=0)
    live = dataclasses.replace(experiment.train_config("gru-none", steps=250), lr=live_training.LIVE_LR)
    result = experiment.train_model(model, live)  # a live run's recipe
    assert result.steps == 250
    acc = scoring.evaluate_by_length(model.eval(), scoring.scored_batch(30))
    assert scoring.mean_over(acc, (2, 3)) >= 0.3  # it learned to copy short strings…
    assert scoring.mean_over(acc, range(8, experiment.MAX_LEN + 1)) <= 0.02  # …and not long ones
    assert acc.token_accuracy[0] > acc.token_accuracy[-1] + 0.3
