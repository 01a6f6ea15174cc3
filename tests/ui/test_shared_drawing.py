"""What the server prepares once for every session: a figure met before is not prepared again,
a table or a curve's data is converted once, a shipped comparison answers each question once; and none of it
changes what a student sees."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from lessons.common import charts, grids
from lessons.common.comparison import Comparison
from lessons.common.runs import Run
from tests.helpers import as_read, open_page, plotly_specs, vega_specs
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
    assert one.frozen.to_dict()["layout"]["margin"] != heatmap([[0.9, 0.1], [0.2, 0.8]]).to_dict()["layout"]["margin"]


def test_on_a_phone_the_text_alternative_and_the_values_name_every_cell_where_the_ticks_are_thinned():
    """A phone's map shows every k-th column's label only (``grids.phone_ticks``); what is read aloud and downloaded
    still names each column by its own label, never by its place under the axis's title."""
    labels = [f"word{i}" for i in range(1, 31)]
    z = np.zeros((30, 30))
    z[11, 10], z[0, 1], z[5, 7] = 0.9, 0.8, 0.7  # the three strongest links, in columns both shown and thinned
    fig = charts.attention_heatmap(z, labels, labels, title="thirty words")
    narrow = ui_charts._prepare(fig, presenter=False, contrast=False, narrow=True)
    shown = narrow.frozen.to_dict()["layout"]["xaxis"]["ticktext"]
    assert len(shown) < len(labels)  # the phone thinned them: the case this is about
    assert not {"word2", "word8", "word11"} <= set(shown)  # at least one of their columns is unlabelled there
    (table,) = narrow.tables
    assert list(table.columns) == labels and list(table.rows) == labels
    words = as_read(narrow.caption)  # the caption is escaped for Markdown
    assert "strongest word12 → word11 (0.90), word1 → word2 (0.80), word6 → word8 (0.70)" in words
    assert "30 rows × 30 columns" in words


def test_a_prepared_figure_lets_its_fitted_labels_be_drawn_without_the_browser_measuring_each_one():
    from lessons.common.grids import head_grid

    rows = [
        grids.GridRow(title=f"layer {i}", weights=np.full((4, 3, 3), 1 / 3), x_labels=list("abc"), y_labels=list("abc"))
        for i in range(2)
    ]
    layout = ui_charts._prepared(head_grid(rows)).frozen.to_dict()["layout"]
    axes = [name for name in layout if name.startswith(("xaxis", "yaxis"))]
    assert len(axes) == 4  # two rows of heads, each its own pair of axes
    assert all(layout[name]["ticklabeloverflow"] == "allow" for name in axes)


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
    pretrained.shared_view(view, None, task, "none")  # no results loaded (a page passes what it has): not shipped
    pretrained.shared_view(view, None, task, "none")
    assert calls[-2:] == ["none", "none"]


def test_a_shared_view_keys_its_keyword_arguments_too():
    """``shared_view(fn, shipped, …, name=value)``: the same keywords give the kept answer, other values another."""
    import importlib

    pretrained = importlib.import_module("ui.pretrained")
    results = pretrained.share(object())  # a lesson's shipped results, say
    calls = []

    def chart(_results, d, *, variants=("a",)):
        calls.append((d, variants))
        return [d, variants]

    first = pretrained.shared_view(chart, results, 64, variants=("a", "b"))
    assert pretrained.shared_view(chart, results, 64, variants=("a", "b")) is first
    assert pretrained.shared_view(chart, results, 64, variants=("b",)) == [64, ("b",)]
    assert pretrained.shared_view(chart, results, 64) == [64, ("a",)]
    assert calls == [(64, ("a", "b")), (64, ("b",)), (64, ("a",))]


BUILDS: list[tuple] = []


def counted_heatmap(z, title="t"):
    """A lesson-like builder, at module level: counts its calls."""
    BUILDS.append((tuple(map(tuple, z)), title))
    return charts.attention_heatmap(np.asarray(z), ["a", "b"], ["x", "y"], title=title)


