"""Heatmaps for every student: a text alternative under each (its strongest links in words, its values as a table on
demand), the house's colour scales on every page (perceptually uniform for weights, one diverging scale for signed
values), and the high-contrast switch."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from lessons.common import charts, colorscales, export, grids
from lessons.common.catalog import TOOLS, built_lessons
from tests.helpers import open_page, plotly_array, plotly_specs
from ui.charts import plain
from ui.style import CONTRAST_PARAM, HIGH_CONTRAST_CSS

QKV = "pages/queries_keys_values.py"


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def chart_key(chart) -> str:
    """A chart's own key, from its element id (``$$ID-<hash>-<key>``)."""
    return chart.proto.id.split("-", 2)[2]


def test_a_heatmap_names_its_strongest_link_and_shows_its_values_as_a_table_on_demand():
    at = open_page(QKV)
    # The spec is parsed, not searched as text: a serializer may write "ᵀ" as "\\u1d40" (plain json does, orjson not).
    specs = plotly_specs(at)
    index = next(i for i, spec in enumerate(specs) if "Softmax(XXᵀ)" in json.dumps(spec, ensure_ascii=False))
    chart, spec = list(at.get("plotly_chart"))[index], specs[index]
    trace = spec["data"][0]
    z = plotly_array(trace["z"]).reshape(len(trace["y"]), len(trace["x"]))
    rows, cols = spec["layout"]["yaxis"]["ticktext"], spec["layout"]["xaxis"]["ticktext"]
    r, c = np.unravel_index(np.argmax(z), z.shape)
    strongest = f"strongest {rows[r]} → {cols[c]} ({z[r, c]:.2f})"  # the matrix's own largest weight, in words
    captions = [unescaped(caption.value) for caption in at.caption]
    assert any(caption.startswith("Softmax(XXᵀ)") and strongest in caption for caption in captions), captions

    def tables_of_this_map():
        return [df.value for df in at.dataframe if list(df.value.columns[1:]) == cols]

    assert tables_of_this_map() == []  # the table is built only once the student asks for it
    at.session_state[f"{chart_key(chart)}.values"] = True  # the student opens "Values as a table"
    at.run()
    assert not at.exception, at.exception
    [table] = tables_of_this_map()
    assert list(table.iloc[:, 0]) == rows
    np.testing.assert_allclose(table.iloc[:, 1:].to_numpy(dtype=float), z)


def test_a_signed_map_names_its_largest_values_whatever_their_sign():
    table = export.Table("v", ["a", "b"], ["x", "y"], np.array([[0.5, -2.0], [1.0, 0.1]]))
    assert export.describe([table], strongest=2) == "v: 2 rows × 2 columns; strongest a → y (-2.00), b → x (1.00)."


def test_values_frame_keeps_repeated_tokens_apart_and_long_forms_a_grid():
    one = export.Table("m", ["the", "cat"], ["the", "row", "the"], np.arange(6.0).reshape(2, 3))
    frame = export.values_frame([one])
    assert list(frame.columns) == ["row (2)", "the", "row", "the (2)"] or list(frame.columns) == [
        "row",
        "the",
        "row (2)",
        "the (2)",
    ]
    np.testing.assert_array_equal(frame.iloc[:, 1:].to_numpy(), one.values)
    grid = export.values_frame([one, export.Table("n", ["a"], ["b"], np.array([[0.25]]))])
    assert list(grid.columns) == ["map", "row", "column", "value"] and len(grid) == 7
    assert grid.iloc[-1].tolist() == ["n", "a", "b", 0.25]


def test_typed_tokens_in_the_sentence_are_shown_as_typed():
    text = "**bold** [a](http://x) $x$ :material/home: <b>"
    assert unescaped(plain(text)) == text
    assert r"\*\*bold\*\*" in plain(text) and r"\$x\$" in plain(text) and r"\]\(" in plain(text)


def test_the_high_contrast_twin_replaces_each_house_scale():
    fig = charts.attention_heatmap(np.eye(3), list("abc"), list("abc"))
    grid = grids.head_grid([grids.GridRow("x", np.random.default_rng(0).random((2, 3, 3)), list("abc"), list("abc"))])
    strip = charts.vector_strip(np.array([[-1.0, 2.0]]), ["v"])
    assert colorscales.scale_key(fig.data[0].colorscale) == colorscales.scale_key(colorscales.SEQUENTIAL_COLORSCALE)
    for figure, twin in (
        (fig, colorscales.HIGH_CONTRAST_SEQUENTIAL),
        (grid, colorscales.HIGH_CONTRAST_SEQUENTIAL),
        (strip, colorscales.HIGH_CONTRAST_DIVERGING),
    ):
        colorscales.high_contrast(figure)
        assert [colorscales.scale_key(s) for s in colorscales.heatmap_scales(figure.to_plotly_json())] == [
            colorscales.scale_key(twin)
        ] * len(figure.data)


def house_only(specs: list[dict]) -> list:
    """The colour scales of these figures' heatmaps that are not the house's."""
    scales = [s for spec in specs for s in colorscales.heatmap_scales(spec)]
    return [s for s in scales if colorscales.scale_key(s) not in colorscales.HOUSE_SCALE_KEYS]


def test_a_page_in_high_contrast_draws_its_heatmaps_with_the_high_contrast_scales():
    at = open_page(QKV, params={CONTRAST_PARAM: "high"})
    scales = {colorscales.scale_key(s) for spec in plotly_specs(at) for s in colorscales.heatmap_scales(spec)}
    assert scales and scales <= {
        colorscales.scale_key(colorscales.HIGH_CONTRAST_SEQUENTIAL),
        colorscales.scale_key(colorscales.HIGH_CONTRAST_DIVERGING),
    }
    assert any(HIGH_CONTRAST_CSS in h.proto.body for h in at.get("html"))


PAGES = [f"pages/{lesson.url_path}.py" for lesson in built_lessons()] + [t.page for t in TOOLS if t.built]


@pytest.mark.slow  # opens every page once more; tests/pages/test_every_page.py keeps the fast loop's walk
@pytest.mark.parametrize("page", PAGES)
def test_every_heatmap_of_every_page_uses_a_house_colour_scale(page):
    specs = plotly_specs(open_page(page))
    assert house_only(specs) == []
