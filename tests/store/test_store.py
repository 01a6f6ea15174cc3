"""The class store against both databases it runs on: an embedded SQLite file and a real PostgreSQL (a throwaway
cluster, ``postgres_server``). Every refusal is a message for the page, and changes nothing."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
import sqlalchemy as sa

import store
from store import names, schema
from store.errors import ClassError, RateLimited, StoreError


@pytest.fixture
def opened(store_url):
    classes, learners = store.open_store(store_url)
    yield classes, learners
    classes.engine.dispose()


def _count(engine, table) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()


def test_a_class_has_a_short_unambiguous_code_and_a_hashed_teacher_key(opened):
    classes, _ = opened
    info, key = classes.create_class("  Attention, week 3  ")
    assert info.name == "Attention, week 3" and len(info.code) == names.CODE_LENGTH
    assert not set(info.code) & set("0O1IL2Z5S8B") and set(info.code) <= set(names.CODE_ALPHABET)
    assert info.expires_at - info.created_at == pytest.approx(12 * 3600)
    with classes.engine.connect() as conn:
        stored = conn.execute(sa.select(schema.classes)).mappings().one()
    assert key not in str(dict(stored)) and stored["teacher_key_hash"] == names.digest(key)
    assert classes.get_class(info.code.lower()).code == info.code  # typed in lower case, with spaces
    assert classes.get_class(" ".join(info.code)).code == info.code


@pytest.mark.parametrize("hours", [0, -1, 1000, float("nan")])
def test_a_class_lasts_a_sensible_time(opened, hours):
    with pytest.raises(ClassError, match="hours"):
        opened[0].create_class("x", hours=hours)


def test_unknown_expired_and_ended_classes_are_refused_with_a_reason(opened):
    classes, _ = opened
    with pytest.raises(ClassError, match="no class with the code QQQQQQ"):
        classes.join("qqqqqq", "Ana")
    with pytest.raises(ClassError, match="no class"):
        classes.join("", "Ana")
    info, key = classes.create_class("short", hours=0.5)
    with pytest.raises(ClassError, match="expired"):
        classes.join(info.code, "Ana", now=time.time() + 3600)
    classes.teacher(info.code, key).end()
    with pytest.raises(ClassError, match="ended"):
        classes.join(info.code, "Ana")
    assert _count(classes.engine, schema.members) == 0


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("  Ana   María ", "Ana María"),
        ("Zo\u0000e\u202e", "Zo e"),  # a NUL and a right-to-left override become spaces, then collapse
        ("🦊 Fox", "🦊 Fox"),
        ("سارا", "سارا"),
        ("<b>x</b><script>", "<b>x</b><script>"),  # kept as text; the page never renders HTML
        ("x'; DROP TABLE members--", "x'; DROP TABLE members--"),
    ],
)
def test_names_are_cleaned_and_stored_as_text(opened, typed, kept):
    classes, _ = opened
    info, _key = classes.create_class("c")
    member, _token = classes.join(info.code, typed)
    assert member.name == kept
    assert _count(classes.engine, schema.members) == 1  # the SQL-looking name dropped nothing


@pytest.mark.parametrize("typed", ["", "   ", "\u0000\u0001", "x" * 10_000, "y" * (names.MAX_NAME + 1)])
def test_unusable_names_are_refused_and_nothing_is_stored(opened, typed):
    classes, _ = opened
    info, _key = classes.create_class("c")
    with pytest.raises(ClassError):
        classes.join(info.code, typed)
    assert _count(classes.engine, schema.members) == 0


def test_names_are_unique_in_a_class_whatever_the_case_and_generated_ones_too(opened):
    classes, _ = opened
    info, _key = classes.create_class("c")
    classes.join(info.code, "Ana")
    with pytest.raises(ClassError, match="already called"):
        classes.join(info.code, "ANA")
    other, _key2 = classes.create_class("d")
    assert classes.join(other.code, "ana")[0].name == "ana"  # another class may have an Ana
    generated = {classes.join(info.code)[0].name for _ in range(30)}
    assert len(generated) == 30


def test_a_token_brings_the_same_student_back(opened):
    classes, _ = opened
    info, _key = classes.create_class("c")
    member, token = classes.join(info.code, "Ana")
    assert classes.rejoin(info.code, token) == member
    assert classes.rejoin(info.code, "not-a-token") is None and classes.rejoin(info.code, "") is None


def test_the_teacher_key_opens_the_teacher_handle_and_wrong_keys_are_rate_limited(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    assert classes.teacher(info.code, key).code == info.code
    for guess in ["", None, "guess", key[:-1], key + "x"]:
        with pytest.raises(ClassError, match="not this class's teacher key"):
            classes.teacher(info.code, guess)
    with pytest.raises(RateLimited, match="wait"):
        classes.teacher(info.code, "guess")
    other, other_key = classes.create_class("another")  # the limit is per class
    assert classes.teacher(other.code, other_key).code == other.code


def test_a_poll_from_question_to_reveal(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    students = [classes.join(info.code, f"S{i}")[0] for i in range(5)]
    question = teacher.open_question("scaling", "scaling.ex1", "Which?", ["a", "b", "c"], 2, "Because.")
    assert classes.current_question(info.code) == question == teacher.current_question()
    for i, member in enumerate(students):
        classes.answer(member, question.id, ["a", "b", "c", "c", "c"][i])
    classes.answer(students[0], question.id, 2)  # changes their mind while it is open: replaced, not added
    assert classes.answer_count(question.id) == 5 == teacher.answer_count(question.id)
    assert classes.revealed_distribution(question.id) is None  # not before the teacher reveals
    shown = teacher.reveal(question.id)
    assert shown["choices"] == [("a", 0, False), ("b", 1, False), ("c", 4, True)]
    assert classes.revealed_distribution(question.id) == shown
    with pytest.raises(ClassError, match="closed"):
        classes.answer(students[1], question.id, 0)
    assert classes.my_answer(students[1], question.id) == "1"


def test_a_number_question_counts_answers_within_its_tolerance(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    question = teacher.open_question("scaling", "scaling.ex2", "How much?", [], 8.0, "Because.", tolerance=0.5)
    for i, value in enumerate([8, 8.4, 9, "7.6"]):
        classes.answer(classes.join(info.code, f"S{i}")[0], question.id, value)
    shown = teacher.reveal(question.id)
    assert shown["values"] == [7.6, 8.0, 8.4, 9.0] and shown["right"] == 3 and shown["truth"] == 8.0


@pytest.mark.parametrize("bad", [None, "abc", float("nan"), float("inf"), 7, -1, True])
def test_bad_answers_are_refused_and_change_nothing(opened, bad):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    member = classes.join(info.code, "Ana")[0]
    choice = teacher.open_question("l", "k", "?", ["a", "b"], 0, "e")
    with pytest.raises(ClassError):
        classes.answer(member, choice.id, bad)
    if bad in (7, -1, True):
        return
    number = teacher.open_question("l", "k2", "?", [], 1.0, "e")
    with pytest.raises(ClassError):
        classes.answer(member, number.id, bad)
    assert classes.answer_count(choice.id) == classes.answer_count(number.id) == 0


def test_a_flood_of_answers_is_rate_limited_per_student(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    question = classes.teacher(info.code, key).open_question("l", "k", "?", ["a", "b"], 0, "e")
    member = classes.join(info.code, "Ana")[0]
    for _ in range(classes_module().ANSWER_LIMIT[0]):
        classes.answer(member, question.id, 0)
    with pytest.raises(RateLimited):
        classes.answer(member, question.id, 1)
    assert classes.my_answer(member, question.id) == "0"
    classes.answer(classes.join(info.code, "Bo")[0], question.id, 1)  # another student is not held back


def classes_module():
    from store import classes

    return classes


def test_a_question_of_another_class_cannot_be_answered_or_revealed(opened):
    classes, _ = opened
    one, key1 = classes.create_class("one")
    two, key2 = classes.create_class("two")
    question = classes.teacher(one.code, key1).open_question("l", "k", "?", ["a", "b"], 0, "e")
    with pytest.raises(ClassError, match="not one of this class"):
        classes.answer(classes.join(two.code, "Ana")[0], question.id, 0)
    with pytest.raises(ClassError, match="not one of this class"):
        classes.teacher(two.code, key2).reveal(question.id)


def test_a_sweep_hands_settings_out_evenly_and_pools_the_runs(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    grid = [{"scaling.dk": d} for d in (4, 64, 512)]
    sweep = teacher.start_sweep("scaling", grid, {"scaling.dk": "d_k"})
    assert classes.current_sweep(info.code, "scaling") == sweep and classes.current_sweep(info.code, "other") is None
    students = [classes.join(info.code, f"S{i}")[0] for i in range(7)]
    given = [classes.assignment(m, sweep) for m in students]
    assert sorted(given.count(i) for i in range(3)) == [2, 2, 3]
    assert [classes.assignment(m, sweep) for m in students] == given  # stable
    assert sweep.describe(1) == "d_k = 64"
    for member, index in zip(students, given, strict=True):
        classes.post_run(
            member,
            "scaling",
            grid[index],
            [[1, 0.1, 2.0, 0.1]],
            {"exact_match": 0.5 + index / 10},
            {"rows": ["a"], "cols": ["b"], "z": [[1.0]]},
            sweep_id=sweep.id,
        )
    pooled = teacher.runs(sweep_id=sweep.id)
    assert len(pooled) == 7 and {r.member_name for r in pooled} == {m.name for m in students}
    assert {r.settings["scaling.dk"] for r in pooled} == {4, 64, 512}


def test_a_refreshs_reads_share_one_connection_and_still_see_every_committed_write(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    checkouts = []
    count = lambda *_: checkouts.append(1)  # noqa: E731
    sa.event.listen(classes.engine, "checkout", count)
    try:
        with classes.reading():
            assert teacher.presence()["joined"] == 0
            member = classes.join(info.code, "Ana")[0]  # a write, in its own transaction
            assert teacher.presence()["joined"] == 1 and teacher.info().code == info.code
            classes.post_run(member, "scaling", {}, [], {"exact_match": 1.0})
            assert len(teacher.runs(full=False)) == 1 and classes.current_question(info.code) is None
    finally:
        sa.event.remove(classes.engine, "checkout", count)
    if classes.engine.dialect.name == "postgresql":  # the reads' one connection, and one per write
        assert len(checkouts) == 3
    else:  # SQLite: every read keeps its own (no round trips to save)
        assert len(checkouts) > 3


def test_the_dashboards_light_read_of_runs_is_the_full_one_without_curves_and_maps(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    for i in range(3):
        classes.post_run(
            classes.join(info.code, f"S{i}")[0],
            "scaling",
            {"seed": i},
            [[1, 0.1, 2.0, 0.5]],
            {"exact_match": i / 4},
            {"rows": ["a"], "cols": ["b"], "z": [[1.0]]},
        )
    full, light = teacher.runs(), teacher.runs(full=False)
    assert [r.curve for r in full] == [[[1, 0.1, 2.0, 0.5]]] * 3 and all(r.snapshot for r in full)
    assert [(r.curve, r.snapshot) for r in light] == [([], None)] * 3
    assert [replace(r, curve=[], snapshot=None) for r in full] == light


def test_runs_with_nan_or_huge_payloads_or_foreign_sweeps_are_refused(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    other, other_key = classes.create_class("o")
    foreign = classes.teacher(other.code, other_key).start_sweep("l", [{"a": 1}])
    member = classes.join(info.code, "Ana")[0]
    with pytest.raises(ClassError, match="metrics"):
        classes.post_run(member, "l", {}, [], {"loss": float("nan")})
    with pytest.raises(ClassError, match="too large"):
        classes.post_run(member, "l", {}, [[0.0] * 4] * 20_000, {})
    with pytest.raises(ClassError, match="not one of this class"):
        classes.post_run(member, "l", {}, [], {}, sweep_id=foreign.id)
    assert _count(classes.engine, schema.runs) == 0


def test_spotlight_is_anonymous_unless_the_teacher_shows_the_name(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    teacher = classes.teacher(info.code, key)
    member = classes.join(info.code, "Ana")[0]
    run = classes.post_run(member, "l", {"seed": 1}, [], {"exact_match": 1.0})
    assert classes.spotlight(info.code) is None
    teacher.spotlight(run)
    shown, name = classes.spotlight(info.code)
    assert shown.id == run and name is None and teacher.spotlit() == (shown, None)
    teacher.spotlight(run, named=True)
    assert classes.spotlight(info.code)[1] == "Ana" == teacher.spotlit()[1]
    teacher.spotlight(None)
    assert classes.spotlight(info.code) is None
    with pytest.raises(ClassError):
        teacher.spotlight(run + 100)


def test_presence_counts_who_is_here_per_lesson(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    a, b, c = (classes.join(info.code, n)[0] for n in "ABC")
    classes.touch(a, "scaling")
    classes.touch(b, "scaling")
    classes.touch(c, "masking", now=time.time() - 600)  # gone for ten minutes
    shown = classes.teacher(info.code, key).presence()
    assert shown["joined"] == 3 and shown["here"] == 2 and shown["per_lesson"] == {"scaling": 2}


def test_export_holds_everything_but_secrets_and_delete_removes_everything(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    keep, keep_key = classes.create_class("another class")
    teacher = classes.teacher(info.code, key)
    member, token = classes.join(info.code, "Ana")
    classes.join(keep.code, "Bo")
    question = teacher.open_question("l", "k", "?", ["a", "b"], 1, "e")
    classes.answer(member, question.id, 1)
    classes.post_run(member, "l", {"seed": 1}, [[1, 0.5, 1.0, 0.2]], {"exact_match": 0.2})
    exported = teacher.export()
    assert [r["name"] for r in exported["students"]] == ["Ana"] and exported["answers"][0]["answer"] == "1"
    assert exported["runs"][0]["metrics"] == {"exact_match": 0.2}
    assert key not in str(exported) and token not in str(exported) and names.digest(token) not in str(exported)
    teacher.delete()
    assert classes.find(info.code) is None
    for table in (schema.members, schema.questions, schema.answers, schema.runs):
        with classes.engine.connect() as conn:
            left = conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()
        assert left == (1 if table is schema.members else 0)  # only the other class's student is left
    assert classes.find(keep.code) is not None


def test_a_learner_keeps_visits_answers_and_place_and_can_wipe_them(opened):
    _, learners = opened
    key = learners.new_key()
    learners.visit(key, "rnn_cells")
    learners.visit(key, "scaling", place="the-softmax-saturates")
    learners.solve(key, "scaling", "scaling.ex1", 2, True)
    learners.solve(key, "scaling", "scaling.ex2", 0.5, False)
    assert learners.progress(key, {"rnn_cells": 2, "scaling": 2}) == {
        "rnn_cells": "in progress",
        "scaling": "in progress",
    }
    learners.solve(key, "scaling", "scaling.ex2", 0.25, True)
    learners.solve(key, "scaling", "scaling.ex1", 9, False)  # a later wrong answer does not undo a solved one
    assert learners.progress(key, {"rnn_cells": 2, "scaling": 2})["scaling"] == "done"
    assert learners.answers(key)["scaling.ex1"] == ("9", True)
    assert learners.resume(key) == ("scaling", "scaling.ex1")
    learners.visit(key, "masking")
    assert learners.resume(key) == ("masking", None)
    learners.wipe(key)
    assert learners.progress(key, {}) == {} and learners.resume(key) is None and learners.answers(key) == {}


@pytest.mark.parametrize("key", ["", "short", "x" * 65, "<script>", "'; DROP TABLE learners;--" + "a" * 20])
def test_a_malformed_learner_key_is_refused(opened, key):
    _, learners = opened
    with pytest.raises(StoreError):
        learners.visit(key, "scaling")
    assert learners.progress(key, {}) == {} and learners.resume(key) is None


def test_an_upgrade_from_every_older_schema_keeps_the_data(store_url):
    engine = store.db.prepare(sa.create_engine(store_url))
    assert schema.upgrade(engine, to=1) == 1
    with engine.begin() as conn:
        conn.execute(
            schema.classes.insert().values(
                code="ACDEFG",
                name="running",
                teacher_key_hash=names.digest("k"),
                created_at=time.time(),
                expires_at=time.time() + 3600,
                spotlight_named=False,
            )
        )
    engine.dispose()
    classes, learners = store.open_store(store_url)
    with classes.engine.connect() as conn:
        assert schema.current_version(conn) == schema.VERSION
    assert classes.get_class("ACDEFG").name == "running"
    assert classes.teacher("ACDEFG", "k").presence()["joined"] == 0
    learners.visit(learners.new_key(), "scaling")  # the newer tables are there
    classes.engine.dispose()
    again, _ = store.open_store(store_url)  # opening an up-to-date store changes nothing
    assert again.get_class("ACDEFG").name == "running"
    again.engine.dispose()


def test_an_unreachable_database_says_so():
    with pytest.raises(store.StoreUnavailable, match="cannot be reached"):
        store.open_store("postgresql+psycopg://nobody@127.0.0.1:1/nothing")


def test_sixty_students_at_once_join_answer_and_post(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    question = classes.teacher(info.code, key).open_question("l", "k", "?", ["a", "b"], 0, "e")
    failures = []

    def student(i: int) -> None:
        try:
            member = classes.join(info.code, f"S{i}")[0]
            classes.answer(member, question.id, i % 2)
            classes.post_run(member, "l", {"seed": i}, [[1, 0.1, 1.0, 0.5]], {"exact_match": 0.5})
        except Exception as error:  # noqa: BLE001 - every failure is reported below
            failures.append(repr(error))

    threads = [threading.Thread(target=student, args=(i,)) for i in range(60)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert classes.answer_count(question.id) == 60 and _count(classes.engine, schema.runs) == 60


def test_exercises_checked_in_class_are_counted_per_exercise_latest_answer_kept(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    ana, bo = (classes.join(info.code, n)[0] for n in ("Ana", "Bo"))
    classes.check_exercise(ana, "scaling", "scaling.ex1", "3", False)
    classes.check_exercise(ana, "scaling", "scaling.ex1", "1", True)  # tried again: the latest is kept
    classes.check_exercise(bo, "scaling", "scaling.ex1", "1", True)
    classes.check_exercise(bo, "masking", "masking.ex2", "0", False)
    teacher = classes.teacher(info.code, key)
    summary = {e["exercise"]: e for e in teacher.exercises()}
    assert summary["scaling.ex1"] == {
        "lesson": "scaling",
        "exercise": "scaling.ex1",
        "answered": 2,
        "right": 2,
        "answers": {"1": 2},
    }
    assert summary["masking.ex2"]["right"] == 0 and len(teacher.export()["exercises"]) == 3
    teacher.delete()
    assert classes.find(info.code) is None


def test_a_teacher_shares_a_model_file_with_the_class_and_only_with_it(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    other, _other_key = classes.create_class("o")
    teacher = classes.teacher(info.code, key)
    data = bytes(range(256)) * 1000
    model_id = teacher.share_model("gru-additive-abc.safetensors", data)
    assert classes.shared_models(info.code) == [
        {
            "id": model_id,
            "name": "gru-additive-abc.safetensors",
            "bytes": len(data),
            "shared_at": classes.shared_models(info.code)[0]["shared_at"],
        }
    ]
    assert classes.shared_model(info.code, model_id) == ("gru-additive-abc.safetensors", data)
    with pytest.raises(ClassError, match="not one this class shares"):
        classes.shared_model(other.code, model_id)
    with pytest.raises(ClassError, match="at most"):
        teacher.share_model("big", b"x" * 6_000_000)
    with pytest.raises(ClassError, match="at most"):
        teacher.share_model("empty", b"")
    teacher.delete()
    assert classes.shared_models(info.code) == []


def test_one_session_cannot_flood_classes_or_names(opened):
    classes, _ = opened
    for i in range(10):
        classes.create_class(f"c{i}", session="s1")
    with pytest.raises(RateLimited):
        classes.create_class("one too many", session="s1")
    info, _key = classes.create_class("another session's", session="s2")
    for i in range(10):
        classes.join(info.code, f"N{i}", session="s3")
    with pytest.raises(RateLimited):
        classes.join(info.code, "N10", session="s3")
    assert classes.join(info.code, "Someone else", session="s4")[0].name == "Someone else"  # others still join


def test_students_joining_a_sweep_at_once_each_get_a_different_setting(opened):
    classes, _ = opened
    info, key = classes.create_class("c")
    for _round in range(5):
        sweep = classes.teacher(info.code, key).start_sweep("masking", [{"seed": s} for s in range(6)])
        members = [classes.join(info.code)[0] for _ in range(6)]
        given, failures = [], []
        barrier = threading.Barrier(len(members))

        def take(member, sweep=sweep, given=given, failures=failures, barrier=barrier):
            barrier.wait()
            try:
                given.append(classes.assignment(member, sweep))
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(repr(error))

        threads = [threading.Thread(target=take, args=(m,)) for m in members]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == [] and sorted(given) == list(range(6))
