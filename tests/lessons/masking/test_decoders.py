"""The two decoders: the causal one reads only the past, the cheater the next position; generating feeds a decoder
its own output."""

from functools import cache

import torch

from lessons.masking import decoders, word_cipher
from lessons.masking.causal import future_weight


@cache
def shipped(causal: bool):
    return decoders.load_model(causal)[0]


def test_the_causal_decoder_reads_only_the_past_and_the_cheater_reads_the_next_position():
    seqs = word_cipher.sequences(word_cipher.encode_word("sequence"))[:, :-1]
    for causal in (True, False):
        model = decoders.new_model(causal, 0)
        weights = model(seqs).attention["self"][0]
        assert (future_weight(weights) == 0.0) is causal
        # changing a later token changes an earlier row's output only without the mask
        changed = seqs.clone()
        changed[0, -1] = seqs[0, 0]
        same = torch.allclose(model(seqs).logits[0, :-1], model(changed).logits[0, :-1])
        assert same is causal


def test_generation_feeds_the_model_its_own_output():
    model = shipped(True)
    prompt = word_cipher.sequences(word_cipher.encode_word("abcdefgh"))[:, : word_cipher.WORD + 1]
    new, weights = model.generate(prompt, word_cipher.WORD)
    assert word_cipher.tokenizer().decode(new[0].tolist()) == "defghijk"  # the shipped causal decoder ciphers it
    assert weights.shape == (1, 2 * word_cipher.WORD, 2 * word_cipher.WORD)
