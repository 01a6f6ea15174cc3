"""The RNN-cells lesson's sections on standard networks (sizes, sharing) and on the RNN's sequential cost."""

import pytest
import torch
from torch import nn

from lessons.common.comparison import Spread
from lessons.rnn_cells import sequential as tm
from lessons.rnn_cells import standard_network as sq


# --- sizes ----------------------------------------------------------------------------------------------------
def test_parameter_counts_are_torchs_own_and_only_the_window_grows_with_t():
    rows = sq.parameter_counts([1, 20, 200])
    assert [r["window network"] for r in rows] == [t * sq.EMBED * sq.HIDDEN + sq.HIDDEN for t in (1, 20, 200)]
    rnn = nn.RNN(sq.EMBED, sq.HIDDEN)
    assert {r["RNN"] for r in rows} == {sum(p.numel() for p in rnn.parameters())}
    with pytest.raises(ValueError):
        sq.parameter_counts([0])


def test_counts_text_and_chart_follow_the_students_t():
    text = sq.counts_text(30)
    assert f"**{30 * sq.EMBED * sq.HIDDEN + sq.HIDDEN:,}**" in text and "31 words does not fit" in text
    assert f"adds {sq.EMBED * sq.HIDDEN:,}" in text
    spec = sq.counts_chart([1, 30, 200])
    assert spec["encoding"]["x"]["scale"] == {"type": "log"}
    rows = spec["data"]["values"]
    assert {(r["label"], r["x"]) for r in rows} == {(m, t) for m in sq.MODELS for t in (1.0, 30.0, 200.0)}


# --- sharing ----------------------------------------------------------------------------------------------------
def test_tag_batches_put_one_name_at_the_asked_positions():
    x, tags, where = sq.tag_batch(200, sq.UNSEEN, torch.Generator().manual_seed(0))
    assert x.shape == tags.shape == (200, sq.LENGTH)
    assert (tags.sum(1) == 1).all() and set(where.tolist()) <= set(sq.UNSEEN)
    assert (tags[torch.arange(200), where] == 1).all()


@pytest.fixture(scope="module")
def demo():
    return sq.sharing_demo()


def test_the_window_network_misses_names_where_it_never_saw_one_and_the_rnn_does_not(demo):
    """The lecture's "no learned feature sharing", measured on 3 seeds: the section's point in its own numbers."""
    for model in sq.MODELS:
        assert demo.found[model]["seen"].min >= 0.95  # both learned the task where they trained
    assert demo.found["window network"]["unseen"].max <= 0.1
    assert demo.found["RNN"]["unseen"].min >= 0.9
    assert demo.found["RNN"]["unseen"].n == 3
    assert sq.sharing_summary(demo).startswith("At positions it never saw a name, the RNN finds")


def test_the_sharing_sentence_flips_with_the_numbers(demo):
    swapped = sq.SharingDemo(
        {"RNN": demo.found["window network"], "window network": demo.found["RNN"]}, demo.probe, demo.seeds
    )
    assert "the window network finds more than the RNN" in sq.sharing_summary(swapped)
    close = {"seen": Spread((1.0, 1.0)), "unseen": Spread((0.5, 0.6, 0.4))}
    tied = sq.SharingDemo({"RNN": close, "window network": close}, demo.probe, demo.seeds)
    assert "too close to call" in sq.sharing_summary(tied)


def test_the_table_says_mean_sd_and_n(demo):
    rows = sq.sharing_rows(demo)
    assert [r["model"] for r in rows] == list(sq.MODELS)
    assert all("(n = 3)" in v for r in rows for k, v in r.items() if k != "model")


def test_probe_options_read_the_two_names():
    harry, hermione = sq.PROBE.index("Harry"), sq.PROBE.index("Hermione")
    tags = [False] * sq.LENGTH
    assert sq.probe_option(tags) == 3
    tags[harry] = True
    assert sq.PROBE_OPTIONS[sq.probe_option(tags)].startswith("only Harry")
    tags[hermione] = True
    assert sq.probe_option(tags) == 0


# --- timing -----------------------------------------------------------------------------------------------------
def test_the_three_layers_map_a_sequence_to_a_sequence_and_the_rnn_is_torchs():
    x = torch.randn(2, 5, 16)
    for name, fn in tm.layers(16).items():
        assert fn(x).shape == (2, 5, 16), name
    rnn_out = tm.layers(16)[tm.RNN_NAME](x)
    assert torch.allclose(rnn_out[:, :3], tm.layers(16)[tm.RNN_NAME](x[:, :3]))  # step t reads only steps ≤ t


def test_measure_sequential_times_every_layer_at_every_length():
    timing = tm.measure_sequential((4, 16), budget=0.002)
    assert timing.lengths == (4, 16) and set(timing.ms) == set(tm.LAYERS)
    assert all(v > 0 for values in timing.ms.values() for v in values)
    with pytest.raises(ValueError):
        tm.measure_sequential((0,))


def made(rnn, ff, att, lengths=(8, 512)) -> tm.Timing:
    return tm.Timing(lengths, {tm.RNN_NAME: rnn, tm.FEED_FORWARD: ff, tm.ATTENTION: att}, 8, 64, 1)


def test_the_timing_sentence_is_computed_and_flips_with_the_numbers():
    slow_rnn = tm.timing_summary(made((0.05, 3.2), (0.01, 0.4), (0.01, 8.0)))
    assert "the RNN's time grew 64×" in slow_rnn and "8.0× as long as the feed-forward network" in slow_rnn
    assert "self-attention (lesson 5) took 8 ms, 2.5× as long as the RNN" in slow_rnn
    fast_rnn = tm.timing_summary(made((0.01, 0.4), (0.05, 3.2), (0.01, 0.1)))
    assert "0.12× as long as the feed-forward network" in fast_rnn and "0.25× as long as the RNN" in fast_rnn
    even = tm.timing_summary(made((0.01, 1.0), (0.01, 1.1), (0.01, 1.0)))
    assert "about as long as the feed-forward network" in even


def test_the_timing_chart_is_log_log_one_line_per_layer():
    spec = tm.timing_chart(made((0.05, 3.2), (0.01, 0.4), (0.01, 8.0)))
    assert spec["encoding"]["x"]["scale"] == {"type": "log"}
    assert {r["label"] for r in spec["data"]["values"]} == set(tm.LAYERS)
    assert spec["encoding"]["color"]["scale"]["range"] == [tm.COLORS[name] for name in tm.LAYERS]
