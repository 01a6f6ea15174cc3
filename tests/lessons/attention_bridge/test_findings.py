"""How the attention bridge words what the shipped seeds allow."""

from lessons.attention_bridge import findings
from tests.lessons.attention_bridge.fakes import fake_results


def test_the_seeds_note_says_n():
    assert "one seed per model (n = 1)" in findings.seeds_note(fake_results(seeds=(0,)))
    three = findings.seeds_note(fake_results(seeds=(0, 1, 2)))
    assert "3 seeds per model: mean ± sd over n = 3" in three and "anecdote" not in three
    assert "at least 5 seeds a side" in three and "exceeds the spread" not in three  # the course's rule, not sd
