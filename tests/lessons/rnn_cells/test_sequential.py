"""Section 6: the three layers timed, the sentence and chart computed from the timings, the steps in a row."""

import pytest
import torch

from lessons import rnn_cells
from lessons.rnn_cells import sequential


def test_the_three_layers_map_a_sequence_to_a_sequence_and_the_rnn_is_torchs():
    x = torch.randn(2, 5, 16)
    for name, fn in sequential.layers(16).items():
        assert fn(x).shape == (2, 5, 16), name
    rnn_out = sequential.layers(16)[sequential.RNN_NAME](x)
    assert torch.allclose(
        rnn_out[:, :3], sequential.layers(16)[sequential.RNN_NAME](x[:, :3])
    )  # step t reads only steps ≤ t


def test_measure_sequential_times_every_layer_at_every_length():
    timing = sequential.measure_sequential((4, 16), budget=0.002)
    assert timing.lengths == (4, 16) and set(timing.ms) == set(sequential.LAYERS)
    assert all(len(r) == 5 and all(v > 0 for v in r) for values in timing.ms.values() for r in values)
    assert timing.at(sequential.RNN_NAME, 16) == sorted(timing.samples(sequential.RNN_NAME, 16))[2]  # the median
    with pytest.raises(ValueError):
        sequential.measure_sequential((0,))


def made(rnn, ff, att, lengths=(8, 512), jitter=0.05) -> sequential.Timing:
    """Five repeats per figure, spread ± ``jitter`` (a share) around the given median."""
    repeats = lambda values: tuple(tuple(v * (1 + jitter * k) for k in (-2, -1, 0, 1, 2)) for v in values)  # noqa: E731
    return sequential.Timing(
        lengths,
        {sequential.RNN_NAME: repeats(rnn), sequential.FEED_FORWARD: repeats(ff), sequential.ATTENTION: repeats(att)},
        8,
        64,
        1,
    )


def test_the_timing_sentence_is_computed_and_flips_with_the_numbers():
    slow_rnn = sequential.timing_summary(made((0.05, 3.2), (0.01, 0.4), (0.01, 8.0)))
    assert "the RNN's median time grew 64×" in slow_rnn and "8.0× as long as the feed-forward network" in slow_rnn
    assert "took 8 ms (median of 5 on this server: 7.2–8.8 ms), 2.5× as long as the RNN" in slow_rnn
    assert "the RNN took 3.2 ms (median of 5 on this server: 2.88–3.52 ms)" in slow_rnn
    fast_rnn = sequential.timing_summary(made((0.01, 0.4), (0.05, 3.2), (0.01, 0.1)))
    assert "0.12× as long as the feed-forward network" in fast_rnn and "0.25× as long as the RNN" in fast_rnn
    even = sequential.timing_summary(made((0.01, 1.0), (0.01, 1.1), (0.01, 1.0)))
    assert "about as long as (their repeats overlap) the feed-forward network" in even
    noisy = sequential.timing_summary(
        made((0.05, 3.2), (0.01, 2.0), (0.01, 8.0), jitter=0.25)
    )  # 1.6× apart, overlapping
    assert "1.6× as long as" not in noisy and "about as long as (their repeats overlap) the feed-forward" in noisy


def test_the_timing_chart_is_log_log_one_line_per_layer():
    spec = sequential.timing_chart(made((0.05, 3.2), (0.01, 0.4), (0.01, 8.0)))
    assert spec["encoding"]["x"]["scale"] == {"type": "log"}
    assert {r["label"] for r in spec["data"]["values"]} == set(sequential.LAYERS)
    assert spec["encoding"]["color"]["scale"]["range"] == [sequential.COLORS[name] for name in sequential.LAYERS]


def test_steps_in_a_row_follow_the_grid_of_layers_and_steps():
    assert [sequential.steps_in_a_row(t, 1) for t in (1, 5, 30)] == [1, 5, 30]  # one layer: T steps in a row
    assert sequential.steps_in_a_row(30, 2) == 31 and sequential.steps_in_a_row(5, 3) == 7  # a wavefront: T + L − 1
    assert sequential.steps_in_a_row(500, 2, recurrent=False) == 2  # self-attention: its layers, whatever T
    ex = next(e for e in rnn_cells.exercises() if e.key == "rnn_cells.ex6")
    assert ex.answer == sequential.steps_in_a_row(*sequential.STEPS_EXERCISE.values()) and not ex.check(60).correct


def test_the_chains_are_counted_from_the_graphs_and_only_the_rnns_grows_with_t():
    chains = sequential.chain_lengths((3, 7), size=8)
    assert chains[sequential.RNN_NAME] == (3, 7)  # one product W_aa a⟨t−1⟩ per step, each waiting for the last
    assert chains[sequential.FEED_FORWARD] == (2, 2) and chains[sequential.ATTENTION] == (2, 2)
    text = sequential.chain_sentence(chains, (3, 7))
    assert "RNN: 3 at T = 3, 7 at T = 7 (growing with T)" in text
    assert "feed-forward, 2 layers: 2 at T = 3, 2 at T = 7 (the same at every T)" in text
    swapped = {sequential.RNN_NAME: (2, 2), sequential.FEED_FORWARD: (3, 7), sequential.ATTENTION: (2, 2)}
    text = sequential.chain_sentence(swapped, (3, 7))
    assert "RNN: 2 at T = 3, 2 at T = 7 (the same at every T)" in text and "(growing with T)" in text
