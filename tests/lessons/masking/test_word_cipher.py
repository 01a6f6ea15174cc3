"""The word=cipher sequences the decoders read, and the student's word."""

import pytest
import torch

from lessons.masking import word_cipher


def test_sequences_are_word_separator_cipher():
    assert word_cipher.cipher("xyzabc") == "abcdef" and word_cipher.cipher(word_cipher.PROBE) == "vhtxhqfh"
    seqs = word_cipher.sequences(word_cipher.encode_word("sequence"))
    assert seqs.shape == (1, 2 * word_cipher.WORD + 1)
    tok = word_cipher.tokenizer()
    assert tok.decode(seqs[0, : word_cipher.WORD].tolist()) == "sequence"
    assert tok.decode(seqs[0, word_cipher.WORD + 1 :].tolist()) == "vhtxhqfh"
    assert word_cipher.input_labels("sequence") == [*"sequence", "=", *"vhtxhqf"]
    words = word_cipher.random_words(50, torch.Generator().manual_seed(0))
    assert set(tok.decode(words.flatten().tolist())) <= set(word_cipher.LETTERS)


@pytest.mark.parametrize("text", ["", "short", "toolongword", "sequenc3", "séquence"])
def test_bad_words_are_refused_with_a_message(text):
    assert word_cipher.parse_word(text).error


def test_good_words_are_kept_lowercased():
    assert word_cipher.parse_word(" Sequence ").word == "sequence"
