from lessons.common.exercises import Exercise


def test_numeric_exercise_grading():
    ex = Exercise(key="t.n", prompt="?", answer=0.5, tolerance=0.01, explanation="because")
    assert ex.check(0.505).correct
    for wrong in (0.6, 0.4):  # no direction to bisect on: the same message either side, with the worked answer
        fb = ex.check(wrong)
        assert not fb.correct and "because" in fb.message and "0.500" in fb.message
        assert "high" not in fb.message and "low" not in fb.message
    assert ex.check(0.6).message == ex.check(0.4).message
    whole = Exercise(key="t.w", prompt="?", answer=1200, explanation="counted")
    assert whole.check(1200).message == "Right: 1,200. counted"
    assert "Worked answer: 1,200. counted" in whole.check(1000).message
    for bad in [None, "", "abc", float("nan"), float("inf")]:
        fb = ex.check(bad)
        assert not fb.correct and fb.message


def test_choice_exercise_grading():
    ex = Exercise(key="t.c", prompt="?", answer=1, explanation="b it is", choices=("a", "b", "c"), hint="think")
    assert ex.check("b").correct and ex.check(1).correct
    wrong = ex.check("a")
    assert not wrong.correct and "think" in wrong.message and "“b”" in wrong.message and "b it is" in wrong.message
    assert not ex.check(7).correct and not ex.check("zzz").correct
