"""The scaling page under AppTest: open by itself with the pretrained models, every control (keys, seeds, pairs,
the date, the view, Train/Stop and the switch to the student's own models), hostile text, the exercises, and
missing shipped files.

AppTest sessions share Streamlit's session-scoped caches, so the student's race (``ui.current_run``) outlives one
test: the test that starts a race leaves it over.
"""

import json
import math

import numpy as np
import pytest

import ui.results
from lessons import scaling
from lessons import scoring_functions as scoring
from tests.helpers import (
    RUN_OVER,
    answer_exercise,
    markdown_starting,
    open_page,
    plotly_array,
    progress_text,
    rerun_until,
    vega_rows,
    wait_for_run,
)
from tests.helpers import plotly_specs as figures

PAGE = "pages/scaling.py"


def figure(at, title_start: str) -> dict:
    """The figure whose first subplot title starts with ``title_start``."""
    found = [
        f for f in figures(at) if f["layout"].get("annotations") and f["layout"]["annotations"][0]["text"].startswith(
            title_start)
    ]  # fmt: skip
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
    series = f"measured: {scaling.LABELS['dot']}"
    return np.array([r["variance"] for r in chart_rows(at, "theory: Var = d_k") if r["series"] == series])


def trained(at) -> dict:
    return figure(at, scaling.LABELS["dot"] + " · ")


def test_page_opens_with_every_figure_and_the_pretrained_models(at):
    assert not at.exception
    assert at.title[0].value == "Scaling by √d_k"
    assert len(at.latex) >= 1
    lecture = at.table[0].value
    assert list(lecture["Thinking"]) == ["112", "14", "0.88", "0.9999999"]
    assert one_query_map(at).shape == (len(scaling.HEATMAP_DS), 8)
    for panel in scaling.SOFTMAX_PANELS:  # both scores and the uniform reference at every d_k
        assert len(chart_rows(at, f"{panel} of softmax")) == 3 * len(scaling.D_SWEEP)
    assert len(variance_trace(at)) == len(scaling.D_SWEEP)
    maps = trained(at)
    assert [t["type"] for t in maps["data"]] == ["heatmap", "heatmap"]
    assert [a["text"] for a in maps["layout"]["annotations"]] == [
        f"{scaling.LABELS[s]} · “2026-11-22”" for s in scaling.SCORES
    ]
    spread = next(df.value for df in at.dataframe if "model" in df.value.columns and "d_k" in df.value.columns)
    assert list(spread["model"]) == [scaling.LABELS[s] for s in scaling.SCORES]
    assert list(spread["d_k"]) == [64, 64]
    records = next(df.value for df in at.dataframe if "checkpoint" in df.value.columns)
    assert list(records["checkpoint"]) == ["dates-gru-dot", "dates-gru-scaled_dot"]
    # the softmax's three statistics, the measured variance, and the shipped race's loss and exact match
    assert len(at.get("vega_lite_chart")) == 6
    race = scaling.load_results()
    shipped = next(df.value for df in at.dataframe if "attends from" in df.value.columns)
    assert shipped.to_dict("records") == scoring.table_rows(race)  # the two dot-product models of the scoring race
    loss = chart_rows(at, '"Loss"')
    assert {r["label"] for r in loss} == {scoring.LABELS[s] for s in scaling.SCORES}
    assert {(r["seed"], r["x"]) for r in loss if r["kind"] == "seed"} == {
        (run.seed, p["step"]) for run in race.runs for p in run.curve
    }
    assert markdown_starting(at, "The same two models raced from seeds 0, 1, 2")
    assert at.button(key="scaling.race.train").disabled is False
    assert "scaling.which" not in [r.key for r in at.radio]  # no own models yet
    assert len(at.get("form")) == 4


