"""The attention-bridge page under AppTest (every control, bad input, a short live run, the exercises) and in a
real Chromium (opens with its heatmap, trains live and redraws the heads)."""

import json

import pytest

from lessons.attention_bridge import (
    experiments,
    findings,
    grid_claims,
    leave_out,
    long_run,
    meaning_space,
    one_meaning,
    penalty,
    penalty_study,
    table_one,
    zero_shot,
)
from lessons.common import catalog
from tests.helpers import answer_exercise, open_page, progress_text, spec_text, unfold, vega_rows, wait_for_run

PAGE = "pages/attention_bridge.py"


@pytest.fixture(scope="module")
def at():
    return unfold(
        open_page(PAGE), "These two models", "Every direction"
    )  # the folded answers and tables open, as a student opens them


def heatmap_figures(at) -> list[dict]:
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [s for s in specs if s["data"] and all(d["type"] == "heatmap" for d in s["data"])]


def z_shape(z) -> tuple[int, int]:
    """A heatmap's z as Plotly serialises it: a list of rows, or base64 with its shape."""
    if isinstance(z, dict):
        return tuple(int(n) for n in z["shape"].split(","))
    return len(z), len(z[0])


def test_page_opens_with_the_shipped_model_and_results(at):
    assert not at.exception
    assert at.title[0].value == "The attention bridge"
    assert len(at.latex) == 2
    figures = heatmap_figures(at)
    four = [f for f in figures if len(f["data"]) == 4]  # one heatmap of A per language, side by side
    assert four and z_shape(four[0]["data"][0]["z"])[0] == experiments.MODEL_OPTIONS["heads"]
    results = experiments.load_results()
    assert at.dataframe[0].value["sentence"].tolist() == [
        one_meaning.load_shipped()[1].test[0].sentences[lang] for lang in ("en", "fr", "it", "vf")
    ]
    tables = [d.value for d in at.dataframe]
    assert any(t.to_dict("records") == zero_shot.zero_shot_rows(results) for t in tables)
    text = " ".join(m.value for m in at.markdown)
    study = penalty_study.load_penalty()
    computed = [
        *zero_shot.observations(results),
        *penalty.penalty_findings(results),
        *grid_claims.grid_findings(results),
        zero_shot.zero_shot_intro(),
        findings.seeds_note(results),
        penalty.penalty_weight_text(results),
        zero_shot.paper_zero_shot_text(),
        penalty_study.study_intro(),
        *(penalty_study.study_conclusion(study, w) for w in (1.0, 0.1)),
        *(penalty_study.heads_finding(study, w) for w in penalty_study.HEADS_WEIGHTS),
    ]
    for line in computed:  # every sentence about the results, as computed from them
        assert line in text, line[:60]
    assert text.count(findings.seeds_note(results)) == 2  # said where the penalty and zero-shot are
    assert "20–26 BLEU" not in text and "BLEU below 1" not in text  # the paper's numbers, read from its table
    assert not at.warning
    assert any("attention_bridge_results.py" in c.value and "float16" in c.value for c in at.caption)
    assert any(t.to_dict("records") == penalty_study.study_rows(study) for t in tables)
    assert any("attention_bridge_penalty.py" in c.value and "Bilingual bridge models" in c.value for c in at.caption)


def test_the_leave_one_pair_out_study_is_drawn_with_its_computed_finding(at):
    left_out = leave_out.load_leave_out()
    tables = [d.value.to_dict("records") for d in at.dataframe]
    assert leave_out.leave_out_rows(left_out) in tables
    text = " ".join(m.value for m in at.markdown)
    for measure in ("bleu", "tokens"):
        assert leave_out.leave_out_finding(left_out, measure) in text
    assert leave_out.leave_out_against_hub(left_out, experiments.load_results()) in text
    assert leave_out.LEAVE_OUT_INTRO in text and "Not measured here" not in text
    figures = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    bars = [f for f in figures if f["data"] and all(d["type"] == "bar" for d in f["data"])]
    assert len(bars) == 1 and [d["name"] for d in bars[0]["data"]] == [
        "trained (every pair)",
        "zero-shot (pair left out)",
    ]
    assert any("attention_bridge_leave_out.py" in c.value and "corpus BLEU" in c.value for c in at.caption)
    grid = experiments.load_results()
    if experiments.has_bleu(grid):  # the grid's table has BLEU beside exact match, mean ± sd
        rows = zero_shot.zero_shot_rows(grid)
        assert all("trained directions: BLEU" in r and " ± " in r["trained directions: BLEU"] for r in rows)


