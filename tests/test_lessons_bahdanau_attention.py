"""The Bahdanau lesson's numbers: α rows, context vectors, beam rows, the forced step, the exercises."""

import numpy as np
import pytest
import torch

from lessons import bahdanau_attention as bahdanau
from lessons.common.pretrained import load_pretrained
from minimodels.decode import translate
from minimodels.tasks import get_task
from minimodels.tokenizers import EOS_ID

IT = "toy-translation-it"


@pytest.fixture(scope="module")
def model():
    shipped, _ = load_pretrained(IT, bahdanau.MODEL)
    return shipped


@pytest.fixture(scope="module")
def task():
    return get_task(IT)


@pytest.fixture(scope="module")
def pizza(model, task):
    return bahdanau.decode(model, task, "I like pizza")


def test_alpha_rows_are_distributions_over_the_source(pizza):
    T, S = len(pizza.target), len(pizza.source)
    assert pizza.weights.shape == (T, S) and pizza.contexts.shape[0] == T
    np.testing.assert_allclose(pizza.weights.sum(axis=1), np.ones(T), atol=1e-5)
    assert (pizza.weights >= 0).all()
    assert pizza.source[-1] == "</s>"


def test_the_lecture_sentence_becomes_mi_piace_la_pizza(pizza, model, task):
    assert pizza.translation.text == translate(model, task, "I like pizza").text
    assert "pizza" in pizza.translation.text and "piace" in pizza.translation.text


def test_context_is_the_alpha_weighted_sum_of_the_encoder_states(pizza, model, task):
    ids = [*task.encode_source("I like pizza").ids, EOS_ID]
    with torch.inference_mode():
        states = model.encode(torch.tensor([ids]), torch.tensor([len(ids)])).states[0].numpy()  # (S, D)
    assert pizza.contexts.shape == (len(pizza.target), states.shape[1])
    for t in range(len(pizza.target)):
        expected = sum(pizza.weights[t, s] * states[s] for s in range(len(ids)))
        np.testing.assert_allclose(pizza.contexts[t], expected, atol=1e-5)


def test_most_attended_is_the_argmax_of_the_row(pizza):
    for t in range(len(pizza.target)):
        assert bahdanau.most_attended(pizza, t) == pizza.source[int(np.argmax(pizza.weights[t]))]


def test_unknown_words_are_marked_and_long_text_is_cut_with_a_message(model, task):
    unknown = bahdanau.decode(model, task, "I like 🙂")
    assert "<unk>" in unknown.source and "unknown" in unknown.translation.message
    long = bahdanau.decode(model, task, "I like pizza " * 200)
    assert "too long" in long.translation.message
    assert len(long.source) <= task.max_source_len + 1


@pytest.mark.parametrize("empty", ["", "   ", "\n\t"])
def test_empty_text_gets_a_message_not_a_decoding(model, task, empty):
    result = bahdanau.decode(model, task, empty)
    assert isinstance(result, str) and result


@pytest.mark.parametrize("width", range(1, bahdanau.MAX_BEAM + 1))
def test_beam_rows_are_the_hypotheses_best_first(model, task, width):
    result = bahdanau.decode(model, task, "I like pizza", method="beam", width=width)
    rows = bahdanau.beam_rows(result, task)
    assert 1 <= len(rows) <= width
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    scores = [r["log p(y | x)"] for r in rows]
    assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)
    assert rows[0]["output"] == result.translation.text
    if width == 1:
        assert rows[0]["output"] == bahdanau.decode(model, task, "I like pizza").translation.text  # width 1: greedy


def test_greedy_has_no_beam_rows(pizza, task):
    assert bahdanau.beam_rows(pizza, task) == []


def test_forcing_one_step_makes_its_row_one_hot_and_leaves_earlier_rows(pizza, model, task):
    step, source_index = 1, 0
    forced = bahdanau.decode(model, task, "I like pizza", force=(step, source_index))
    expected = np.zeros(len(forced.source))
    expected[source_index] = 1.0
    np.testing.assert_array_equal(forced.weights[step], expected)
    np.testing.assert_allclose(forced.weights[:step], pizza.weights[:step], atol=1e-6)


def test_additive_parameter_count_is_2AD_plus_2A(model):
    D, A = model.config.decoder_size, model.config.attention_size
    assert bahdanau.additive_parameters(model) == 2 * A * D + 2 * A


def test_exercise_answers_are_read_off_the_model(model, task, pizza):
    by_key = {ex.key: ex for ex in bahdanau.exercises(model)}
    pizza_step = next(t for t, piece in enumerate(pizza.target) if "pizza" in piece)
    looked_at = bahdanau.most_attended(pizza, pizza_step)
    ex1 = by_key["bahdanau_attention.ex1"]
    assert ex1.check(ex1.choices.index(looked_at)).correct
    assert not ex1.check((ex1.choices.index(looked_at) + 1) % len(ex1.choices)).correct
    D, A = model.config.decoder_size, model.config.attention_size
    assert by_key["bahdanau_attention.ex2"].check(2 * A * D + 2 * A).correct
    assert not by_key["bahdanau_attention.ex2"].check(2 * A * D).correct
    assert by_key["bahdanau_attention.ex3"].check(0).correct
