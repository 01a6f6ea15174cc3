from lessons.common.exercises import Exercise


def test_numeric_exercise_grading():
    ex = Exercise(key="t.n", prompt="?", answer=0.5, tolerance=0.01, explanation="because")
    assert ex.check(0.505).correct
    assert "too high" in ex.check(0.6).message and not ex.check(0.6).correct
    assert "too low" in ex.check(0.4).message
    for bad in [None, "", "abc", float("nan"), float("inf")]:
        fb = ex.check(bad)
        assert not fb.correct and fb.message


def test_choice_exercise_grading():
    ex = Exercise(key="t.c", prompt="?", answer=1, explanation="b it is", choices=("a", "b", "c"), hint="think")
    assert ex.check("b").correct and ex.check(1).correct
    assert not ex.check("a").correct and ex.check("a").message == "think"
    assert not ex.check(7).correct and not ex.check("zzz").correct
