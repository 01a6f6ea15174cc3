"""The KV-cache page under AppTest: every section drawn, each prediction's answer locked until it is answered and
then showing what the section modules compute from the shipped results, the student's word (typed, refused), the
live timing, and the page without its results."""

import json

import pytest

from lessons import kv_cache
from lessons.kv_cache import cached_decoding, cost, linear, results, window
from tests.helpers import (
    answer_every_exercise,
    answer_exercise,
    open_page,
    open_without_results,
    train_and_stop_at_once,
    unfold,
)

pytestmark = pytest.mark.slow

PAGE = "pages/kv_cache.py"
PREDICTIONS = ("kv_cache.ex1", "kv_cache.ex3", "kv_cache.ex5", "kv_cache.ex7")


def plotly_titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]


def reveal_labels(at) -> list[str]:
    return [e.label for e in at.expander if e.label.startswith("Reveal")]


def right_answer(ex):
    return ex.choices[ex.answer] if ex.is_choice else round(ex.answer, 3)


def test_every_section_is_drawn_and_no_answer_shows_before_its_prediction_is_answered():
    at = open_page(PAGE)
    assert not at.exception
    headers = [h.value for h in at.header]
    for section in (cached_decoding, cost, window, linear):
        assert section.TITLE in headers
    assert len(at.latex) >= 4
    assert not reveal_labels(at)
    locks = [i.value for i in at.info if "first (press Check)" in i.value]
    assert len(locks) == len(PREDICTIONS)
    assert "Window of w = 4: who reads whom" in plotly_titles(at)
    assert not any(t.startswith("One step") for t in plotly_titles(at))  # the timings are behind their prediction


def test_answering_each_prediction_opens_its_answer_computed_from_the_results():
    at = open_page(PAGE)
    shipped = results.load_results()
    view = cached_decoding.two_ways("sequence")
    for key, ex in zip(
        PREDICTIONS,
        (
            cached_decoding.gap_prediction(view),
            cost.doubling_prediction(shipped.meta["timing"]),
            window.window_prediction(shipped),
            linear.linear_prediction(shipped),
        ),
        strict=True,
    ):
        answer_exercise(at, key, right_answer(ex))
    assert len(reveal_labels(at)) == len(PREDICTIONS)
    unfold(at, "Reveal")
    frames = [df.value for df in at.dataframe]
    ciphers = next(f for f in frames if "cipher" in f.columns)
    assert ciphers["cipher"].tolist() == [view.recomputed, view.cached]
    assert "One step, as the results script measured it" in plotly_titles(at)
    text = " ".join(m.value for m in at.markdown)
    for line in (
        *window.sentences(shipped),
        *linear.sentences(shipped),
        *cost.growth_sentences(shipped.meta["timing"]),
    ):
        assert line in text
    assert any(shipped.meta["machine"]["cpu_model"] in c.value for c in at.caption)


def test_a_refused_word_is_said_and_changes_nothing():
    at = open_page(PAGE)
    at.text_input(key="kv_cache.word").set_value("<script>alert(1)</script>").run()
    assert not at.exception
    assert any("Showing the last word that worked" in w.value for w in at.warning)
    answer_exercise(
        at, "kv_cache.ex1", right_answer(cached_decoding.gap_prediction(cached_decoding.two_ways("sequence")))
    )
    unfold(at, "Reveal both")
    ciphers = next(df.value for df in at.dataframe if "cipher" in df.value.columns)
    assert ciphers["cipher"].tolist()[0] == cached_decoding.two_ways("sequence").recomputed


def test_timing_here_draws_this_servers_steps_with_its_machine():
    at = open_page(PAGE)
    at.button(key="kv_cache.time_it").click().run()
    assert not at.exception
    assert "One step, measured just now here" in plotly_titles(at)
    assert any(c.value.startswith("This server's:") for c in at.caption)


def test_the_check_yourself_questions_are_marked_right():
    at = open_page(PAGE)
    answer_every_exercise(at, kv_cache.exercises())


def test_without_its_results_the_page_says_so_and_still_teaches(monkeypatch, tmp_path):
    at = open_without_results("kv_cache", monkeypatch, tmp_path)
    assert not at.exception
    assert any("cannot be shown" in w.value for w in at.warning)
    assert cached_decoding.TITLE in [h.value for h in at.header] and linear.TITLE in [h.value for h in at.header]


def test_the_window_panel_trains_stops_and_takes_a_class_sweeps_settings():
    at = open_page(PAGE)
    assert at.select_slider(key="kv_cache.live_window").value == 7
    train_and_stop_at_once(at, "kv_cache.train.window")
