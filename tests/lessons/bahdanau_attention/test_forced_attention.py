"""Section 5: a forced step's α is one-hot, and the note says whether the output changed."""

import numpy as np

from lessons.bahdanau_attention import decoding, forced_attention


def test_forcing_one_step_makes_its_row_one_hot_and_leaves_earlier_rows(pizza, model, task):
    step, source_index = 1, 0
    forced = decoding.decode(model, task, "I like pizza", force=(step, source_index))
    expected = np.zeros(len(forced.source))
    expected[source_index] = 1.0
    np.testing.assert_array_equal(forced.weights[step], expected)
    np.testing.assert_allclose(forced.weights[:step], pizza.weights[:step], atol=1e-6)


def test_forced_note_says_whether_the_output_changed(pizza, model, task):
    same = decoding.decode(model, task, "I like pizza", force=(0, 1))
    changed = decoding.decode(model, task, "I like pizza", force=(3, 0))
    assert same.translation.text == pizza.translation.text != changed.translation.text  # both cases occur
    for forced, step, index in ((same, 0, 1), (changed, 3, 0)):
        note = forced_attention.forced_note(forced, pizza, step, index)
        assert ("unchanged" in note) == (forced.translation.text == pizza.translation.text)
