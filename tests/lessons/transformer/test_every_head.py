"""Section 2: the table of each head's strongest column."""

from lessons.transformer import every_head


def test_head_summary_names_each_rows_argmax(walked):
    rows = every_head.head_summary(walked, "cross", 1)
    weights = walked.weights("cross", 1)
    assert [r["head"] for r in rows] == [1, 2, 3, 4]
    first = rows[0]["each row's strongest column"].split(" · ")
    assert first[0] == f"{walked.output[0]}→{walked.source[int(weights[0, 0].argmax())]}"
    assert rows[2]["mean largest weight"] == round(float(weights[2].max(-1).mean()), 3)
