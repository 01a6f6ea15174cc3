"""The scaling page under AppTest: open by itself, every control (keys, seeds, pairs, the d_k of the shipped
curves and their axis), the predictions before the revealed results, the cost measured on this server, the
exercises, and missing shipped files."""

import json
import math

import numpy as np
import pytest

import ui.results
from lessons.scaling import recall, recall_training, saturation, score_cost, scores, thinking_machines, variance
from tests.helpers import (
    answer_exercise,
    markdown_starting,
    open_page,
    plotly_array,
    predicted,
    table_as_read,
    unfold,
    vega_rows,
)
from tests.helpers import plotly_specs as figures

PAGE = "pages/scaling.py"


@pytest.fixture
def at():
    """The lesson page with its folded answers and tables open (as a student opens them), fresh for each test."""
    return unfold(predicted(open_page(PAGE)), "Reveal", "Every figure")


def figure(at, title_start: str) -> dict:
    """The figure whose first subplot title starts with ``title_start``."""
    found = [
        f
        for f in figures(at)
        if f["layout"].get("annotations") and f["layout"]["annotations"][0]["text"].startswith(title_start)
    ]
    assert len(found) == 1, [f["layout"].get("annotations", [{}])[0].get("text") for f in figures(at)]
    return found[0]


def one_query_map(at) -> np.ndarray:
    return plotly_array(figure(at, "α = softmax(unscaled")["data"][0]["z"])


def chart_rows(at, mentions: str) -> list[dict]:
    """The rows of the one Vega-Lite chart whose spec mentions ``mentions``: Streamlit sends a chart's data apart
    from its spec, as Arrow."""
    found = [
        c for c in at.get("vega_lite_chart") if mentions in json.dumps(json.loads(c.proto.spec), ensure_ascii=False)
    ]
    assert len(found) == 1, mentions
    return vega_rows(found[0])


def variance_trace(at) -> np.ndarray:
    """The measured variance of the unscaled scores, one per d_k."""
    series = f"measured: {scores.LABELS['dot']}"
    return np.array([r["variance"] for r in chart_rows(at, "theory: Var = d_k") if r["series"] == series])


def test_page_opens_with_every_figure_and_the_measured_comparison(at):
    assert not at.exception
    assert at.title[0].value == "Scaling by √d_k"
    assert len(at.latex) >= 1
    lecture = table_as_read(at.table[0])
    assert list(lecture["Thinking"]) == ["112", "14", "0.88", "0.9999999"]
    assert one_query_map(at).shape == (len(saturation.HEATMAP_DS), 8)
    for panel in saturation.SOFTMAX_PANELS:  # both scores and the uniform reference at every d_k
        assert len(chart_rows(at, f"{panel} of softmax")) == 3 * len(scores.D_SWEEP)
    assert len(variance_trace(at)) == len(scores.D_SWEEP)
    results = recall_training.load_results()
    # the shipped comparison: its headline, step-0 charts, final accuracy, curves at the largest d_k, table
    assert markdown_starting(at, f"**{recall.recall_headline(results)}")
    table = next(df.value for df in at.dataframe if "largest α at step 0" in df.value.columns)
    assert table.to_dict("records") == recall.recall_rows(results)
    accuracy = chart_rows(at, f"Accuracy, d_k = {max(recall_training.RECALL_D_K)}")
    assert {(r["seed"], r["x"]) for r in accuracy if r["kind"] == "seed"} == {
        (run.seed, p["step"])
        for run in results.runs_of("dot", {"d_k": max(recall_training.RECALL_D_K)})
        for p in run.curve
    }
    for line in recall.recall_observations(results):
        assert any(line in m.value for m in at.markdown), line
    assert markdown_starting(at, "Lesson 4 raced two GRU encoder–decoders")
    # the cost, measured once on this server
    assert markdown_starting(at, "Measured: at d = 16, T = 8")
    time_rows = chart_rows(at, "ms per sentence")
    assert {r["label"] for r in time_rows} == {f"{w}, d = {d}" for w in ("additive", "dot") for d in score_cost.COST_D}
    # softmax (3) + variance + step 0 (3) + final accuracy + curves (2) + cost (2)
    assert len(at.get("vega_lite_chart")) == 12
    assert len(at.get("form")) == 6


