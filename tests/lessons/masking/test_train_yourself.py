"""Train both yourself (section 4): a live run's reports, and the page's text states no result it has not measured."""

import pytest

from lessons.masking import cheating, train_yourself, word_cipher
from tests.helpers import recipe_of


def test_the_page_text_states_no_result_it_has_not_measured():
    text = train_yourself.train_text()
    assert "Predict before you train" in text
    for claim in ("collapses", "races to 100%", "stays near 0"):
        assert claim not in text
    assert not any(ch.isdigit() for ch in cheating.CHEAT_TEXT.replace("t + 1", "").replace("lesson 10", ""))


@pytest.mark.slow  # trains a model or starts a Python process
def test_a_live_run_reports_both_measures_and_stops_when_asked():
    run = train_yourself.new_run(False, 0, 30)
    reports = []
    recipe_of(run)[1](lambda p: reports.append(p) or False)  # stop at the first report
    (report,) = reports
    assert report.step == train_yourself.LIVE_REPORT_EVERY and 0 <= report.exact_match <= 1
    assert report.attention.shape == (2 * word_cipher.WORD, 2 * word_cipher.WORD)
    rows = train_yourself.two_measures_chart(reports)["data"]["values"]
    assert [(r["label"], r["mean"]) for r in rows] == [
        (train_yourself.MEASURES[0], report.teacher_forced_accuracy),
        (train_yourself.MEASURES[1], report.exact_match),
    ]
    fig = train_yourself.snapshot_figure(report)
    assert fig.layout.title.text == f"self-attention on “{word_cipher.PROBE}” at step {report.step}"
    with pytest.raises(ValueError):
        train_yourself.new_run(True, 0, 0)
