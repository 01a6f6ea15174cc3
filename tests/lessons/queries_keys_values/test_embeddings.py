"""The Q/K/V lesson's words as vectors: the embedding statistics come from the shipped tables (trained and as the
trainer built it), and every sentence follows the numbers it describes."""

import dataclasses

import numpy as np
import pytest

from lessons.common.pretrained import load_pretrained
from lessons.queries_keys_values import embeddings


def test_neighbour_share_finds_clusters_and_not_shuffled_labels():
    rng = np.random.default_rng(0)
    centres = np.eye(4)[:2] * 10
    X = np.concatenate([c + rng.normal(size=(20, 4)) for c in centres])
    labels = ["a"] * 20 + ["b"] * 20
    clustered = embeddings.neighbour_share(X, labels, k=5, shuffles=200)
    assert clustered.share == 1.0 and clustered.above_chance and clustered.reached == 0
    assert 0.4 < clustered.chance < 0.55
    noise = embeddings.neighbour_share(rng.normal(size=(40, 4)), labels, k=5, shuffles=200)
    assert not noise.above_chance


def test_pca_keeps_the_plane_of_most_variance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)) * np.array([10.0, 5.0, 0.1, 0.1, 0.1]) + 3.0
    coords, kept = embeddings.pca_2d(X)
    assert coords.shape == (200, 2) and kept > 0.99
    np.testing.assert_allclose(coords.mean(axis=0), 0, atol=1e-9)
    np.testing.assert_allclose(np.abs(coords[:, 0]), np.abs(X[:, 0] - X[:, 0].mean()), atol=0.5)


@pytest.fixture(scope="module")
def shipped():
    return embeddings.shipped_embedding_map()


def test_the_map_reads_both_tables_of_the_shipped_model(shipped):
    model, meta = load_pretrained(*embeddings.EMBEDDING_MODEL)
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

    model, meta = load_pretrained(*embeddings.EMBEDDING_MODEL)
    again = build_model(meta["model"], get_task(meta["task"]), seed=meta["seed"], bidirectional=True)
    rebuilt = embeddings.embedding_map(model, meta)
    vectors = again.source_embedding.weight.detach().double().numpy()
    view = rebuilt.views["before training", "French gender (nouns)"]
    pieces = meta["tokenizers"]["source"]["pieces"]
    coords, _ = embeddings.pca_2d(vectors[[pieces.index("▁" + w) for w in view.words]])
    np.testing.assert_allclose(coords, view.coords)


def test_the_embedding_sentence_follows_the_shares(shipped):
    prop = "French gender (nouns)"
    a = shipped.views["trained", prop].neighbours
    b = shipped.views["before training", prop].neighbours
    sentence = embeddings.embedding_sentence(shipped, prop)
    assert f"**{a.share:.0%} share its French gender** after training" in sentence
    direction = "raised" if a.share > b.share else "lowered"
    assert f"training {direction} it by" in sentence
    views = dict(shipped.views)
    views["trained", prop], views["before training", prop] = views["before training", prop], views["trained", prop]
    swapped = embeddings.embedding_sentence(dataclasses.replace(shipped, views=views), prop)
    assert f"training {'lowered' if direction == 'raised' else 'raised'} it by" in swapped
    above = "above chance (" + f"{a.chance:.0%}"
    assert (above in sentence) == a.above_chance


def test_the_one_hot_count_is_computed_for_the_model(shipped):
    sentence = embeddings.one_hot_sentence(shipped)
    V, d = shipped.vocab_size, shipped.dim
    assert f"{V:,} × {V:,} table of {V * V:,} numbers" in sentence and f"{V:,} × {d} = {V * d:,} numbers" in sentence
    assert "100,000,000 against 3,000,000" in sentence  # the lecture's 10,000 words and 300 features


def test_the_embedding_figure_draws_the_view(shipped):
    fig = embeddings.embedding_figure(shipped, "word class", "before training")
    view = shipped.views["before training", "word class"]
    assert sum(len(trace.x) for trace in fig.data) == len(view.words)
    verbs = next(trace for trace in fig.data if trace.name == "verb")
    assert set(verbs.text) == {w for w, label in zip(view.words, view.labels, strict=True) if label == "verb"}
