"""The positional-encoding page under AppTest: every control, bad strings, the shipped comparison, a live run
(reports, stopped, replayed), the exercises, and missing results.

AppTest sessions share Streamlit's session-scoped caches, so a student's run (``ui.current_run``) outlives one
test: every test that starts one leaves it over, and none assumes there is none.
"""

import time

import pytest

import ui.results
from lessons import positional_encoding
from lessons.positional_encoding import (
    bag_of_tokens,
    live_training,
    longer_inputs,
    models,
    nearby_positions,
    sinusoid_table,
)
from tests.helpers import (
    answer_every_exercise,
    answer_exercise,
    open_page,
    plotly_array,
    predicted,
    progress_text,
    unfold,
    vega_rows,
    vega_specs,
    wait_for_run,
)
from tests.helpers import plotly_specs as specs

PAGE = "pages/positional_encoding.py"


@pytest.fixture(scope="module")
def at():
    return unfold(predicted(open_page(PAGE)), "Reveal")  # the folded answers and tables open, as a student opens them


def figure(at, title_part: str) -> dict:
    for spec in specs(at):
        texts = [spec["layout"].get("title", {}).get("text", "")]
        texts += [a.get("text", "") for a in spec["layout"].get("annotations", [])]
        if any(title_part in t for t in texts):
            return spec
    raise AssertionError(f"no figure titled {title_part!r}")


def chart_rows(at, key_field: str) -> list[dict]:
    """The rows of the one Vega-Lite chart whose x axis is ``key_field`` (Streamlit sends the data as Arrow)."""
    found = [
        c
        for c, spec in zip(at.get("vega_lite_chart"), vega_specs(at), strict=True)
        if spec.get("encoding", {}).get("x", {}).get("field") == key_field
    ]
    assert len(found) == 1, key_field
    return vega_rows(found[0])


def equivariance_table(at):
    return next(df.value for df in at.dataframe if "equivariant?" in df.value.columns)


def test_page_opens_with_every_section_from_shipped_models_and_results(at):
    assert not at.exception
    assert at.title[0].value == "Positional encoding"
    assert len(at.latex) >= 2
    table = figure(at, "PE for 100 positions × d_model = 64")
    assert plotly_array(table["data"][0]["z"]).shape == (100, 64)
    assert plotly_array(figure(at, "PE_p · PE_q")["data"][0]["z"]).shape == (50, 50)
    by_offset = [r["dot product"] for r in chart_rows(at, "k")]
    assert by_offset == pytest.approx(list(nearby_positions.similarity_by_offset(64, 49)))
    assert figure(at, "M_k for k = 5")["data"][0]["type"] == "heatmap"
    rows = equivariance_table(at).to_dict("records")
    assert [r["equivariant?"] for r in rows] == ["yes", "no", "no"]
    captions = " ".join(c.value for c in at.caption)
    assert "cannot tell the shuffled string from the string" in captions  # the map shown first: no positions
    assert bag_of_tokens.equivariance_caption() in captions
    first, second = rows[0]["writes under the string"], rows[0]["under the shuffle"]
    assert second == first[::-1]  # none, on the string reversed: what it wrote, moved with the letters
    maps = figure(at, "sinusoidal")
    assert len(maps["data"]) == 3
    assert "Rows whose largest weight is on the letter before (the first row left out): none" in captions
    results = longer_inputs.load_results()
    reveal = next(e for e in at.expander if e.label.startswith("Reveal the measured results"))
    shipped = next(df.value for df in reveal.dataframe if "parameters" in df.value.columns)  # behind the prediction
    assert shipped.to_dict("records") == longer_inputs.results_rows(results)
    said = " ".join(m.value for m in at.markdown)
    assert all(line in said for line in longer_inputs.observations(results))  # computed, not typed
    assert any(c.value.startswith("Measured by `python scripts/positional_encoding_results.py") for c in at.caption)
    # the curves of section 1, the dot product against the offset, the shipped runs' accuracy and loss, the lengths
    assert len(at.get("vega_lite_chart")) == 5
    lengths = next(
        c
        for c, spec in zip(at.get("vega_lite_chart"), vega_specs(at), strict=True)
        if spec.get("title") == "Longer than any training string"
    )
    assert {r["x"] for r in vega_rows(lengths)} == set(map(float, longer_inputs.LENGTHS))
    assert at.button(key="positional_encoding.train.sinusoidal.train").disabled is False


def test_table_controls(at):
    at.select_slider(key="positional_encoding.d_model").set_value(8).run()
    at.slider(key="positional_encoding.length").set_value(20).run()
    assert not at.exception
    assert plotly_array(figure(at, "PE for 20 positions × d_model = 8")["data"][0]["z"]).shape == (20, 8)
    at.multiselect(key="positional_encoding.dims").set_value([0, 7]).run()
    rows = chart_rows(at, "position")
    assert sorted({r["dimension"].split(" (")[0] for r in rows}) == ["dim 0", "dim 7"]
    pe = sinusoid_table.encoding_table(20, 8)
    assert [r["PE"] for r in rows if r["dimension"].startswith("dim 7 (cos")] == pytest.approx(list(pe[:, 7]))
    at.multiselect(key="positional_encoding.dims").set_value([]).run()
    assert not at.exception and any("at least one dimension" in i.value for i in at.info)


def test_similarity_controls(at):
    at.select_slider(key="positional_encoding.sim_d_model").set_value(4).run()
    at.slider(key="positional_encoding.sim_length").set_value(10).run()
    assert not at.exception
    sim = plotly_array(figure(at, "PE_p · PE_q")["data"][0]["z"])
    assert sim.shape == (10, 10) and sim[0, 0] == pytest.approx(2.0)


