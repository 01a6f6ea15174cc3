"""The Q/K/V lesson's numbers against the lecture's worked example."""

import dataclasses
import math

import numpy as np
import pytest
import torch

from lessons import queries_keys_values
from minimodels.attention import scaled_dot_product_attention


@pytest.mark.parametrize("seed", [0, 1, 2, 17])
def test_thinking_machines_reproduces_the_lecture_exactly(seed):
    ex = queries_keys_values.thinking_machines(seed)
    assert ex.d_k == 64
    assert ex.scores.tolist() == [112.0, 96.0]  # exact, not approximately
    assert float(ex.q1 @ ex.keys[0]) == 112.0 and float(ex.q1 @ ex.keys[1]) == 96.0
    assert ex.scaled.tolist() == [14.0, 12.0]
    assert [round(float(w), 2) for w in ex.weights] == [0.88, 0.12]
    torch.testing.assert_close(ex.z1, ex.weights[0] * ex.values[0] + ex.weights[1] * ex.values[1])


def test_worked_example_vectors_are_small_integers():
    ex = queries_keys_values.thinking_machines()
    assert torch.equal(ex.keys, ex.keys.round()) and ex.keys.abs().max() <= 3
    assert set(ex.q1.tolist()) <= {-1.0, 1.0}


def test_soft_lookup_weights_follow_key_similarity():
    lookup = queries_keys_values.soft_lookup("words for mammals", sharpness=3.0)
    assert math.isclose(float(lookup.weights.sum()), 1.0, rel_tol=1e-6)
    ranked = [lookup.keys[i] for i in lookup.weights.argsort(descending=True)]
    assert set(ranked[:2]) == {"sheep", "bull"}
    assert lookup.values[lookup.keys.index("sheep")] == "koyun"


def test_soft_lookup_sharpness_interpolates_between_uniform_and_hard():
    flat = queries_keys_values.soft_lookup("people", sharpness=0.0)
    torch.testing.assert_close(
        flat.weights, torch.full((len(queries_keys_values.TABLE),), 1 / len(queries_keys_values.TABLE))
    )
    hard = queries_keys_values.soft_lookup("things in nature", sharpness=40.0)
    top = hard.weights.sort(descending=True).values
    assert top[:2].sum() > 0.99  # river and plant share the top score
    with pytest.raises(ValueError, match="unknown query"):
        queries_keys_values.soft_lookup("nonsense")


def test_parse_sentence_refuses_bad_input_with_a_message():
    assert queries_keys_values.parse_sentence("Thinking Machines").tokens == ("Thinking", "Machines")
    for bad in ["", "  \n\t", " ".join(["w"] * (queries_keys_values.MAX_TOKENS + 1)), "x" * 41]:
        parsed = queries_keys_values.parse_sentence(bad)
        assert parsed.tokens == () and parsed.error
    assert queries_keys_values.parse_sentence("<b>bold</b> 🙂").tokens == ("<b>bold</b>", "🙂")


def test_self_attention_is_the_matrix_formula():
    tokens = ("the", "cat", "sat", "on", "the", "mat")
    r = queries_keys_values.self_attention(tokens, d_model=8, d_k=4, seed=3)
    assert r.weights.shape == (6, 6)
    torch.testing.assert_close(r.weights.sum(-1), torch.ones(6))
    torch.testing.assert_close(r.weights, torch.softmax(r.Q @ r.K.T / 2.0, dim=-1))
    out, _ = scaled_dot_product_attention(r.Q, r.K, r.V)
    torch.testing.assert_close(r.Z, out)
    torch.testing.assert_close(r.X[0], r.X[4])  # the same word, the same embedding
    assert not torch.equal(queries_keys_values.self_attention(tokens, 8, 4, seed=4).weights, r.weights)


