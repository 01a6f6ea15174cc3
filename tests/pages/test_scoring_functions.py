"""The scoring-functions page under AppTest: the example's controls, the shipped race, a live race (run to its
end and stopped), the exercises, and missing results.

AppTest sessions share Streamlit's session-scoped caches, so the student's race (``ui.current_run``) outlives one
test: every test that starts a race leaves it over, and none assumes there is no race.
"""

import json
import re

import pytest

import ui.results
from lessons import scoring_functions
from lessons.scoring_functions import (
    four_scores,
    headline,
    race_softmax,
    reduced_race,
    shipped_race,
    side_by_side,
    where_scaling_matters,
)
from tests.helpers import (
    answer_exercise,
    markdown_starting,
    open_page,
    plotly_specs,
    train_and_stop_at_once,
    train_live_and_replay,
    unfold,
    vega_rows,
    wait_for_run,
)

PAGE = "pages/scoring_functions.py"


@pytest.fixture
def at():
    """The lesson page with its folded answers and tables open (as a student opens them), fresh for each test."""
    return unfold(open_page(PAGE), "Every seed", "Symbols")


def figure_with(at, trace_type: str, count: int) -> dict:
    found = [s for s in plotly_specs(at) if [d["type"] for d in s["data"]] == [trace_type] * count]
    assert found, f"no figure with {count} {trace_type} traces"
    return found[0]


def score_bars(at) -> list[dict]:
    """The rows of the example's bar chart (raw scores and softmax): Streamlit sends a chart's data as Arrow."""
    return vega_rows(at.get("vega_lite_chart")[0])


def example_table(at):
    return at.dataframe[0].value


def test_page_opens_with_the_example_and_the_shipped_race(at):
    assert not at.exception
    assert at.title[0].value == "Scoring functions"
    assert len(at.latex) >= 5  # the softmax and the four scores
    table = example_table(at)
    assert list(table["score"]) == [four_scores.LABELS[s] for s in four_scores.SCORES]
    assert list(table["parameters (d = 16)"]) == [0, 0, 16 * 16, 2 * 16 * 16 + 2 * 16]
    bars = score_bars(at)  # raw scores and softmax for each score, 5 keys
    assert {r["score"] for r in bars} == {four_scores.LABELS[s] for s in four_scores.SCORES} and len(bars) == 2 * 4 * 5
    figure_with(at, "heatmap", 1)  # the query and the contexts
    grid = figure_with(at, "heatmap", 4)  # the shipped race's attention maps
    assert [a["text"].split("<br>")[0] for a in grid["layout"]["annotations"]] == [
        four_scores.LABELS[s] for s in four_scores.SCORES
    ]
    results = shipped_race.load_results()
    shipped = at.dataframe[1].value
    assert shipped.to_dict("records") == side_by_side.table_rows(results)
    assert list(shipped["parameters"]) == [0, 0, 64 * 64, 8320] and set(shipped["n"]) == {len(results.seeds)}
    every_seed = at.dataframe[2].value
    assert len(every_seed) == 4 * len(results.meta["seeds"])
    lines = markdown_starting(at, "- Fewest steps").split("\n")
    assert lines == [f"- {line}" for line in side_by_side.observations(results)]  # computed, never typed
    assert any(c.value.startswith("Measured by `python scripts/scoring_functions_results.py") for c in at.caption)
    sweep = where_scaling_matters.load_sweep(results)
    assert markdown_starting(at, "**What the measurements say") == headline.headline(results, sweep)
    assert markdown_starting(at, "**What the race's softmax sees.**") == race_softmax.why_dot_leads(results)
    assert at.dataframe[3].value.to_dict("records") == where_scaling_matters.sweep_rows(sweep)
    assert markdown_starting(at, "- d = ").split("\n") == [
        f"- {line}" for line in where_scaling_matters.sweep_lines(sweep)
    ]
    assert any(c.value == where_scaling_matters.sweep_caption(sweep) for c in at.caption)
    assert any("q, kᵢ" in str(t.value) for t in at.table)  # the table of symbols, with the lesson's own rows
    # the scores, spread and peak of the scaling, loss and exact match, the sweep against d and its curves
    assert len(at.get("vega_lite_chart")) == 7
    assert at.button(key="scoring_functions.race.train").disabled is False


def test_size_keys_and_seed_change_the_example(at):
    before = example_table(at)
    at.select_slider(key="scoring_functions.d").set_value(512).run()
    assert not at.exception
    assert list(example_table(at)["parameters (d = 512)"])[2] == 512 * 512
    at.slider(key="scoring_functions.keys").set_value(12).run()
    assert {r["key"] for r in score_bars(at)} == {f"k{i + 1}" for i in range(12)}
    at.select_slider(key="scoring_functions.d").set_value(16).run()
    at.slider(key="scoring_functions.keys").set_value(5).run()
    assert example_table(at).equals(before)
    at.number_input(key="scoring_functions.seed").set_value(7).run()
    assert not at.exception
    assert not example_table(at).equals(before)


def test_a_query_copied_from_a_key_is_found_and_reset_when_the_key_goes(at):
    at.select_slider(key="scoring_functions.d").set_value(64).run()
    at.selectbox(key="scoring_functions.query").set_value("a copy of k5").run()
    rows = {r["score"]: r for r in example_table(at).to_dict("records")}
    assert rows["dot"]["on key"] == rows["scaled dot"]["on key"] == "k5 = q"
    at.slider(key="scoring_functions.keys").set_value(3).run()
    assert not at.exception
    assert at.info and "only 3 keys" in at.info[0].value
    assert at.selectbox(key="scoring_functions.query").value == "a random vector"
    assert "k5 = q" not in str(example_table(at).to_dict("records"))


