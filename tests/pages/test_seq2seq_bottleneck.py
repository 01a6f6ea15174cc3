"""The bottleneck page under AppTest: every control, hostile strings, one Train for both models and Stop, exercises."""

import html
import json

import numpy as np
import pytest

from lessons import seq2seq_bottleneck
from lessons.common.live import TrainingRun
from lessons.seq2seq_bottleneck import experiment, live_training, pooling, shipped, where_it_breaks
from tests.helpers import answer_exercise, open_without_results, plotly_array, vega_rows, vega_specs
from tests.helpers import plotly_specs as figures

PAGE = "pages/seq2seq_bottleneck.py"
KEPT = "Showing the last string that worked"


def figure(at, title_start: str) -> dict:
    found = [f for f in figures(at) if f["layout"].get("title", {}).get("text", "").startswith(title_start)]
    assert len(found) == 1, [f["layout"].get("title", {}).get("text") for f in figures(at)]
    return found[0]


def states_labels(at) -> list[str]:
    """The states heatmap's row labels as the student reads them (the chart escapes them)."""
    return [html.unescape(t) for t in figure(at, "Encoder states")["layout"]["yaxis"]["ticktext"][:-1]]  # then c


def summary_of(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("At D = ") and "over" in m.value)


def curves(at, title_start: str) -> list[dict]:
    """The rows of the one Vega chart whose title starts with ``title_start`` (its seeds and its mean ± sd)."""
    found = [c for c in at.get("vega_lite_chart") if json.loads(c.proto.spec).get("title", "").startswith(title_start)]
    assert len(found) == 1, [json.loads(c.proto.spec).get("title") for c in at.get("vega_lite_chart")]
    return vega_rows(found[0])


def test_page_opens_with_the_squeeze_the_shipped_curves_and_the_exercises(at):
    assert not at.exception
    assert at.title[0].value == "Seq2seq and the fixed-size context"
    assert len(at.latex) >= 1
    assert states_labels(at)[0] == "h1 · j" and states_labels(at)[-1] == "h19 · </s>"
    states, context, bars = figure(at, "Encoder states")["data"]
    states, context = plotly_array(states["z"]), plotly_array(context["z"])
    assert states.shape == (19, 32) and context.shape == (1, 32)
    np.testing.assert_array_equal(context[0], states[-1])  # c = h_S, drawn under the states
    assert bars["type"] == "bar" and plotly_array(bars["x"]).shape == (18,)  # one bar beside each character's state
    assert figure(at, "Encoder states")["layout"]["yaxis"]["ticktext"][-1] == "c = h19"
    results = shipped.load_results()
    titles = [spec.get("title") for spec in vega_specs(at)]
    assert f"exact match, D = 64, {len(results.seeds)} seeds" in titles
    grid = [f for f in figures(at) if [t["type"] for t in f["data"]] == ["heatmap", "heatmap"]]
    assert len(grid) == 1
    assert summary_of(at) == where_it_breaks.summary(results, 64, "exact_match")
    overview = next(m.value for m in at.markdown if m.value.startswith("**What the whole sweep shows.**"))
    assert where_it_breaks.overview(results, "exact_match") in overview
    labels = [c.value for c in at.caption if c.value.startswith("Shipped, trained for this page")]
    assert labels[0] == where_it_breaks.shipped_models(results, 64)
    assert labels[1] == where_it_breaks.shipped_models(results, 64, pooling.POOL_ORDER)
    assert all("unidirectional GRU encoder" in label for label in labels)  # every shipped model says what it is
    assert any(m.value == pooling.pooling_summary(results) for m in at.markdown)
    assert at.expander[0].label.startswith("Symbols on this page")  # the table of symbols near the top
    table = next(d.value for d in at.dataframe if "string" in d.value.columns)
    assert list(table["string"]) == list(experiment.EXAMPLES)
    outputs = shipped.shipped_run(results, "gru-additive", 64).extra["outputs"]
    assert list(table["with attention wrote"]) == [outputs[t] for t in experiment.EXAMPLES]
    provenance = [c.value for c in at.caption if c.value.startswith("Measured by")]
    assert len(provenance) == 1 and "scripts/seq2seq_bottleneck_results.py" in provenance[0]
    assert f"(n = {len(results.seeds)})" in provenance[0] and "800 steps each" in provenance[0]
    assert len(at.get("form")) == len(seq2seq_bottleneck.exercises()) >= 3


