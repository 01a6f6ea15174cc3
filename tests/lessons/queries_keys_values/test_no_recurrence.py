"""The Q/K/V lesson's sections 1 (words as vectors) and 6 (why no recurrence): the counts come from the models'
graphs, the embedding statistics from the shipped tables, and every sentence follows the numbers it describes."""

import dataclasses
import math

import numpy as np
import pytest
import torch

from lessons import queries_keys_values as qkv
from lessons.common.pretrained import load_pretrained

GRU, ATT = qkv.GRU_ENCODER, qkv.SELF_ATTENTION


# --- 6. Why no recurrence -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def models():
    return qkv.recurrence_models(width=16, vocab=50)


def test_the_stepped_gru_is_the_encoder_it_counts(models):
    source = torch.randint(4, 50, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(models.gru_stepped(source), models.gru(source), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("T", [1, 5, 17, 64])
def test_a_gru_needs_t_products_in_a_row_and_self_attention_three(models, T):
    steps = qkv.sequential_steps(models, T)
    assert steps == {GRU: T, ATT: 3}  # X W^Q, then QKᵀ, then αV, whatever T


def test_the_count_follows_what_each_step_reads(models):
    T = 12
    assert qkv.sequential_steps(models, T, bidirectional=True)[GRU] == T  # the two passes run side by side
    assert qkv.sequential_steps(models, T, layers=2)[GRU] == T + 1  # a wavefront, one step behind
    assert qkv.sequential_steps(models, T, layers=3)[GRU] == T + 2
    assert qkv.sequential_steps(models, T, layers=2, bidirectional=True)[GRU] == 2 * T  # layer 2 waits for all of 1


def test_the_chain_counts_only_products_that_wait_for_each_other():
    x = torch.randn(4, 4, requires_grad=True)
    W = torch.randn(4, 4)
    assert qkv.matrix_product_chain(x @ W + x @ W.T) == 1  # two products side by side
    assert qkv.matrix_product_chain(((x @ W) @ W) @ W) == 3
    assert qkv.matrix_product_chain(torch.tanh(x @ W).exp() @ W) == 2


def test_multiply_adds_from_the_shapes(models):
    d, T = 16, 10
    assert qkv.multiply_adds(models, T) == {GRU: T * (3 * d * d + 3 * d * d), ATT: 3 * T * d * d + 2 * T * T * d}


def test_measure_recurrence_times_and_counts_every_length():
    timing = qkv.measure_recurrence((4, 8), batch=2, width=8, budget=0.001, repeats=2)
    assert timing.lengths == (4, 8) and timing.batch == 2 and timing.width == 8
    for name in (GRU, ATT):
        assert [len(r) for r in timing.ms[name]] == [2, 2] and all(v > 0 for r in timing.ms[name] for v in r)
    assert timing.steps == {GRU: (4, 8), ATT: (3, 3)}
    rows = qkv.recurrence_rows(timing)
    assert [r["T"] for r in rows] == [4, 8] and rows[1]["GRU steps"] == 8
    assert rows[0]["GRU ms"] == min(timing.ms[GRU][0])
    with pytest.raises(ValueError, match="lengths"):
        qkv.measure_recurrence((0,))


def _timing(gru_ms, att_ms, lengths=(8, 64, 512)):
    d = 64
    return qkv.RecurrenceTiming(
        lengths=lengths,
        ms={GRU: tuple((v, v * 1.1) for v in gru_ms), ATT: tuple((v * 1.2, v) for v in att_ms)},
        steps={GRU: lengths, ATT: (3,) * len(lengths)},
        work={GRU: tuple(6 * t * d * d for t in lengths), ATT: tuple(3 * t * d * d + 2 * t * t * d for t in lengths)},
        batch=8, width=d, threads=1, seconds=1.0,
    )  # fmt: skip


def test_the_recurrence_sentence_says_who_was_faster_from_the_numbers():
    faster = qkv.recurrence_sentence(_timing((0.1, 1.0, 8.0), (0.05, 0.5, 4.0)))
    assert "self-attention was faster at every length measured" in faster
    slower = qkv.recurrence_sentence(_timing((0.05, 0.5, 4.0), (0.1, 1.0, 8.0)))  # the same numbers swapped
    assert "the GRU was faster at every length measured" in slower
    crossing = qkv.recurrence_sentence(_timing((0.1, 1.0, 4.0), (0.05, 0.5, 8.0)))
    assert "self-attention was faster at T = 8, 64 and slower at T = 512" in crossing
    assert "(its time was 0.50× the GRU's at T = 8, 2.00× at T = 512)" in crossing
    assert "the GRU's time grew as T^0.7 and self-attention's as T^1.3" in crossing  # ×4 and ×16 over 8× the length
    assert "512 at T = 512; self-attention's stays at 3 whatever T" in crossing


def test_the_recurrence_sentence_reads_the_arithmetic():
    long = qkv.recurrence_sentence(_timing((0.1, 1.0, 8.0), (0.05, 0.5, 4.0)))
    assert "not less arithmetic (at T = 512 it does 3.2× the GRU's multiply-adds" in long
    short = qkv.recurrence_sentence(_timing((0.1, 1.0), (0.05, 0.5), lengths=(8, 16)))
    assert "even does less arithmetic" in short and "not less arithmetic" not in short


# --- 1. Words as vectors ------------------------------------------------------------------------------------------


def test_neighbour_share_finds_clusters_and_not_shuffled_labels():
    rng = np.random.default_rng(0)
    centres = np.eye(4)[:2] * 10
    X = np.concatenate([c + rng.normal(size=(20, 4)) for c in centres])
    labels = ["a"] * 20 + ["b"] * 20
    clustered = qkv.neighbour_share(X, labels, k=5, shuffles=200)
    assert clustered.share == 1.0 and clustered.above_chance and clustered.reached == 0
    assert 0.4 < clustered.chance < 0.55
    noise = qkv.neighbour_share(rng.normal(size=(40, 4)), labels, k=5, shuffles=200)
    assert not noise.above_chance


def test_pca_keeps_the_plane_of_most_variance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)) * np.array([10.0, 5.0, 0.1, 0.1, 0.1]) + 3.0
    coords, kept = qkv.pca_2d(X)
    assert coords.shape == (200, 2) and kept > 0.99
    np.testing.assert_allclose(coords.mean(axis=0), 0, atol=1e-9)
    np.testing.assert_allclose(np.abs(coords[:, 0]), np.abs(X[:, 0] - X[:, 0].mean()), atol=0.5)


