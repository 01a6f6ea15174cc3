"""What the server prepares once for every session (issue 22, item 3): a figure met before is not prepared again,
a table or a curve's data is converted once, a shipped comparison answers each question once; and none of it
changes what a student sees."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from lessons.common import charts
from lessons.common.comparison import Comparison, Run
from tests.helpers import open_page, plotly_specs, vega_specs
from ui import charts as ui_charts

PAGE = "pages/masking.py"


def test_a_second_session_on_the_same_page_gets_the_same_charts_without_preparing_them_again():
    first = open_page(PAGE)
    drawn = len(ui_charts._DRAWN)
    tables = len(ui_charts._TABLES)
    assert drawn >= len(plotly_specs(first)) > 0 and tables > 0  # the first session's figures and tables are kept
    second = open_page(PAGE)
    assert len(ui_charts._DRAWN) == drawn  # every figure of the page was met before: none prepared again
    assert len(ui_charts._TABLES) == tables
    assert plotly_specs(second) == plotly_specs(first)
    assert [json.dumps(s, sort_keys=True) for s in vega_specs(second)] == [
        json.dumps(s, sort_keys=True) for s in vega_specs(first)
    ]
    assert [c.value for c in second.caption] == [c.value for c in first.caption]


def heatmap(z) -> object:
    return charts.attention_heatmap(np.asarray(z), ["a", "b"], ["x", "y"], title="t")


def test_a_figure_with_other_numbers_is_prepared_apart_and_keeps_its_own_text_alternative():
    one = ui_charts._prepared(heatmap([[0.9, 0.1], [0.2, 0.8]]))
    again = ui_charts._prepared(heatmap([[0.9, 0.1], [0.2, 0.8]]))
    other = ui_charts._prepared(heatmap([[0.1, 0.9], [0.8, 0.2]]))
    assert again is one
    assert other is not one
    assert "x → a \\(0\\.90\\)" in one.caption and "x → b \\(0\\.90\\)" in other.caption  # escaped: plain text
    # what Streamlit is handed is the prepared figure, margins fitted, made once
    assert one.frozen.to_dict() is one.frozen.to_dict()
    assert one.frozen.to_dict()["layout"]["margin"] == one.figure.to_dict()["layout"]["margin"]


def test_the_arrow_table_is_what_streamlit_would_make_of_the_rows():
    from streamlit.dataframe_util import convert_anything_to_arrow_bytes

    rows = [{"model": "GRU", "accuracy": 0.91, "n": 3}, {"model": "✓ ‫RTL‬", "accuracy": None, "n": "–"}]
    table = ui_charts._arrow(rows)
    assert isinstance(table, pa.Table)
    assert ui_charts._arrow([dict(r) for r in rows]) is table  # the same content, converted once
    ours = pa.ipc.open_stream(convert_anything_to_arrow_bytes(table)).read_all()
    theirs = pa.ipc.open_stream(convert_anything_to_arrow_bytes(rows)).read_all()
    assert ours.equals(theirs)


def test_a_comparisons_spread_is_asked_once_and_equals_the_runs():
    runs = tuple(Run("a", seed, params={"k": 1}, final={"acc": 0.5 + seed / 10}) for seed in range(3))
    results = Comparison(("a",), runs)
    first = results.spread("acc", "a", {"k": 1})
    assert results.spread("acc", "a", {"k": 1}) is first
    assert first.values == (0.5, 0.6, 0.7)
    assert results.spread("acc", "a", {"k": 2}).total == 0  # another question, another answer


def test_a_shipped_models_view_is_computed_once_and_any_other_models_every_time():
    import copy
    import importlib

    pretrained = importlib.import_module("ui.pretrained")  # the module (``ui.pretrained`` is also its function)

    model, _ = pretrained._load("toy-translation", "transformer")
    calls = []

    def view(m, task, text):
        calls.append(text)
        return [text, len(task)]

    task = ["an", "unhashable", "task"]
    first = pretrained.shared_view(view, model, task, "I see it")
    assert pretrained.shared_view(view, model, task, "I see it") is first
    assert calls == ["I see it"]
    pretrained.shared_view(view, model, task, "Jane visits Africa")  # other arguments: computed
    assert calls == ["I see it", "Jane visits Africa"]
    own = copy.deepcopy(model)  # a student's own model (it may be training): never shared
    pretrained.shared_view(view, own, task, "I see it")
    pretrained.shared_view(view, own, task, "I see it")
    assert calls == ["I see it", "Jane visits Africa", "I see it", "I see it"]