def test_keys_and_seed_change_the_softmax_figures(at):
    before = one_query_map(at)
    entropy = chart_rows(at, "entropy (bits) of softmax")
    at.slider(key="scaling.keys").set_value(12).run()
    assert not at.exception
    assert one_query_map(at).shape == (len(scaling.HEATMAP_DS), 12)
    ceiling = [r["value"] for r in chart_rows(at, "entropy (bits) of softmax") if r["series"] == scaling.UNIFORM]
    assert ceiling == [pytest.approx(math.log2(12))] * len(scaling.D_SWEEP)
    floor = [r["value"] for r in chart_rows(at, "largest α of softmax") if r["series"] == scaling.UNIFORM]
    assert floor == [pytest.approx(1 / 12)] * len(scaling.D_SWEEP)
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
    points = scaling.variance_sweep(samples=500, seed=0)
    assert np.allclose(measured, [p.variance for p in points])
    inside = sum(r["theory inside"] for r in scaling.variance_rows(points))
    assert f"at **{inside} of {len(points)}** sizes" in markdown_starting(at, "With 500 pairs")
    at.number_input(key="scaling.variance_seed").set_value(9).run()
    assert not at.exception
    assert not np.array_equal(variance_trace(at), measured)


def test_the_date_and_the_view_of_the_trained_models(at):
    at.text_input(key="scaling.date").set_value("3/7/1999").run()
    assert not at.exception and not at.warning
    assert trained(at)["layout"]["annotations"][0]["text"].endswith("“1999-03-07”")
    at.radio(key="scaling.view").set_value("raw").run()
    axis = trained(at)["layout"]["coloraxis"]
    assert axis["cmin"] == -axis["cmax"] < 0
    at.radio(key="scaling.view").set_value("seen").run()
    assert trained(at)["layout"]["coloraxis"]["cmax"] < axis["cmax"]  # the scaled model's scores shrink by 8
    at.radio(key="scaling.view").set_value("weights").run()
    assert trained(at)["layout"]["coloraxis"]["cmax"] == 1.0
    assert not at.exception


def test_empty_and_hostile_dates_are_refused_or_shown_as_text(at):
    at.text_input(key="scaling.date").set_value("   ").run()
    assert not at.exception
    assert at.warning and "Type a date first" in at.warning[0].value
    at.text_input(key="scaling.date").set_value("<script>alert(1)</script> 🙂 שלום").run()
    assert not at.exception and not at.warning
    ticks = trained(at)["layout"]["xaxis"]["ticktext"]
    assert "<script>" not in "".join(ticks)
    assert any("unknown to this model" in c.value for c in at.caption)


def test_exercises_are_checked(at):
    assert any(s.value.startswith("Right") for s in answer_exercise(at, "scaling.ex1", 10.0).success)
    assert any(
        "Not quite" in w.value and "Worked answer" in w.value for w in answer_exercise(at, "scaling.ex2", 256.0).warning
    )
    lecture = scaling.lecture_prediction()
    at.radio(key="scaling.ex3.answer").set_value(lecture.choices[lecture.answer])
    at.button(key="FormSubmitter:scaling.ex3.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)
    at.radio(key="scaling.ex4.answer").set_value(scaling.LABELS["scaled_dot"])
    at.button(key="FormSubmitter:scaling.ex4.form-Check").click().run()
    assert at.warning and not at.success  # the unscaled model is the peaked one (the table says so)
    at.radio(key="scaling.ex4.answer").set_value(scaling.LABELS["dot"])
    at.button(key="FormSubmitter:scaling.ex4.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)


def test_train_stop_and_look_at_your_own_models(at):
    at.select_slider(key="scaling.budget").set_value(20).run()
    at.button(key="scaling.race.train").click().run()
    assert not at.exception
    rerun_until(at, lambda at: "step" in progress_text(at) or progress_text(at).startswith(RUN_OVER), 120)
    at.button(key="scaling.race.stop").click().run()
    assert wait_for_run(at, timeout=60).startswith("stopped")
    at.run()
    assert at.button(key="scaling.race.train").disabled is False
    assert set(at.dataframe[-1].value["score"]) <= {scoring.LABELS[s] for s in scaling.SCORES}
    at.radio(key="scaling.which").set_value("yours, raced below").run()
    assert not at.exception
    assert [t["type"] for t in trained(at)["data"]] == ["heatmap", "heatmap"]


def test_missing_shipped_files_get_messages_and_the_rest_works(monkeypatch, tmp_path):
    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # where ui.shipped_results looks for the catalog's file
    monkeypatch.setattr(scaling, "CHECKPOINTS", tmp_path)
    at = open_page(PAGE)
    assert not at.exception
    assert any("scoring_functions_results.py" in w.value for w in at.warning)
    assert any("training record cannot be read" in w.value for w in at.warning)
    assert not any(m.value.startswith("The same two models raced") for m in at.markdown)
    assert one_query_map(at).shape[0] == len(scaling.HEATMAP_DS)
