"""The bottleneck page under AppTest: every control, hostile strings, Train/Stop for both models, exercises."""

import base64
import html
import json

import numpy as np
import pytest

from lessons import bottleneck
from lessons.live import TrainingRun
from tests.test_pages import open_page

PAGE = "pages/02_seq2seq_bottleneck.py"
KEPT = "Showing the last string that worked"


@pytest.fixture
def at():
    return open_page(PAGE)


def figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def figure(at, title_start: str) -> dict:
    found = [f for f in figures(at) if f["layout"].get("title", {}).get("text", "").startswith(title_start)]
    assert len(found) == 1, [f["layout"].get("title", {}).get("text") for f in figures(at)]
    return found[0]


def values(array) -> np.ndarray:
    """A trace's array from the figure's JSON: Plotly 6 sends arrays as base64 typed arrays."""
    if isinstance(array, dict):
        shape = [int(n) for n in array.get("shape", str(-1)).split(",")]
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).reshape(shape)
    return np.asarray(array, dtype=float)


def states_labels(at) -> list[str]:
    """The states heatmap's row labels as the student reads them (the chart escapes them)."""
    return [html.unescape(t) for t in figure(at, "Encoder states")["layout"]["yaxis"]["ticktext"]]


def summary_of(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("With D = "))


def test_page_opens_with_the_squeeze_the_shipped_curves_and_the_exercises(at):
    assert not at.exception
    assert at.title[0].value == "Seq2seq and the fixed-size context"
    assert len(at.latex) >= 1
    assert states_labels(at)[0] == "h1 · j" and states_labels(at)[-1] == "h19 · </s>"
    assert values(figure(at, "Encoder states")["data"][0]["z"]).shape == (19, 32)
    assert values(figure(at, "All the decoder gets")["data"][0]["z"]).shape == (1, 32)
    curves = figure(at, "exact match by source length, D = 64")
    assert [t["name"] for t in curves["data"]][-2:] == [
        "shipped: without attention, D = 64",
        "shipped: with attention, D = 64",
    ]
    grid = figures(at)[-1]
    assert [t["type"] for t in grid["data"]] == ["heatmap", "heatmap"]
    results = bottleneck.load_results()
    assert summary_of(at) == bottleneck.summary(results, 64, "exact_match")
    table = at.dataframe[0].value
    assert list(table["string"]) == list(bottleneck.EXAMPLES)
    assert list(table["with attention wrote"]) == [
        results.run("gru-additive", 64).outputs[t] for t in bottleneck.EXAMPLES
    ]
    assert len(at.get("form")) == 4


def test_a_new_string_is_read_and_hostile_ones_keep_the_last_good_one(at):
    at.text_input(key="bottleneck.text").set_value("Attention").run()
    assert not at.exception and not at.warning
    assert at.session_state["bottleneck.kept"] == "attention"
    assert states_labels(at)[-1] == "h10 · </s>"
    for bad in ["", "   ", "🙂🙂", "<>!?"]:
        at.text_input(key="bottleneck.text").set_value(bad).run()
        assert not at.exception
        assert at.warning and KEPT in at.warning[0].value
        assert at.session_state["bottleneck.kept"] == "attention"
        assert states_labels(at)[-1] == "h10 · </s>"


@pytest.mark.parametrize(
    ("typed", "note"),
    [
        ("jane visits africa in september", "Only the first 18 characters"),
        ("<script>alert(1)</script>", "read as <unk>"),
        ("I 🙂 pizza", "1 character is not a letter"),
        ("x" * 499, "Only the first 18 characters"),
    ],
)
def test_long_or_odd_strings_are_used_with_a_note(at, typed, note):
    at.text_input(key="bottleneck.text").set_value(typed).run()
    assert not at.exception and not at.warning
    assert at.info and note in at.info[0].value
    assert len(states_labels(at)) <= bottleneck.MAX_LEN + 1
    raw = figure(at, "Encoder states")["layout"]["yaxis"]["ticktext"]
    assert not any("<" in label for label in raw)  # escaped labels: no markup reaches the chart


def test_the_demo_context_size_changes_the_vector_not_the_rows(at):
    for d in bottleneck.CONTEXT_SIZES:
        at.select_slider(key="bottleneck.demo_d").set_value(d).run()
        assert not at.exception
        assert values(figure(at, "Encoder states")["data"][0]["z"]).shape == (19, d)
        assert values(figure(at, "All the decoder gets")["data"][0]["z"]).shape == (1, d)


def test_the_experiment_controls_redraw_the_curves_and_the_summary(at):
    results = bottleneck.load_results()
    for d in bottleneck.CONTEXT_SIZES:
        at.select_slider(key="bottleneck.d").set_value(d).run()
        assert not at.exception
        assert summary_of(at) == bottleneck.summary(results, d, "exact_match")
        figure(at, f"exact match by source length, D = {d}")
    at.radio(key="bottleneck.metric").set_value("token_accuracy").run()
    assert not at.exception
    curves = figure(at, f"token accuracy by source length, D = {bottleneck.CONTEXT_SIZES[-1]}")
    expected = results.run("gru-none", bottleneck.CONTEXT_SIZES[-1]).accuracy.token_accuracy
    np.testing.assert_allclose(values(curves["data"][-2]["y"]), expected)
    assert summary_of(at).startswith(f"With D = {bottleneck.CONTEXT_SIZES[-1]}, **without attention** token accuracy")