def test_exercise_answers_come_from_the_computation():
    by_key = {ex.key: ex for ex in queries_keys_values.exercises()}
    assert len(by_key) == len(queries_keys_values.exercises()) >= 3
    ex1 = by_key["queries_keys_values.ex1"]  # 112 and 104 at d_k = 64: softmax(14, 13)[1]
    assert ex1.check(1 / (1 + math.e)).correct
    assert not ex1.check(0.12).correct  # the page's own 0.12 is not the answer: nothing to read off
    ex2 = by_key["queries_keys_values.ex2"]  # 112 and 96 at d_k = 100: softmax(11.2, 9.6)[0]
    assert ex2.check(1 / (1 + math.exp(-1.6))).correct and not ex2.check(0.88).correct
    assert by_key["queries_keys_values.ex3"].check(0.5).correct  # river and plant tie at the top
    assert by_key["queries_keys_values.ex4"].check(0).correct and not by_key["queries_keys_values.ex4"].check(1).correct
    dot = by_key["queries_keys_values.dot"]  # [2, −1, 3] · [1, 4, −2] = 2 − 4 − 6
    assert dot.check(-8).correct and not dot.check(8).correct
    assert "(2)(1) + (−1)(4) + (3)(−2) = 2 − 4 − 6 = −8" in dot.explanation
    it = by_key["queries_keys_values.it"]
    assert it.choices[it.answer] == "*animal*" and "it·animal = (1)(3) + (1)(1) + (0)(0)" in it.explanation
    sym = by_key["queries_keys_values.symmetric"]
    assert sym.choices[sym.answer] == "α(b→a) is larger"
    assert "= 0.12" in sym.explanation and "= 0.33" in sym.explanation
    shape = by_key["queries_keys_values.shape"]
    assert shape.choices[shape.answer] == "(6, 3)" and len(set(shape.choices)) == len(shape.choices)


def test_exercise_answers_change_with_their_numbers(monkeypatch):
    """The predicted winner and the comparison are computed: other vectors, other answers and explanations."""
    monkeypatch.setattr(queries_keys_values, "EXERCISE_IT", (("animal", (3.0, 1.0, 0.0)), ("it", (2.0, 2.0, 0.0))))
    with pytest.raises(ValueError, match="single largest"):  # ‖it‖² = 8 = it·animal: a tie has no answer to predict
        queries_keys_values._it_exercise()
    monkeypatch.setattr(queries_keys_values, "EXERCISE_IT", (("animal", (3.0, 1.0, 0.0)), ("it", (2.0, 3.0, 0.0))))
    it = queries_keys_values._it_exercise()
    assert it.choices[it.answer] == "*it* itself" and "attends to itself most” fails" not in it.explanation
    monkeypatch.setattr(queries_keys_values, "EXERCISE_PAIR", (("a", (1.0, 1.0)), ("b", (2.0, 0.0)), ("c", (0.0, 2.0))))
    sym = queries_keys_values._symmetric_exercise()  # a and b swapped: now row a holds the smaller self-score
    assert sym.choices[sym.answer] == "α(a→b) is larger"
    monkeypatch.setattr(queries_keys_values, "EXERCISE_DOT", ((1, 2), (3, 4)))
    dot = queries_keys_values._dot_exercise()
    assert dot.check(11).correct and "positive" in dot.explanation and "dissimilar" not in dot.explanation


def test_worked_table_is_the_lectures_table():
    table = queries_keys_values.worked_table(queries_keys_values.thinking_machines())
    assert table[""] == ["Score  q₁·kᵢ", "Divide by √d_k = 8", "Softmax", "Softmax × value"]
    assert table["Thinking"] == ["112", "14", "0.88", "0.88 · v₁"]
    assert table["Machines"] == ["96", "12", "0.12", "0.12 · v₂"]


def test_wider_vectors_with_the_same_dot_products_give_a_flatter_softmax():
    ex = queries_keys_values.thinking_machines()
    torch.testing.assert_close(queries_keys_values.weights_at(ex, 64), ex.weights)
    assert [round(float(w), 3) for w in queries_keys_values.weights_at(ex, 256)] == [0.731, 0.269]
    spreads = [float(queries_keys_values.weights_at(ex, d)[0]) for d in (1, 4, 16, 64, 256, 1024)]
    assert spreads == sorted(spreads, reverse=True) and spreads[-1] > 0.5  # flatter as d_k grows, Thinking first


def test_figures_draw_the_computed_numbers():
    ex = queries_keys_values.thinking_machines()
    vectors = queries_keys_values.vectors_figure(ex)
    z = np.asarray(vectors.data[0].z)
    assert z.shape == (6, ex.d_k)
    np.testing.assert_allclose(z[0], ex.q1.numpy())
    np.testing.assert_allclose(z[5], ex.z1.numpy(), atol=1e-6)
    lookup = queries_keys_values.soft_lookup("people", 3.0)
    bars = queries_keys_values.lookup_figure(lookup)
    assert bars.data[0].y[0] == "sheep → koyun" and bars.layout.title.text == "p(i | “people”)"
    np.testing.assert_allclose(bars.data[0].x, lookup.weights.numpy())
    tokens = ("I", "like", "pizza")
    result = queries_keys_values.self_attention(tokens, d_model=8, d_k=4)
    np.testing.assert_allclose(queries_keys_values.attention_figure(result).data[0].z, result.weights.numpy())
    strips = queries_keys_values.matrix_figures(result)
    assert list(strips) == ["Q = XW^Q", "K = XW^K", "V = XW^V"]
    for figure, matrix in zip(strips.values(), (result.Q, result.K, result.V), strict=True):
        np.testing.assert_allclose(np.asarray(figure.data[0].z), matrix.numpy(), atol=1e-6)


