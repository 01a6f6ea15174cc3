"""The positions-that-travel page under AppTest: every section drawn from what the section modules compute, the
student's sentence (and bad ones), the heads, the shipped comparison behind its predictions, the exercises, a live
run (reported, stopped, replayed), and missing results.

AppTest sessions share Streamlit's session-scoped caches, so a student's run outlives one test: every test that
starts one leaves it over, and none assumes there is none.
"""

import time

import pytest

from lessons import positions_that_travel
from lessons.positions_that_travel import distance_penalty, live_training, longer_inputs, rotation
from tests.helpers import (
    answer_every_exercise,
    open_page,
    open_without_results,
    plotly_array,
    predicted,
    progress_text,
    unfold,
    vega_rows,
    vega_specs,
    wait_for_run,
)
from tests.helpers import plotly_specs as specs

pytestmark = pytest.mark.slow
PAGE = "pages/positions_that_travel.py"


@pytest.fixture(scope="module")
def at():
    return unfold(predicted(open_page(PAGE)), "Reveal")  # answered, then opened, as a student does


def figure(at, title_part: str) -> dict:
    for spec in specs(at):
        if title_part in spec["layout"].get("title", {}).get("text", ""):
            return spec
    raise AssertionError(f"no figure titled {title_part!r}")


def test_page_opens_with_every_section_from_the_modules_and_the_shipped_results(at):
    assert not at.exception
    assert at.title[0].value == "Positions that travel"
    assert len(at.latex) == 3
    tokens = rotation.parse(rotation.DEFAULT_SENTENCE).tokens
    turned = figure(at, "pair 0")
    assert len(turned["data"]) == 2 * len(tokens)
    rows = next(df.value for df in at.dataframe if "angle m·θ (rad)" in df.value.columns).to_dict("records")
    assert rows == rotation.rotation_rows(tokens, 0)
    grid = plotly_array(figure(at, "(R_m q)·(R_n k)")["data"][0]["z"])
    assert grid == pytest.approx(rotation.score_grid(*rotation.SHIFT_WORDS))
    captions = " ".join(c.value for c in at.caption)
    assert rotation.score_caption(rotation.score_grid(*rotation.SHIFT_WORDS)) in captions
    penalty = plotly_array(figure(at, "Head 1 of 8")["data"][0]["z"])
    assert penalty[5, 2] == pytest.approx(-1.5)
    assert distance_penalty.bias_caption(1) in captions
    results = longer_inputs.load_results()
    reveal = next(e for e in at.expander if e.label.startswith("Reveal the measured results"))
    table = next(df.value for df in reveal.dataframe if "scheme" in df.value.columns)
    assert table.to_dict("records") == longer_inputs.results_rows(results)
    said = " ".join(m.value for m in at.markdown)
    assert all(line in said for line in longer_inputs.observations(results))  # computed, not typed
    lengths = next(
        c
        for c, spec in zip(at.get("vega_lite_chart"), vega_specs(at), strict=True)
        if spec.get("title") == "Train short, test long"
    )
    assert {r["x"] for r in vega_rows(lengths)} == set(map(float, longer_inputs.LENGTHS))
    assert any(c.value.startswith("Measured by `python scripts/positions_that_travel_results.py") for c in at.caption)
    assert at.button(key="positions_that_travel.train.rope.train").disabled is False


def test_the_students_sentence_every_pair_and_every_head(at):
    at.text_input(key="positions_that_travel.sentence").set_value("a b a b").run()
    assert not at.warning and not at.exception
    for pair in range(rotation.D_DRAW // 2):
        at.radio(key="positions_that_travel.pair").set_value(pair).run()
        assert len(figure(at, f"pair {pair}")["data"]) == 8
    at.select_slider(key="positions_that_travel.head").set_value(8).run()
    assert plotly_array(figure(at, "Head 8 of 8")["data"][0]["z"])[3, 0] == pytest.approx(-3 / 256)


def test_bad_sentences_warn_and_keep_the_last_good_one(at):
    at.text_input(key="positions_that_travel.sentence").set_value("one two").run()
    for bad in ["", "   ", " ".join(["w"] * 13), "x" * 41, "w " * 3000]:
        at.text_input(key="positions_that_travel.sentence").set_value(bad).run()
        assert not at.exception
        assert at.warning and "last sentence that worked" in at.warning[0].value, bad
        assert len(figure(at, "pair")["data"]) == 4  # still "one two"
    for odd in ["<script>alert(1)</script>", "שלום עולם", "🙂 🙃"]:
        at.text_input(key="positions_that_travel.sentence").set_value(odd).run()
        assert not at.exception and not at.warning, odd


def test_exercises_are_checked(at):
    right = answer_every_exercise(at, positions_that_travel.exercises(longer_inputs.load_results()))
    assert set(right) == {f"positions_that_travel.ex{i}" for i in range(1, 7)}


def test_live_training_reports_stops_and_replays(at):
    at.selectbox(key="positions_that_travel.live_scheme").set_value("alibi").run()
    at.select_slider(key="positions_that_travel.budget").set_value(60).run()
    at.button(key="positions_that_travel.train.alibi.train").click().run()
    assert not at.exception
    deadline = time.monotonic() + 120
    while " step " not in progress_text(at) or int(progress_text(at).split(" step ")[1].split()[0]) < 50:
        assert time.monotonic() < deadline, f"no second report: {progress_text(at)!r}"
        time.sleep(0.3)
        at.run()
    at.button(key="positions_that_travel.train.alibi.stop").click().run()
    assert wait_for_run(at, timeout=60).startswith("stopped")
    at.run()
    assert at.button(key="positions_that_travel.train.alibi.train").disabled is False
    at.slider(key="positions_that_travel.train.alibi.replay").set_value(1).run()
    assert not at.exception
    live = figure(at, f"ALiBi (distance penalty) · step {live_training.LIVE_REPORT_EVERY}")
    assert plotly_array(live["data"][0]["z"]).shape == (32, 32)
    assert any(c.value.startswith("After 25 steps, letters right at 1×") for c in at.caption)


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    at = open_without_results("positions_that_travel", monkeypatch, tmp_path)
    assert not at.exception
    assert at.warning and "positions_that_travel_results.py" in at.warning[0].value
    assert "positions_that_travel.ex5.answer" not in [r.key for r in at.radio]
    assert figure(at, "Head 1 of 8")["data"][0]["type"] == "heatmap"