def test_offset_controls_keep_the_residual_at_rounding_level(at):
    for d, k, pos in ((128, 50, 100), (4, 0, 0), (32, 1, 7)):
        at.select_slider(key="positional_encoding.offset_d_model").set_value(d)
        at.slider(key="positional_encoding.k").set_value(k)
        at.slider(key="positional_encoding.pos").set_value(pos).run()
        assert not at.exception
        residual = float(at.metric[0].value)
        assert residual <= 1e-6
        assert plotly_array(figure(at, f"M_k for k = {k}")["data"][0]["z"]).shape == (d, d)
        pairs = next(df.value for df in at.dataframe if "pair i" in df.value.columns)
        assert len(pairs) == d // 2


def test_the_students_string_and_every_shuffle(at):
    at.text_input(key="positional_encoding.text").set_value("abcd").run()
    assert not at.warning
    for kind in bag_of_tokens.PERMUTATIONS[1:]:  # the first is the default, seen when the page opened
        at.radio(key="positional_encoding.permutation").set_value(kind).run()
        assert not at.exception
        rows = equivariance_table(at).to_dict("records")
        assert rows[0]["equivariant?"] == "yes" and rows[1]["equivariant?"] == "no"
    shuffled = at.markdown[[m.value.startswith("The string") for m in at.markdown].index(True)].value
    at.number_input(key="positional_encoding.shuffle_seed").set_value(5).run()
    assert not at.exception
    assert at.markdown[[m.value.startswith("The string") for m in at.markdown].index(True)].value != shuffled
    for encoding in ("sinusoidal", "learned"):
        at.radio(key="positional_encoding.attention_of").set_value(encoding).run()
        pair = figure(at, "put back in order")
        assert pair["layout"]["annotations"][0]["text"] == f"{encoding}:<br>the string"
        assert plotly_array(pair["data"][0]["z"]).shape == (4, 4)  # "abcd"


def test_bad_strings_warn_and_keep_the_last_good_one(at):
    at.text_input(key="positional_encoding.text").set_value("abcd").run()
    for bad in ["", "<b>x</b>", "😀😀", "שלום עולם", "a3f9", "x" * 33, "x" * 5000]:
        at.text_input(key="positional_encoding.text").set_value(bad).run()
        assert not at.exception
        assert at.warning and "last string that worked" in at.warning[0].value, bad
        labels = figure(at, "put back in order")["layout"]["xaxis"]["ticktext"]
        assert labels == ["a", "b", "c", "d"]


def shipped_curves(at) -> list[dict]:
    return [spec for spec in vega_specs(at) if spec.get("title") in ("Accuracy (4–16 letters)", "Loss")]


def test_curves_against_seconds(at):
    assert [spec["encoding"]["x"]["title"] for spec in shipped_curves(at)] == ["training step"] * 2
    at.radio(key="positional_encoding.axis").set_value("seconds").run()
    assert not at.exception
    assert [spec["encoding"]["x"]["title"] for spec in shipped_curves(at)] == ["seconds"] * 2


def test_exercises_are_checked(at):
    shipped = longer_inputs.load_results(), models.load_model("none")[0]
    right = answer_every_exercise(at, positional_encoding.exercises(*shipped))
    answer_exercise(at, "positional_encoding.ex2", 2.0)
    assert any("Not quite" in w.value and "Worked answer" in w.value for w in at.warning)
    assert set(right) == {f"positional_encoding.ex{i}" for i in range(1, 6)}


def test_live_training_reports_stops_and_replays(at):
    """One run covers the panel: Train, live reports, Stop, Train offered again, the replay slider. With no positions
    the model cannot reach the target (order is what the task asks), so the run is still going when Stop is pressed: a
    learned encoding reached it in 0.3 s on a quick machine, between two of the test's reruns."""
    at.selectbox(key="positional_encoding.live_encoding").set_value("none").run()
    at.select_slider(key="positional_encoding.budget").set_value(60).run()
    at.button(key="positional_encoding.train.none.train").click().run()
    assert not at.exception
    deadline = time.monotonic() + 120
    while " step " not in progress_text(at) or int(progress_text(at).split(" step ")[1].split()[0]) < 50:
        assert time.monotonic() < deadline, f"no second report: {progress_text(at)!r}"
        time.sleep(0.3)
        at.run()
    assert at.button(key="positional_encoding.train.none.train").disabled  # one run at a time
    at.button(key="positional_encoding.train.none.stop").click().run()
    assert wait_for_run(at, timeout=60).startswith("stopped")
    at.run()  # the panel drew its buttons before the stop took effect: the next rerun offers Train again
    assert at.button(key="positional_encoding.train.none.train").disabled is False
    replay = at.slider(key="positional_encoding.train.none.replay")
    assert replay.max >= 2
    replay.set_value(1).run()
    assert not at.exception
    live = figure(at, f"{models.LABELS['none']} · step {live_training.LIVE_REPORT_EVERY}")
    n = len(bag_of_tokens.DEFAULT_TEXT)
    assert plotly_array(live["data"][0]["z"]).shape == (n, n)


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # the catalog's results path, under an empty folder
    at = predicted(open_page(PAGE))  # the parts that open after a prediction, opened
    assert not at.exception
    assert at.warning and "positional_encoding_results.py" in at.warning[0].value
    assert "positional_encoding.ex4.answer" not in [r.key for r in at.radio]
    assert len(at.get("vega_lite_chart")) == 2  # sections 1 and 2's curves; no shipped runs to draw
    assert len(figure(at, "sinusoidal")["data"]) == 3  # the shipped models still load and draw
