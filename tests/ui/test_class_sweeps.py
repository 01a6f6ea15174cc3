"""Class sweeps: every axis a lesson declares (``catalog.Lesson.sweep``) is a real control of its training panel that
takes every value the teacher may hand out; a student in a sweep finds their setting on the page, and their
finished run reaches the class's pooled chart."""

from __future__ import annotations

import pytest

import store
from lessons.common import catalog, classroom
from tests.helpers import open_page, wait_for_run

SWEEPABLE = [lesson for lesson in catalog.all_lessons() if lesson.sweep]


def _widget(at, key: str):
    for kind in ("radio", "select_slider", "selectbox", "number_input", "checkbox", "toggle", "slider"):
        found = [w for w in at.get(kind) if getattr(w, "key", None) == key]
        if found:
            return found[0]
    raise AssertionError(f"no control keyed {key}")


def test_every_lesson_with_a_training_panel_declares_what_a_class_can_sweep():
    with_panel = {p.stem for p in (catalog.ROOT / "pages").glob("*.py") if "ui.training_panel(" in p.read_text()}
    assert with_panel - {"own_data"} == {lesson.slug for lesson in SWEEPABLE}
    for lesson in SWEEPABLE:
        assert all(axis.key.startswith(f"{lesson.slug}.") and len(axis.values) >= 2 for axis in lesson.sweep)


@pytest.mark.slow
@pytest.mark.parametrize("lesson", SWEEPABLE, ids=lambda lesson: lesson.slug)
def test_every_sweep_value_is_one_the_panel_takes(lesson):
    at = open_page(lesson.page)
    for axis in lesson.sweep:
        _widget(at, axis.key)  # the control is on the page
        for value in axis.values:
            at.session_state[axis.key] = value  # as ui.classroom writes a student's setting
            at.run()
            assert not at.exception, (axis.key, value, at.exception)
            assert _widget(at, axis.key).value == value, (axis.key, value)


def _class():
    classes, _ = store.open_store()
    info, key = classes.create_class("sweep")
    return classes, info, classes.teacher(info.code, key)


def _join_page(classes, code: str, name: str, page: str):
    at = open_page("pages/classroom.py", params={"join": code})
    at.text_input(key="classroom.join.name").set_value(name)
    at.button(key="FormSubmitter:classroom.join.form-Join").click().run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def test_students_in_a_sweep_get_their_settings_and_the_grid_is_covered():
    lesson = catalog.lesson("masking")
    classes, info, teacher = _class()
    grid = [{"masking.live_causal": c, "masking.seed": s} for c in (True, False) for s in (0, 1)]
    teacher.start_sweep("masking", grid, {a.key: a.label for a in lesson.sweep})
    seen = []
    for i in range(4):
        at = _join_page(classes, info.code, f"S{i}", lesson.page)
        shown = " ".join(m.value for m in at.info)
        assert "Class sweep" in shown
        setting = {key: _widget(at, key).value for key in grid[0]}
        assert setting in grid and classroom.setting_text(setting, {a.key: a.label for a in lesson.sweep}) in shown
        seen.append(setting)
    assert sorted(map(str, seen)) == sorted(map(str, grid))  # four students, four settings: the grid, once each


def test_the_teacher_hands_out_a_sweep_from_the_lesson_page():
    classes, info, teacher = _class()
    at = open_page("pages/classroom.py", params={"class": info.code, "teacher": ""})  # no key: refused
    assert "classroom.teacher" not in at.session_state
    at.session_state["classroom.teacher"] = teacher  # as a teacher link would leave it (tested on the class page)
    at.switch_page("pages/masking.py").run()
    picked = at.multiselect(key="classroom.sweep.masking.seed")
    picked.set_value([0, 1, 2]).run()
    at.button(key="classroom.sweep.masking.start").click().run()
    assert not at.exception, at.exception
    sweep = classes.current_sweep(info.code, "masking")
    assert sweep is not None and len(sweep.settings) == 2 * 3


@pytest.mark.slow
def test_a_finished_run_goes_to_the_class_with_its_setting_curve_and_map():
    classes, info, teacher = _class()
    grid = [{"masking.live_causal": False, "masking.seed": 3}]
    sweep = teacher.start_sweep("masking", grid, {})
    at = _join_page(classes, info.code, "Runner", "pages/masking.py")
    assert _widget(at, "masking.seed").value == 3 and _widget(at, "masking.live_causal").value is False
    at.session_state["masking.budget"] = 5  # the shortest run the panel offers
    at.run()
    at.button(key=next(b.key for b in at.button if b.key and b.key.endswith(".train"))).click().run()
    assert wait_for_run(at, timeout=120).startswith("done")
    at.run()
    runs = teacher.runs(sweep_id=sweep.id)
    assert len(runs) == 1
    run = runs[0]
    assert run.settings == {"masking.live_causal": False, "masking.seed": 3} and run.member_name == "Runner"
    assert run.curve and 0.0 <= run.metrics["exact_match"] <= 1.0
    pooled = classroom.pool([{"settings": run.settings, "metrics": run.metrics}], sweep.settings)
    assert pooled[0].n == 1 and pooled[0].mean == run.metrics["exact_match"]
    at.run()
    assert len(teacher.runs()) == 1  # posted once, not on every redraw


def test_the_dashboard_pools_a_sweep_into_one_chart_with_every_students_point():
    classes, info, teacher = _class()
    lesson = catalog.lesson("masking")
    grid = [{"masking.live_causal": c} for c in (True, False)]
    sweep = teacher.start_sweep("masking", grid, {a.key: a.label for a in lesson.sweep})
    scores = {True: [0.9, 0.8, 0.85, 0.87, 0.83], False: [0.2, 0.3, 0.25, 0.23, 0.27]}  # five a side: the rule
    for causal, values in scores.items():
        for i, value in enumerate(values):
            member, _token = classes.join(info.code, f"{causal}-{i}")
            classes.post_run(
                member,
                "masking",
                {"masking.live_causal": causal},
                [[1, 1.0, 0.5, value]],
                {"exact_match": value},
                sweep_id=sweep.id,
            )
    at = open_page("pages/classroom.py")
    at.session_state["classroom.teacher"] = teacher
    at.run()
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "10 runs over 2 of 2 settings" in text and "causal mask = True (85% ± 4%, n = 5)" in text
    assert "clear difference" in text
    from tests.helpers import vega_specs

    pooled = [spec for spec in vega_specs(at) if "per setting" in str(spec.get("title", ""))]
    assert len(pooled) == 1
