"""The decoding every section reads: α rows, context vectors, messages for unusable text, the shipped model's
caption."""

import numpy as np
import pytest
import torch

from lessons.bahdanau_attention import decoding
from minimodels.decode import translate
from minimodels.tokenizers import EOS_ID


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
        assert decoding.most_attended(pizza, t) == pizza.source[int(np.argmax(pizza.weights[t]))]


def test_unknown_words_are_marked_and_long_text_is_cut_with_a_message(model, task):
    unknown = decoding.decode(model, task, "I like 🙂")
    assert "<unk>" in unknown.source and "unknown" in unknown.translation.message
    long = decoding.decode(model, task, "I like pizza " * 200)
    assert "too long" in long.translation.message
    assert len(long.source) <= task.max_source_len + 1


@pytest.mark.parametrize("empty", ["", "   ", "\n\t"])
def test_empty_text_gets_a_message_not_a_decoding(model, task, empty):
    result = decoding.decode(model, task, empty)
    assert isinstance(result, str) and result


def test_shipped_caption_is_read_off_the_model_and_its_training_record(model):
    info = {"training": {"seconds": 41.6, "steps": 1234, "exact_match": 0.97}}
    caption = decoding.shipped_caption(model, info)
    assert f"{sum(p.numel() for p in model.parameters()):,} parameters" in caption
    assert "trained 42 s (1234 steps) to 97% held-out exact match" in caption
    assert "trained 0 s (? steps) to 0% held-out" in decoding.shipped_caption(model, {})
