"""The Q/K/V lesson's self-attention with no parameters, Softmax(XXᵀ)X: the lecture's dot product with its steps,
the student's vectors read or refused, and the symmetry and diagonal sentences computed from the matrix."""

import numpy as np
import pytest
import torch

from lessons.queries_keys_values import no_parameters


def test_the_lectures_dot_product_is_computed_with_its_steps():
    d = no_parameters.dot_product(*no_parameters.LECTURE_DOT)
    assert d.value == 3.0 and d.products == (4.0, -6.0, 5.0)
    assert d.steps() == "(1)(4) + (3)(−2) + (−5)(−1) = 4 − 6 + 5 = 3"
    latex = d.latex()
    assert "[1, 3, -5] \\cdot [4, -2, -1]" in latex and "&= 4 - 6 + 5" in latex and latex.endswith("&= 3\\end{aligned}")
    assert no_parameters.dot_product((0.5, -2), (4, 1)).steps() == "(0.5)(4) + (−2)(1) = 2 − 2 = 0"
    with pytest.raises(ValueError):
        no_parameters.dot_product((1, 2), (1, 2, 3))


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
    parsed = no_parameters.parse_word_vectors(bad)
    assert parsed.vectors == () and parsed.error
    assert "hostile" not in parsed.error and "zzq" not in parsed.error  # the text is never repeated


def test_word_vectors_are_read_as_typed():
    parsed = no_parameters.parse_word_vectors("  a: [1, −3, 5]\n\n b : 4,-2,-1.5 \n<b>c</b>: 0 0 1e-3")
    assert parsed.error is None
    assert parsed.vectors == (("a", (1.0, -3.0, 5.0)), ("b", (4.0, -2.0, -1.5)), ("<b>c</b>", (0.0, 0.0, 0.001)))
    default = no_parameters.parse_word_vectors(no_parameters.DEFAULT_WORDS)
    assert default.error is None and [w for w, _ in default.vectors] == ["animal", "cross", "street", "it", "tired"]


def test_plain_self_attention_is_softmax_of_x_xt_times_x():
    r = no_parameters.plain_self_attention(no_parameters.parse_word_vectors(no_parameters.DEFAULT_WORDS).vectors)
    torch.testing.assert_close(r.scores, r.X @ r.X.T)
    torch.testing.assert_close(r.weights, torch.softmax(r.X @ r.X.T, dim=-1))  # no √d: the lecture's formula
    torch.testing.assert_close(r.Z, r.weights @ r.X)
    torch.testing.assert_close(r.weights.sum(-1), torch.ones(len(r.words), dtype=torch.float64))


def _result(rows):
    return no_parameters.plain_self_attention(tuple((w, tuple(map(float, v))) for w, v in rows))


def test_the_symmetry_sentence_follows_the_matrix():
    r = _result([("animal", (2, 1)), ("it", (1, 0)), ("street", (0, 3))])
    assert no_parameters.symmetry_sentence(r.scores, r.words).startswith("XXᵀ is symmetric")
    skewed = r.scores.clone()
    skewed[1, 2] += 5.0  # it → street no longer equals street → it
    sentence = no_parameters.symmetry_sentence(skewed, r.words)
    assert (
        "**not** symmetric" in sentence
        and "`it` scores `street` 5" in sentence
        and "`street` scores `it` 0" in sentence
    )


def test_the_diagonal_sentence_says_what_the_vectors_show():
    default = _result(no_parameters.parse_word_vectors(no_parameters.DEFAULT_WORDS).vectors)
    assert no_parameters.diagonal_sentence(default.scores, default.words).startswith("In all 5 rows")
    short_it = _result([("animal", (3, 1, 0)), ("street", (0, 1, 2)), ("it", (1, 1, 0))])  # ‖it‖² = 2 < it·animal = 4
    sentence = no_parameters.diagonal_sentence(short_it.scores, short_it.words)
    assert (
        sentence.startswith("In 2 of 3 rows")
        and "`it` attends most to `animal` (`it`·`animal` = 4 > `it`·`it` = 2)" in sentence
    )
    assert "In all" not in sentence
    twins = _result([("a", (1, 0)), ("b", (1, 0)), ("c", (0, 1))])
    sentence = no_parameters.diagonal_sentence(twins.scores, twins.words)
    assert sentence.startswith("In 1 of 3 rows") and "`a` scores itself and `b` equally" in sentence


@pytest.mark.parametrize("seed", range(5))
def test_the_diagonal_wins_exactly_when_no_projection_is_longer(seed):
    g = torch.Generator().manual_seed(seed)  # every draw from it: the global generator's state depends on test order
    X = torch.randint(-3, 4, (6, 3), generator=g).double() if seed else torch.tensor([[3.0, 0], [1, 0], [0, 2], [1, 1]])
    X = X * torch.rand(X.shape[0], 1, generator=g, dtype=torch.float64) * 3  # lengths that differ
    if seed == 1:
        X[0] = 0  # a word of all zeros scores 0 with every word: a tie across its whole row, on no diagonal
    r = no_parameters.plain_self_attention(tuple((f"w{i}", tuple(row.tolist())) for i, row in enumerate(X)))
    for top in no_parameters.row_tops(r.scores):
        others = [float(r.scores[top.i, j]) for j in range(len(X)) if j != top.i]
        assert top.on_diagonal == (float(r.X[top.i] @ r.X[top.i]) > max(others) + 1e-9)
        other_weights = [float(r.weights[top.i, j]) for j in range(len(X)) if j != top.i]
        # strictly largest weight, not argmax: argmax names the first of tied weights (a zero row ties them all)
        assert top.on_diagonal == (float(r.weights[top.i, top.i]) > max(other_weights) + 1e-12)


def test_random_projections_break_the_symmetry_and_the_sentence_counts_it():
    r = _result(no_parameters.parse_word_vectors(no_parameters.DEFAULT_WORDS).vectors)
    S = no_parameters.projected_scores(r.X, seed=0)
    k = sum(t.on_diagonal for t in no_parameters.row_tops(S))
    sentence = no_parameters.projection_sentence(r, seed=0)
    assert "QKᵀ is **not** symmetric" in sentence and f" {k} of 5 rows" in sentence
    one_dim = _result([("a", (1,)), ("b", (2,)), ("c", (-1,))])  # 1 × 1 projections only rescale XXᵀ: still symmetric
    assert "QKᵀ is symmetric" in no_parameters.projection_sentence(one_dim, seed=0)


def test_the_no_parameter_figures_draw_the_computed_numbers():
    r = _result([("animal", (2, 1, 0)), ("it", (1, 0, 2)), ("<b>x</b>", (0, 1, 1))])
    scores = no_parameters.plain_scores_figure(r)
    np.testing.assert_allclose(scores.data[0].z, r.scores.numpy())
    assert list(scores.layout.yaxis.ticktext) == ["animal", "it", "&lt;b&gt;x&lt;/b&gt;"]
    np.testing.assert_allclose(no_parameters.plain_weights_figure(r).data[0].z, r.weights.numpy())
    outputs = no_parameters.plain_outputs_figure(r)
    np.testing.assert_allclose(outputs.data[0].z, r.X.numpy())
    np.testing.assert_allclose(outputs.data[1].z, r.Z.numpy())
    assert outputs.layout.coloraxis.cmax == pytest.approx(float(max(r.X.abs().max(), r.Z.abs().max())))
