"""Corpus BLEU (minimodels.bleu) against values computed by hand, and the bridge's scores that use it."""

import math

import pytest

from minimodels.bleu import corpus_bleu, ngrams
from minimodels.bridge import words_of
from minimodels.tokenizers import EOS_ID, PAD_ID


def test_identical_sentences_score_100():
    words = ["the", "cat", "sat", "on", "the", "mat"]
    assert corpus_bleu([words], [words]).score == pytest.approx(100.0)


def test_clipped_counts_and_no_matching_bigram_gives_zero():
    # Papineni's example: seven "the" against a reference holding "the" twice
    b = corpus_bleu([["the"] * 7], [["the", "cat", "is", "on", "the", "mat"]])
    assert b.precisions[0] == pytest.approx(2 / 7)
    assert b.correct[1] == 0 and b.score == 0.0


def test_two_sentence_corpus_by_hand():
    # hyp1 a b c d e / ref1 a b c d f; hyp2 a b / ref2 a b c. Pooled: p1 = 6/7, p2 = 4/5, p3 = 2/3, p4 = 1/2;
    # c = 7 < r = 8 so BP = exp(1 - 8/7)
    b = corpus_bleu([list("abcde"), list("ab")], [list("abcdf"), list("abc")])
    assert b.correct == (6, 4, 2, 1) and b.total == (7, 5, 3, 2)
    assert (b.hypothesis_length, b.reference_length) == (7, 8)
    assert b.brevity_penalty == pytest.approx(math.exp(-1 / 7))
    expected = 100 * math.exp(-1 / 7) * (6 / 7 * 4 / 5 * 2 / 3 * 1 / 2) ** 0.25
    assert b.score == pytest.approx(expected) and b.score == pytest.approx(59.94, abs=0.01)


def test_corpus_bleu_pools_counts_rather_than_averaging_sentences():
    hyps, refs = [list("abcde"), list("ab")], [list("abcdf"), list("abc")]
    per_sentence = [corpus_bleu([h], [r]).score for h, r in zip(hyps, refs, strict=True)]
    assert per_sentence[1] == 0.0  # no 3-gram in a 2-word sentence
    assert corpus_bleu(hyps, refs).score > sum(per_sentence) / 2


def test_longer_hypothesis_has_no_brevity_penalty():
    b = corpus_bleu([list("abcdex")], [list("abcde")])
    assert b.brevity_penalty == 1.0
    assert b.score == pytest.approx(100 * (5 / 6 * 4 / 5 * 3 / 4 * 2 / 3) ** 0.25)


def test_mismatched_lengths_and_empty_hypotheses():
    with pytest.raises(ValueError):
        corpus_bleu([["a"]], [])
    assert corpus_bleu([[]], [["a", "b"]]).score == 0.0
    assert ngrams(list("aab"), 1) == {("a",): 2, ("b",): 1}


def test_words_of_cuts_at_eos_and_drops_padding():
    assert words_of([5, 6, EOS_ID, 7, PAD_ID]) == (5, 6)
    assert words_of([5, PAD_ID, 6]) == (5, 6)
    assert words_of([EOS_ID]) == ()
