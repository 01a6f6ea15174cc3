"""Section 3, the lecture's c⟨1⟩ as a weighted sum: Jane's translation, the rows of the sum, the sentence under it."""

import dataclasses

import numpy as np
import pytest

from lessons.bahdanau_attention import decoding, weighted_sum
from lessons.common.pretrained import load_pretrained
from minimodels.tasks import get_task


@pytest.fixture(scope="module")
def jane():
    french, _ = load_pretrained("toy-translation", decoding.MODEL)
    return decoding.decode(french, get_task("toy-translation"), weighted_sum.JANE)


def test_jane_is_translated_as_in_the_lecture(jane):
    assert jane.translation.text == "Jane visite l'Afrique en septembre"


@pytest.mark.parametrize("t", [1, 3])
def test_weighted_sum_rows_add_up_to_the_models_context(jane, t):
    fig = weighted_sum.weighted_sum_figure(jane, t)
    z = np.asarray(fig.data[0].z)
    S = len(jane.source)
    np.testing.assert_allclose(z[:S], jane.weights[t - 1][:, None] * jane.states, atol=1e-6)
    np.testing.assert_allclose(z[:S].sum(axis=0), z[S], atol=1e-5)  # the rows add up to the last row …
    np.testing.assert_allclose(z[S], jane.contexts[t - 1], atol=1e-6)  # … which is the model's c_t
    labels = list(fig.layout.yaxis.ticktext)
    assert labels[-1] == f"= c⟨{t}⟩" and labels[0].startswith(f"{jane.weights[t - 1][0]:.2f} · h(")


def test_weighted_sum_sentence_names_the_largest_weight_and_follows_it(jane):
    t = 1
    top = int(jane.weights[t - 1].argmax())
    assert f"h({jane.source[top]})" in weighted_sum.weighted_sum_sentence(jane, t).split(":")[0]
    swapped = jane.weights.copy()
    swapped[t - 1] = np.roll(swapped[t - 1], 1)
    moved = weighted_sum.weighted_sum_sentence(dataclasses.replace(jane, weights=swapped), t)
    assert f"h({jane.source[(top + 1) % len(jane.source)]})" in moved.split(":")[0]


def test_decoding_keeps_the_encoder_states_its_contexts_sum(jane):
    np.testing.assert_allclose(jane.weights @ jane.states, jane.contexts, atol=1e-5)
