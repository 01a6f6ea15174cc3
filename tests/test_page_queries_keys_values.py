"""The queries-keys-values page under AppTest: the Q, K and V strips are drawn only while their expander is open."""

import json

from tests.helpers import open_page, plotly_array

QKV = "pages/queries_keys_values.py"
STRIPS = ["Q = XW^Q", "K = XW^K", "V = XW^V"]


def figure_titles(at) -> list[str]:
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [(spec["layout"].get("title") or {}).get("text", "") for spec in specs]


def test_the_matrices_are_drawn_only_while_their_expander_is_open():
    at = open_page(QKV)
    assert not any(title in figure_titles(at) for title in STRIPS)  # closed: moving d_k redraws one heatmap only
    at.session_state["queries_keys_values.show_matrices"] = True
    at.select_slider(key="queries_keys_values.matrix_d_k").set_value(4).run()
    assert not at.exception, at.exception
    specs = {(spec["layout"].get("title") or {}).get("text"): spec for spec in map(json.loads, (
        chart.proto.spec for chart in at.get("plotly_chart")))}  # fmt: skip
    tokens = at.session_state["queries_keys_values.tokens"]
    for title in STRIPS:
        assert plotly_array(specs[title]["data"][0]["z"]).shape == (len(tokens), 4)  # one row per token, d_k columns
        assert specs[title]["layout"]["xaxis"]["title"]["text"] == "dimension"
    at.session_state["queries_keys_values.show_matrices"] = False
    at.run()
    assert not any(title in figure_titles(at) for title in STRIPS)
