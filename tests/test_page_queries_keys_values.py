"""The queries-keys-values page under AppTest: the Q, K and V strips are drawn only while their expander is open,
the figures show the lesson's numbers, and the page ends with the house's tail."""

import numpy as np

from lessons import queries_keys_values
from lessons.common import catalog
from tests.helpers import markdown_starting, open_page, plotly_array, plotly_specs

QKV = "pages/queries_keys_values.py"
STRIPS = ["Q = XW^Q", "K = XW^K", "V = XW^V"]


def figures(at) -> dict[str, dict]:
    """Every Plotly figure on the page by its title."""
    return {(spec["layout"].get("title") or {}).get("text", ""): spec for spec in plotly_specs(at)}


def test_the_matrices_are_drawn_only_while_their_expander_is_open():
    at = open_page(QKV)
    assert not any(title in figures(at) for title in STRIPS)  # closed: moving d_k redraws one heatmap only
    at.session_state["queries_keys_values.show_matrices"] = True
    at.select_slider(key="queries_keys_values.matrix_d_k").set_value(4).run()
    assert not at.exception, at.exception
    specs = figures(at)
    tokens = at.session_state["queries_keys_values.tokens"]
    for title in STRIPS:
        assert plotly_array(specs[title]["data"][0]["z"]).shape == (len(tokens), 4)  # one row per token, d_k columns
        assert specs[title]["layout"]["xaxis"]["title"]["text"] == "dimension"
    at.session_state["queries_keys_values.show_matrices"] = False
    at.run()
    assert not any(title in figures(at) for title in STRIPS)


def test_the_figures_and_sentences_follow_the_controls():
    at = open_page(QKV)
    assert markdown_starting(at, "z₁ leans towards v₁: 88% of it is *Thinking*'s value and 12% *Machines*'s.")
    at.selectbox(key="queries_keys_values.query").set_value("people").run()
    at.slider(key="queries_keys_values.sharpness").set_value(20.0).run()
    lookup = queries_keys_values.soft_lookup("people", 20.0)
    bars = figures(at)["p(i | “people”)"]
    np.testing.assert_allclose(plotly_array(bars["data"][0]["x"]), lookup.weights.numpy(), atol=1e-6)
    key, value, weight = lookup.best()
    assert markdown_starting(at, "The row that weighs most:") == (
        f"The row that weighs most: **{key} → {value}** with {weight:.0%} of the weight."
    )
    heatmap = figures(at)["softmax(QKᵀ/√d_k): row i attends"]
    tokens = at.session_state["queries_keys_values.tokens"]
    expected = queries_keys_values.self_attention(tokens, d_model=16, d_k=8, seed=0).weights.numpy()
    np.testing.assert_allclose(plotly_array(heatmap["data"][0]["z"]), expected, atol=1e-6)


def test_the_tail_shows_the_code_the_questions_the_sources_and_the_next_lesson():
    at = open_page(QKV)
    assert [t.value for t in at.title] == ["Queries, keys and values"]
    assert at.expander[-1].label == "The code that computes this"
    assert "def scaled_dot_product_attention" in at.expander[-1].code[0].value
    assert [h.value for h in at.header][-1] == "Check yourself"
    assert catalog.lesson("queries_keys_values").sources in [c.value for c in at.caption]
    following = catalog.next_lesson("queries_keys_values")
    assert f"Next: {following.title}" in [link.proto.label for link in at.main.get("page_link")]
