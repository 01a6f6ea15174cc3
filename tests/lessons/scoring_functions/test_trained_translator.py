"""Section 6 of the scoring lesson: a trained model's raw additive scores and their softmax, on a sentence."""

from types import SimpleNamespace

import numpy as np
import pytest

from lessons.common import colorscales, pretrained
from lessons.scoring_functions import trained_translator
from minimodels.tasks import get_task


@pytest.fixture(scope="module")
def steps():
    model, _info = pretrained.load_pretrained("toy-translation", "gru-additive")
    return trained_translator.trained_scores(model, get_task("toy-translation"), trained_translator.TRAINED_PROBE)


def test_the_weights_are_the_softmax_of_the_raw_scores(steps):
    e = np.asarray(steps.scores)
    softmax = np.exp(e - e.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    assert np.allclose(softmax, steps.weights, atol=1e-5)


def test_the_maps_draw_the_raw_scores_signed_and_the_weights_from_0_to_1(steps):
    raw, weights = trained_translator.trained_scores_figure(steps)
    assert np.allclose(np.asarray(raw.data[0].z, dtype=float), steps.scores)
    assert raw.data[0].zmid == 0.0 and [c[1] for c in raw.data[0].colorscale] == [
        c[1] for c in colorscales.DIVERGING_COLORSCALE
    ]
    assert np.allclose(np.asarray(weights.data[0].z, dtype=float), steps.weights) and weights.data[0].zmax == 1.0


def test_the_sentence_is_computed_from_the_maps():
    made = SimpleNamespace(
        scores=np.array([[2.0, -1.0, 0.0], [0.5, 0.5, 3.5]]), weights=np.array([[0.7, 0.1, 0.2], [0.05, 0.05, 0.9]])
    )
    text = trained_translator.trained_scores_sentence(made)
    assert "from -1.00 to +3.50" in text and "3.00 apart" in text and "is 80% (median; from 70% to 90%)" in text


def test_a_refused_sentence_is_a_message():
    model, _info = pretrained.load_pretrained("toy-translation", "gru-additive")
    assert isinstance(trained_translator.trained_scores(model, get_task("toy-translation"), ""), str)