def test_curves_can_be_drawn_against_seconds(at):
    def x_titles():
        return [json.loads(c.proto.spec)["encoding"]["x"]["title"] for c in at.get("vega_lite_chart")[1:]]

    assert x_titles()[2:4] == ["training step", "training step"]  # after the example's scores and the scaling charts
    before = vega_rows(at.get("vega_lite_chart")[3])
    at.radio(key="scoring_functions.axis").set_value("seconds").run()
    assert not at.exception
    assert x_titles()[2:4] == ["seconds of its own training"] * 2
    assert vega_rows(at.get("vega_lite_chart")[3]) != before


def test_exercises_are_checked(at):
    assert any(s.value.startswith("Right") for s in answer_exercise(at, "scoring_functions.ex1", 2.0).success)
    assert any(
        "Not quite" in w.value and "Worked answer" in w.value
        for w in answer_exercise(at, "scoring_functions.ex3", 64).warning
    )
    answer_exercise(at, "scoring_functions.ex2", 24 * (64 + 128) + 2 * 24)  # the additive score's W₁, b₁, w₂
    assert any(s.value.startswith("Right") for s in at.success)
    results = shipped_race.load_results()
    for ex in scoring_functions.exercises(results, where_scaling_matters.load_sweep(results))[3:]:  # the predictions
        at.radio(key=f"{ex.key}.answer").set_value(ex.choices[ex.answer])
        at.button(key=f"FormSubmitter:{ex.key}.form-Check").click().run()
        assert any(s.value.startswith("Right") and ex.explanation in s.value for s in at.success)
        at.radio(key=f"{ex.key}.answer").set_value(ex.choices[ex.answer - 1])
        at.button(key=f"FormSubmitter:{ex.key}.form-Check").click().run()
        assert not at.success and any("Worked answer" in w.value and ex.explanation in w.value for w in at.warning)


def test_the_sweep_draws_the_learning_curves_at_the_chosen_d(at):
    def curves():
        return json.loads(at.get("vega_lite_chart")[6].proto.spec)["title"]

    assert at.select_slider(key="scoring_functions.sweep_d").value == max(reduced_race.SWEEP_DS)
    assert "d = 256" in str(curves())
    at.select_slider(key="scoring_functions.sweep_d").set_value(4).run()
    assert not at.exception and "d = 4" in str(curves())


def test_train_with_a_tiny_budget_races_all_four_to_the_end_and_replays(at):
    at.select_slider(key="scoring_functions.budget").set_value(3).run()
    at.button(key="scoring_functions.race.train").click().run()
    assert not at.exception
    at.run()
    assert at.button(key="scoring_functions.race.train").disabled  # one race at a time
    assert wait_for_run(at).startswith("done")
    assert at.button(key="scoring_functions.race.train").disabled is False
    table = at.dataframe[-1].value
    assert list(table["score"]) == [four_scores.LABELS[s] for s in four_scores.SCORES]
    assert set(table["n"]) == {1}  # a live race: one seed per score
    assert not any("not measured" in v for v in table["test exact match"])  # every model finished and was checked
    replay = at.slider(key="scoring_functions.race.replay")
    assert replay.value == replay.max > 4
    replay.set_value(1).run()
    assert not at.exception
    grid = next(s for s in reversed(plotly_specs(at)) if "annotations" in s["layout"])  # the race's grid
    titles = [a["text"] for a in grid["layout"]["annotations"]]
    assert titles[0].startswith("dot<br>step 10 · ") and len(grid["data"]) == 1  # the first report: dot only


def test_stop_ends_the_race_and_train_is_offered_again(at):
    at.select_slider(key="scoring_functions.budget").set_value(15).run()
    train_and_stop_at_once(at, "scoring_functions.race")
    assert set(at.dataframe[-1].value["test exact match"]) == {"not measured (1 of 1)"}  # no checks once stopped


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # where ui.shipped_results looks for the catalog's file
    at = open_page(PAGE)
    assert not at.exception
    assert at.warning and "scoring_functions_results.py" in at.warning[0].value
    assert not any("parameters" in df.value.columns for df in at.dataframe)  # no shipped table
    assert not any(
        len(spec["data"]) == 4 and "seed" in spec["layout"]["annotations"][0]["text"]
        for spec in plotly_specs(at)
        if spec["data"][0]["type"] == "heatmap"
    )
    radios = [r.key for r in at.radio]
    assert "scoring_functions.ex4.answer" in radios and "scoring_functions.ex5.answer" not in radios  # no sweep
    assert any("No measured sweep" in i.value for i in at.info)
    (tmp_path / "assets" / "results").mkdir(parents=True)
    (tmp_path / "assets" / "results" / "scoring_functions.json").write_text("{}", encoding="utf-8")
    at = open_page(PAGE)
    assert at.warning and '"format"' in at.warning[0].value and "scoring_functions_results.py" in at.warning[0].value


@pytest.mark.browser
def test_in_a_browser_the_race_redraws_its_maps_and_survives_a_click_elsewhere(page, streamlit_server):
    from tests.helpers import goto

    goto(page, f"{streamlit_server}/scoring_functions")
    budget = page.locator("[data-testid=stSlider]", has_text="Seconds per model").get_by_role("slider")
    budget.focus()
    budget.press("Home")  # 3 s per model
    live = page.locator(".js-plotly-plot .annotation-text").filter(has_text=re.compile(r"step \d+ ·"))
    axis = page.get_by_role("radiogroup", name="Curves against").get_by_text("seconds")  # clicked while it runs
    train_live_and_replay(page, live, axis.click, "the race's maps")
    final = page.locator(".js-plotly-plot", has=page.locator("g.hm")).filter(has_text=re.compile(r"step \d+ ·"))
    final.last.wait_for(timeout=30_000)  # after the race: the replay draws each model's map at its last report
