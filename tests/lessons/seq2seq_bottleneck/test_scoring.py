"""Scoring by source length: exact match and token accuracy per length, greedy decoding in chunks, a copy."""

import pytest
import torch

from lessons.seq2seq_bottleneck import experiment, scoring
from minimodels.tokenizers import EOS_ID, PAD_ID

A, B, C, D = 4, 5, 6, 7  # character ids (0-3 are the specials)


def test_accuracy_by_length_on_a_hand_made_example():
    source_lengths = torch.tensor([3, 3, 4, 4])  # two strings of 2 characters, two of 3 (EOS counted)
    target_out = torch.tensor(
        [
            [A, B, EOS_ID, PAD_ID],
            [A, B, EOS_ID, PAD_ID],
            [A, B, C, EOS_ID],
            [A, B, C, EOS_ID],
        ]
    )
    predicted = torch.tensor(
        [
            [A, B, EOS_ID, PAD_ID, PAD_ID],  # right
            [A, C, EOS_ID, PAD_ID, PAD_ID],  # one character wrong: 2 of 3 positions
            [A, B, EOS_ID, PAD_ID, PAD_ID],  # stops one character early: 2 of 4
            [A, B, C, D, EOS_ID],  # runs on past the end: 3 of 4
        ]
    )
    acc = scoring.accuracy_by_length(predicted, target_out, source_lengths)
    assert acc.lengths == (2, 3)
    assert acc.counts == (2, 2)
    assert acc.exact_match == (0.5, 0.0)
    assert acc.token_accuracy == pytest.approx((5 / 6, 5 / 8))


def test_accuracy_by_length_handles_a_prediction_narrower_than_the_target():
    target_out = torch.tensor([[A, B, C, EOS_ID]])
    acc = scoring.accuracy_by_length(torch.tensor([[A]]), target_out, torch.tensor([4]))
    assert acc.exact_match == (0.0,) and acc.token_accuracy == (0.25,)


def test_longest_length_above_stops_at_the_first_length_below_the_level():
    acc = scoring.LengthAccuracy((2, 3, 4, 5), (1.0, 0.6, 0.4, 0.7), (1.0, 0.9, 0.8, 0.9), (1, 1, 1, 1))
    assert scoring.longest_length_above(acc) == 3
    assert scoring.longest_length_above(acc, level=0.3) == 5
    assert scoring.longest_length_above(acc, level=1.01) == 0
    assert scoring.mean_over(acc, (2, 3)) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        scoring.mean_over(acc, (40,))


def test_evaluate_by_length_scores_greedy_output_the_same_in_any_chunks():
    model = experiment.build("gru-none", 16).eval()
    batch = scoring.scored_batch(3)
    whole = scoring.evaluate_by_length(model, batch)
    assert whole.lengths == tuple(range(experiment.MIN_LEN, experiment.MAX_LEN + 1))
    assert whole.counts == (3,) * len(whole.lengths)
    assert all(0.0 <= v <= 1.0 for v in whole.exact_match + whole.token_accuracy)
    assert scoring.evaluate_by_length(model, batch, batch_size=7) == whole  # chunks padded and joined right
    from minimodels.decode import greedy

    out = greedy(model, batch.source, batch.source_lengths, max_len=batch.target_out.size(1))
    assert scoring.accuracy_by_length(out.tokens, batch.target_out, batch.source_lengths) == whole


def test_copy_text_feeds_the_string_and_its_end_mark_to_greedy_decoding():
    from minimodels.decode import greedy

    model = experiment.build("gru-additive", 16).eval()
    task = experiment.lesson_task()
    source = torch.tensor([[*task.source_tokenizer.encode("jane"), EOS_ID]])  # (1, 5)
    out = greedy(model, source, torch.tensor([5]), max_len=2 * experiment.MAX_LEN + 2)
    assert scoring.copy_text(model, "jane") == task.target_tokenizer.decode(out.sequences()[0])
