"""The Transformer page under AppTest: opens on a trained model, every control path, bad input, a live run of an
ablated model (to its end, replayed, then used above), stop, the exercises, and missing results.

AppTest sessions share Streamlit's session-scoped caches, so a student's run (``ui.current_run``) outlives one
test: every test that trains leaves its run over, and none assumes there is no run.
"""

import json

import numpy as np
import pytest

from lessons import transformer
from lessons.common.pretrained import load_pretrained
from lessons.transformer import (
    ablation,
    ablation_runs,
    convex_combination,
    decoding,
    depth,
    maps,
    reading,
    resolving_it,
)
from minimodels.tasks import get_task
from tests.helpers import open_page, plotly_array, plotly_specs, predicted, unfold, vega_rows, wait_for_run

PAGE = "pages/transformer.py"


@pytest.fixture
def at():
    """The lesson page with its folded answers and tables open (as a student opens them), fresh for each test."""
    return unfold(predicted(open_page(PAGE)), "Reveal")


def diagram(at) -> str:
    """Every text of the block diagram (the figure drawn with shapes and annotations)."""
    spec = next(s for s in plotly_specs(at) if not s["data"])
    return "\n".join(a.get("text", "") for a in spec["layout"]["annotations"])


def output(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Output:**"))


def test_opens_on_a_trained_model_with_its_diagram_and_maps(at):
    assert not at.exception
    assert at.title[0].value == "The Transformer"
    model, _ = load_pretrained("toy-translation", reading.MODEL)
    w = reading.walk(model, get_task("toy-translation"), reading.DEFAULT_TEXT["toy-translation"])
    assert output(at) == f"**Output:** `{w.translation.text}`" == "**Output:** `je le vois`"
    assert "4 maps of 4 × 4 (future masked)" in diagram(at)
    grid = plotly_specs(at)[1]  # encoder self-attention, layer 1, every head (after the diagram)
    assert [d["type"] for d in grid["data"]] == ["heatmap"] * 4
    np.testing.assert_allclose(plotly_array(grid["data"][0]["z"]), w.weights("encoder_self", 0)[0], rtol=1e-6)
    assert len(at.dataframe[0].value) == 4  # one row per head
    assert len(at.dataframe[1].value) == len(ablation_runs.VARIANTS)  # the shipped ablation table
    sweep = depth.load_depth_results()
    assert len(at.dataframe[2].value) == len(sweep.variants) * len(sweep.param_values("depth"))  # the depth sweep
    assert len(at.get("vega_lite_chart")) == 4  # the ablation's two charts, then the sweep's two
    assert at.button(key="transformer.train.toy-translation.train").disabled is False


def test_every_kind_layer_and_head_can_be_shown(at):
    for kind in maps.KINDS:
        at.radio(key="transformer.kind").set_value(kind.key).run()
        at.selectbox(key="transformer.layer").set_value(1).run()
        assert not at.exception
        grid = plotly_specs(at)[1]["layout"]
        assert grid["yaxis"]["title"]["text"] == "layer 2" and grid["annotations"][0]["text"] == "head 1"
    at.selectbox(key="transformer.head").set_value("head 3").run()
    single = plotly_specs(at)[1]
    assert single["layout"]["title"]["text"] == "Encoder–decoder attention, layer 2, head 3"
    at.selectbox(key="transformer.head").set_value("average of the heads").run()
    assert not at.exception
    at.toggle(key="transformer.every_map").set_value(True).run()
    assert len(plotly_specs(at)[2]["data"]) == 24
    at.radio(key="transformer.axis").set_value("seconds").run()
    assert json.loads(at.get("vega_lite_chart")[0].proto.spec)["encoding"]["x"]["title"] == "seconds"
    every = sorted({p["seconds"] for run in ablation_runs.load_results().runs_of("full") for p in run.curve})
    rows = [r for r in vega_rows(at.get("vega_lite_chart")[1]) if r["label"] == "full" and r["kind"] == "mean"]
    assert sorted(r["x"] for r in rows) == every  # against seconds: the mean at every seed's reports
    assert not at.exception


def test_the_sentence_and_the_task_change_the_model_shown(at):
    at.text_input(key="transformer.text.toy-translation").set_value("Jane visits Africa in September").run()
    assert output(at) == "**Output:** `Jane visite l'Afrique en septembre`"
    assert "6 tokens (5 + &lt;/s&gt;)" in diagram(at)
    for bad in ["", "   ", resolving_it.LECTURE_SENTENCE, "word " * 500]:
        at.text_input(key="transformer.text.toy-translation").set_value(bad).run()
        assert not at.exception
        assert at.warning and "Showing the last sentence that worked" in at.warning[0].value
        assert output(at) == "**Output:** `Jane visite l'Afrique en septembre`"
    at.text_input(key="transformer.text.toy-translation").set_value('I see <b>"it"</b> \\ 🙂').run()
    assert not at.exception and at.info and "unknown" in at.info[0].value
    assert "source: “I see &lt;b&gt;&quot;it&quot;&lt;/b&gt; \\ 🙂”" in diagram(at)  # text, never markup
    at.selectbox(key="transformer.task").set_value("dates").run()
    assert not at.exception
    assert output(at) == "**Output:** `2026-11-22`"


def test_train_an_ablated_model_replay_it_and_use_it_then_stop_a_second_run(at):
    at.selectbox(key="transformer.task").set_value("dates").run()
    at.selectbox(key="transformer.variant").set_value("no residual").run()
    at.select_slider(key="transformer.budget").set_value(5).run()
    at.button(key="transformer.train.dates.train").click().run()
    assert not at.exception
    assert wait_for_run(at).startswith("done")
    at.run()  # the page's top ran before the run ended: this rerun offers the student's model
    live = plotly_specs(at)[-1]  # the run's last report: the last decoder layer's cross-attention, head by head
    assert live["layout"]["yaxis"]["title"]["text"] == "encoder–decoder, layer 2"
    assert [a["text"] for a in live["layout"]["annotations"]] == [f"head {j}" for j in (1, 2, 3, 4)]
    assert len(live["data"]) == 4
    if any(s.key == "transformer.train.dates.replay" for s in at.slider):  # a busy machine may leave a 5-second
        #                                                                    run with a single report, and no replay
        at.slider(key="transformer.train.dates.replay").set_value(1).run()
        assert not at.exception
    at.radio(key="transformer.use.dates").set_value("yours, trained on this page").run()
    assert not at.exception
    assert "MultiHead(LN(x))" in diagram(at) and "x + MultiHead" not in diagram(at)  # the ablated model's boxes
    at.select_slider(key="transformer.budget").set_value(60).run()
    at.button(key="transformer.train.dates.train").click().run()
    at.button(key="transformer.train.dates.stop").click().run()
    assert not at.exception
    assert wait_for_run(at, timeout=60).startswith(("stopped", "done"))


def test_exercises_are_checked(at):
    model, _ = load_pretrained("toy-translation", reading.MODEL)
    exercises = {e.key: e for e in transformer.exercises(model, get_task("toy-translation"))}
    exercises["transformer.ex5"] = ablation.residual_prediction(ablation_runs.load_results())
    at.number_input(key="transformer.ex1.answer").set_value(float(exercises["transformer.ex1"].answer))
    at.button(key="FormSubmitter:transformer.ex1.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)
    at.number_input(key="transformer.ex3.answer").set_value(float(exercises["transformer.ex3"].answer - 1))
    at.button(key="FormSubmitter:transformer.ex3.form-Check").click().run()
    assert any("Not quite" in w.value and "Worked answer" in w.value for w in at.warning)
    ex5 = exercises["transformer.ex5"]
    at.radio(key="transformer.ex5.answer").set_value(ex5.choices[ex5.answer])
    at.button(key="FormSubmitter:transformer.ex5.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)


def test_shipped_ablation_table_sentences_and_provenance(at):
    results = ablation_runs.load_results()
    reveal = next(e for e in at.expander if e.label.startswith("Reveal the measured results"))
    assert reveal.dataframe[0].value.to_dict("records") == ablation.table_rows(results)  # behind the prediction
    assert transformer.layer_norm_note() in [c.value for c in at.caption]
    lines = ablation.observations(results)
    assert "\n".join(f"- {line}" for line in lines) in [m.value for m in at.markdown]
    assert any(c.value.startswith("Measured by `python scripts/transformer_results.py") for c in at.caption)


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    import ui.results

    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # the catalog's assets/results/… is looked for under tmp_path
    at = open_page(PAGE)
    assert not at.exception
    assert at.warning and "transformer_results.py" in at.warning[0].value
    assert "depth sweep cannot be shown" in at.warning[1].value and "--experiment depth" in at.warning[1].value
    assert len(at.dataframe) == 3  # the heads, the teacher-forced pass and the beams: no shipped table
    keys = [r.key for r in at.radio]
    assert not {"transformer.ex5.answer", "transformer.ex6.answer", "transformer.ex7.answer"} & set(keys)


def test_convex_check_teacher_forcing_and_beam_search_on_the_student_s_sentence(at):
    model, _ = load_pretrained("toy-translation", reading.MODEL)
    task = get_task("toy-translation")
    text = reading.DEFAULT_TEXT["toy-translation"]
    check = convex_combination.convex_check(model, task, text)
    assert convex_combination.convex_text(check) in [m.value for m in at.markdown]
    forced = decoding.teacher_forcing(model, task)
    assert at.dataframe[3].value.to_dict("records") == forced.rows
    beams = next(s for s in plotly_specs(at) if s["layout"].get("title", {}).get("text", "").startswith("Beam"))
    assert beams["layout"]["title"]["text"] == "Beam search, width 3: every partial output kept"
    at.slider(key="transformer.beam").set_value(1).run()
    assert not at.exception
    said = next(m.value for m in at.markdown if m.value.startswith("Width 1 kept"))
    greedy = reading.walk(model, task, text).translation.text
    assert f"it is the same as the greedy output *{greedy}*" in said
    assert at.dataframe[4].value.to_dict("records") == decoding.beam_rows(decoding.beam_view(model, task, text, 1))
    at.selectbox(key="transformer.task").set_value("dates").run()
    at.slider(key="transformer.beam").set_value(4).run()
    assert not at.exception and 1 < len(at.dataframe[-1].value) <= 4


def test_the_predictions_are_asked_before_the_reveals(at):
    results, sweep = ablation_runs.load_results(), depth.load_depth_results()
    for ex in (ablation.ffn_prediction(results), depth.depth_prediction(sweep)):
        at.radio(key=f"{ex.key}.answer").set_value(ex.choices[ex.answer])
        at.button(key=f"FormSubmitter:{ex.key}.form-Check").click().run()
        assert any(s.value.startswith("Right") and ex.explanation in s.value for s in at.success)
    labels = [e.label for e in at.expander]
    assert "Reveal the depth sweep (answer the prediction first)" in labels
    reveal = next(e for e in at.expander if e.label.startswith("Reveal the depth sweep"))
    lines = depth.depth_observations(sweep)
    assert "\n".join(f"- {line}" for line in lines) in [m.value for m in reveal.markdown]
    assert ablation.ffn_sentence(results) in "\n".join(m.value for m in at.markdown)
