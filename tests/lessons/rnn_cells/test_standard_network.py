"""Section 2: parameters against length, counted by torch, and sharing across positions, trained and computed."""

import pytest
import torch
from torch import nn

from lessons.common.runs import Spread
from lessons.rnn_cells import standard_network


def test_parameter_counts_are_torchs_own_and_only_the_window_grows_with_t():
    rows = standard_network.parameter_counts([1, 20, 200])
    assert [r["window network"] for r in rows] == [
        t * standard_network.EMBED * standard_network.HIDDEN + standard_network.HIDDEN for t in (1, 20, 200)
    ]
    rnn = nn.RNN(standard_network.EMBED, standard_network.HIDDEN)
    assert {r["RNN"] for r in rows} == {sum(p.numel() for p in rnn.parameters())}
    with pytest.raises(ValueError):
        standard_network.parameter_counts([0])


def test_counts_text_and_chart_follow_the_students_t():
    text = standard_network.counts_text(30)
    assert (
        f"**{30 * standard_network.EMBED * standard_network.HIDDEN + standard_network.HIDDEN:,}**" in text
        and "31 words does not fit" in text
    )
    assert f"adds {standard_network.EMBED * standard_network.HIDDEN:,}" in text
    spec = standard_network.counts_chart([1, 30, 200])
    assert spec["encoding"]["x"]["scale"] == {"type": "log"}
    rows = spec["data"]["values"]
    assert {(r["label"], r["x"]) for r in rows} == {(m, t) for m in standard_network.MODELS for t in (1.0, 30.0, 200.0)}


def test_tag_batches_put_one_name_at_the_asked_positions():
    x, tags, where = standard_network.tag_batch(200, standard_network.UNSEEN, torch.Generator().manual_seed(0))
    assert x.shape == tags.shape == (200, standard_network.LENGTH)
    assert (tags.sum(1) == 1).all() and set(where.tolist()) <= set(standard_network.UNSEEN)
    assert (tags[torch.arange(200), where] == 1).all()


@pytest.fixture(scope="module")
def demo():
    return standard_network.sharing_demo()


def test_the_window_network_misses_names_where_it_never_saw_one_and_the_rnn_does_not(rule_on_made_up_seeds, demo):
    """The lecture's "no learned feature sharing", measured on 3 seeds: the section's point in its own numbers."""
    for model in standard_network.MODELS:
        assert demo.found[model]["seen"].min >= 0.95  # both learned the task where they trained
    assert demo.found["window network"]["unseen"].max <= 0.1
    assert demo.found["RNN"]["unseen"].min >= 0.9
    assert demo.found["RNN"]["unseen"].n == 3
    assert standard_network.sharing_summary(demo).startswith("At positions it never saw a name, the RNN finds")


def test_the_sharing_sentence_flips_with_the_numbers(rule_on_made_up_seeds, demo):
    swapped = standard_network.SharingDemo(
        {"RNN": demo.found["window network"], "window network": demo.found["RNN"]}, demo.probe, demo.seeds
    )
    assert "the window network finds more than the RNN" in standard_network.sharing_summary(swapped)
    close = {"seen": Spread((1.0, 1.0)), "unseen": Spread((0.5, 0.6, 0.4))}
    tied = standard_network.SharingDemo({"RNN": close, "window network": close}, demo.probe, demo.seeds)
    assert "too close to call" in standard_network.sharing_summary(tied)


def test_the_table_says_mean_sd_and_n(demo):
    rows = standard_network.sharing_rows(demo)
    assert [r["model"] for r in rows] == list(standard_network.MODELS)
    assert all("(n = 3)" in v for r in rows for k, v in r.items() if k != "model")


def test_probe_options_read_the_two_names():
    harry, hermione = standard_network.PROBE.index("Harry"), standard_network.PROBE.index("Hermione")
    tags = [False] * standard_network.LENGTH
    assert standard_network.probe_option(tags) == 3
    tags[harry] = True
    assert standard_network.PROBE_OPTIONS[standard_network.probe_option(tags)].startswith("only Harry")
    tags[hermione] = True
    assert standard_network.probe_option(tags) == 0


def test_exercise_3_is_not_the_size_the_page_counts():
    assert (standard_network.EXERCISE_SIZES["E"], standard_network.EXERCISE_SIZES["H"]) != (
        standard_network.EMBED,
        standard_network.HIDDEN,
    )
