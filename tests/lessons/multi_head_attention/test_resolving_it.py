"""Section 4, which head resolves "it": the student's sentence in the grammar's words, the grammar, the
lesson's claim about layer 1 on the shipped model, and the "it" exercises."""

from types import SimpleNamespace

import numpy as np
import pytest

from lessons import multi_head_attention
from lessons.multi_head_attention import resolving_it, resolving_it_runs
from minimodels.tasks import coreference


@pytest.mark.parametrize(
    "text, says",
    [("", "Type a sentence"), ("   ", "Type a sentence"), ("the zebra crossed it", "`zebra`"),
     ("the dog 🐙 it", "`🐙`"), ("<b>it</b> was too tired", "`<b>it</b>`"), ("it " * 200, "characters"),
     ("the dog " * 9 + "it", "words"), ("the dog was too tired", "exactly one “it”"),
     ("it was it", "exactly one “it”"), ("`it` was", "`�it�`"), ("<pad> it", "`<pad>`")],
)  # fmt: skip
def test_bad_it_sentences_get_a_message_and_no_tokens(text, says):
    parsed = resolving_it.parse_it(text)
    assert parsed.tokens == () and parsed.error and says in parsed.error


def test_it_sentences_are_read_in_the_grammars_words():
    parsed = resolving_it.parse_it("The animal didn’t cross the street because it was too tired.")
    assert parsed.error is None and parsed.tokens == tuple(resolving_it.IT_DEFAULT.split())
    tokens = parsed.tokens
    assert resolving_it.referent_of(tokens) == (1, 5)  # the animal
    assert resolving_it.referent_of(tokens[:-1] + ("wide",)) == (5, 1)  # the street
    assert resolving_it.referent_of(("the", "dog", "it", "was")) is None  # no adjective: no referent


def test_the_grammar_splits_by_noun_pair_and_translates_it_by_gender():
    task = coreference.it_task()
    pairs = {name: {(s.tokens[s.creature], s.tokens[s.place]) for s in task.split(name)} for name in task.splits}
    assert pairs["test"] == set(coreference.TEST_PAIRS) and not pairs["test"] & pairs["train"]
    tired = coreference.sentence(0, "animal", "street", "tired")
    assert (
        coreference.PRONOUNS[tired.pronoun] == "il"
        and coreference.PRONOUNS[coreference.swapped(tired).pronoun] == "elle"
    )
    assert tired.ambiguous and not coreference.sentence(0, "dog", "bridge", "tired").ambiguous


@pytest.fixture(scope="module")
def resolver():
    return resolving_it.shipped_resolver()[0]


def test_a_first_layer_head_cannot_move_between_the_nouns_but_a_second_layer_head_can(resolver):
    """The lesson's claim, on the shipped model: layer 1's ratio of the two nouns is the same with either ending."""
    measures = resolving_it_runs.head_measures(resolver, coreference.it_task().split("test")[:120])
    first, second = measures["layer 1"], measures["layer 2"]
    assert max(first[resolving_it_runs.FLIPS]) == 0 and max(first["ratio change"]) < 1e-4
    assert all(x == 0.5 for x in first[resolving_it_runs.PREFERS])  # a fixed preference is right half the time
    assert max(second["ratio change"]) > 1  # layer 2's query has read the adjective


def test_the_it_exercises_answer_what_the_model_computes(resolver):
    by_hand = resolving_it.it_by_hand(resolver)
    s = resolving_it.IT_HAND_SENTENCE
    after = resolving_it.read_it(resolver, coreference.swapped(s).tokens)
    head = int(by_hand.prompt.split("head ")[1].split()[0]) - 1
    assert abs(after.weights["layer 1"][head, s.place] - by_hand.answer) < 0.01  # the ratio rule, on the model
    switch = resolving_it.it_switch_prediction(resolver)
    lines = switch.explanation.split(": ", 1)[1].split(". Every")[0].split("; ")
    assert len(lines) == 8 and not any(line.endswith("(moved)") for line in lines[:4])  # layer 1: never
    assert switch.answer == (1 if any(line.endswith("(moved)") for line in lines[4:]) else 3)
    assert len(multi_head_attention.every_exercise(None, resolver)) >= 5


@pytest.mark.parametrize("weight, moved", [(0.6, True), (4.6e-05, False)])
def test_a_head_moves_between_the_nouns_only_on_weights_that_count(monkeypatch, weight, moved):
    """The switch exercise counts a layer-2 head as moving only when the noun it prefers gets NOTABLE weight."""
    tokens = tuple(resolving_it.IT_DEFAULT.split())

    def fake_read(model, words):
        after = words[-1] != tokens[-1]
        w = np.zeros((4, len(words)))
        w[:, 0] = 1.0  # every head on "the"
        second = w.copy()
        second[0, 1 if not after else 5] = weight  # head 1: animal before, street after
        return resolving_it.ItReading(tuple(words), 7, {"layer 1": w, "layer 2": second}, 0.0,
                                      resolving_it.referent_of(tuple(words)))  # fmt: skip

    monkeypatch.setattr(resolving_it, "read_it", fake_read)
    switch = resolving_it.it_switch_prediction(SimpleNamespace(config=SimpleNamespace(n_heads=4)))
    assert switch.answer == (1 if moved else 3)
    assert ("layer 2 head 1" in switch.explanation) and (
        "(moved)" in switch.explanation if moved else "not counted" in switch.explanation
    )
