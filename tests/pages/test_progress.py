"""A learner alone: progress kept without an account (AppTest sessions of one server; the browser's cookie is
checked by the real-browser class test)."""

from __future__ import annotations

from lessons import scaling
from tests.helpers import answer_exercise, open_page


def _home_labels(at) -> dict[str, str]:
    return {link.proto.page: link.proto.label for link in at.main.get("page_link")}


def test_visits_and_answers_come_back_under_the_learners_link_and_done_means_every_exercise_right():
    at = open_page("pages/scaling.py")
    key = at.session_state["learner.key"]
    exercises = scaling.exercises()
    first = exercises[0]
    answer_exercise(at, first.key, first.answer if not first.is_choice else first.choices[first.answer])

    # another day, another browser: the learner's link brings it all back
    home = open_page(params={"learner": key})
    assert "in progress" in _home_labels(home)["scaling"]
    resume = next(link.proto for link in home.main.get("page_link") if "Resume: Scaling" in link.proto.label)
    assert resume.query_string == f"at={first.key}"  # the page scrolls to the last answer
    again = open_page("pages/scaling.py", params={"learner": key})
    shown = " ".join(c.value for c in again.caption)
    assert "You answered this before" in shown and "(solved)" in shown

    for ex in exercises[1:]:
        answer_exercise(again, ex.key, ex.answer if not ex.is_choice else ex.choices[ex.answer])
    home = open_page(params={"learner": key})
    assert "✓ done" in _home_labels(home)["scaling"]
    assert "in progress" not in _home_labels(home).get("masking", "")  # never opened: no mark


def test_a_wrong_answer_is_kept_but_does_not_count_as_solved():
    at = open_page("pages/scaling.py")
    key = at.session_state["learner.key"]
    ex = next(e for e in scaling.exercises() if not e.is_choice)
    answer_exercise(at, ex.key, float(ex.answer) + 1000.0)
    again = open_page("pages/scaling.py", params={"learner": key})
    assert "(not solved yet)" in " ".join(c.value for c in again.caption)


def test_a_learner_wipes_their_progress():
    at = open_page("pages/scaling.py")
    key = at.session_state["learner.key"]
    home = open_page(params={"learner": key})
    home.button(key="learner.wipe").click().run()
    assert "nothing about you is kept" in " ".join(s.value for s in home.success)
    fresh = open_page(params={"learner": key})
    assert "in progress" not in _home_labels(fresh)["scaling"]


def test_a_malformed_learner_link_is_ignored():
    home = open_page(params={"learner": "<script>alert(1)</script>"})
    assert not home.exception and "learner.key" not in home.session_state


def test_a_new_learners_key_is_stored_by_their_first_visit_with_no_separate_write_or_read(monkeypatch):
    """A student's first page open stores their new key with the visit itself: no transaction of its own for the
    key, and no read of answers a new learner cannot have, in every fresh tab of a class."""
    import store

    def not_asked(*_args, **_kwargs):
        raise AssertionError("asked of the store for a new learner")

    monkeypatch.setattr(store.Learners, "new_key", not_asked)
    monkeypatch.setattr(store.Learners, "answers", not_asked)
    at = open_page("pages/scaling.py")
    assert not at.exception and not [c for c in at.caption if "paused" in c.value]
    key = at.session_state["learner.key"]
    monkeypatch.undo()
    home = open_page(params={"learner": key})
    assert "in progress" in _home_labels(home)["scaling"]  # the visit stored the key
