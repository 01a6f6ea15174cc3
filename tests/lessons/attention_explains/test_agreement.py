"""Section 4: the prediction and verdicts follow the numbers both ways; the figure and table read the model."""

import pytest

from lessons.attention_explains import agreement, measure


@pytest.mark.parametrize("best", ["induction head", "other layer-2 head", "previous-token head"])
def test_the_prediction_names_the_head_that_agrees_most(make_results, best):
    ex = agreement.top_exercise(make_results(top={best: 0.7}))
    assert ex.choices[ex.answer] == best
    assert f"{best}: 70%" in ex.explanation


def test_the_verdicts_follow_the_rule_both_ways(make_results, rule_on_made_up_seeds):
    ahead = agreement.verdicts(make_results(top={"induction head": 0.7}))
    assert ahead["top, previous-token head"].outcome == "better"
    behind = agreement.verdicts(make_results(top={"previous-token head": 0.7}))
    assert behind["top, previous-token head"].outcome == "worse"
    level = agreement.verdicts(make_results())
    assert level["top, previous-token head"].outcome == "too close"


def test_the_table_is_one_row_per_role(make_results):
    rows = agreement.rows(make_results(top={"induction head": 0.64}))
    assert [r["head"] for r in rows] == [f"the {role}" for role in measure.ROLES]
    assert rows[2]["top key agrees"].startswith("64%")


@pytest.fixture(scope="module")
def found(small_model):
    return measure.importance(small_model, n=4)


def test_the_figure_has_every_head_and_both_measures_each_row_a_share(small_model, found):
    fig = agreement.token_figure(small_model, found, agreement.FIRST_QUERY + 2)
    z = fig.data[0].z
    assert len(z) == 6 and len(z[0]) == agreement.FIRST_QUERY + 3
    assert list(fig.data[0].y[-2:]) == ["leave one out", "gradient × input"]
    for row in z:
        assert sum(row) == pytest.approx(1, abs=1e-5)
    with pytest.raises(ValueError, match="copy"):
        agreement.token_figure(small_model, found, 3)


def test_the_students_table_has_a_row_per_head(small_model, found):
    rows = agreement.own_rows(small_model, found)
    assert len(rows) == 4 and all(-1 <= float(r["τ with gradient × input"]) <= 1 for r in rows)
    assert "first 4 held-out sequences" in agreement.own_caption(found)


def test_the_spread_sentence_gives_each_figures_range_over_the_heads(make_results):
    sentence = agreement.spread_sentence(make_results(top={"induction head": 0.64, "previous-token head": 0.21}))
    assert "top token agrees from 21% to 64%" in sentence
    assert "τ with leave-one-out runs from 0.07 to 0.07" in sentence