def test_exercises_are_checked(at):
    at.number_input(key="bottleneck.ex1.answer").set_value(32)
    at.button(key="FormSubmitter:bottleneck.ex1.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)
    at.number_input(key="bottleneck.ex2.answer").set_value(32)
    at.button(key="FormSubmitter:bottleneck.ex2.form-Check").click().run()
    assert any("too low" in w.value for w in at.warning)
    reach = bottleneck.longest_length_above(bottleneck.load_results().run("gru-none", 64).accuracy)
    at.number_input(key="bottleneck.ex3.answer").set_value(reach)
    at.button(key="FormSubmitter:bottleneck.ex3.form-Check").click().run()
    assert any(s.value.startswith(f"Right: {reach:.3f}") for s in at.success)
    options = at.radio(key="bottleneck.ex4.answer").options
    at.radio(key="bottleneck.ex4.answer").set_value(options[1])
    at.button(key="FormSubmitter:bottleneck.ex4.form-Check").click().run()
    assert any("same D" in w.value for w in at.warning)
    at.radio(key="bottleneck.ex4.answer").set_value(options[0])
    at.button(key="FormSubmitter:bottleneck.ex4.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)
    assert not at.exception


# ------------------------------------------------------------------------------------------ live training
@pytest.fixture
def started(monkeypatch):
    """Every TrainingRun the page starts, so a test can wait for it (AppTest does not tick run_every)."""
    runs: list[TrainingRun] = []
    original = TrainingRun.start

    def start(self):
        runs.append(self)
        return original(self)

    monkeypatch.setattr(TrainingRun, "start", start)
    yield runs
    for run in runs:
        run.stop()
        run.wait(60)


@pytest.fixture
def tiny(monkeypatch):
    """A tiny budget: a few steps, a report every few, two strings of each length."""
    monkeypatch.setattr(bottleneck, "STEPS", 12)
    monkeypatch.setattr(bottleneck, "LIVE_REPORT_EVERY", 4)
    monkeypatch.setattr(bottleneck, "LIVE_PER_LENGTH", 2)


@pytest.mark.parametrize("model", list(bottleneck.MODELS))
def test_train_with_a_tiny_budget_draws_the_students_curve_and_replay(at, started, tiny, model):
    at.select_slider(key="bottleneck.train_d").set_value(16).run()
    at.button(key=f"bottleneck.train.{model}.train").click().run()
    assert not at.exception
    assert len(started) == 1
    run = started[0]
    assert run.wait(120), "the tiny run did not finish"
    assert run.status == "finished", run.error
    assert [r.step for r in run.snapshots] == [4, 8, 12]
    assert run.model.config.hidden_size == 16
    at.run()
    assert not at.exception
    assert at.slider(key=f"bottleneck.train.{model}.replay").value == 3
    replay = figure(at, f"Your model {bottleneck.MODELS[model]} after 12 steps")
    assert replay["data"][-1]["name"].startswith("yours") and replay["data"][-1]["line"]["dash"] == "dash"
    compare = figure(at, "Exact match by source length: yours (dashed) and shipped (solid), D = 16")
    own = values(compare["data"][-1]["y"])
    np.testing.assert_allclose(own, run.latest.accuracy.exact_match)
    at.slider(key=f"bottleneck.train.{model}.replay").set_value(1).run()
    assert not at.exception
    figure(at, f"Your model {bottleneck.MODELS[model]} after 4 steps")


def test_stop_keeps_the_partly_trained_model_and_the_squeeze_can_use_it(at, started, monkeypatch):
    monkeypatch.setattr(bottleneck, "LIVE_REPORT_EVERY", 2)  # a report, hence a chance to stop, every 2 steps
    at.select_slider(key="bottleneck.train_d").set_value(16).run()
    at.button(key="bottleneck.train.gru-none.train").click().run()
    at.button(key="bottleneck.train.gru-none.stop").click().run()
    assert not at.exception
    run = started[0]
    assert run.wait(120)
    assert run.status == "stopped" and run.snapshots
    assert run.latest.step < bottleneck.STEPS
    at.run()
    assert not at.exception
    assert not at.button(key="bottleneck.train.gru-none.train").disabled
    # the stopped model is the student's: section 1 offers it as the encoder
    at.radio(key="bottleneck.encoder").set_value("yours, trained below").run()
    assert not at.exception
    assert values(figure(at, "Encoder states")["data"][0]["z"]).shape == (19, 16)
    assert "bottleneck.demo_d" not in [s.key for s in at.select_slider]  # the model's own D replaces the slider