def test_a_new_string_is_read_and_hostile_ones_keep_the_last_good_one(at):
    at.text_input(key="seq2seq_bottleneck.text").set_value("Attention").run()
    assert not at.exception and not at.warning
    assert at.session_state["seq2seq_bottleneck.kept"] == "attention"
    assert states_labels(at)[-1] == "h10 · </s>"
    for bad in ["", "   ", "🙂🙂", "<>!?"]:
        at.text_input(key="seq2seq_bottleneck.text").set_value(bad).run()
        assert not at.exception
        assert at.warning and KEPT in at.warning[0].value
        assert at.session_state["seq2seq_bottleneck.kept"] == "attention"
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
    at.text_input(key="seq2seq_bottleneck.text").set_value(typed).run()
    assert not at.exception and not at.warning
    assert at.info and note in at.info[0].value
    assert len(states_labels(at)) <= experiment.MAX_LEN + 1
    raw = figure(at, "Encoder states")["layout"]["yaxis"]["ticktext"]
    assert not any("<" in label for label in raw)  # escaped labels: no markup reaches the chart


def test_the_demo_context_size_changes_the_vector_not_the_rows(at):
    for d in experiment.CONTEXT_SIZES:
        at.select_slider(key="seq2seq_bottleneck.demo_d").set_value(d).run()
        assert not at.exception
        states, context, _ = figure(at, "Encoder states")["data"]
        assert plotly_array(states["z"]).shape == (19, d) and plotly_array(context["z"]).shape == (1, d)


def test_the_experiment_controls_redraw_the_curves_and_the_summary(at):
    results = shipped.load_results()
    for d in experiment.CONTEXT_SIZES:
        at.select_slider(key="seq2seq_bottleneck.d").set_value(d).run()
        assert not at.exception
        assert summary_of(at) == where_it_breaks.summary(results, d, "exact_match")
        assert any(c.value == where_it_breaks.shipped_models(results, d) for c in at.caption)
    at.radio(key="seq2seq_bottleneck.metric").set_value("token_accuracy").run()
    assert not at.exception
    top = experiment.CONTEXT_SIZES[-1]
    rows = curves(at, f"token accuracy, D = {top},")
    means = [r["mean"] for r in rows if r["kind"] == "mean" and r["label"] == "without attention"]
    np.testing.assert_allclose(means, shipped.accuracy_of(results, "gru-none", top).token_accuracy)
    assert {r["seed"] for r in rows if r["kind"] == "seed"} == set(results.seeds)  # each seed drawn, faint
    assert summary_of(at) == where_it_breaks.summary(results, top, "token_accuracy")
    assert "token accuracy on strings of 13–18 characters" in summary_of(at)


def test_the_pooling_example_computes_the_lectures_weights_and_refuses_bad_input(at):
    pooled = figure(at, "Three states, pooled two ways")
    expected = pooling.pool(((1, 0), (0, 1), (1, 1)), (0.60, 0.35, 0.05))
    assert plotly_array(pooled["data"][2]["x"])[0] == pytest.approx(expected.attended[0])
    assert any(pooling.pooling_text(expected) in x.value for x in at.latex)
    at.text_input(key="seq2seq_bottleneck.weights").set_value("1, 1, 2").run()
    assert not at.exception and any("add up to 4%" in i.value for i in at.info)
    assert plotly_array(figure(at, "Three states, pooled two ways")["data"][2]["x"])[0] == pytest.approx(0.75)
    for bad in ["", "60, 40", "-1, 50, 51", "a, b, c"]:
        at.text_input(key="seq2seq_bottleneck.weights").set_value(bad).run()
        assert not at.exception and any("Showing the last weights that worked" in w.value for w in at.warning)
    at.text_input(key="seq2seq_bottleneck.states_in").set_value("1 2; oops").run()
    assert not at.exception and any("Showing the last states that worked" in w.value for w in at.warning)
    assert plotly_array(figure(at, "Three states, pooled two ways")["data"][2]["x"])[0] == pytest.approx(0.75)


def test_the_bidirectional_table_follows_the_students_string(at):
    at.text_input(key="seq2seq_bottleneck.text").set_value("pizza").run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "←hᵢ has read (right to left)" in d.value.columns)
    assert list(table["→hᵢ has read (left to right)"])[:2] == ["p (1)", "pi (2)"]
    assert list(table["←hᵢ has read (right to left)"])[1] == "izza</s> (5)"


