from collections import namedtuple

import numpy as np
import pytest

from lessons.common import charts, curves, grids, margins, vega


def test_heatmap_keeps_repeated_tokens_apart_and_hovers_exact_values():
    w = np.array([[0.25, 0.75], [0.5, 0.5], [1.0, 0.0]])
    fig = charts.attention_heatmap(w, ["the", "the"], ["a", "b", "c"])
    trace = fig.data[0]
    assert trace.type == "heatmap"
    assert list(trace.x) == [0, 1] and list(fig.layout.xaxis.ticktext) == ["the", "the"]
    np.testing.assert_array_equal(np.asarray(trace.z), w)
    assert "%{z:.4f}" in trace.hovertemplate and "%{customdata}" in trace.hovertemplate
    assert trace.customdata.shape == w.shape and trace.customdata[2, 0] == "c → the"  # row → column


def test_heatmap_escapes_user_text():
    fig = charts.attention_heatmap(np.ones((1, 1)), ["<script>x</script>"], ["a&b"])
    assert fig.layout.xaxis.ticktext[0] == "&lt;script&gt;x&lt;/script&gt;"
    assert fig.layout.yaxis.ticktext[0] == "a&amp;b"
    assert charts.safe_label("a\x00b") == "a\ufffdb"
    assert charts.safe_label("x" * 100).endswith("…")


def test_heatmap_cell_text_only_on_small_maps():
    assert charts.attention_heatmap(np.eye(3), list("abc"), list("abc")).data[0].texttemplate
    big = charts.attention_heatmap(np.eye(30), [str(i) for i in range(30)], [str(i) for i in range(30)])
    assert not big.data[0].texttemplate


def test_heatmap_rejects_mismatched_labels():
    with pytest.raises(ValueError, match="do not match"):
        charts.attention_heatmap(np.eye(2), ["a"], ["a", "b"])


def test_bars_and_strips():
    bars = charts.weight_bars(["x → y", "<i>"], [0.3, 0.7])
    assert list(bars.data[0].y) == ["x → y", "&lt;i&gt;"]
    strip = charts.vector_strip(np.arange(6.0).reshape(2, 3), ["a", "b"])
    assert np.asarray(strip.data[0].z).shape == (2, 3)


def test_training_curves_carry_every_report_and_are_valid_vega_lite():
    import altair as alt

    Report = namedtuple("Report", "step seconds loss exact_match")
    history = [Report(25, 0.5, 2.0, 0.1), Report(50, 1.0, 1.0, 0.6)]
    loss, accuracy = curves.training_curves(history)
    assert [(v["x"], v["mean"], v["n"]) for v in loss["data"]["values"]] == [(25, 2.0, 1), (50, 1.0, 1)]
    assert [(v["x"], v["mean"], v["n"]) for v in accuracy["data"]["values"]] == [(25, 0.1, 1), (50, 0.6, 1)]
    assert (loss["title"], accuracy["title"]) == ("Loss", "Exact match")
    assert loss["layer"][0]["encoding"]["y"]["title"] == "training loss"
    assert accuracy["layer"][0]["encoding"]["y"]["scale"] == {"domain": [0, 1]}  # exact match from 0% to 100%
    for chart in (loss, accuracy):
        assert [layer["mark"]["type"] for layer in chart["layer"]] == ["line"]  # one run: one line, no band
        assert chart["encoding"]["color"]["legend"] is None  # and no legend for it
        alt.LayerChart.from_dict(chart)  # Altair validates it against the Vega-Lite schema
        assert "view" not in chart.get("config", {})  # as st.altair_chart sends it: no 300 × 300 default view
    assert loss["encoding"]["color"]["scale"]["range"] != accuracy["encoding"]["color"]["scale"]["range"]
    assert curves.training_curves([])[0]["data"]["values"] == []
    assert curves.training_curves(history[:1])[0]["data"]["values"] == loss["data"]["values"][:1]  # not shared
    taller, shorter = curves.training_curves(history, height=300)[0], curves.training_curves(history, height=200)[0]
    assert taller["height"] - shorter["height"] == 100  # the plot takes what the chart's height adds