@pytest.fixture(scope="module")
def shipped():
    return qkv.shipped_embedding_map()


def test_the_map_reads_both_tables_of_the_shipped_model(shipped):
    model, meta = load_pretrained(*qkv.EMBEDDING_MODEL)
    assert shipped.vocab_size == meta["tokenizers"]["source"]["vocab_size"] and shipped.dim == 32
    gender = shipped.views["trained", "French gender (nouns)"]
    assert set(gender.labels) == {"masculine", "feminine"}
    assert (
        gender.labels[gender.words.index("car")] == "feminine"
        and gender.labels[gender.words.index("dog")] == "masculine"
    )
    words = shipped.views["trained", "word class"]
    assert words.labels[words.words.index("eats")] == "verb" and words.labels[words.words.index("Paris")] == "place"
    assert gender.words == shipped.views["before training", "French gender (nouns)"].words
    assert not np.allclose(gender.coords, shipped.views["before training", "French gender (nouns)"].coords)


def test_before_training_is_the_trainers_own_initial_table():
    from minimodels.tasks import get_task
    from minimodels.train.models import build_model

    model, meta = load_pretrained(*qkv.EMBEDDING_MODEL)
    again = build_model(meta["model"], get_task(meta["task"]), seed=meta["seed"], bidirectional=True)
    rebuilt = qkv.embedding_map(model, meta)
    vectors = again.source_embedding.weight.detach().double().numpy()
    view = rebuilt.views["before training", "French gender (nouns)"]
    pieces = meta["tokenizers"]["source"]["pieces"]
    coords, _ = qkv.pca_2d(vectors[[pieces.index("▁" + w) for w in view.words]])
    np.testing.assert_allclose(coords, view.coords)


def test_the_embedding_sentence_follows_the_shares(shipped):
    prop = "French gender (nouns)"
    a = shipped.views["trained", prop].neighbours
    b = shipped.views["before training", prop].neighbours
    sentence = qkv.embedding_sentence(shipped, prop)
    assert f"**{a.share:.0%} share its French gender** after training" in sentence
    direction = "raised" if a.share > b.share else "lowered"
    assert f"training {direction} it by" in sentence
    views = dict(shipped.views)
    views["trained", prop], views["before training", prop] = views["before training", prop], views["trained", prop]
    swapped = qkv.embedding_sentence(dataclasses.replace(shipped, views=views), prop)
    assert f"training {'lowered' if direction == 'raised' else 'raised'} it by" in swapped
    above = "above chance (" + f"{a.chance:.0%}"
    assert (above in sentence) == a.above_chance


def test_the_one_hot_count_is_computed_for_the_model(shipped):
    sentence = qkv.one_hot_sentence(shipped)
    V, d = shipped.vocab_size, shipped.dim
    assert f"{V:,} × {V:,} table of {V * V:,} numbers" in sentence and f"{V:,} × {d} = {V * d:,} numbers" in sentence
    assert "100,000,000 against 3,000,000" in sentence  # the lecture's 10,000 words and 300 features


def test_the_embedding_figure_draws_the_view(shipped):
    fig = qkv.embedding_figure(shipped, "word class", "before training")
    view = shipped.views["before training", "word class"]
    assert sum(len(trace.x) for trace in fig.data) == len(view.words)
    verbs = next(trace for trace in fig.data if trace.name == "verb")
    assert set(verbs.text) == {w for w, label in zip(view.words, view.labels, strict=True) if label == "verb"}


# --- the new exercises -------------------------------------------------------------------------------------------


def test_the_new_exercises_answer_from_the_models():
    by_key = {ex.key: ex for ex in qkv.exercises()}
    one_hot = by_key["queries_keys_values.one_hot"]
    n = qkv.EXERCISE_ONE_HOT
    assert one_hot.answer == pytest.approx(math.e / (math.e + n - 1))
    bi = by_key["queries_keys_values.bidirectional"]
    assert bi.choices[bi.answer] == str(qkv.EXERCISE_BIDIRECTIONAL)
    stacked = by_key["queries_keys_values.stacked"]
    assert stacked.choices[stacked.answer] == str(qkv.EXERCISE_STACKED + 1)
    assert f"{2 * qkv.EXERCISE_STACKED}" in stacked.explanation
    assert len(by_key) >= 3 and all(ex.explanation for ex in by_key.values())
