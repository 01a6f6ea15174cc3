"""The queries-keys-values page under AppTest: section 1 draws the shipped embeddings and says what their neighbours
show, section 2 draws Softmax(XXᵀ)X on the student's vectors and says what they show, section 6 the timing and
the counts, bad vectors change nothing, the Q, K and V strips are drawn only while their expander is open,
the figures show the lesson's numbers, and the page ends with the house's tail."""

import numpy as np

from lessons import queries_keys_values
from lessons.common import catalog, point_labels
from lessons.queries_keys_values import (
    database,
    embeddings,
    matrix_form,
    no_parameters,
    no_parameters_exercises,
    no_recurrence,
)
from tests.helpers import (
    answer_exercise,
    markdown_starting,
    open_page,
    plotly_array,
    plotly_specs,
    spec_text,
    unfold,
    vega_rows,
)

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
    lookup = database.soft_lookup("people", 20.0)
    bars = figures(at)["p(i | “people”)"]
    np.testing.assert_allclose(plotly_array(bars["data"][0]["x"]), lookup.weights.numpy(), atol=1e-6)
    assert markdown_starting(at, "3 rows tie for the most weight:") == database.best_sentence(lookup)
    heatmap = figures(at)["softmax(QKᵀ/√d_k): row i attends"]
    tokens = at.session_state["queries_keys_values.tokens"]
    expected = matrix_form.self_attention(tokens, d_model=16, d_k=8, seed=0).weights.numpy()
    np.testing.assert_allclose(plotly_array(heatmap["data"][0]["z"]), expected, atol=1e-6)


def test_the_tail_shows_the_code_the_questions_the_sources_and_the_next_lesson():
    at = open_page(QKV)
    assert [t.value for t in at.title] == ["Queries, keys and values"]
    assert at.expander[-1].label == "The code that computes this"
    assert "def scaled_dot_product_attention" in unfold(at, "The code").expander[-1].code[0].value
    assert [h.value for h in at.header][-1] == "Check yourself"
    assert catalog.lesson("queries_keys_values").sources in [c.value for c in at.caption]
    following = catalog.next_lesson("queries_keys_values")
    assert f"Next: {following.title}" in [link.proto.label for link in at.main.get("page_link")]


WORDS = "queries_keys_values.words"


def section_one(at) -> dict[str, np.ndarray]:
    """Section 2's drawn numbers: XXᵀ, Softmax(XXᵀ), X and Softmax(XXᵀ)X."""
    specs = plotly_specs(at)
    titled = {(spec["layout"].get("title") or {}).get("text", ""): spec for spec in specs}
    (outputs,) = [s for s in specs if any(a.get("text") == "Softmax(XXᵀ)X" for a in s["layout"].get("annotations", ()))]
    return {
        "scores": plotly_array(titled["Scores XXᵀ: xᵢ·xⱼ"]["data"][0]["z"]),
        "weights": plotly_array(titled["Softmax(XXᵀ): weights, row by row"]["data"][0]["z"]),
        "X": plotly_array(outputs["data"][0]["z"]),
        "Z": plotly_array(outputs["data"][1]["z"]),
    }


def test_section_one_draws_softmax_x_xt_x_and_says_what_the_vectors_show():
    at = open_page(QKV)
    default = no_parameters.plain_self_attention(no_parameters.parse_word_vectors(no_parameters.DEFAULT_WORDS).vectors)
    drawn = section_one(at)
    for name in ("scores", "weights", "X", "Z"):
        np.testing.assert_allclose(drawn[name], getattr(default, name).numpy(), atol=1e-9)
    assert markdown_starting(at, "XXᵀ is symmetric")
    assert markdown_starting(at, "In all 5 rows the largest weight is on the diagonal")
    assert "[1, 3, -5] \\cdot [4, -2, -1]" in at.latex[1].value and "&= 3" in at.latex[1].value  # the lecture's example
    at.text_area(key=WORDS).set_value("animal: 3 1 0\nstreet: 0 1 2\nit: 1 1 0").run()  # a short "it"
    assert not at.exception and not at.warning
    short = no_parameters.plain_self_attention(no_parameters_exercises.EXERCISE_IT)
    np.testing.assert_allclose(section_one(at)["weights"], short.weights.numpy(), atol=1e-9)
    sentence = markdown_starting(at, "In 2 of 3 rows the largest weight is on the diagonal")
    assert "`it` attends most to `animal`" in sentence
    assert not [m for m in at.markdown if m.value.startswith("In all")]
    assert "QKᵀ is **not** symmetric" in markdown_starting(at, "Try it on your vectors")


