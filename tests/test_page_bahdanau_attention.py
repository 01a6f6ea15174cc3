"""The Bahdanau lesson under AppTest: every control path, bad input, and a short live training run."""

import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from lessons import bahdanau_attention as bahdanau
from lessons.common import live
from lessons.common.pretrained import load_pretrained
from minimodels.tasks import get_task

PAGE = "pages/bahdanau_attention.py"


def reported_steps(at: AppTest) -> int:
    """The step of the live run's latest report, read off its progress bar (0 before the first report)."""
    steps = re.findall(r"step (\d+)", " ".join(p.proto.text for p in at.get("progress")))
    return int(steps[-1]) if steps else 0


def open_page(task: str | None = None) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    if task is not None:
        at.selectbox(key="bahdanau_attention.task").set_value(task).run()
        assert not at.exception, at.exception
    return at


def test_opens_on_the_lecture_sentence_with_the_shipped_model():
    at = open_page()
    model, _ = load_pretrained("toy-translation-it", bahdanau.MODEL)
    expected = bahdanau.decode(model, get_task("toy-translation-it"), "I like pizza").translation.text
    outputs = [m.value for m in at.markdown if m.value.startswith("**Output:**")]
    assert outputs == [f"**Output:** `{expected}`"]


@pytest.mark.parametrize("task", list(bahdanau.TASKS))
def test_every_task_decodes_and_steps(task):
    at = open_page(task)
    at.button(key="bahdanau_attention.next").click().run()
    assert at.session_state["bahdanau_attention.step"] == 2
    at.slider(key="bahdanau_attention.beam").set_value(5).run()
    at.selectbox(key="bahdanau_attention.force_step").set_value(1).run()
    at.selectbox(key="bahdanau_attention.force_source").set_value(0).run()
    assert not at.exception


@pytest.mark.parametrize("bad", ["", "   ", "x" * 500, "🙂🙂 <script>alert(1)</script>", "\u202eevil\x00"])
def test_bad_input_gets_a_message_not_an_exception(bad):
    at = open_page()
    at.text_input(key="bahdanau_attention.text.toy-translation-it").set_value(bad).run()
    assert not at.exception
    assert at.warning or at.info, "the student is told what happened to the text"


def test_train_then_stop_keeps_the_partly_trained_model():
    at = open_page("dates")
    at.number_input(key="bahdanau_attention.seed").set_value(3).run()
    at.button(key="bahdanau_attention.train.dates.train").click().run()
    assert not at.exception
    # AppTest does not tick run_every fragments: rerun until the background run has reported twice (a replay
    # needs two reports; the dates run reports every 10 steps)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and reported_steps(at) < 2 * bahdanau.live_config(1).report_every:
        time.sleep(0.5)
        at.run()
    progress_text = " ".join(p.proto.text for p in at.get("progress"))
    assert "training" in progress_text and reported_steps(at) >= 2 * bahdanau.live_config(1).report_every
    at.button(key="bahdanau_attention.train.dates.stop").click().run()
    assert not at.exception
    # the run stops at its next report (Stop waits up to 2 s for it; a loaded machine may need a rerun or two)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "training" in " ".join(p.proto.text for p in at.get("progress")):
        time.sleep(0.5)
        at.run()
    assert "stopped" in " ".join(p.proto.text for p in at.get("progress"))
    # the run is over: the replay slider scrubs back through the reports to the first one
    replay = at.slider(key="bahdanau_attention.train.dates.replay")
    assert replay.value == replay.max >= 2
    replay.set_value(1).run()
    assert not at.exception
    # the model radio offers the student's own model, which the sections above then use
    assert at.radio(key="bahdanau_attention.use.dates").options[0].startswith("yours")
    at.radio(key="bahdanau_attention.use.dates").set_value(
        at.radio(key="bahdanau_attention.use.dates").options[0]
    ).run()
    assert not at.exception
    assert [m for m in at.markdown if m.value.startswith("**Output:**")]


def test_exercises_are_checked_against_the_model():
    at = open_page()
    model, _ = load_pretrained("toy-translation-it", bahdanau.MODEL)
    ex = {e.key: e for e in bahdanau.exercises(model)}["bahdanau_attention.ex2"]
    at.number_input(key="bahdanau_attention.ex2.answer").set_value(float(ex.answer))
    at.button(key="FormSubmitter:bahdanau.ex2.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)


def test_a_run_says_queued_while_every_training_slot_is_taken():
    """Other students hold every slot: Train waits, says so, and Stop cancels it before it starts."""
    taken = [live.SLOTS.acquire(timeout=30) for _ in range(live.MAX_CONCURRENT_RUNS)]
    try:
        assert all(taken), "a slot was still held by an earlier run"
        at = open_page("dates")
        at.button(key="bahdanau_attention.train.dates.train").click().run()
        assert not at.exception
        assert any(message.value.startswith("Queued") for message in at.info)
        assert "waiting for a free slot" in " ".join(p.proto.text for p in at.get("progress"))
        at.button(key="bahdanau_attention.train.dates.stop").click().run()
        assert not at.exception
        assert not at.button(key="bahdanau_attention.train.dates.train").disabled
        assert not any(message.value.startswith("Queued") for message in at.info)
    finally:
        for held in taken:
            if held:
                live.SLOTS.release()