def test_table_1_is_drawn_direction_by_direction_beside_the_papers_for_each_experiment(at):
    results = experiments.load_results()
    for name in ("hub-mono", "m2m", "hub-mono-nopenalty"):
        at.selectbox(key="attention_bridge.table_one").set_value(name).run()
        assert not at.exception
        tables = [d.value.to_dict("records") for d in at.dataframe]
        assert table_one.toy_grid(results, name) in tables
        paper = table_one.paper_grid(name)
        assert (paper in tables) if paper else not any("EN" in t[0] for t in tables if t)
        assert table_one.differences(results, name) in [c.value for c in at.caption]


def test_the_long_run_is_drawn_with_its_finding_and_the_omissions_are_named(at):
    long = long_run.load_long_run()
    text = " ".join(m.value for m in at.markdown)
    assert long_run.long_run_intro(long) in text
    assert long_run.long_run_finding(long, leave_out.load_leave_out()) in text
    assert grid_claims.not_reproduced(experiments.load_results(), long) in text
    labels = {"trained directions", "en ↔ fr zero-shot"}
    assert any({row.get("label") for row in vega_rows(c)} == labels for c in at.get("vega_lite_chart"))
    assert any("attention_bridge_long_run.py" in c.value for c in at.caption)


def test_the_meaning_space_is_drawn_both_ways_with_its_measured_sentence(at):
    model, corpus, _ = one_meaning.load_shipped()
    space = meaning_space.meaning_space(model, corpus)
    text = " ".join(m.value for m in at.markdown)
    assert meaning_space.meaning_text(space) in text
    assert any(c.value == meaning_space.meaning_alt(space) for c in at.caption)  # the chart in words
    for by in ("sentence", "language"):
        at.radio(key="attention_bridge.meaning.by").set_value(by).run()
        assert not at.exception
        titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]
        assert any(t.startswith(f"M of each sentence, by {by}") for t in titles)


def test_the_page_says_what_the_shipped_penalty_runs_show(at):
    """The shipped numbers favour the model without the penalty on every score; the page must say so."""
    results = experiments.load_results()
    text = " ".join(m.value for m in at.markdown)
    for metric, _, _, higher in penalty.PENALTY_METRICS:
        verdict = results.compare("hub-mono", "hub-mono-nopenalty", metric, higher_is_better=higher)
        ahead = "with" if (verdict.a_spread.mean > verdict.b_spread.mean) == higher else "without"
        line = next(
            line
            for line in penalty.penalty_findings(results)
            if verdict.a_spread.text(".1%" if higher else ".2f", with_n=False) in line
        )
        assert f"the model **{ahead}** the penalty" in line and line in text
    agreement = results.spread("agreement", "hub-mono-nopenalty").text(".0%", with_n=False)
    assert f"without the penalty reaches {agreement} on the same measure" in text


def test_meaning_language_and_penalty_controls(at):
    before = at.dataframe[0].value["sentence"].tolist()
    at.number_input(key="attention_bridge.meaning").set_value(7).run()
    assert not at.exception
    assert at.dataframe[0].value["sentence"].tolist() != before
    at.selectbox(key="attention_bridge.lang").set_value("vf").run()
    assert not at.exception
    at.radio(key="attention_bridge.penalty.lang").set_value("it").run()
    assert not at.exception
    assert any("λ = 0.0" in m.value for m in at.markdown)


@pytest.mark.parametrize("text", ["", "😀 <b>bold</b>", "chien " * 300], ids=["empty", "emoji-html", "long"])
def test_typed_sentences_never_break_the_page(at, text):
    at.selectbox(key="attention_bridge.lang").set_value("fr").run()
    at.text_input(key="attention_bridge.text.fr").input(text).run()
    assert not at.exception
    if not text.strip():
        assert at.warning and "Type" in at.warning[0].value
    else:
        assert at.info  # unknown words / too long are said
        assert not any("<b>" in m.value for m in at.markdown)