def test_a_figure_built_before_from_the_same_arguments_is_not_built_again():
    BUILDS.clear()
    z = [[0.3, 0.7], [0.6, 0.4]]
    one = ui_charts._built(counted_heatmap, (z,), {"title": "built"})
    again = ui_charts._built(counted_heatmap, ([[0.3, 0.7], [0.6, 0.4]],), {"title": "built"})  # equal, not the same
    assert again is one and len(BUILDS) == 1
    other = ui_charts._built(counted_heatmap, (z,), {"title": "another title"})
    assert other is not one and len(BUILDS) == 2
    assert one.frozen.to_dict() == ui_charts._prepared(counted_heatmap(z, title="built")).frozen.to_dict()


def test_what_may_draw_on_more_than_its_arguments_is_built_every_time():
    BUILDS.clear()
    z = [[0.5, 0.5], [0.1, 0.9]]
    scale = {"title": "closure"}

    def closure(values):  # reads ``scale`` besides its argument: not kept by its arguments
        return counted_heatmap(values, title=scale["title"])

    ui_charts._built(closure, (z,), {})
    ui_charts._built(closure, (z,), {})
    assert len(BUILDS) == 2
    unpicklable = (z, lambda: None)  # pickle refuses a lambda: built each time, not kept
    ui_charts._built(heatmap_beside, unpicklable, {})
    ui_charts._built(heatmap_beside, unpicklable, {})
    assert len(BUILDS) == 4


def heatmap_beside(z, anything):
    return counted_heatmap(z)


def test_the_page_draws_the_same_with_its_figures_built_once():
    """A lesson whose figures come from builders (every one of them here): a fresh session's page, drawn from what
    the first session built, is the page the first session got."""
    first = open_page("pages/positional_encoding.py")
    built = len(ui_charts._BUILT)
    second = open_page("pages/positional_encoding.py")
    assert len(ui_charts._BUILT) == built > 0
    assert plotly_specs(second) == plotly_specs(first)


def test_a_tensor_is_fingerprinted_by_its_dtype_shape_and_values_not_by_which_object_it_is():
    """Torch's own pickle of a tensor differs from one object to another of the same values, so a figure built from
    a tensor equal to one met before was built again."""
    import torch

    from ui.kept import digest

    a = torch.arange(12.0).reshape(3, 4)
    assert digest("fig", a) == digest("fig", a.clone()) == digest("fig", a.t().t().contiguous())
    assert digest(a.t()) == digest(a.t().contiguous())  # a view: its values in order
    for other in (a + 1, a.reshape(4, 3), a.double(), a[:2]):
        assert digest(a) != digest(other)
    half = torch.ones(3, dtype=torch.bfloat16)  # a dtype numpy lacks
    assert digest(half) == digest(half.clone()) != digest(half * 2)
    assert digest(torch.tensor(3.0)) != digest(torch.tensor([3.0]))


@pytest.mark.parametrize("slug", ["attention_bridge", "scaling"])
def test_a_pages_cached_functions_are_made_once_per_server_not_on_every_run(monkeypatch, slug):
    """Streamlit reads and tokenizes a function's source to make its cache wrapper; a page made its wrappers again on
    every run (``ui.cached``). The bridge's are defined on the page (new objects each run), scaling's wrap lessons'."""
    from streamlit.runtime.caching import cache_data_api, cache_resource_api

    made = []
    for module in (cache_data_api, cache_resource_api):
        original = module.make_cached_func_wrapper

        def counting(info, _original=original):
            made.append(info.func.__qualname__)
            return _original(info)

        monkeypatch.setattr(module, "make_cached_func_wrapper", counting)
    first = open_page(f"pages/{slug}.py")
    made.clear()  # made by the first run, or by an earlier test in this process
    second = open_page(f"pages/{slug}.py")
    assert made == []
    assert [m.value for m in second.markdown] == [m.value for m in first.markdown]
