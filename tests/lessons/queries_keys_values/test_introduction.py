"""The Q/K/V introduction: its section numbers are the sections' own, and it quotes no line the lectures lack."""

import re
from pathlib import Path

from lessons import queries_keys_values
from lessons.queries_keys_values import database, matrix_form, no_recurrence, trained_weights, worked_example

SOURCES = Path("/work/shared/sources")


def test_the_introduction_names_each_section_by_its_own_number():
    intro = queries_keys_values.INTRO
    for module, words in (
        (worked_example, "works the lecture's example"),
        (database, "reads attention as a database"),
        (matrix_form, "brings in the three learned matrices"),
        (trained_weights, "reads a trained model's own matrices"),
        (no_recurrence, "asks what it buys over a recurrent encoder"),
    ):
        number = module.TITLE.split(" · ")[0]
        assert re.search(rf"[Ss]ection {number} {re.escape(words)}", intro), (number, words)


def test_the_lesson_puts_no_invented_line_in_the_lectures_mouth():
    texts = [queries_keys_values.INTRO] + [ex.explanation for ex in queries_keys_values.exercises()]
    assert not any("the lecture's “every word attends to itself most”" in t for t in texts)
    if SOURCES.is_dir():  # the lectures, where this machine has them
        lecture = (SOURCES / "transformer-lecture.txt").read_text()
        assert "attends to itself" not in lecture  # so the lesson must not quote it as the lecture's
