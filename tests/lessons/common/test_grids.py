"""A grid of panels on a phone: :func:`lessons.common.grids.stack_panels` draws panels side by side one a row, in
reading order, each the full width and as tall as it was, its title and its own colour bar with it; a head grid for
a phone (:data:`lessons.common.grids.NARROW`) holds PHONE_HEADS maps a row, each numbered as in its sublayer."""

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from lessons.common import grids
from lessons.common.grids import GridRow


def _panels(fig) -> list[tuple]:
    """(x domain, y domain) of each panel, in the order of its x axes."""
    layout = fig.layout
    names = sorted((n for n in layout.to_plotly_json() if n.startswith("xaxis")), key=lambda n: int(n[5:] or 1))
    return [(tuple(layout[n].domain), tuple(layout["yaxis" + layout[n].anchor[1:]].domain)) for n in names]


def _heatmaps(fig, n: int) -> None:
    for i in range(n):
        axis = "" if i == 0 else str(i + 1)
        fig.add_trace(go.Heatmap(z=np.eye(4), x=list("abcd"), xaxis=f"x{axis}", yaxis=f"y{axis}"))


@pytest.mark.parametrize("maker", ["make_subplots", "subplot_grid"])
def test_panels_side_by_side_stack_one_a_row_in_reading_order_with_their_titles(maker):
    titles = ["A", "B", "C", "D"]
    if maker == "make_subplots":
        fig = make_subplots(rows=2, cols=2, subplot_titles=titles)
    else:
        fig = go.Figure(layout=grids.subplot_grid(2, 2, titles=titles))
    fig.update_layout(height=500, margin={"t": 40, "b": 40})
    _heatmaps(fig, 4)
    before = _panels(fig)
    assert grids.stack_panels(fig)

    after = _panels(fig)
    assert all(x == (0.0, 1.0) for x, _ in after)  # each the figure's full width
    tops = [y[1] for _, y in after]
    assert tops == sorted(tops, reverse=True) and tops[0] == 1.0  # A, B, C, D from the top: the reading order
    for (_, upper), (_, lower) in zip(after, after[1:], strict=False):
        assert lower[1] < upper[0]  # no two panels share a height: a gap holds the labels and the next title
    plot = fig.layout.height - 80
    for (_, old), (_, new) in zip(before, after, strict=True):
        assert (new[1] - new[0]) * plot == pytest.approx((old[1] - old[0]) * 420, rel=0.01)  # as tall as it was
    notes = {note.text: (note.x, note.y) for note in fig.layout.annotations}
    assert [notes[t] for t in titles] == [(0.5, top) for top in tops]  # each title centred over its panel


def test_a_colour_bar_of_a_panel_s_own_moves_beside_it():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Heatmap(z=np.eye(3), colorbar={"x": 0.45}), row=1, col=1)
    fig.add_trace(go.Heatmap(z=np.eye(3), colorbar={"x": 1.0}), row=1, col=2)
    assert grids.stack_panels(fig)
    for trace, (_, y) in zip(fig.data, _panels(fig), strict=True):
        assert trace.colorbar.x == 1.02 and trace.colorbar.y == pytest.approx(sum(y) / 2)
        assert trace.colorbar.len == pytest.approx(y[1] - y[0])


def test_a_single_panel_or_panels_already_one_a_row_stay_as_they_are():
    single = go.Figure(go.Heatmap(z=np.eye(3)))
    column = make_subplots(rows=3, cols=1)
    _heatmaps(column, 3)
    before = column.to_dict()
    assert not grids.stack_panels(single) and not grids.stack_panels(column)
    assert column.to_dict() == before


def test_a_phone_s_head_grid_holds_two_maps_a_row_numbered_as_in_their_sublayer():
    rows = [GridRow("layer 1", np.full((4, 3, 3), 1 / 3), list("abc"), list("abc"))]
    wide = grids.head_grid(rows)
    token = grids.NARROW.set(True)
    try:
        phone = grids.head_grid(rows)
    finally:
        grids.NARROW.reset(token)
    assert len(phone.data) == len(wide.data) == 4  # every head's map, on a phone too
    assert [n for n in phone.layout.to_plotly_json() if n.startswith("xaxis")] == ["xaxis", "xaxis2"]  # two rows
    labels = [note.text for note in phone.layout.annotations]
    assert labels == ["head 1", "head 2", "head 3", "head 4"]
    assert "head 3" in phone.data[2].hovertemplate