def test_exercises_are_checked(at):
    exercises = {ex.key: ex for ex in seq2seq_bottleneck.exercises()}
    answer_exercise(at, "seq2seq_bottleneck.ex1", 48)
    assert any(s.value.startswith("Right") and "24 + 24 = 48" in s.value for s in at.success)
    answer_exercise(at, "seq2seq_bottleneck.ex2", 48)
    assert any("Not quite" in w.value and "Worked answer" in w.value and "13 × 48" in w.value for w in at.warning)
    answer_exercise(at, "seq2seq_bottleneck.ex3", 29)  # positions 41 down to 13
    assert any(s.value.startswith("Right: 29.") for s in at.success)
    answer_exercise(at, "seq2seq_bottleneck.ex4", 1.5)
    assert any("(2 + 0 + 1 + 3) / 4 = 1.50" in s.value for s in at.success)
    answer_exercise(at, "seq2seq_bottleneck.ex5", 2.0)  # the mean's second number, not the weighted sum's
    assert any(
        "Not quite" in w.value and exercises["seq2seq_bottleneck.ex5"].explanation in w.value for w in at.warning
    )
    options = at.radio(key="seq2seq_bottleneck.ex6.answer").options
    answer_exercise(at, "seq2seq_bottleneck.ex6", options[0])
    assert any("remembers best what it read last" in w.value for w in at.warning)
    answer_exercise(at, "seq2seq_bottleneck.ex6", options[1])
    assert any(s.value.startswith("Right") for s in at.success)


def test_missing_results_get_a_warning_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    at = open_without_results("seq2seq_bottleneck", monkeypatch, tmp_path)
    assert not at.exception
    assert any("seq2seq_bottleneck_results.py" in w.value for w in at.warning)
    assert "seq2seq_bottleneck.d" not in [s.key for s in at.select_slider]  # no shipped curves to choose from
    figure(at, "Encoder states")  # section 1 does not need them
    figure(at, "Three states, pooled two ways")  # nor the lecture's pooling example
    assert len(at.get("form")) == len(seq2seq_bottleneck.exercises())  # none needs the shipped results
    assert not at.button(key="seq2seq_bottleneck.train.train").disabled


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
    """A tiny budget: a few steps per model, a report every few, two strings of each length."""
    monkeypatch.setattr(live_training, "LIVE_STEPS", 8)
    monkeypatch.setattr(live_training, "LIVE_REPORT_EVERY", 4)
    monkeypatch.setattr(live_training, "LIVE_PER_LENGTH", 2)


def dashed(fig: dict) -> dict[str, np.ndarray]:
    """The student's curves of a length chart: label -> exact match by length."""
    return {t["name"]: plotly_array(t["y"]) for t in fig["data"] if t.get("line", {}).get("dash") == "dash"}


