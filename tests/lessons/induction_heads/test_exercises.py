"""The induction-heads lesson's tail questions: computed from the lesson, unique keys, explained either way."""

from lessons import induction_heads
from lessons.induction_heads.sequences import VOCAB


def test_the_tail_questions_are_the_lessons_own():
    exercises = induction_heads.exercises()
    keys = [ex.key for ex in exercises]
    assert len(keys) == len(set(keys)) >= 2 and all(k.startswith("induction_heads.") for k in keys)
    chance = next(ex for ex in exercises if ex.key == "induction_heads.chance")
    assert chance.answer == 1 / VOCAB and chance.check(round(1 / VOCAB, 3)).correct
    for ex in exercises:
        wrong = (ex.answer + 1) % len(ex.choices) if ex.is_choice else 0.5
        feedback = ex.check(wrong)
        assert not feedback.correct and ex.explanation in feedback.message  # the worked answer, no direction


def test_the_introduction_credits_both_papers():
    assert "Olsson et al. (2022)" in induction_heads.INTRO and "Elhage et al. (2021)" in induction_heads.INTRO
