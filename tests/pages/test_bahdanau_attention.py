"""The Bahdanau lesson under AppTest: every control path, bad input, the page's tail, and a short live training run."""

import functools
import re
import time

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from lessons import bahdanau_attention
from lessons.bahdanau_attention import (
    attention_cost,
    beam_search,
    decoding,
    lecture_pizza,
    step_by_step,
    training,
    weighted_sum,
)
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
    unfold,
    vega_rows,
    vega_specs,
)
from tests.lessons.common.live_recipes import counting

PAGE = "pages/bahdanau_attention.py"
IT = "toy-translation-it"
REPORT_EVERY = training.live_config(1).report_every


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


def shipped_decoding(task: str = IT, text: str | None = None, **how) -> decoding.Decoding:
    model, _ = load_pretrained(task, decoding.MODEL)
    return decoding.decode(model, get_task(task), text or decoding.default_text(task), **how)


def test_opens_on_the_lecture_sentence_with_the_shipped_model():
    at = open_lesson()
    assert [t.value for t in at.title] == ["Bahdanau attention"]
    expected = shipped_decoding(text="I like pizza").translation.text
    assert markdown_starting(at, "**Output:**") == f"**Output:** `{expected}`"
    model, info = load_pretrained(IT, decoding.MODEL)
    assert decoding.shipped_caption(model, info) in [c.value for c in at.caption]
    # the whole alignment is the shipped model's α, exactly
    heatmap = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"] == "α: which source each output read")
    np.testing.assert_allclose(plotly_array(heatmap["data"][0]["z"]), shipped_decoding().weights, atol=1e-6)
    pizza = shipped_decoding(text=lecture_pizza.PIZZA)  # the lecture's slide beside the model, in section 3
    assert lecture_pizza.pizza_sentence(pizza) in [c.value for c in at.caption]
    assert any(d.value.to_dict("records") == lecture_pizza.pizza_rows(pizza) for d in at.dataframe)
    assert bahdanau_attention.encoders_sentence(bahdanau_attention.shipped_encoders()) in " ".join(
        m.value for m in at.markdown
    )


def test_the_step_shows_the_models_scores_weights_vectors_and_top_tokens():
    """Section 1 at step 2: the tables are the shipped model's own numbers for that step (lessons.walk)."""
    at = open_lesson()
    at.button(key="bahdanau_attention.next").click().run()
    model, _ = load_pretrained(IT, decoding.MODEL)
    steps = step_by_step.walk(model, get_task(IT), "I like pizza")
    tables = [frame.value for frame in at.dataframe]
    scores = next(t for t in tables if "score eₜ,ᵢ" in t.columns)
    np.testing.assert_allclose(scores["score eₜ,ᵢ"], steps.scores[1], atol=1e-6)
    np.testing.assert_allclose(scores["αₜ,ᵢ = softmax(e)"], steps.weights[1], atol=1e-6)
    top = next(t for t in tables if "token yₜ" in t.columns)
    assert top["token yₜ"].iloc[0] == shipped_decoding().target[1]  # top-1 is what greedy decoding wrote
    vectors = next(t for t in tables if "vector" in t.columns)
    np.testing.assert_allclose(vectors["‖·‖"].iloc[2], np.linalg.norm(steps.states[2]), rtol=1e-6)
    assert step_by_step.step_sentence(steps, 2) in [c.value for c in at.caption]


def test_the_lectures_weighted_sum_follows_the_sentence_and_the_step():
    at = open_lesson()
    french, _ = load_pretrained("toy-translation", decoding.MODEL)
    assert markdown_starting(at, "**French-like output:**").endswith("`Jane visite l'Afrique en septembre`")
    at.slider(key="bahdanau_attention.jane_step").set_value(4).run()
    jane = decoding.decode(french, get_task("toy-translation"), weighted_sum.JANE)
    figure = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"].startswith("c⟨4⟩"))
    np.testing.assert_allclose(plotly_array(figure["data"][0]["z"])[-1], jane.contexts[3], atol=1e-6)
    at.text_input(key="bahdanau_attention.jane").set_value("Jane likes the sea").run()
    assert not at.exception
    assert (
        markdown_starting(at, "**French-like output:**")
        != "**French-like output:** `Jane visite l'Afrique en septembre`"
    )
    at.text_input(key="bahdanau_attention.jane").set_value("Jane visits Zanzibar 🙂").run()
    assert not at.exception and any("unknown" in message.value for message in at.info)  # told, not hidden
    at.text_input(key="bahdanau_attention.jane").set_value("   ").run()
    assert not at.exception and at.warning  # told why, and the sections after it are still drawn
    assert "7 · Train it yourself" in [h.value for h in at.header]


