"""The RNN-cells page under AppTest: every control, hostile sentences, the exercises."""

import json

import numpy as np
import pytest

from lessons.common.timing import timing_text
from lessons.rnn_cells import seeded_cells, step_through
from tests.helpers import (
    answer_exercise,
    open_without_results,
    plotly_array,
    spec_text,
    train_and_stop_at_once,
    train_live_and_replay,
    vega_rows,
    wait_for_run,
)

PAGE = "pages/rnn_cells.py"
KEPT = "Showing the last sentence that worked"


def cell_figure(at) -> dict:
    """The step-through figure: the page's first Plotly chart (section 4 draws the trained cells' figures)."""
    charts = at.get("plotly_chart")
    assert charts
    return json.loads(charts[0].proto.spec)


def test_page_opens_on_the_lecture_sentence_fully_read(at):
    assert not at.exception
    assert at.title[0].value == "RNN cells"
    tokens = at.session_state["rnn_cells.tokens"]
    assert tokens == step_through.parse_sentence(step_through.DEFAULT_SENTENCE).tokens
    assert at.slider(key="rnn_cells.step").value == len(tokens)
    fig = cell_figure(at)
    assert [d["type"] for d in fig["data"]] == ["heatmap"] * len(step_through.PANELS["LSTM"]) + ["scatter"]  # + outline
    assert f"step {len(tokens)} of {len(tokens)}" in fig["layout"]["title"]["text"]
    titles = [json.loads(c.proto.spec)["title"] for c in at.get("vega_lite_chart")]
    starts = ("Parameters vs", "‖∂a", "Held-out accuracy after", "Forward time")  # the page's order of sections
    assert len(titles) == 4 and all(t.startswith(s) for t, s in zip(titles, starts, strict=True))
    assert any(e.label.startswith("Symbols on this page") for e in at.expander)  # the table of symbols
    assert len(at.latex) >= 4  # RNN, GRU, LSTM and the chain rule


@pytest.mark.parametrize("kind", list(seeded_cells.CELLS))
def test_each_cell_draws_its_own_gates(at, kind):
    at.radio(key="rnn_cells.kind").set_value(kind).run()
    assert not at.exception
    fig = cell_figure(at)
    assert sum(d["type"] == "heatmap" for d in fig["data"]) == len(step_through.PANELS[kind])
    assert fig["layout"]["title"]["text"].startswith(kind)


def test_hidden_size_and_seed_change_the_figure(at):
    T = len(at.session_state["rnn_cells.tokens"])
    before = plotly_array(cell_figure(at)["data"][0]["z"])
    for h in (2, 4, 16, 32):
        at.select_slider(key="rnn_cells.hidden").set_value(h).run()
        assert not at.exception
        assert plotly_array(cell_figure(at)["data"][0]["z"]).shape == (h, T)
    at.select_slider(key="rnn_cells.hidden").set_value(8).run()
    assert np.array_equal(plotly_array(cell_figure(at)["data"][0]["z"]), before)
    at.number_input(key="rnn_cells.seed").set_value(7).run()
    assert not at.exception
    assert not np.array_equal(plotly_array(cell_figure(at)["data"][0]["z"]), before)


def test_step_buttons_and_slider_move_through_the_sentence_and_stop_at_the_ends(at):
    T = len(at.session_state["rnn_cells.tokens"])
    at.button(key="rnn_cells.next").click().run()
    assert at.slider(key="rnn_cells.step").value == T  # already at the end
    at.slider(key="rnn_cells.step").set_value(2).run()
    assert "step 2 of" in cell_figure(at)["layout"]["title"]["text"]
    at.button(key="rnn_cells.back").click().run()
    assert at.slider(key="rnn_cells.step").value == 1
    at.button(key="rnn_cells.back").click().run()
    assert at.slider(key="rnn_cells.step").value == 1
    at.button(key="rnn_cells.next").click().run()
    assert at.slider(key="rnn_cells.step").value == 2
    assert not at.exception
    z = plotly_array(cell_figure(at)["data"][0]["z"])
    assert np.isnan(z[:, 2:]).all() and not np.isnan(z[:, :2]).any()  # tokens not read yet are blank


def test_a_new_sentence_is_read_from_start_to_end(at):
    at.slider(key="rnn_cells.step").set_value(3).run()
    at.text_input(key="rnn_cells.sentence").set_value("Jane visite l'Afrique en septembre").run()
    assert not at.exception and not at.warning
    assert at.session_state["rnn_cells.tokens"] == ("Jane", "visite", "l'Afrique", "en", "septembre")
    assert at.slider(key="rnn_cells.step").value == 5
    at.text_input(key="rnn_cells.sentence").set_value("Hello").run()  # one token: no step slider to draw
    assert not at.exception
    assert "step 1 of 1" in cell_figure(at)["layout"]["title"]["text"]
    at.text_input(key="rnn_cells.sentence").set_value("I like pizza").run()
    assert not at.exception and at.slider(key="rnn_cells.step").value == 3