def test_bad_vectors_get_a_message_and_change_nothing():
    at = open_page(QKV)
    at.text_area(key=WORDS).set_value("a: 2 0\nb: 0 2\nc: -2 0").run()
    before = section_one(at)
    sentence = markdown_starting(at, "In all 3 rows")
    for bad in ["", "a: 1 x\nb: 1 2", "a: nan 1\nb: 1 1", "a: 1e9 1\nb: 1 1", "a: 1 2\nb: 1", "just words"]:
        at.text_area(key=WORDS).set_value(bad).run()
        assert not at.exception, at.exception
        assert any("Showing the last table of vectors that worked" in w.value for w in at.warning), bad
        after = section_one(at)
        for name, values in before.items():
            np.testing.assert_array_equal(after[name], values)
        assert markdown_starting(at, "In all 3 rows") == sentence


def test_section_one_exercises_explain_the_answer():
    at = open_page(QKV)
    by_key = {ex.key: ex for ex in queries_keys_values.exercises()}
    it = by_key["queries_keys_values.it"]
    answer_exercise(at, it.key, it.choices[it.answer])
    assert any(s.value.startswith("Right") and "it·animal" in s.value for s in at.success)
    wrong = next(c for i, c in enumerate(it.choices) if i != it.answer)
    answer_exercise(at, it.key, wrong)
    assert any(
        w.value.startswith("Not quite") and "Worked answer" in w.value and "it·it" in w.value for w in at.warning
    )
    answer_exercise(at, "queries_keys_values.dot", 8)
    assert any("(2)(1) + (−1)(4) + (3)(−2)" in w.value for w in at.warning)


def test_section_one_draws_the_shipped_embeddings_and_says_what_their_neighbours_show():
    at = open_page(QKV)
    shipped = embeddings.shipped_embedding_map()
    assert markdown_starting(at, "This model's source vocabulary") == embeddings.one_hot_sentence(shipped)
    lefts = []  # how many words each map leaves off for want of room (on this desktop's width)
    for prop, table in (("French gender (nouns)", "trained"), ("word class", "before training")):
        at.radio(key="queries_keys_values.property").set_value(prop)
        at.radio(key="queries_keys_values.table").set_value(table).run()
        assert not at.exception, at.exception
        (fig,) = [f for title, f in figures(at).items() if title.startswith(f"{prop}, {table}<br>PCA")]
        view = shipped.views[table, prop]
        drawn, shown = {}, []
        for trace in fig["data"]:
            points = np.stack([plotly_array(trace["x"]), plotly_array(trace["y"])], axis=1)  # (n, 2)
            words = trace.get("hovertext") or trace["text"]  # a word with no room beside its point: in its hover
            drawn |= dict(zip(words, points, strict=True))
            shown += [text for text in trace["text"] if text]
        assert len(drawn) == len(view.words)
        np.testing.assert_allclose(drawn[view.words[0]], view.coords[0])
        left_off = len(view.words) - len(shown)
        lefts.append(left_off)
        said = [c.value for c in at.caption if "labels have no room" in c.value]
        assert said == [point_labels.left_off_sentence(left_off, len(view.words))] if left_off else said == []
        assert markdown_starting(at, "Of each of these") == embeddings.embedding_sentence(shipped, prop)
    assert max(lefts) > 0  # the crowded word-class map says so under it


def test_section_six_draws_the_timing_and_the_counts():
    at = open_page(QKV)
    (chart,) = [c for c in at.get("vega_lite_chart") if "Time per sequence" in spec_text(c)]
    rows = vega_rows(chart)
    assert {r["label"] for r in rows} == {no_recurrence.GRU_ENCODER, no_recurrence.SELF_ATTENTION}
    assert {r["x"] for r in rows} == set(no_recurrence.RECURRENCE_LENGTHS)
    (table,) = [df for df in at.dataframe if "GRU steps" in df.value.columns]
    assert list(table.value["T"]) == list(no_recurrence.RECURRENCE_LENGTHS)
    assert list(table.value["GRU steps"]) == list(no_recurrence.RECURRENCE_LENGTHS)
    assert set(table.value["attention steps"]) == {3}
    sentence = markdown_starting(at, "Counted in the graphs")
    assert "on 1 thread" in sentence
