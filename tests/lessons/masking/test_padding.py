"""The padding mask (section 1): the batch typed and refused, masked weights exactly 0 on padding, a sentence that
gives the same result as alone once masked, and its figures."""

import numpy as np
import pytest
import torch

from lessons.common.sentences import MAX_TOKEN_CHARS
from lessons.masking import padding
from lessons.queries_keys_values.matrix_form import self_attention

DEFAULT = padding.parse_batch(padding.DEFAULT_SENTENCES).sentences


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "at least one sentence"),
        ("  \n \t ", "at least one sentence"),
        ("a\n" * (padding.MAX_SENTENCES + 1), f"at most {padding.MAX_SENTENCES}"),
        ("w " * (padding.MAX_WORDS + 1), f"at most {padding.MAX_WORDS} each"),
        ("x" * (MAX_TOKEN_CHARS + 1), "longer than"),
        ("word " * 500, f"at most {padding.MAX_CHARS}"),
        (None, "at least one sentence"),
    ],
)
def test_bad_batches_are_refused_with_a_message(text, message):
    parsed = padding.parse_batch(text)
    assert parsed.sentences == ()
    assert message in parsed.error


def test_a_batch_is_one_sentence_per_line_and_any_characters_are_words():
    parsed = padding.parse_batch("I like pizza\n\n  <b>bold</b> 😀\nمرحبا بالعالم  \n")
    assert parsed.error is None
    assert parsed.sentences == (("I", "like", "pizza"), ("<b>bold</b>", "😀"), ("مرحبا", "بالعالم"))


def test_the_batch_is_padded_to_its_longest_sentence_and_the_mask_marks_the_words():
    demo = padding.padding_attention(DEFAULT)
    assert [len(row) for row in demo.tokens] == [5, 5, 5]
    assert demo.tokens[2] == ("Hello", *[padding.PAD] * 4)
    assert demo.mask.tolist() == [[True] * 3 + [False] * 2, [True] * 5, [True] + [False] * 4]


def test_masked_weights_are_exactly_zero_on_padding_and_rows_still_sum_to_one():
    demo = padding.padding_attention(DEFAULT)
    pad_columns = ~demo.mask[:, None, :].expand_as(demo.weights_on)  # (B, S, S)
    assert (demo.weights_on[pad_columns] == 0).all()  # exactly, not approximately
    assert (demo.pad_weight(masked=True) == 0).all()
    assert torch.allclose(demo.weights_on.sum(-1), torch.ones(3, 5))
    assert (demo.weights_off[pad_columns] > 0).all()  # without the mask every <pad> takes a share
    leak = demo.pad_weight(masked=False)
    assert (leak[1] == 0).all() and (leak[[0, 2]] > 0.01).all()  # the longest sentence has no padding


def test_with_the_mask_a_sentence_gives_the_same_result_as_alone_and_without_it_does_not():
    demo = padding.padding_attention(DEFAULT)
    on, off = demo.change_from_padding(masked=True), demo.change_from_padding(masked=False)
    assert max(on) < 1e-5
    assert off[0] > 1e-2 and off[2] > 1e-2
    assert off[1] < 1e-5  # no padding, nothing to leak onto
    alone = self_attention(DEFAULT[0])  # the Q/K/V lesson's own numbers for the sentence alone
    assert torch.allclose(demo.outputs_on[0, :3], alone.Z, atol=1e-6)
    assert torch.allclose(demo.weights_on[0, :3, :3], alone.weights, atol=1e-6)


def test_the_page_reads_the_padded_batch_from_the_demo():
    demo = padding.padding_attention(DEFAULT)
    assert demo.labels()[2] == "3: Hello"
    assert demo.table()["position 2"] == ["like", "visits", padding.PAD]
    assert demo.leak(2, masked=True) == 0.0 and demo.leak(2, masked=False) > 0.01
    assert demo.leak(1, masked=False) == 0.0  # the longest sentence has nothing to leak onto
    assert "**4** `<pad>`" in demo.note(2) and "no padding" in demo.note(1)
    assert "exactly 0" in demo.note(2) and "the result depends on the batch" in demo.note(2)  # computed from demo


def test_padding_attention_refuses_an_empty_batch():
    with pytest.raises(ValueError):
        padding.padding_attention(())
    with pytest.raises(ValueError):
        padding.padding_attention((("a",), ()))


def test_padding_figures_show_the_mask_and_each_sentences_two_maps():
    demo = padding.padding_attention(DEFAULT)
    mask = padding.padding_mask_figure(demo)
    np.testing.assert_array_equal(np.asarray(mask.data[0].z, dtype=float), demo.mask.float().numpy())
    pair = padding.padding_pair_figure(demo, 0)
    np.testing.assert_allclose(pair.data[1].z, demo.weights_on[0].numpy(), atol=1e-7)
