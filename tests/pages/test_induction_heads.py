"""The induction-heads page under AppTest: the sequences, the predictions before their reveals (the shipped curves
and knock-outs, the sentences computed from them), live training of the student's own model with its heads then
knocked out, the exercises, and missing results.

AppTest sessions share Streamlit's session-scoped caches, so a student's run outlives one test: none assumes there
is no run.
"""

import pytest

from lessons import induction_heads
from lessons.induction_heads import circuit, forming, knockout, sequences
from lessons.induction_heads import results as measured
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

PAGE = "pages/induction_heads.py"
PANEL = "induction_heads.train"


@pytest.fixture
def at():
    return open_page(PAGE)


def test_the_page_opens_with_its_sections_and_folded_answers(at):
    assert at.title[0].value == "Induction heads, forming live"
    assert [h.value for h in at.header][:4] == [m.TITLE for m in (sequences, circuit, forming, knockout)]
    assert at.latex and any(circuit.SCORES in x.value for x in at.latex)
    table = at.dataframe[0].value.to_dict("records")
    assert table == sequences.example(0).table()
    results = measured.load_results()
    # the answers are not offered before the predictions are answered, then stay folded until opened
    assert not any(e.label.startswith("Reveal") for e in at.expander)
    at = predicted(at)
    for label in ("Reveal the shipped seeds' curves", "Reveal the knock-outs"):
        assert any(e.label.startswith(label) and not e.children for e in at.expander), label
    text = " ".join(m.value for m in at.markdown)
    assert forming.expectation(measured.formation(results)) in text  # how many seeds formed one, and when
    verdicts = knockout.verdict_sentences(results)
    assert not any(sentence in text for sentence in verdicts)
    unfold(at, "Reveal the shipped seeds' curves", "Reveal the knock-outs")
    text = " ".join(m.value for m in at.markdown)
    for sentence in (*forming.results_sentences(results), *verdicts):
        assert sentence in text, sentence
    tables = [df.value.to_dict("records") for df in at.dataframe]
    assert knockout.knockout_rows(results) in tables and forming.results_rows(results) in tables
    assert any(c.value.startswith("Measured by `python scripts/induction_heads_results.py") for c in at.caption)
    assert any("Train a model in section 3" in i.value for i in at.info)


def test_another_seed_draws_another_sequence(at):
    at.number_input(key="induction_heads.example").set_value(5).run()
    assert not at.exception
    assert at.dataframe[0].value.to_dict("records") == sequences.example(5).table()


def test_the_predictions_are_checked_against_the_shipped_results(at):
    results = measured.load_results()
    for ex in (circuit.shape_exercise(results), knockout.knockout_exercise(results)):
        answer_exercise(at, ex.key, ex.choices[ex.answer])
        assert any(s.value.startswith("Right") for s in at.success), ex.key
        wrong = ex.choices[(ex.answer + 1) % len(ex.choices)]
        answer_exercise(at, ex.key, wrong)
        assert any(ex.explanation in w.value for w in at.warning)


def test_the_check_yourself_questions(at):
    answer_every_exercise(at, induction_heads.exercises())


def test_a_live_run_draws_every_head_and_then_its_heads_can_be_knocked_out(at):
    at.select_slider(key="induction_heads.budget").set_value(10).run()
    at.button(key=f"{PANEL}.train").click().run()
    assert not at.exception
    assert wait_for_run(at).startswith("done")
    titles = [s["layout"].get("title", {}).get("text", "") for s in plotly_specs(at)]
    assert any(t.startswith("Every head on a sequence and its copy, step") for t in titles)
    assert any(c.value.startswith("Step ") and "in-context accuracy" in c.value for c in at.caption)
    rows = next(df.value for df in at.dataframe if "knocked out" in df.value.columns)
    assert list(rows["knocked out"]) == ["none (intact)", "L1H1", "L1H2", "L2H1", "L2H2", "all of layer 2"]
    assert any(c.value.startswith("Your model, read on the same held-out sequences") for c in at.caption)


def test_missing_results_get_a_message_and_the_rest_of_the_page_works(monkeypatch, tmp_path):
    at = open_without_results("induction_heads", monkeypatch, tmp_path)
    assert any("cannot be shown" in w.value for w in at.warning)
    assert not any(e.label.startswith("Reveal") for e in at.expander)
    assert at.button(key=f"{PANEL}.train").disabled is False