# --- Section 1: self-attention with no parameters ---------------------------------------------------------
def test_the_lectures_dot_product_is_computed_with_its_steps():
    d = queries_keys_values.dot_product(*queries_keys_values.LECTURE_DOT)
    assert d.value == 3.0 and d.products == (4.0, -6.0, 5.0)
    assert d.steps() == "(1)(4) + (3)(−2) + (−5)(−1) = 4 − 6 + 5 = 3"
    latex = d.latex()
    assert "[1, 3, -5] \\cdot [4, -2, -1]" in latex and "&= 4 - 6 + 5" in latex and latex.endswith("&= 3\\end{aligned}")
    assert queries_keys_values.dot_product((0.5, -2), (4, 1)).steps() == "(0.5)(4) + (−2)(1) = 2 − 2 = 0"
    with pytest.raises(ValueError):
        queries_keys_values.dot_product((1, 2), (1, 2, 3))


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "",
        "  \n\t ",
        "animal: 1 2",  # nothing, or one word: nothing to compare
        "no colon here 1 2\nb: 1 2",
        ": 1 2\nb: 1 2",
        "a:\nb: 1 2",  # no word, no numbers
        "a: 1 zzq\nb: 1 2",
        "a: 1 2\nb: hostile-7f3a",  # not numbers
        "a: nan 1\nb: 1 2",
        "a: inf 1\nb: 1 2",
        "a: 1e400 1\nb: 1 2",
        "a: 1e6 1\nb: 1 2",  # NaN, infinite, huge
        "a: 1 2\nb: 1 2 3",  # ragged
        "a: " + " ".join(["1"] * 9) + "\nb: " + " ".join(["1"] * 9),  # too wide
        "\n".join(f"w{i}: 1 0" for i in range(9)),  # too many words
        "x" * 30 + ": 1 2\nb: 1 2",  # too long a word
    ],
)
def test_bad_word_vectors_are_refused_with_a_message(bad):
    parsed = queries_keys_values.parse_word_vectors(bad)
    assert parsed.vectors == () and parsed.error
    assert "hostile" not in parsed.error and "zzq" not in parsed.error  # the text is never repeated


def test_word_vectors_are_read_as_typed():
    parsed = queries_keys_values.parse_word_vectors("  a: [1, −3, 5]\n\n b : 4,-2,-1.5 \n<b>c</b>: 0 0 1e-3")
    assert parsed.error is None
    assert parsed.vectors == (("a", (1.0, -3.0, 5.0)), ("b", (4.0, -2.0, -1.5)), ("<b>c</b>", (0.0, 0.0, 0.001)))
    default = queries_keys_values.parse_word_vectors(queries_keys_values.DEFAULT_WORDS)
    assert default.error is None and [w for w, _ in default.vectors] == ["animal", "cross", "street", "it", "tired"]


def test_plain_self_attention_is_softmax_of_x_xt_times_x():
    r = queries_keys_values.plain_self_attention(
        queries_keys_values.parse_word_vectors(queries_keys_values.DEFAULT_WORDS).vectors
    )
    torch.testing.assert_close(r.scores, r.X @ r.X.T)
    torch.testing.assert_close(r.weights, torch.softmax(r.X @ r.X.T, dim=-1))  # no √d: the lecture's formula
    torch.testing.assert_close(r.Z, r.weights @ r.X)
    torch.testing.assert_close(r.weights.sum(-1), torch.ones(len(r.words), dtype=torch.float64))


def _result(rows):
    return queries_keys_values.plain_self_attention(tuple((w, tuple(map(float, v))) for w, v in rows))


def test_the_symmetry_sentence_follows_the_matrix():
    r = _result([("animal", (2, 1)), ("it", (1, 0)), ("street", (0, 3))])
    assert queries_keys_values.symmetry_sentence(r.scores, r.words).startswith("XXᵀ is symmetric")
    skewed = r.scores.clone()
    skewed[1, 2] += 5.0  # it → street no longer equals street → it
    sentence = queries_keys_values.symmetry_sentence(skewed, r.words)
    assert (
        "**not** symmetric" in sentence
        and "`it` scores `street` 5" in sentence
        and "`street` scores `it` 0" in sentence
    )


