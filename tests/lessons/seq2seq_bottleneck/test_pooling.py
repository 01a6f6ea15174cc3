"""Section 4: both pools by hand, bad input refused, the mean-pooled model, and the computed comparison."""

import numpy as np
import pytest
import torch

from lessons.seq2seq_bottleneck import experiment, pooling, scoring
from tests.lessons.seq2seq_bottleneck.test_where_it_breaks import FALLS, HOLDS, shipped_like


def test_pooling_is_the_lectures_weighted_sum_and_the_mean_is_its_equal_weights_case():
    states = pooling.parse_states(pooling.DEFAULT_STATES).values
    (weights,) = pooling.parse_weights(pooling.LECTURE_WEIGHTS).values
    assert weights == pytest.approx((0.60, 0.35, 0.05))
    result = pooling.pool(states, weights)
    np.testing.assert_allclose(
        result.attended, 0.60 * np.array(states[0]) + 0.35 * np.array(states[1]) + 0.05 * np.array(states[2])
    )
    np.testing.assert_allclose(pooling.pool(states, (1 / 3,) * 3).attended, result.mean)
    text = pooling.pooling_text(result)
    assert "0.60\\,h_{I}" in text and f"({result.attended[0]:.2f}, {result.attended[1]:.2f})" in text
    fig = pooling.pooling_figure(result)
    assert [t.name for t in fig.data] == ["states hᵢ", "mean pooling", "attention Σ p(i|g) hᵢ"]
    assert list(fig.data[2].x) == [pytest.approx(result.attended[0])]


@pytest.mark.parametrize(
    "bad",
    ["", None, "1 0; 0 1", "1 0; 0 1; 1", "a b; c d; e f", "1 0; 0 1; 1 1; 2 2", "1e9 0; 0 1; 1 1", "nan 0; 0 1; 1 1"],
)
def test_unusable_states_are_refused_with_a_message(bad):
    parsed = pooling.parse_states(bad)
    assert parsed.values == () and parsed.error


@pytest.mark.parametrize("bad", ["", None, "60, 40", "a, b, c", "-10, 60, 50", "0, 0, 0", "inf, 1, 1"])
def test_unusable_weights_are_refused_with_a_message(bad):
    parsed = pooling.parse_weights(bad)
    assert parsed.values == () and parsed.error


def test_weights_that_do_not_add_up_are_scaled_with_a_note():
    parsed = pooling.parse_weights("2, 1, 1")
    assert parsed.values == ((0.5, 0.25, 0.25),) and "add up to 4%" in parsed.note and parsed.error is None


def test_the_hand_computed_states_are_not_the_pages_defaults():
    """The pooling exercise would be read off the page if it used the figure's own states."""
    shown = pooling.parse_states(pooling.DEFAULT_STATES).values
    assert tuple(map(tuple, shown)) != pooling.EXERCISE_STATES


def test_the_mean_pooled_model_starts_as_the_last_state_model_and_hands_on_the_mean_of_the_states():
    pooled, last = experiment.build("gru-mean", 16, seed=4), experiment.build("gru-none", 16, seed=4)
    for (key, a), b in zip(pooled.state_dict().items(), last.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b, msg=key)  # the same initial weights: only the context differs
    batch = scoring.scored_batch(1)
    memory = pooled.encode(batch.source, batch.source_lengths)
    for row, n in enumerate(batch.source_lengths.tolist()):
        torch.testing.assert_close(memory.context[row], memory.states[row, :n].mean(0))  # padding left out
    assert "the mean of the states" in experiment.describe(pooled)
    assert experiment.train_config("gru-mean") == experiment.train_config("gru-none")
    assert scoring.copy_text(pooled.eval(), "ab") is not None  # greedy decoding drives it


def test_the_pooling_summary_is_computed_and_flips_with_the_numbers(rule_on_made_up_seeds):
    mid = [1.0, 1.0, 1.0, 0.95, 0.9, 0.8, 0.6, 0.4, 0.2, 0.1] + [0.0] * 7
    text = pooling.pooling_summary(shipped_like(FALLS, HOLDS, mean=mid))
    assert text.startswith("At D = 64: Mean-pooled context beats without attention on exact match over strings of 2–18")
    assert "With attention beats mean-pooled context" in text
    swapped = pooling.pooling_summary(shipped_like(mid, FALLS, mean=FALLS))
    assert "Mean-pooled context does not beat without attention" in swapped
    assert "With attention and mean-pooled context are too close to call" in swapped
    assert "no mean-pooled model" in pooling.pooling_summary(shipped_like(FALLS, HOLDS))