def test_a_phone_drops_the_numbers_of_cells_too_narrow_to_read_and_keeps_those_of_wide_ones():
    from lessons.common.charts import attention_heatmap

    def numbers_on_a_phone(n: int) -> bool:
        labels = [str(i) for i in range(n)]
        fig = attention_heatmap(np.eye(n), labels, labels, show_cell_text=True)
        assert fig.data[0].texttemplate  # drawn with its numbers at first
        grids.phone_cell_text(fig)
        return fig.data[0].texttemplate is not None and fig.data[0].text is not None

    plot = grids._plot_px(attention_heatmap(np.eye(2), ["a", "b"], ["a", "b"]))
    assert numbers_on_a_phone(3)  # cells of about a third of the plot's width
    wide_enough = int(plot // grids.CELL_TEXT_PX)
    assert numbers_on_a_phone(wide_enough) and not numbers_on_a_phone(wide_enough + 1)


def test_a_phone_lays_a_charts_one_colour_bar_under_it_and_gives_the_width_to_the_map():
    from lessons.common import margins
    from lessons.common.charts import attention_heatmap

    labels = [str(i) for i in range(10)]
    beside = margins.fit_margins(attention_heatmap(np.eye(10), labels, labels, height=300))
    fig = attention_heatmap(np.eye(10), labels, labels, height=300)
    assert grids.phone_colorbar(fig)
    margins.fit_margins(fig)
    once = fig.layout.margin.to_plotly_json()
    margins.fit_margins(fig)
    assert fig.layout.margin.to_plotly_json() == once  # fitted again (as a phone's ticks are): no more room taken
    bar = fig.data[0].colorbar
    assert (bar.orientation, bar.yref, bar.y, bar.yanchor) == ("h", "container", 0, "bottom")
    assert fig.layout.margin.r < beside.layout.margin.r - 60  # the width the bar and its title took beside the map
    plot_height = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert plot_height >= beside.layout.height - beside.layout.margin.t - beside.layout.margin.b  # rows as tall

    two = make_subplots(rows=1, cols=2)
    two.add_trace(go.Heatmap(z=np.eye(3)), row=1, col=1)
    two.add_trace(go.Heatmap(z=np.eye(3), colorbar={"x": 1.1}), row=1, col=2)
    assert not grids.phone_colorbar(two)  # two bars: each stays where its builder put it
    assert two.data[0].colorbar.orientation is None


def test_a_phones_numeric_axis_reads_a_line_traces_steps_once_each_and_skips_its_gaps():
    """A tree of segments (the Transformer's beam: x of each edge, None between two) on steps 0 … 4 one apart: on a
    phone its five steps keep their labels, level and one apart; read as its 3 × 12 values with their gaps, they
    had been taken for 36 words, turned upright and thinned (step 4 lost its label)."""
    xs = []
    for step in range(4):
        xs += [step, step + 1, None] * 3
    fig = go.Figure(
        [go.Scatter(x=xs, y=[0.0] * len(xs), mode="lines")],
        {"xaxis": {"dtick": 1, "range": [-0.3, 4.9]}, "margin": {"l": 60, "r": 10}},
    )
    grids.phone_ticks(fig)
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tickangle is None
    assert fig.layout.xaxis.tickvals is None

    # the room a stacked panel keeps under it for those labels reads them the same way: numbers, not 36 words
    gapless = go.Figure([go.Scatter(x=[0, 1, 2, 3, 4], y=[0.0] * 5, mode="lines")], {"xaxis": {"range": [-0.3, 4.9]}})
    assert grids._tick_room(fig, "xaxis") == grids._tick_room(gapless, "xaxis")