@pytest.mark.parametrize(("rows", "cols", "shared"), [(1, 3, False), (2, 4, True), (3, 1, True)])
def test_subplot_grid_places_panels_and_titles_where_make_subplots_does(rows, cols, shared):
    from plotly.subplots import make_subplots

    titles = [f"panel {i}" for i in range(rows * cols)]
    spacing = {"horizontal_spacing": 0.05, "vertical_spacing": 0.1}
    ours = grids.subplot_grid(rows, cols, titles=titles, shared_xaxes=shared, **spacing)
    theirs = make_subplots(rows=rows, cols=cols, subplot_titles=titles, shared_xaxes=shared, **spacing).layout
    for r in range(rows):
        for c in range(cols):
            n = grids.panel_axis(r, c, cols)
            for axis in (f"xaxis{n}", f"yaxis{n}"):
                assert ours[axis]["domain"] == pytest.approx(list(theirs[axis].domain))
                assert ours[axis]["anchor"] == theirs[axis].anchor
            assert ours[f"xaxis{n}"].get("matches") == theirs[f"xaxis{n}"].matches
    for mine, plotly_s in zip(ours["annotations"], theirs.annotations, strict=True):
        assert mine["text"] == plotly_s.text
        assert (mine["x"], mine["y"]) == pytest.approx((plotly_s.x, plotly_s.y))


def test_figures_are_checked_against_plotlys_validation_in_the_tests():
    assert charts.CHECK_FIGURES  # set by tests/conftest.py: every figure the suite builds is checked
    with pytest.raises(ValueError):  # a misspelt property
        charts.figure([{"type": "heatmap", "z": [[1]], "colourscale": "Blues"}], {})
    with pytest.raises(AssertionError):  # a short form that validation would have rewritten
        charts.figure([{"type": "heatmap", "z": [[1]]}], {"xaxis": {"title": "key"}})
    charts.figure([{"type": "heatmap", "z": [[1]]}], {"xaxis": {"title": {"text": "key"}}})


def _margin(fig) -> dict:
    return {side: getattr(fig.layout.margin, side) for side in "lrtb"}


def test_fit_margins_grow_with_the_labels_and_never_shrink():
    short = margins.fit_margins(charts.attention_heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"]))
    long = margins.fit_margins(charts.attention_heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "a_much_longer_token"]))
    assert _margin(long)["l"] > _margin(short)["l"] + 50  # 18 more characters of the y axis's labels
    assert _margin(long)["r"] == _margin(short)["r"] >= 60  # the colour bar, whatever the labels
    roomy = charts.attention_heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"])
    roomy.update_layout(margin={"l": 400, "r": 300, "t": 200, "b": 150})
    assert _margin(margins.fit_margins(roomy)) == {"l": 400, "r": 300, "t": 200, "b": 150}


def test_fit_margins_read_what_a_label_shows():
    assert margins.text_width("&lt;b&gt;", 12) == margins.text_width("abc", 12)  # escaped user text shows 3 characters
    assert margins.text_width("<b>bold</b>", 12) == margins.text_width("bold", 12)  # Plotly's own tags take no room
    assert margins.text_width("one<br>two words", 12) == margins.text_width("two words", 12)  # the widest line
    assert margins.text_width("猫猫", 12) > margins.text_width("ab", 12)  # wide characters


def test_fit_margins_make_room_for_a_legend_below_and_a_bare_axis_stays_small():
    two_lines = charts.figure(
        [{"type": "scatter", "x": [1, 2, 3], "y": [0.1, 0.5, 0.9], "name": name} for name in ("one", "two")],
        {"height": 400, "margin": {"l": 10, "r": 10, "t": 10, "b": 10}, "legend": {"orientation": "h", "y": -0.25}},
    )
    alone = charts.figure([{"type": "scatter", "x": [1, 2, 3], "y": [0.1, 0.5, 0.9]}], {"margin": {"b": 10}})
    assert _margin(margins.fit_margins(two_lines))["b"] > _margin(margins.fit_margins(alone))["b"] + 40
    assert _margin(alone)["r"] == 0  # no colour bar, no legend: nothing asks for room on the right


def test_presenter_vega_enlarges_every_axis_legend_and_title_and_keeps_hidden_ones_hidden():
    spec = {
        "title": "curves",
        "height": 200,
        "layer": [
            {"encoding": {"x": {"field": "d"}, "y": {"field": "v", "axis": None}, "color": {"field": "s"}}},
            {"encoding": {"x": {"field": "d", "axis": {"title": "d_k"}}, "color": {"field": "s", "legend": None}}},
        ],
    }
    shown = vega.presenter_vega(spec, 1.5)
    assert spec["layer"][0]["encoding"]["x"] == {"field": "d"}  # the original is left as it was
    first, second = (layer["encoding"] for layer in shown["layer"])
    assert first["x"]["axis"] == vega.AXIS_PRESENTER and first["y"]["axis"] is None
    assert first["color"]["legend"] == vega.LEGEND_PRESENTER and second["color"]["legend"] is None
    assert second["x"]["axis"] == {"title": "d_k", **vega.AXIS_PRESENTER}
    assert shown["title"] == {"text": "curves", "fontSize": vega.TITLE_PRESENTER} and shown["height"] == 300
