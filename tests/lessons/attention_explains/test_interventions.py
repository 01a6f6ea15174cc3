"""Section 3: the prediction's answer and the verdicts follow the numbers, both ways; the student's table reads
their model."""

import pytest

from lessons.attention_explains import interventions
from lessons.attention_explains import results as measured
from lessons.attention_explains.measure import KINDS, ROLES

PERMUTED, ZEROED = measured.changed("induction head", "permute"), measured.changed("induction head", "zero")


@pytest.mark.parametrize(("lowest", "answer"), [(PERMUTED, "permuted"), (ZEROED, "zeroed")])
def test_the_prediction_names_the_change_that_costs_most(make_results, lowest, answer):
    ex = interventions.permutation_exercise(make_results({lowest: 0.2}))
    assert ex.choices[ex.answer] == answer
    assert "20%" in ex.explanation


def test_the_verdicts_follow_the_rule_both_ways(make_results, rule_on_made_up_seeds):
    far = interventions.verdicts(make_results({PERMUTED: 0.2, ZEROED: 0.5}))
    assert far["induction head: intact vs permuted"].outcome == "better"
    assert far["induction head: zeroed vs permuted"].outcome == "better"
    near = interventions.verdicts(make_results({PERMUTED: 0.5, ZEROED: 0.2}))
    assert near["induction head: zeroed vs permuted"].outcome == "worse"
    sentences = interventions.verdict_sentences(make_results({PERMUTED: 0.2}))
    assert any(s.startswith("The intact model beats the induction head permuted") for s in sentences)


def test_the_table_has_every_role_and_change(make_results):
    rows = interventions.rows(make_results({PERMUTED: 0.25}))
    assert [r["head"] for r in rows] == list(ROLES)
    assert rows[2]["accuracy, permuted"].startswith("25%")
    assert all(f"KL, {interventions.KIND_WORDS[k]}" in rows[0] for k in KINDS)


def test_the_students_table_reads_every_head_of_their_model(small_model):
    rows = interventions.own_rows(small_model)
    assert [r["head"][:4] for r in rows] == ["L1H1", "L1H2", "L2H1", "L2H2"]
    assert sum("(induction head)" in r["head"] for r in rows) == 1
    assert interventions.own_caption(small_model).startswith("Your model")