def test_the_training_curves_are_the_comparisons(at):
    results = experiments.load_results()
    charts = [c for c in at.get("vega_lite_chart") if "validation" in spec_text(c)]
    assert len(charts) == 2  # zero-shot and trained directions, through ui.vega
    for chart, (metric, spec) in zip(charts, zero_shot.history_charts(results), strict=True):
        means = [r for r in vega_rows(chart) if r["kind"] == "mean"]
        reported = {(r.variant, p["step"]) for r in results.runs for p in r.curve if p.get(metric) is not None}
        assert len(means) == len(reported)  # one mean per experiment and step, over its seeds
        kinds = ("hub",) if metric == "zero_shot" else ("hub", "bilingual", "m2m")  # only hub models have zero-shot
        assert {r["label"] for r in means} == {e.label for e in experiments.EXPERIMENTS if e.kind in kinds}
        assert metric in ("zero_shot", "exact_match") and spec["title"] in spec_text(chart)


def test_exercises_are_checked_and_the_tail_links_on(at):
    answer_exercise(at, "attention_bridge.ex.penalty", 1.0)
    assert any(s.value.startswith("Right") for s in at.success)
    answer_exercise(at, "attention_bridge.ex.penalty", 0.0)
    assert at.warning
    assert any(c.value == catalog.lesson("attention_bridge").sources for c in at.caption)
    assert [e.label for e in at.expander][-2:] == [
        "The bridge and its penalty",
        "Training: one direction per minibatch, in rotation",
    ]


def test_a_short_live_run_trains_and_ends(at):
    at.checkbox(key="attention_bridge.live.mono").uncheck()
    at.select_slider(key="attention_bridge.live.seconds").set_value(10).run()
    at.button(key="attention_bridge.live.train").click().run()
    assert not at.exception
    assert wait_for_run(at).startswith("done"), progress_text(at)
    assert any("zero-shot" in c.value and "Step" in c.value for c in at.caption)


def test_missing_results_give_a_warning(monkeypatch, tmp_path):
    monkeypatch.setattr(experiments, "RESULTS", tmp_path / "attention_bridge.json")
    monkeypatch.setattr(penalty_study, "PENALTY_RESULTS", tmp_path / "attention_bridge_penalty.json")
    monkeypatch.setattr(long_run, "LONG_RUN_RESULTS", tmp_path / "attention_bridge_long_run.json")
    at = open_page(PAGE)
    assert not at.exception
    assert any("attention_bridge_results" in w.value for w in at.warning)
    assert any(w.value.startswith("The penalty study") and "attention_bridge_penalty.py" in w.value for w in at.warning)
    assert any(w.value.startswith("The long leave-one-pair-out run") for w in at.warning)


# ------------------------------------------------------------------------------------------- real browser
def test_browser_opens_and_trains_live(page, streamlit_server, screenshot_dir):
    from tests.helpers import SCRIPT_DONE, assert_no_exception

    page.goto(f"{streamlit_server}/attention_bridge")
    page.wait_for_selector(SCRIPT_DONE, timeout=180_000)
    page.locator(".js-plotly-plot g.hm image").first.wait_for(timeout=60_000)
    assert_no_exception(page)
    train = page.locator(".st-key-attention_bridge-live-train button")
    train.wait_for(timeout=60_000)
    train.click()
    titles = page.locator(".js-plotly-plot .gtitle", has_text="A after")
    seen: list[str] = []
    waited = 0
    while len(seen) < 2 and waited < 120_000:
        if titles.count():
            title = titles.first.text_content()
            if title and (not seen or title != seen[-1]):
                seen.append(title)
        page.wait_for_timeout(500)
        waited += 500
    assert len(seen) >= 2, f"the live heads were drawn only for {seen}"
    assert_no_exception(page)
    page.screenshot(path=screenshot_dir / "bridge_training.png", full_page=True)
    stop = page.locator(".st-key-attention_bridge-live-stop button")
    if stop.is_enabled():
        stop.click()
    assert_no_exception(page)