def test_one_click_trains_both_models_and_draws_their_curves_the_heatmap_and_the_replay(at, started, tiny):
    at.select_slider(key="seq2seq_bottleneck.train_d").set_value(16).run()
    at.number_input(key="seq2seq_bottleneck.seed").set_value(3).run()
    at.radio(key="seq2seq_bottleneck.train_encoder").set_value("bidirectional").run()
    at.button(key="seq2seq_bottleneck.train.train").click().run()
    assert not at.exception
    assert len(started) == 1, "one click, one run for both models"
    run = started[0]
    assert run.wait(120), "the tiny run did not finish"
    assert run.status == "finished", run.error
    assert [(r.turn, r.step) for r in run.snapshots] == [
        ("gru-additive", 4),
        ("gru-additive", 8),
        ("gru-none", 12),
        ("gru-none", 16),
    ]
    assert set(run.model) == set(experiment.MODELS)
    assert {(m.config.hidden_size, m.config.decoder_size, m.config.bidirectional) for m in run.model.values()} == {
        (8, 16, True)
    }  # H = 8 per direction, D = 16
    assert run.latest.seed == 3
    at.run()
    assert not at.exception
    assert not at.button(key="seq2seq_bottleneck.train.train").disabled
    assert at.slider(key="seq2seq_bottleneck.train.replay").value == 4
    # the last report: both models' length curves, dashed, over the shipped ones at the same D
    lengths = figure(at, "Exact match by source length: yours (dashed) and shipped (solid), D = 16")
    assert [t["name"] for t in lengths["data"]][:2] == [
        "shipped: without attention, D = 16",
        "shipped: with attention, D = 16",
    ]
    own = dashed(lengths)
    none, attn = run.latest.latest("gru-none"), run.latest.latest("gru-additive")
    np.testing.assert_allclose(
        own["yours: without attention, bidirectional, D = 16, 8 steps"], none.accuracy.exact_match
    )
    np.testing.assert_allclose(own["yours: with attention, bidirectional, D = 16, 8 steps"], attn.accuracy.exact_match)
    described = next(m.value for m in at.markdown if m.value.startswith("**Without attention** ("))
    assert "(bidirectional GRU encoder (H = 8 per direction, D = 16) + GRU decoder, no attention" in described
    progress = figure(at, "Held-out exact match as each model trains")
    assert [t["name"] for t in progress["data"]] == list(experiment.MODELS.values())
    heatmap = figure(at, "With attention, step 8")
    z = plotly_array(heatmap["data"][0]["z"])
    np.testing.assert_allclose(z, attn.attention, rtol=1e-6)
    assert z.shape == (len(attn.written), len(live_training.PROBE_TEXT) + 1)  # a row per character it wrote
    assert "its own copy (greedy)" in heatmap["layout"]["title"]["text"]
    assert any("no heatmap to draw" in c.value for c in at.caption)
    assert [b.proto.label for b in at.get("download_button")].count("Replay as GIF") == 1
    # scrub back to the first report: only the model with attention had started
    at.slider(key="seq2seq_bottleneck.train.replay").set_value(1).run()
    assert not at.exception
    assert list(dashed(figure(at, "Exact match by source length: yours"))) == [
        "yours: with attention, bidirectional, D = 16, 4 steps"
    ]
    figure(at, "With attention, step 4")
    assert any("starts when the one with attention has finished" in i.value for i in at.info)
    at.slider(key="seq2seq_bottleneck.train.replay").set_value(3).run()
    assert not at.exception
    assert sorted(dashed(figure(at, "Exact match by source length: yours"))) == [
        "yours: with attention, bidirectional, D = 16, 8 steps",
        "yours: without attention, bidirectional, D = 16, 4 steps",
    ]
    figure(at, "With attention, step 8")  # its training is over: its final map
    # the trained model without attention is offered to section 1
    at.radio(key="seq2seq_bottleneck.encoder").set_value("yours, trained below").run()
    assert not at.exception
    states = figure(at, "Encoder states")
    assert plotly_array(states["data"][0]["z"]).shape == (19, 16)
    assert states["layout"]["yaxis"]["ticktext"][-1] == "c = [→h19; ←h1]"  # a bidirectional c
    assert any("bidirectional GRU encoder (H = 8 per direction" in c.value for c in at.caption)


def test_stop_keeps_the_partly_trained_model_and_never_starts_the_other(at, started, monkeypatch):
    monkeypatch.setattr(live_training, "LIVE_REPORT_EVERY", 2)  # a report, hence a chance to stop, every 2 steps
    at.select_slider(key="seq2seq_bottleneck.train_d").set_value(16).run()
    at.button(key="seq2seq_bottleneck.train.train").click().run()
    assert (
        at.button(key="seq2seq_bottleneck.train.train").disabled
        and not at.button(key="seq2seq_bottleneck.train.stop").disabled
    )
    at.button(key="seq2seq_bottleneck.train.stop").click().run()
    assert not at.exception
    run = started[0]
    assert run.wait(120)
    assert run.status == "stopped" and run.snapshots
    assert run.latest.turn == "gru-additive" and run.latest.step < live_training.LIVE_STEPS
    at.run()
    assert not at.exception
    assert not at.button(key="seq2seq_bottleneck.train.train").disabled
    assert at.button(key="seq2seq_bottleneck.train.stop").disabled
    figure(at, f"With attention, step {run.latest.step}")  # the partly trained model's map stays on the page
    # the model without attention never trained, so section 1 does not offer it
    assert "seq2seq_bottleneck.encoder" not in [r.key for r in at.radio]
    assert "seq2seq_bottleneck.demo_d" in [s.key for s in at.select_slider]


def test_the_training_controls_rerun_the_section_cleanly_and_start_nothing(at, started):
    for d in experiment.CONTEXT_SIZES:
        at.select_slider(key="seq2seq_bottleneck.train_d").set_value(d).run()
        assert not at.exception
    for seed in (0, 9999):
        at.number_input(key="seq2seq_bottleneck.seed").set_value(seed).run()
        assert not at.exception
    for encoder in ("bidirectional", "unidirectional"):
        at.radio(key="seq2seq_bottleneck.train_encoder").set_value(encoder).run()
        assert not at.exception
    assert not started
    assert (
        not at.button(key="seq2seq_bottleneck.train.train").disabled
        and at.button(key="seq2seq_bottleneck.train.stop").disabled
    )