def test_the_cost_of_attention_is_charted_and_said_from_the_measurement():
    at = open_lesson()
    assert "6 · What attention costs" in [h.value for h in at.header]
    sentence = markdown_starting(at, "From T = ")
    assert "with attention" in sentence and "weights grew 256×" in sentence  # (256 / 16)² = 256: T_x · T_y
    charts = {
        spec.get("title"): vega_rows(c) for c, spec in zip(at.get("vega_lite_chart"), vega_specs(at), strict=True)
    }
    timed = [r for r in charts["Decoding time"] if r["kind"] == "seed"]
    assert {r["label"] for r in timed} == set(attention_cost.COST_VARIANTS.values())
    assert sorted({r["x"] for r in timed}) == list(attention_cost.COST_LENGTHS)
    assert len(timed) == 2 * len(attention_cost.COST_LENGTHS) * attention_cost.COST_REPEATS
    alpha = {r["x"]: r["mean"] for r in charts["Memory"] if r["kind"] == "mean" and r["label"].startswith("α")}
    assert alpha == {float(T): 4.0 * T * T for T in attention_cost.COST_LENGTHS}  # T_y × T_x floats


def test_the_tail_shows_the_code_the_questions_the_sources_and_the_next_lesson():
    at = open_lesson()
    entry = catalog.lesson("bahdanau_attention")
    assert [e.label for e in at.expander][-1] == "The code that computes this"
    assert not at.expander[-1].code  # folded: built when the student opens it
    assert "class AdditiveAttention" in " ".join(c.value for c in unfold(at, "The code").expander[-1].code)
    assert [h.value for h in at.header][-1] == "Check yourself"
    assert entry.sources in [c.value for c in at.caption]
    following = catalog.next_lesson("bahdanau_attention")
    assert f"Next: {following.title}" in [link.proto.label for link in at.main.get("page_link")]


@pytest.mark.parametrize("task", list(decoding.TASKS))
def test_every_task_decodes_and_steps(task):
    at = open_lesson(task)
    at.button(key="bahdanau_attention.next").click().run()
    assert at.session_state["bahdanau_attention.step"] == 2
    assert "α at step 2 over the source" in [s["layout"]["title"]["text"] for s in plotly_specs(at)]
    at.slider(key="bahdanau_attention.beam").set_value(5).run()
    beam = shipped_decoding(task, method="beam", width=5)
    assert beam_search.beam_note(beam, shipped_decoding(task)) in [c.value for c in at.caption]
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
    at.toggle(key="bahdanau_attention.bidirectional").set_value(True).run()
    at.button(key="bahdanau_attention.train.dates.train").click().run()
    assert not at.exception
    assert any(c.value.startswith("This run's model: bidirectional GRU encoder") for c in at.caption)
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
    assert any(c.value.startswith("Your model, trained on this page: bidirectional") for c in at.caption)


def test_exercises_are_checked_against_the_model():
    at = open_lesson()
    model, _ = load_pretrained(IT, decoding.MODEL)
    ex = {e.key: e for e in bahdanau_attention.exercises(model)}["bahdanau_attention.ex2"]
    answer_exercise(at, "bahdanau_attention.ex2", float(ex.answer))
    assert any(s.value.startswith("Right") for s in at.success)
    answer_exercise(at, "bahdanau_attention.ex2", float(ex.answer) + 1)
    assert not any(s.value.startswith("Right") for s in at.success)


def test_a_run_says_queued_while_every_training_worker_is_taken():
    """Other students' runs hold every worker: Train waits, says so, and Stop cancels it before it starts."""
    others = [live.TrainingRun(functools.partial(counting, 1_000_000, 0.01)).start() for _ in range(live.POOL_SIZE)]
    try:
        deadline = time.monotonic() + 120
        while not all(run.status == "running" for run in others):
            assert time.monotonic() < deadline and all(run.active for run in others), "the workers did not start"
            time.sleep(0.1)
        at = open_lesson("dates")
        at.button(key="bahdanau_attention.train.dates.train").click().run()
        assert not at.exception
        assert any(m.value.startswith("Queued") and "yours is next" in m.value for m in at.info)
        assert "waiting for a free slot" in progress_text(at)
        # the runs it waits for are named on its bar (theirs report no seconds: "under way"): the line is seen to move
        assert progress_text(at).endswith("training now: " + ", ".join(["under way"] * live.POOL_SIZE))
        at.button(key="bahdanau_attention.train.dates.stop").click().run()
        assert not at.exception
        assert not at.button(key="bahdanau_attention.train.dates.train").disabled
        assert not any(message.value.startswith("Queued") for message in at.info)
    finally:
        for run in others:
            run.stop()
        assert all(run.wait(30) for run in others)
