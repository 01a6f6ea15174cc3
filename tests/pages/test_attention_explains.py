"""The attention-explains page under AppTest: its sections, the predictions before their reveals (the shipped
changes, agreement and bugs, with the sentences computed from them), the mystery layers' table, a live run of the
student's own model questioned by sections 3 and 4, the exercises, and missing results.

AppTest sessions share Streamlit's session-scoped caches, so a student's run outlives one test: none assumes there
is no run.
"""

import pytest

from lessons import attention_explains
from lessons.attention_explains import agreement, bugs, interventions, live, question
from lessons.attention_explains import results as measured
from tests.helpers import (
    answer_every_exercise,
    answer_exercise,
    open_page,
    open_without_results,
    plotly_specs,
    predicted,
    unfold,
    wait_for_run,
)

PAGE = "pages/attention_explains.py"
PANEL = "attention_explains.train"
REVEALS = ("Reveal every head's changes", "Reveal every head's agreement", "Reveal the recipe and both planted bugs")


@pytest.fixture
def at():
    return open_page(PAGE)


def test_the_page_opens_with_its_sections_and_folded_answers(at):
    assert at.title[0].value == "Does attention explain?"
    assert [h.value for h in at.header][:5] == [m.TITLE for m in (question, live, interventions, agreement, bugs)]
    results = measured.load_results()
    tables = [df.value.to_dict("records") for df in at.dataframe]
    assert bugs.sharpness_rows() in tables and bugs.mystery_rows(results) in tables
    assert not any(e.label.startswith("Reveal") for e in at.expander)  # not before the predictions are answered
    at = predicted(at)
    for label in REVEALS:
        assert any(e.label.startswith(label) and not e.children for e in at.expander), label
    sentences = [*interventions.verdict_sentences(results), *agreement.verdict_sentences(results)]
    text = " ".join(m.value for m in at.markdown)
    assert not any(s in text for s in sentences)
    unfold(at, *REVEALS)
    text = " ".join(m.value for m in at.markdown)
    for sentence in sentences:
        assert sentence in text, sentence
    assert bugs.speed_verdict(results).sentence(".0f", measured.FORMED) in text
    assert agreement.spread_sentence(results) in text
    tables = [df.value.to_dict("records") for df in at.dataframe]
    for rows in (interventions.rows(results), agreement.rows(results), bugs.bug_rows(results)):
        assert rows in tables
    assert any(c.value.startswith("Measured by `python scripts/attention_explains_results.py") for c in at.caption)
    assert any("Train a model in section 2" in i.value for i in at.info)


def test_the_predictions_are_checked_against_the_shipped_results(at):
    results = measured.load_results()
    exercises = (
        interventions.permutation_exercise(results),
        agreement.top_exercise(results),
        bugs.layer_exercise(),
        bugs.mystery_exercise(),
        bugs.speed_exercise(results),
    )
    for ex in exercises:
        answer_exercise(at, ex.key, ex.choices[ex.answer])
        assert any(s.value.startswith("Right") for s in at.success), ex.key
        wrong = ex.choices[(ex.answer + 1) % len(ex.choices)]
        answer_exercise(at, ex.key, wrong)
        assert any(ex.explanation in w.value for w in at.warning), ex.key


def test_the_check_yourself_questions(at):
    answer_every_exercise(at, attention_explains.exercises())


def test_a_live_run_is_then_questioned_head_by_head(at):
    at.select_slider(key="attention_explains.budget").set_value(10).run()
    at.button(key=f"{PANEL}.train").click().run()
    assert not at.exception
    assert wait_for_run(at).startswith("done")
    heads = next(df.value for df in at.dataframe if "accuracy, permuted" in df.value.columns)
    assert [h[:4] for h in heads["head"]] == ["L1H1", "L1H2", "L2H1", "L2H2"]
    assert any(c.value.startswith("Your model, on the same") for c in at.caption)
    titles = [s["layout"].get("title", {}).get("text", "") for s in plotly_specs(at)]
    assert any(t.startswith(f"Position {agreement.FIRST_QUERY + 3} ") for t in titles)
    at.slider(key="attention_explains.query").set_value(agreement.LAST_QUERY).run()
    assert not at.exception
    titles = [s["layout"].get("title", {}).get("text", "") for s in plotly_specs(at)]
    assert any(t.startswith(f"Position {agreement.LAST_QUERY} ") for t in titles)


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    at = open_without_results("attention_explains", monkeypatch, tmp_path)
    assert any("cannot be shown" in w.value for w in at.warning)
    assert not any(e.label.startswith("Reveal") for e in at.expander)
    assert at.button(key=f"{PANEL}.train").disabled is False
    assert bugs.sharpness_rows() in [df.value.to_dict("records") for df in at.dataframe]
