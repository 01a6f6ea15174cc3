"""Downloads: a heatmap's numbers as CSV and JSON with tokens on both axes, a training replay as a GIF."""

import csv
import io
import json

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

from lessons.common import charts, export, spreadsheet


def attention_figure():
    weights = np.array([[0.7, 0.2, 0.1], [0.0, 0.25, 0.75]])
    return charts.attention_heatmap(weights, ["<b>x</b>", "=SUM(A1)", "the"], ["the", "the"], title="α <i>")


def test_a_heatmap_is_read_back_with_its_tokens():
    (table,) = export.heatmap_tables(attention_figure())
    assert table.columns == ["<b>x</b>", "=SUM(A1)", "the"]  # the typed text, un-escaped, not markup
    assert table.rows == ["the", "the"]  # repeated tokens keep their own rows
    assert table.name == "α <i>"
    np.testing.assert_array_equal(table.values, [[0.7, 0.2, 0.1], [0.0, 0.25, 0.75]])


def test_csv_has_tokens_on_both_axes_and_no_formulas():
    (table,) = export.heatmap_tables(attention_figure())
    rows = list(csv.reader(io.StringIO(export.to_csv(table))))
    assert rows[0] == ["", "<b>x</b>", "'=SUM(A1)", "the"]  # a spreadsheet will not run a typed formula
    assert [r[0] for r in rows[1:]] == ["the", "the"]
    assert [float(v) for v in rows[2][1:]] == [0.0, 0.25, 0.75]


def test_json_round_trips_and_writes_nan_as_null():
    fig = charts.attention_heatmap(np.array([[np.nan, 1.0]]), ["a", "b"], ["q"])
    (table,) = export.heatmap_tables(fig)
    doc = json.loads(export.to_json(table))
    assert doc == {"name": "heatmap", "rows": ["q"], "columns": ["a", "b"], "values": [[None, 1.0]]}


def test_a_vector_strip_names_its_dimensions():
    (table,) = export.heatmap_tables(charts.vector_strip(np.ones((2, 3)), ["q₁", "k₁"]))
    assert table.rows == ["q₁", "k₁"] and table.columns == ["dimension 0", "dimension 1", "dimension 2"]


def test_every_heatmap_of_a_subplot_figure_is_exported():
    from lessons.rnn_cells import step_through

    trace = step_through.trace_sentence("LSTM", ("the", "cat", "sat"), 4, 0)
    fig = step_through.cell_figure(trace, 2)
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    tables = export.heatmap_tables(fig)
    assert len(tables) == len(heatmaps) > 1
    for table, trace_ in zip(tables, heatmaps, strict=True):
        np.testing.assert_array_equal(table.values, np.asarray(trace_.z, dtype=float))
        assert len(table.columns) == table.values.shape[1] and len(table.rows) == table.values.shape[0]


