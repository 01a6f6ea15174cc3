"""Words beside a scatter's points (:func:`lessons.common.point_labels.place_point_labels`): each label where its box
covers no other label, inside the plot; a label with no such place is left off and its word kept in the hover. The
real check is Chromium's, on every chart of every page at 390 px (tests/browser/test_phone.py); these check the
choices the placer makes."""

import itertools

import plotly.graph_objects as go

from lessons.common import point_labels
from lessons.common.point_labels import place_point_labels


def _scatter(xs, ys, words, **layout) -> go.Figure:
    trace = go.Scatter(
        x=xs, y=ys, text=words, mode="markers+text", textposition="top center", hovertemplate="%{text}<extra></extra>"
    )
    return go.Figure([trace], {"height": 400, "margin": {"l": 40, "r": 10, "t": 30, "b": 40}, **layout})


def _boxes(fig: go.Figure, width_px: float) -> list[tuple]:
    """Every shown label's box, by the placer's own geometry (for the figure as placed, its ranges set)."""
    layout, trace = fig.layout, fig.data[0]
    plot_w = width_px - layout.margin.l - layout.margin.r
    plot_h = layout.height - layout.margin.t - layout.margin.b
    (x0, x1), (y0, y1) = layout.xaxis.range, layout.yaxis.range
    boxes = []
    for x, y, text, place in zip(trace.x, trace.y, trace.text, trace.textposition, strict=True):
        if text:
            px, py = (x - x0) * plot_w / (x1 - x0), plot_h - (y - y0) * plot_h / (y1 - y0)
            width = point_labels.text_width(text, 12) + 2
            boxes.append(point_labels._box(px, py, place, width, 12, 3.0))
    return boxes


def _overlap(a, b) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def test_labels_of_points_side_by_side_take_other_places_and_none_covers_another():
    xs, ys = [1.0, 1.05, 1.1, 3.0, -1.0], [0.0, 0.0, 0.05, 2.0, -2.0]
    fig = _scatter(xs, ys, ["alpha", "beta", "gamma", "far", "away"], xaxis_range=[-2, 4], yaxis_range=[-3, 3])
    assert place_point_labels(fig, 358) == 0
    places = list(fig.data[0].textposition)
    assert places[3] == places[4] == "top center"  # the figure's own choice, where it is free
    assert len(set(places[:3])) == 3  # the crowded three, each somewhere else
    boxes = _boxes(fig, 358)
    assert not any(_overlap(a, b) for a, b in itertools.combinations(boxes, 2))


def test_a_label_with_no_free_place_is_left_off_and_its_word_stays_in_the_hover():
    words = [f"word{i}" for i in range(12)]
    fig = _scatter([0.0] * 12 + [5.0], [0.0] * 12 + [5.0], [*words, "apart"])
    left_off = place_point_labels(fig, 358)
    shown = list(fig.data[0].text)
    assert 0 < left_off == shown.count("")
    assert 13 - left_off <= 8 + 1  # at most one label in each of the eight places around one spot, and "apart"
    assert list(fig.data[0].hovertext) == [*words, "apart"]  # a tap on any point still names its word
    assert fig.data[0].hovertemplate == "%{hovertext}<extra></extra>"
    assert point_labels.left_off_text(fig, left_off).startswith(f"{left_off} of these 13 points' labels have no room")
    assert not any(_overlap(a, b) for a, b in itertools.combinations(_boxes(fig, 358), 2))


def test_a_wider_screen_keeps_more_labels():
    xs = [i * 0.1 for i in range(30)]
    fig_phone, fig_desktop = (_scatter(xs, [0.0] * 30, [f"w{i:02d}" for i in range(30)]) for _ in range(2))
    assert place_point_labels(fig_desktop, 900) < place_point_labels(fig_phone, 358)


def test_one_scale_on_both_axes_places_by_the_axis_that_grows():
    """With ``scaleanchor`` Plotly keeps one unit as many pixels on both axes and widens the roomier axis's range:
    two points one unit apart across are then far apart on a wide figure, and their labels keep their place."""
    fig = _scatter([-0.5, 0.5], [0.0, 0.0], ["left word", "right word"])
    fig.update_layout(xaxis_range=[-1, 1], yaxis_range=[-1, 1], yaxis_scaleanchor="x")
    assert place_point_labels(fig, 900) == 0
    assert list(fig.data[0].textposition) == ["top center", "top center"]


def test_a_figure_of_several_plots_or_without_labels_is_left_as_it_is():
    fig = _scatter([0, 0], [0, 0], ["a", "b"])
    fig.add_trace(go.Scatter(x=[1], y=[1], xaxis="x2", yaxis="y2"))
    assert place_point_labels(fig, 358) == 0
    assert fig.data[0].textposition == "top center" and list(fig.data[0].text) == ["a", "b"]
    bare = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], mode="lines")])
    assert place_point_labels(bare, 358) == 0 and point_labels.left_off_text(bare, 0) is None
    one_text = go.Figure([go.Scatter(x=[0, 0], y=[0, 0], mode="markers+text", text="same")])  # one text for all
    assert place_point_labels(one_text, 358) == 0 and one_text.data[0].text == "same"
    words_across = _scatter(["a", "a"], [0, 0], ["one", "two"])  # categories on x: Plotly's axis, not numbers
    assert place_point_labels(words_across, 358) == 0 and words_across.data[0].textposition == "top center"


def test_a_trace_with_its_own_hover_text_keeps_every_label():
    """A left-off word lives on in the point's hover text: where the trace has hover text of its own, no label is
    left off (crowded ones keep the figure's place)."""
    fig = _scatter([0.0] * 12, [0.0] * 12, [f"word{i}" for i in range(12)])
    fig.data[0].hovertext = [f"its own {i}" for i in range(12)]
    assert place_point_labels(fig, 358) == 0
    assert list(fig.data[0].text) == [f"word{i}" for i in range(12)]
    assert list(fig.data[0].hovertext) == [f"its own {i}" for i in range(12)]


def test_an_axis_drawn_reversed_or_from_zero_keeps_it_in_the_range_it_is_given():
    """Placing sets the ranges it estimated the boxes in: a reversed axis stays reversed, one drawn from zero still
    starts there."""
    fig = _scatter([1.0, 2.0], [3.0, 4.0], ["a", "b"], yaxis_autorange="reversed", xaxis_rangemode="tozero")
    place_point_labels(fig, 600)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    assert x0 < 0 < x1 and y0 > y1