def test_the_curves_follow_the_chosen_d_k_and_axis(at):
    at.select_slider(key="scaling.curves_d_k").set_value(8).run()
    assert not at.exception
    assert chart_rows(at, "Accuracy, d_k = 8") and chart_rows(at, "Loss, d_k = 8")
    at.radio(key="scaling.axis").set_value("seconds").run()
    assert not at.exception
    rows = chart_rows(at, "Accuracy, d_k = 8")
    results = recall_training.load_results()
    assert {r["x"] for r in rows if r["kind"] == "seed"} == {
        p["seconds"] for run in results.runs_of("dot", {"d_k": 8}) for p in run.curve
    } | {p["seconds"] for run in results.runs_of("scaled_dot", {"d_k": 8}) for p in run.curve}


def test_keys_and_seed_change_the_softmax_figures(at):
    before = one_query_map(at)
    entropy = chart_rows(at, "entropy (bits) of softmax")
    at.slider(key="scaling.keys").set_value(12).run()
    assert not at.exception
    assert one_query_map(at).shape == (len(saturation.HEATMAP_DS), 12)
    ceiling = [r["value"] for r in chart_rows(at, "entropy (bits) of softmax") if r["series"] == saturation.UNIFORM]
    assert ceiling == [pytest.approx(math.log2(12))] * len(scores.D_SWEEP)
    floor = [r["value"] for r in chart_rows(at, "largest α of softmax") if r["series"] == saturation.UNIFORM]
    assert floor == [pytest.approx(1 / 12)] * len(scores.D_SWEEP)
    assert chart_rows(at, "entropy (bits) of softmax") != entropy
    at.slider(key="scaling.keys").set_value(8).run()
    assert np.array_equal(one_query_map(at), before)
    at.number_input(key="scaling.query_seed").set_value(5).run()
    assert not at.exception
    assert not np.array_equal(one_query_map(at), before)
    assert markdown_starting(at, "At d_k = 1024, unscaled")


def test_pairs_and_seed_change_the_measured_variance(at):
    before = variance_trace(at)
    at.select_slider(key="scaling.samples").set_value(500).run()
    assert not at.exception
    measured = variance_trace(at)
    assert not np.array_equal(measured, before)
    points = variance.variance_sweep(samples=500, seed=0)
    assert np.allclose(measured, [p.variance for p in points])
    inside = sum(r["theory inside"] for r in variance.variance_rows(points))
    assert f"at **{inside} of {len(points)}** sizes" in markdown_starting(at, "With 500 pairs")
    at.number_input(key="scaling.variance_seed").set_value(9).run()
    assert not at.exception
    assert not np.array_equal(variance_trace(at), measured)


def test_exercises_are_checked(at):
    assert any(s.value.startswith("Right") for s in answer_exercise(at, "scaling.ex1", 10.0).success)
    assert any(
        "Not quite" in w.value and "Worked answer" in w.value for w in answer_exercise(at, "scaling.ex2", 256.0).warning
    )
    lecture = thinking_machines.lecture_prediction()
    at.radio(key="scaling.ex3.answer").set_value(lecture.choices[lecture.answer])
    at.button(key="FormSubmitter:scaling.ex3.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)
    results = recall_training.load_results()
    for exercise in (recall.recall_prediction(results), recall.threshold_prediction(results)):
        wrong = next(c for i, c in enumerate(exercise.choices) if i != exercise.answer)
        at.radio(key=f"{exercise.key}.answer").set_value(wrong)
        at.button(key=f"FormSubmitter:{exercise.key}.form-Check").click().run()
        assert any("Worked answer" in w.value for w in at.warning)
        at.radio(key=f"{exercise.key}.answer").set_value(exercise.choices[exercise.answer])
        at.button(key=f"FormSubmitter:{exercise.key}.form-Check").click().run()
        assert any(s.value.startswith("Right") for s in at.success)
    T, d = score_cost.COST_EX["T"], score_cost.COST_EX["d"]
    assert any(s.value.startswith("Right") for s in answer_exercise(at, "scaling.ex6", float(T * T * d)).success)


def test_missing_shipped_files_get_messages_and_the_rest_works(monkeypatch, tmp_path):
    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # where ui.shipped_results looks for the catalog's file
    at = open_page(PAGE)
    assert not at.exception
    assert any("scoring_functions_results.py" in w.value for w in at.warning)
    assert any("scaling_results.py" in w.value for w in at.warning)
    assert not any(m.value.startswith("**After") for m in at.markdown)
    assert markdown_starting(at, "Lesson 4 raced two GRU encoder–decoders")  # the untrained GRU, without the race
    assert one_query_map(at).shape[0] == len(saturation.HEATMAP_DS)
