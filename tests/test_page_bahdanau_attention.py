"""The Bahdanau lesson under AppTest: every control path, bad input, the page's tail, and a short live training run."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lessons import bahdanau_attention
from lessons.common import catalog, live
from lessons.common.pretrained import load_pretrained
from minimodels.tasks import get_task
from tests.helpers import (
    answer_exercise,
    markdown_starting,
    open_page,
    plotly_array,
    plotly_specs,
    progress_text,
    rerun_until,
)

PAGE = "pages/bahdanau_attention.py"
IT = "toy-translation-it"
REPORT_EVERY = bahdanau_attention.live_config(1).report_every


def open_lesson(task: str | None = None) -> AppTest:
    at = open_page(PAGE)
    if task is not None:
        at.selectbox(key="bahdanau_attention.task").set_value(task).run()
        assert not at.exception, at.exception
    return at


def reported_steps(at: AppTest) -> int:
    """The step of the live run's latest report, read off its progress bar (0 before the first report)."""
    steps = re.findall(r"step (\d+)", progress_text(at))
    return int(steps[-1]) if steps else 0


def shipped_decoding(task: str = IT, text: str | None = None, **how) -> bahdanau_attention.Decoding:
    model, _ = load_pretrained(task, bahdanau_attention.MODEL)
    return bahdanau_attention.decode(model, get_task(task), text or bahdanau_attention.default_text(task), **how)


def test_opens_on_the_lecture_sentence_with_the_shipped_model():
    at = open_lesson()
    assert [t.value for t in at.title] == ["Bahdanau attention"]
    expected = shipped_decoding(text="I like pizza").translation.text
    assert markdown_starting(at, "**Output:**") == f"**Output:** `{expected}`"
    model, info = load_pretrained(IT, bahdanau_attention.MODEL)
    assert bahdanau_attention.shipped_caption(model, info) in [c.value for c in at.caption]
    # the whole alignment is the shipped model's α, exactly
    heatmap = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"] == "α: which source each output read")
    np.testing.assert_allclose(plotly_array(heatmap["data"][0]["z"]), shipped_decoding().weights, atol=1e-6)


def test_the_tail_shows_the_code_the_questions_the_sources_and_the_next_lesson():
    at = open_lesson()
    entry = catalog.lesson("bahdanau_attention")
    assert [e.label for e in at.expander][-1] == "The code that computes this"
    assert "class AdditiveAttention" in " ".join(c.value for c in at.expander[-1].code)
    assert [h.value for h in at.header][-1] == "Check yourself"
    assert entry.sources in [c.value for c in at.caption]
    following = catalog.next_lesson("bahdanau_attention")
    assert f"Next: {following.title}" in [link.proto.label for link in at.main.get("page_link")]


@pytest.mark.parametrize("task", list(bahdanau_attention.TASKS))
def test_every_task_decodes_and_steps(task):
    at = open_lesson(task)
    at.button(key="bahdanau_attention.next").click().run()
    assert at.session_state["bahdanau_attention.step"] == 2
    assert "α at step 2 over the source" in [s["layout"]["title"]["text"] for s in plotly_specs(at)]
    at.slider(key="bahdanau_attention.beam").set_value(5).run()
    beam = shipped_decoding(task, method="beam", width=5)
    assert bahdanau_attention.beam_note(beam, shipped_decoding(task)) in [c.value for c in at.caption]
    at.selectbox(key="bahdanau_attention.force_step").set_value(1).run()
    at.selectbox(key="bahdanau_attention.force_source").set_value(0).run()
    assert not at.exception
    forced = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"] == "α with the forced step")
    row = plotly_array(forced["data"][0]["z"])[1]  # step 2 now reads source token 0 alone
    assert row.tolist() == [1.0] + [0.0] * (len(row) - 1)


@pytest.mark.parametrize("bad", ["", "   ", "x" * 500, "🙂🙂 <script>alert(1)</script>", "\u202eevil\x00"])
def test_bad_input_gets_a_message_not_an_exception(bad):
    at = open_lesson()
    at.text_input(key=f"bahdanau_attention.text.{IT}").set_value(bad).run()
    assert not at.exception
    assert at.warning or at.info, "the student is told what happened to the text"


def test_train_then_stop_keeps_the_partly_trained_model():
    at = open_lesson("dates")
    at.number_input(key="bahdanau_attention.seed").set_value(3).run()
    at.button(key="bahdanau_attention.train.dates.train").click().run()
    assert not at.exception
    # AppTest does not tick run_every fragments: rerun until the background run has reported twice (a replay
    # needs two reports)
    rerun_until(at, lambda at: reported_steps(at) >= 2 * REPORT_EVERY, timeout=60, what="fewer than two reports")
    assert "training" in progress_text(at)
    at.button(key="bahdanau_attention.train.dates.stop").click().run()
    assert not at.exception
    # the run stops at its next report (Stop waits up to 2 s for it; a loaded machine may need a rerun or two)
    assert rerun_until(at, lambda at: "training" not in progress_text(at), timeout=30).startswith("stopped")
    # the run is over: the replay slider scrubs back through the reports to the first one
    replay = at.slider(key="bahdanau_attention.train.dates.replay")
    assert replay.value == replay.max >= 2
    replay.set_value(1).run()
    assert not at.exception
    assert "α on a fixed example after 10 steps" in [s["layout"]["title"]["text"] for s in plotly_specs(at)]
    # the model radio offers the student's own model, which the sections above then use
    choice = at.radio(key="bahdanau_attention.use.dates")
    assert choice.options[0].startswith("yours")
    choice.set_value(choice.options[0]).run()
    assert not at.exception
    assert markdown_starting(at, "**Output:**")


def test_exercises_are_checked_against_the_model():
    at = open_lesson()
    model, _ = load_pretrained(IT, bahdanau_attention.MODEL)
    ex = {e.key: e for e in bahdanau_attention.exercises(model)}["bahdanau_attention.ex2"]
    answer_exercise(at, "bahdanau_attention.ex2", float(ex.answer))
    assert any(s.value.startswith("Right") for s in at.success)
    answer_exercise(at, "bahdanau_attention.ex2", float(ex.answer) + 1)
    assert not any(s.value.startswith("Right") for s in at.success)


def test_a_run_says_queued_while_every_training_slot_is_taken():
    """Other students hold every slot: Train waits, says so, and Stop cancels it before it starts."""
    taken = [live.SLOTS.acquire(timeout=30) for _ in range(live.MAX_CONCURRENT_RUNS)]
    try:
        assert all(taken), "a slot was still held by an earlier run"
        at = open_lesson("dates")
        at.button(key="bahdanau_attention.train.dates.train").click().run()
        assert not at.exception
        assert any(message.value.startswith("Queued") for message in at.info)
        assert "waiting for a free slot" in progress_text(at)
        at.button(key="bahdanau_attention.train.dates.stop").click().run()
        assert not at.exception
        assert not at.button(key="bahdanau_attention.train.dates.train").disabled
        assert not any(message.value.startswith("Queued") for message in at.info)
    finally:
        for held in taken:
            if held:
                live.SLOTS.release()
