"""The linear-attention section: the two forms agree; the verdicts and the prediction follow the results either
way."""

import pytest

from lessons.kv_cache import linear
from tests.lessons.kv_cache.fakes import comparison


def test_the_recurrent_and_parallel_forms_agree_to_float64():
    assert linear.parity(16) < 1e-12 and linear.parity(256) < 1e-12


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_a_clearly_worse_linear_attention_is_the_bottleneck_answer():
    results = comparison(linear_long=0.3, softmax_long=0.9, gru_long=0.0)
    found = linear.verdicts(results)
    assert found["softmax vs linear"].outcome == "better" and found["linear vs gru"].outcome == "better"
    assert linear.linear_prediction(results).answer == 1


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_linear_as_good_as_softmax_or_no_better_than_the_gru_give_the_other_answers():
    assert linear.linear_prediction(comparison(linear_long=0.9)).answer == 0
    assert linear.linear_prediction(comparison(linear_long=0.0, gru_long=0.0)).answer == 2
    lines = linear.sentences(comparison(linear_long=0.9))
    assert "too close to call" in lines[0]


def test_the_table_reads_the_short_and_long_strings_and_what_each_reads():
    rows = linear.table(comparison())
    assert [r["model"] for r in rows] == ["GRU alone (one vector)", "softmax attention", "linear attention"]
    assert rows[0]["n"] == 5
    reads = linear.reads_rows()
    assert reads[2]["18 characters"] == 64 * 64 + 64 and reads[1]["18 characters"] == 19 * 64
    assert linear.state_exercise().answer == 32 * 32 + 32  # half the page's d: the page states d = 64's count
