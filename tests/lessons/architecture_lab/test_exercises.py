"""The architecture lab's exercises: answered by the lesson's own numbers."""

import re

from lessons import architecture_lab
from lessons.architecture_lab import paper_numbers


def test_exercises_are_answered_by_the_lessons_own_numbers():
    ex1, ex2, ex4 = architecture_lab.exercises()
    ex3 = paper_numbers.best_encoder_exercise()  # a prediction before the poster's table, not in the tail
    d = 64
    assert ex4.check(2 * (4 * (d * d + d) + 2 * d)).correct  # the hand count is the code's count
    assert not ex4.check(2 * 4 * (d * d + d)).correct and "norm" in ex4.hint  # forgetting the norms
    assert ex1.check(4 * (32 * 32 + 32)).correct and not ex1.check(4 * (64 * 64 + 64)).correct  # not the table's d
    assert ex2.choices[ex2.answer] == "birnn"
    assert ex3.check("RNN").correct and not ex3.check("CNN").correct
    assert re.search(r"25\.8", ex3.explanation)
