"""The shipped causal decoder writes the same cipher both ways; the logits agree to float32's rounding; the keys are
counted; the prediction's answer follows the measured gap."""

import dataclasses

from lessons.kv_cache import cached_decoding as c
from lessons.masking.word_cipher import WORD


def test_both_ways_write_the_same_cipher_and_the_logits_agree_to_a_millionth_of_their_size():
    for word in ("sequence", "abcdefgh", "attentio"):
        view = c.two_ways(word)
        assert view.cached == view.recomputed and len(view.cached) == WORD
        assert c.relative_gap(view) < 1e-5
        assert view.keys_cached == 2 * WORD
        assert view.keys_recomputed == sum(range(WORD + 1, 2 * WORD + 1))


def test_the_prediction_answer_follows_the_gap():
    view = c.two_ways("sequence")
    assert c.gap_prediction(dataclasses.replace(view, max_logit_gap=0.0)).answer == 0
    assert c.gap_prediction(dataclasses.replace(view, max_logit_gap=1e-6 * view.logit_scale)).answer == 1
    assert c.gap_prediction(dataclasses.replace(view, max_logit_gap=0.1 * view.logit_scale)).answer == 2


def test_the_keys_exercise_is_the_triangle_number():
    ex = c.keys_exercise()
    assert ex.answer == 5050 and ex.check(5050).correct and not ex.check(100).correct