def test_the_diagonal_sentence_says_what_the_vectors_show():
    default = _result(queries_keys_values.parse_word_vectors(queries_keys_values.DEFAULT_WORDS).vectors)
    assert queries_keys_values.diagonal_sentence(default.scores, default.words).startswith("In all 5 rows")
    short_it = _result([("animal", (3, 1, 0)), ("street", (0, 1, 2)), ("it", (1, 1, 0))])  # ‖it‖² = 2 < it·animal = 4
    sentence = queries_keys_values.diagonal_sentence(short_it.scores, short_it.words)
    assert (
        sentence.startswith("In 2 of 3 rows")
        and "`it` attends most to `animal` (`it`·`animal` = 4 > `it`·`it` = 2)" in sentence
    )
    assert "In all" not in sentence
    twins = _result([("a", (1, 0)), ("b", (1, 0)), ("c", (0, 1))])
    sentence = queries_keys_values.diagonal_sentence(twins.scores, twins.words)
    assert sentence.startswith("In 1 of 3 rows") and "`a` scores itself and `b` equally" in sentence


@pytest.mark.parametrize("seed", range(5))
def test_the_diagonal_wins_exactly_when_no_projection_is_longer(seed):
    X = torch.randint(-3, 4, (6, 3)).double() if seed else torch.tensor([[3.0, 0], [1, 0], [0, 2], [1, 1]])
    g = torch.Generator().manual_seed(seed)
    X = X * torch.rand(X.shape[0], 1, generator=g, dtype=torch.float64) * 3  # lengths that differ
    r = queries_keys_values.plain_self_attention(tuple((f"w{i}", tuple(row.tolist())) for i, row in enumerate(X)))
    for top in queries_keys_values.row_tops(r.scores):
        others = [float(r.scores[top.i, j]) for j in range(len(X)) if j != top.i]
        assert top.on_diagonal == (float(r.X[top.i] @ r.X[top.i]) > max(others) + 1e-9)
        assert top.on_diagonal == (int(r.weights[top.i].argmax()) == top.i)


def test_random_projections_break_the_symmetry_and_the_sentence_counts_it():
    r = _result(queries_keys_values.parse_word_vectors(queries_keys_values.DEFAULT_WORDS).vectors)
    S = queries_keys_values.projected_scores(r.X, seed=0)
    k = sum(t.on_diagonal for t in queries_keys_values.row_tops(S))
    sentence = queries_keys_values.projection_sentence(r, seed=0)
    assert "QKᵀ is **not** symmetric" in sentence and f" {k} of 5 rows" in sentence
    one_dim = _result([("a", (1,)), ("b", (2,)), ("c", (-1,))])  # 1 × 1 projections only rescale XXᵀ: still symmetric
    assert "QKᵀ is symmetric" in queries_keys_values.projection_sentence(one_dim, seed=0)


def test_the_no_parameter_figures_draw_the_computed_numbers():
    r = _result([("animal", (2, 1, 0)), ("it", (1, 0, 2)), ("<b>x</b>", (0, 1, 1))])
    scores = queries_keys_values.plain_scores_figure(r)
    np.testing.assert_allclose(scores.data[0].z, r.scores.numpy())
    assert list(scores.layout.yaxis.ticktext) == ["animal", "it", "&lt;b&gt;x&lt;/b&gt;"]
    np.testing.assert_allclose(queries_keys_values.plain_weights_figure(r).data[0].z, r.weights.numpy())
    outputs = queries_keys_values.plain_outputs_figure(r)
    np.testing.assert_allclose(outputs.data[0].z, r.X.numpy())
    np.testing.assert_allclose(outputs.data[1].z, r.Z.numpy())
    assert outputs.layout.coloraxis.cmax == pytest.approx(float(max(r.X.abs().max(), r.Z.abs().max())))


def test_the_worked_sentence_follows_the_weights():
    ex = queries_keys_values.thinking_machines()
    assert queries_keys_values.worked_sentence(ex).startswith(
        "z₁ leans towards v₁: 88% of it is *Thinking*'s value and 12% *Machines*'s."
    )
    swapped = dataclasses.replace(ex, weights=ex.weights.flip(0))
    assert queries_keys_values.worked_sentence(swapped).startswith(
        "z₁ leans towards v₂: 88% of it is *Machines*'s value and 12% *Thinking*'s."
    )
    even = dataclasses.replace(ex, weights=torch.tensor([0.5, 0.5]))
    assert queries_keys_values.worked_sentence(even).startswith("z₁ is an even mix")
