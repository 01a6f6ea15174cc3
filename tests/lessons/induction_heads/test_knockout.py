"""The knock-out section: the prediction's answer from the shipped means, the verdict sentences, the student's own
model read with each head out."""

import pytest

from lessons.induction_heads import knockout, training
from lessons.induction_heads import results as measured


def test_the_answer_is_the_knockout_with_the_lowest_mean(make_results, typical):
    assert knockout.knockout_exercise(typical).answer == 0  # the previous-token head
    flipped = make_results(
        {
            measured.INTACT: [0.9] * 5,
            "previous-token head out": [0.8] * 5,
            "other layer-1 head out": [0.85] * 5,
            "induction head out": [0.2] * 5,
            "layer 2 out": [0.03] * 5,
        },
        [100] * 5,
    )
    ex = knockout.knockout_exercise(flipped)
    assert ex.answer == 2 and "20%" in ex.explanation


@pytest.mark.usefixtures("rule_on_made_up_seeds")  # made-up numbers, turned round
def test_the_table_and_sentences_cover_every_reading(typical):
    rows = knockout.knockout_rows(typical)
    assert [r["the model read with"] for r in rows] == [measured.LABELS[v] for v in measured.VARIANTS]
    assert all(r["n"] == 5 for r in rows)
    sentences = knockout.verdict_sentences(typical)
    assert len(sentences) == len(measured.KNOCKOUTS)
    assert any("beats" in s for s in sentences) and any("too close to call" in s for s in sentences)


def test_the_students_model_is_read_with_every_head_out_in_turn():
    model, _ = training.train(0, steps=2)
    rows = knockout.own_knockouts(model)
    assert [r["knocked out"] for r in rows] == ["none (intact)", "L1H1", "L1H2", "L2H1", "L2H2", "all of layer 2"]
    assert rows[0]["change"] == "+0.0%"
    assert "L" in knockout.own_caption(model)
