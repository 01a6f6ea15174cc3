"""Section 3's *I like pizza* set beside the lecture's slide: the rows and the sentence are computed from the model's
weights, and turn when the weights do."""

import numpy as np

from lessons.bahdanau_attention import decoding, lecture_pizza
from minimodels.decode import Translation

SOURCE = ["▁I", "▁like", "▁pizza", "</s>"]


def _decoding(first_row) -> decoding.Decoding:
    weights = np.array([first_row, [0.0, 0.1, 0.9, 0.0]])  # (T, S)
    translation = Translation("mi piace", SOURCE, ["▁mi", "▁piace"], {})
    return decoding.Decoding(translation, weights, np.zeros((2, 2)), np.zeros((4, 2)))


def test_the_model_is_said_to_differ_from_the_slide_when_its_largest_weight_is_elsewhere():
    leans_on_like = lecture_pizza.pizza_sentence(_decoding([0.364, 0.611, 0.019, 0.006]))
    assert "36.4% on *I*, 61.1% on *like*, 1.9% on *pizza*" in leans_on_like
    assert "**Not the lecture's picture:** its largest weight is on *like*, not *I*" in leans_on_like
    assert "the widest difference is on *like*, 61.1% against 35%" in leans_on_like
    as_slide = lecture_pizza.pizza_sentence(_decoding([0.611, 0.364, 0.019, 0.006]))  # I and like swapped
    assert "Like the slide, its largest weight is on *I*" in as_slide and "Not the lecture's" not in as_slide
    assert "`▁mi` → *I*, `▁piace` → *pizza*" in as_slide


def test_the_rows_set_the_slide_beside_the_model():
    rows = lecture_pizza.pizza_rows(_decoding([0.364, 0.611, 0.019, 0.006]))
    assert [rows[0][w] for w in ("I", "like", "pizza", "</s>")] == ["60%", "35%", "5%", "—"]
    assert [rows[1][w] for w in ("I", "like", "pizza", "</s>")] == ["36.4%", "61.1%", "1.9%", "0.6%"]


def test_the_shipped_models_numbers_are_what_it_computes(pizza):
    line = lecture_pizza.pizza_sentence(pizza)
    first = pizza.weights[0]
    assert f"{first[0]:.1%} on *I*, {first[1]:.1%} on *like*" in line


def test_a_sentence_that_is_not_the_lecture_s_words_says_so():
    other = _decoding([0.5, 0.5, 0.0, 0.0])
    other.translation.source_pieces[1] = "▁love"
    assert "nothing to set beside it" in lecture_pizza.pizza_sentence(other)
