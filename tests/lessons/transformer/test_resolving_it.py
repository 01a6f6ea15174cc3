"""Section 3: the lecture's “it” sentence against the toy model, and the “it” its grammar has."""

import pytest

from lessons.transformer import reading, resolving_it


def test_the_lecture_sentence_is_out_of_reach_of_the_toy_model(translator):
    _, task = translator
    check = resolving_it.lecture_it(task)
    assert check.tokens == len(task.source_tokenizer.encode(resolving_it.LECTURE_SENTENCE)) > check.limit == 24
    assert not check.it_is_read
    assert {"animal", "street", "because"} <= set(check.unknown_words) and "it" not in check.unknown_words


def test_pronoun_check_reads_the_last_layers_cross_attention(translator):
    model, task = translator
    check = resolving_it.pronoun_check(model, task)
    assert (check.text, check.output, check.pronoun_piece) == ("I see it", "je le vois", "▁le")
    w = reading.walk(model, task, "I see it")
    mean = w.weights("cross", 1)[:, check.step].mean(0)
    assert check.looked_at == w.source[int(mean.argmax())]
    assert check.weight == pytest.approx(float(mean.max()))