HOSTILE = [
    "",
    "    ",
    "word " * 500,
    "<script>alert(1)</script>",
    "<b>bold</b> text",
    "I 🙂 pizza",
    "a\x00b",
    "x" * 1999,
]


@pytest.mark.parametrize("bad", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_sentences_warn_and_keep_the_last_good_one(at, bad):
    at.text_input(key="rnn_cells.sentence").set_value("I like pizza").run()
    at.text_input(key="rnn_cells.sentence").set_value(bad).run()
    assert not at.exception
    assert at.warning and KEPT in at.warning[0].value
    assert at.session_state["rnn_cells.tokens"] == ("I", "like", "pizza")
    assert "step 3 of 3" in cell_figure(at)["layout"]["title"]["text"]
    assert "<script>" not in at.warning[0].value and "javascript" not in at.warning[0].value


def test_markdown_link_syntax_is_read_as_plain_punctuation_tokens(at):
    at.text_input(key="rnn_cells.sentence").set_value("[click](javascript:alert(1))").run()
    assert not at.exception and not at.warning  # brackets are punctuation; tokens only reach escaped chart labels
    assert at.session_state["rnn_cells.tokens"][:3] == ("[", "click", "]")


def summary_of(at) -> str:
    """The sentence under the gradient chart that says what the numbers show."""
    return next(m.value for m in at.markdown if m.value.startswith("At distance"))


def test_gradient_controls_rerun_and_tell_what_the_numbers_show(at):
    assert "RNN's gradient is the smallest" in summary_of(at)
    at.slider(key="rnn_cells.length").set_value(30).run()
    at.slider(key="rnn_cells.gate_bias").set_value(3.0).run()
    assert not at.exception
    assert "At distance 29" in summary_of(at) and "Γ_f = 0.9" in summary_of(at)
    at.select_slider(key="rnn_cells.scale").set_value(4.0).run()
    assert not at.exception
    assert "explodes instead of vanishing" in summary_of(at)
    at.select_slider(key="rnn_cells.scale").set_value(0.5).run()
    assert not at.exception and "explodes" not in summary_of(at)


def test_exercises_are_checked(at):
    answer_exercise(at, "rnn_cells.ex1", 0.67)
    assert any(s.value.startswith("Right") for s in at.success)
    answer_exercise(at, "rnn_cells.ex2", 0.9)
    assert any("Not quite" in w.value and "Worked answer" in w.value and "σ(3)" in w.value for w in at.warning)
    answer_exercise(at, "rnn_cells.ex3", 1010)
    assert sum(s.value.startswith("Right") for s in at.success) == 1  # ex1's feedback is gone after the rerun
    answer_exercise(at, "rnn_cells.ex4", "both names")
    assert any("Not quite" in w.value and "Run on this server" in w.value for w in at.warning)
    assert any(SHARING_TAIL in m.value for m in at.markdown)  # the table opens once it is answered
    answer_exercise(at, "rnn_cells.ex5", "one-to-many")
    assert any("outputs" in w.value for w in at.warning)


SHARING_TAIL = "Both were trained on names at positions 1–4 only."  # ends the sharing summary, any outcome


# --- 2. Why not a standard network --------------------------------------------------------------------------
def test_the_standard_network_section_counts_for_the_students_t_and_shows_sharing(at):
    from lessons.rnn_cells import standard_network

    assert any(m.value == standard_network.counts_text(20) for m in at.markdown)
    at.slider(key="rnn_cells.window").set_value(50).run()
    assert not at.exception
    assert any(m.value == standard_network.counts_text(50) for m in at.markdown)
    chart = next(c for c in at.get("vega_lite_chart") if "Parameters vs length" in spec_text(c))
    assert {(r["label"], r["x"]) for r in vega_rows(chart)} >= {("window network", 50.0), ("RNN", 50.0)}
    assert not any(SHARING_TAIL in m.value for m in at.markdown)  # folded until the prediction is answered
    answer_exercise(at, "rnn_cells.ex4", "both names")
    summary = next(m.value for m in at.markdown if SHARING_TAIL in m.value)
    assert summary.startswith("At positions") and "(n = 3)" in summary  # the rule's outcome on the 3 seeds
    assert any("(n = 3)" in str(df.value.to_dict()) for df in at.dataframe)


# --- 6. The price of recurrence ----------------------------------------------------------------------------
def test_the_sequential_section_draws_measured_times_and_says_what_they_show(at):
    from lessons.rnn_cells import sequential

    chart = next(c for c in at.get("vega_lite_chart") if "Forward time (" in spec_text(c))
    rows = vega_rows(chart)
    assert {r["label"] for r in rows} == set(sequential.LAYERS)
    assert {r["x"] for r in rows} == {float(t) for t in sequential.LENGTHS}
    repeats = [r for r in rows if r["kind"] == "seed"]  # each repeat's time; the median line is drawn over them
    assert repeats and all(r["y"] > 0 for r in repeats)
    sentence = next(m.value for m in at.markdown if m.value.startswith("From T = "))
    longest = float(max(sequential.LENGTHS))
    rnn = tuple(r["y"] for r in repeats if r["label"] == sequential.RNN_NAME and r["x"] == longest)
    assert f"the RNN took {timing_text(rnn)} per sequence" in sentence  # the sentence is the chart's numbers


# --- 4. Train the three cells -------------------------------------------------------------------------------
def figure_titled(at, start: str) -> dict:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        title = spec["layout"].get("title", {})
        if isinstance(title, dict) and title.get("text", "").startswith(start):
            return spec
    raise AssertionError(f"no figure titled {start!r}")


def test_the_shipped_table_is_shown_at_once_and_says_how_it_was_made(at):
    from lessons.rnn_cells import agreement, training

    results = training.load_results()
    (chart,) = [
        c for c in at.get("vega_lite_chart") if json.loads(c.proto.spec).get("title", "").startswith("Held-out")
    ]
    rows = vega_rows(chart)
    means = {(r["label"], r["x"]): r["mean"] for r in rows if r["kind"] == "mean"}
    assert {label for label, _ in means} == {training.LABELS.get(v, v) for v in training.VARIANTS}
    for d in training.DISTANCES:
        assert means[("RNN", d)] == pytest.approx(results.spread(training.ACCURACY, "RNN", {"distance": d}).mean)
    assert sum(r["kind"] == "seed" for r in rows) == len(results.runs)  # every seed drawn, not only a summary
    assert any(m.value == agreement.results_summary(results) for m in at.markdown)
    n = len(results.seeds)
    assert n >= 3 and any("scripts/rnn_cells_results.py" in c.value and f"n = {n}" in c.value for c in at.caption)
    assert at.button(key="rnn_cells.train.train").disabled is False


def test_train_with_a_tiny_budget_trains_the_three_and_replays(at):
    at.select_slider(key="rnn_cells.train.distance").set_value(10).run()
    at.select_slider(key="rnn_cells.train.budget").set_value(5).run()
    at.button(key="rnn_cells.train.train").click().run()
    assert not at.exception
    assert wait_for_run(at).startswith("done")
    specs = [(c, json.dumps(json.loads(c.proto.spec)["title"])) for c in at.get("vega_lite_chart")]
    curves = [c for c, title in specs if "while it trains" in title]
    assert len(curves) == 1  # the live curves, through the one curve builder
    assert {row["label"] for row in vega_rows(curves[0])} == {"RNN", "GRU", "LSTM"}
    gates = figure_titled(at, "Keep gates on one fixed example")
    assert [d["type"] for d in gates["data"]] == ["heatmap", "heatmap"]
    assert plotly_array(gates["data"][1]["z"]).shape == (16, 11)  # H units × (cat + 10 distractors)
    replay = at.slider(key="rnn_cells.train.replay")  # seed 0 at T = 10: the RNN needs a second report
    assert replay.value == replay.max >= 2
    replay.set_value(1).run()
    assert not at.exception and "at step 25" in figure_titled(at, "Keep gates")["layout"]["title"]["text"]


def test_stop_ends_the_run_and_train_is_offered_again(at):
    at.select_slider(key="rnn_cells.train.distance").set_value(40).run()
    train_and_stop_at_once(at, "rnn_cells.train")


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    at = open_without_results("rnn_cells", monkeypatch, tmp_path)
    assert not at.exception
    assert any("rnn_cells_results.py" in w.value for w in at.warning)
    titles = [json.dumps(json.loads(c.proto.spec).get("title", "")) for c in at.get("vega_lite_chart")]
    assert not any("after training" in title for title in titles)  # no shipped chart (a live run's may be there)
    assert at.button(key="rnn_cells.train.train").disabled is False


@pytest.mark.browser
def test_in_a_browser_training_redraws_the_gates_and_survives_a_click_elsewhere(page, streamlit_server):
    import re

    from tests.helpers import goto

    goto(page, f"{streamlit_server}/rnn_cells")
    distance = page.locator("[data-testid=stSlider]", has_text="Distance T").get_by_role("slider")
    distance.focus()
    distance.press("End")  # T = 40: the RNN and (seed 0) the LSTM train for all their steps
    live = page.locator(".js-plotly-plot .gtitle").filter(has_text=re.compile(r"Keep gates .* at step \d+"))
    cell = page.get_by_role("radiogroup", name="Cell").get_by_text("GRU")  # section 1, changed while they train
    train_live_and_replay(page, live, cell.click, "the gates")