def test_the_maps_of_a_figure_are_named_by_their_panels_titles_else_by_their_place():
    from plotly.subplots import make_subplots

    titled = make_subplots(rows=2, cols=2, subplot_titles=("English", "French-like", "Italian-like", "Verb-final"))
    bare = make_subplots(rows=1, cols=2)
    for fig in (titled, bare):
        fig.update_layout(title="each head's weights")
        for n in range(len(fig.layout.annotations) or 2):
            fig.add_trace(go.Heatmap(z=[[n, 1.0]]), row=n // 2 + 1, col=n % 2 + 1)
    titled.add_annotation(text="a note", x=0.225, y=0.5, xref="paper", yref="paper")  # not at a panel's top
    assert [t.name for t in export.heatmap_tables(titled)] == ["English", "French-like", "Italian-like", "Verb-final"]
    assert [t.name for t in export.heatmap_tables(bare)] == ["each head's weights (1)", "each head's weights (2)"]
    assert export.describe(export.heatmap_tables(titled)).startswith("English: 1 rows × 2 columns")
    twice = make_subplots(rows=1, cols=2, subplot_titles=("English", "English"))
    for col in (1, 2):
        twice.add_trace(go.Heatmap(z=[[1.0]]), row=1, col=col)
    assert [t.name for t in export.heatmap_tables(twice)] == ["English", "English (2)"]  # told apart


def test_every_map_of_a_head_grid_is_read_back_with_its_own_tokens_and_its_head():
    """The grid's x axis names only the first map's columns (the others sit further along it): each map's download
    and sentence still carry the tokens, and a name saying which layer and head it is."""
    from lessons.common.grids import GridRow, head_grid

    weights = np.full((4, 2, 3), 0.2)
    for head in range(4):
        weights[head, 0, head % 3] = 0.9  # head h's first query looks at token h mod 3
    rows = [
        GridRow("layer 1", weights, ["<b>", "cat", "sat"], ["q1", "q2"]),
        GridRow("layer 2", weights[::-1], ["x", "y", "z"], ["r1", "r2"]),
    ]
    grid = head_grid(rows)
    assert all(trace.showlegend is False for trace in grid.data)  # named, but no legend takes the grid's room
    tables = export.heatmap_tables(grid)
    assert [t.name for t in tables] == [f"layer {layer} · head {h}" for layer in (1, 2) for h in (1, 2, 3, 4)]
    assert all(t.columns == ["<b>", "cat", "sat"] and t.rows == ["q1", "q2"] for t in tables[:4])
    assert all(t.columns == ["x", "y", "z"] and t.rows == ["r1", "r2"] for t in tables[4:])
    words = export.describe(tables, strongest=1)
    assert "layer 1 · head 2: 2 rows × 3 columns; strongest q1 → cat (0.90)" in words
    assert "layer 2 · head 2: 2 rows × 3 columns; strongest r1 → z (0.90)" in words  # layer 1's head 3, its own tokens
    assert "→ column" not in words  # no position in place of a token


def test_named_rows_read_as_their_names_and_numbered_columns_under_the_axis_title():
    fig = go.Figure(go.Heatmap(z=[[0.2, 0.9], [0.1, 0.3]], x=[2, 3], y=["D = 16", "D = 64"]))
    fig.update_xaxes(title="length")
    (table,) = export.heatmap_tables(fig)
    assert table.rows == ["D = 16", "D = 64"] and table.columns == ["length 2", "length 3"]
    assert "strongest D = 16 → length 3 (0.90)" in export.describe([table], strongest=1)


def test_a_figure_downloads_as_one_csv_and_one_json_however_many_heatmaps():
    one = export.heatmap_tables(attention_figure())
    assert export.tables_to_csv(one) == export.to_csv(one[0])
    assert json.loads(export.tables_to_json(one)) == json.loads(export.to_json(one[0]))
    two = [one[0], export.Table("=cmd, two", ["r"], ["c"], np.array([[0.5]]))]
    text = export.tables_to_csv(two)
    sections = text.split("\n\n")
    assert len(sections) == 2 and sections[0].startswith("α <i>\n")
    assert list(csv.reader(io.StringIO(sections[1]))) == [["'=cmd, two"], ["", "c"], ["r", "0.5"]]  # quoted, no formula
    assert [d["name"] for d in json.loads(export.tables_to_json(two))] == ["α <i>", "=cmd, two"]


def numbers_menu_app():  # AppTest runs this function's body alone: everything it needs is imported inside
    import numpy as np

    import ui
    from lessons.common import charts
    from lessons.rnn_cells import step_through

    ui.plotly(step_through.cell_figure(step_through.trace_sentence("LSTM", ("the", "cat"), 4, 0), 1), key="lstm.gates")
    ui.plotly(charts.attention_heatmap(np.eye(2), ["a", "b"], ["a", "b"]), key="one")


def test_each_figure_offers_its_numbers_on_demand_two_files_however_many_heatmaps():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(numbers_menu_app).run()
    assert not at.exception, at.exception
    assert not at.get("download_button")  # nothing built until the student opens a figure's numbers
    for key in ("lstm.gates", "one"):
        at.session_state[f"{key}.values"] = True  # the student opens "Values as a table, CSV, JSON"
    at.run()
    assert not at.exception, at.exception
    assert [b.proto.label for b in at.get("download_button")] == ["CSV", "JSON", "CSV", "JSON"]
    captions = [c.value for c in at.caption]
    assert any("these" in c and "heatmaps" in c for c in captions) and any("this heatmap" in c for c in captions)


@pytest.mark.parametrize("text", ["queries_keys_values.heatmap", "../../etc/passwd", "<script>", "", "é" * 200])
def test_file_stems_are_safe(text):
    stem = export.file_stem(text)
    assert stem and len(stem) <= 60 and all(c.isascii() and (c.isalnum() or c in ".-") for c in stem)


def test_replay_gif_has_one_frame_per_report_in_the_heatmap_colours():
    rng = np.random.default_rng(0)
    frames = [rng.random((3, 5)) for _ in range(4)]
    frames[-1] = np.eye(3, 5)
    data = export.replay_gif(frames, [f"step {i}" for i in range(4)], ms_per_frame=100)
    gif = Image.open(io.BytesIO(data))
    assert gif.format == "GIF" and gif.n_frames == 4
    width, height = gif.size
    cell = export.GIF_MAX_SIDE // 5
    assert (width, height) == (5 * cell, 3 * cell + export.GIF_BAND)
    gif.seek(3)
    last = gif.convert("RGB")
    on = last.getpixel((cell // 2, export.GIF_BAND + cell // 2))  # cell (0, 0) = 1: cividis' bright yellow
    off = last.getpixel((cell + cell // 2, export.GIF_BAND + cell // 2))  # cell (0, 1) = 0: its dark blue
    assert sum(on) > 500 and sum(off) < 200


def test_replay_gif_refuses_mismatched_captions():
    with pytest.raises(ValueError):
        export.replay_gif([np.zeros((2, 2))], [])


def gif_panel_app():
    from types import SimpleNamespace

    import numpy as np

    import ui

    reports = [SimpleNamespace(step=10 * i, exact_match=i / 4, attention=np.full((2, 3), i / 4)) for i in range(4)]
    ui.replay_gif_button(reports, None, "lesson.train")
    ui.replay_gif_button([SimpleNamespace(step=1, exact_match=0.0)] * 3, None, "no.maps")  # nothing to animate


def test_the_training_replay_offers_a_gif_only_when_the_reports_carry_a_map():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(gif_panel_app).run()
    assert not at.exception, at.exception
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["Replay as GIF"]


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\uff0b1", "\u22121", "\uff1d1+1"])
def test_every_cell_a_spreadsheet_would_read_as_a_formula_is_kept_as_text(text):
    table = export.Table("m", [text], [text], np.zeros((1, 1)))
    rows = list(csv.reader(io.StringIO(export.to_csv(table))))
    assert rows[0][1] == rows[1][0] == "'" + text
    assert spreadsheet.as_text("attention") == "attention"


def test_the_words_of_a_two_line_title_read_as_one_line():
    table = export.Table("dot<br>seed 0 · step 200", ["a"], ["b"], np.array([[0.9]]))
    text = export.describe([table])
    assert text.startswith("dot · seed 0 · step 200: 1 rows × 1 columns") and "<br" not in text
