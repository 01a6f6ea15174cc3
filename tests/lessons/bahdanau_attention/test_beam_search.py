"""Section 4: the beam's hypotheses, best first, and the note that says whether the beam found another output."""

import pytest

from lessons.bahdanau_attention import beam_search, decoding


@pytest.mark.parametrize("width", range(1, beam_search.MAX_BEAM + 1))
def test_beam_rows_are_the_hypotheses_best_first(model, task, width):
    result = decoding.decode(model, task, "I like pizza", method="beam", width=width)
    rows = beam_search.beam_rows(result, task)
    assert 1 <= len(rows) <= width
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    scores = [r["log p(y | x)"] for r in rows]
    assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)
    assert rows[0]["output"] == result.translation.text
    if width == 1:
        assert rows[0]["output"] == decoding.decode(model, task, "I like pizza").translation.text  # width 1: greedy


def test_greedy_has_no_beam_rows(pizza, task):
    assert beam_search.beam_rows(pizza, task) == []


def test_beam_note_says_whether_the_beam_found_another_output(pizza, model, task):
    """The caption under the beam table is computed from the two decodings, and says so both ways."""
    same = decoding.decode(model, task, "I like pizza", method="beam", width=1)
    assert same.translation.text == pizza.translation.text
    assert beam_search.beam_note(same, pizza) == "The best beam hypothesis is the greedy output."
    other = decoding.decode(model, task, "I like the sea", method="beam", width=3)
    assert other.translation.text != pizza.translation.text
    assert beam_search.beam_note(other, pizza) == "Beam search found a different output than greedy decoding."
