"""The multi-head page under AppTest: the split's controls and bad input, every head of the trained model, the
enlarged head, the shipped comparison, live training (stopped early, then used in section 2), the exercises and
missing results.

AppTest sessions share Streamlit's session-scoped caches, so the student's run (``ui.current_run``) outlives one
test: the test that starts one leaves it over, and none assumes there is no run.
"""

import json

import pytest

from lessons import multi_head_attention
from lessons.common.pretrained import load_pretrained
from lessons.multi_head_attention import (
    every_head,
    head_counts,
    resolving_it,
    resolving_it_runs,
    split,
    train_yourself,
    transformer_maps,
)
from tests.helpers import answer_exercise, open_page, predicted, unfold, vega_specs, wait_for_report, wait_for_run
from tests.helpers import plotly_specs as specs

PAGE = "pages/multi_head_attention.py"


@pytest.fixture(scope="module")
def at():
    """One page for the tests that only move controls (each test leaves the controls it moved as it found them)."""
    return unfold(predicted(open_page(PAGE)), "Reveal")  # the folded answers and tables open, as a student opens them


def heatmap_count(spec: dict) -> int:
    return sum(trace["type"] == "heatmap" for trace in spec["data"])


def grid(at) -> dict:
    """Section 2's grid: the figure whose y axes name encoder or decoder layers."""
    found = [s for s in specs(at) if "layer" in json.dumps(s["layout"].get("yaxis", {}).get("title", {}))]
    assert found, "no grid of trained heads"
    return found[0]


def metric(at, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_page_opens_with_the_lecture_split_and_the_trained_heads(at):
    assert not at.exception
    assert at.title[0].value == "Multi-head attention"
    assert multi_head_attention.EQUATIONS in at.latex[0].value  # MultiHead, headᵢ and d_k, one line each
    assert all(part in at.latex[0].value for part in (r"\mathrm{MultiHead}", r"\mathrm{head}_i =", "d_k ="))
    shapes = at.dataframe[0].value
    assert list(shapes["shape"])[0] == "2 × 512"  # Thinking Machines, d_model 512
    assert "d_k = d_model / h = 512 / 8 = 64" in " ".join(m.value for m in at.markdown)
    assert metric(at, "parameters") == f"{4 * (512 * 512 + 512):,}"
    for name in ("vs MultiHeadAttention", "vs nn.MultiheadAttention"):
        assert float(metric(at, name)) < 1e-5
    assert heatmap_count(grid(at)) == 6 * 4  # six sublayers, four heads each
    assert "Jane visite l'Afrique en septembre" in " ".join(m.value for m in at.markdown)
    enlarged = [s for s in specs(at) if s["layout"].get("title", {}).get("text", "").startswith("decoder layer 2")]
    assert enlarged and heatmap_count(enlarged[0]) == 1
    counts = next(
        d.value for d in at.dataframe if "heads h" in d.value.columns and "d_k = d_model / h" in d.value.columns
    )
    assert list(counts["heads h"]) == [1, 2, 4, 8, 16]
    assert set(counts["learned numbers in W^Q, W^K, W^V, W^O"]) == {4 * (512 * 512 + 512)}
    assert split.parameter_table(512)[1] in [m.value for m in at.markdown]
    assert "does not move" not in " ".join(m.value for m in at.markdown)
    head_table = next(d.value for d in at.dataframe if "entropy (bits)" in d.value.columns)
    assert list(head_table["head"]) == [1, 2, 3, 4]
    model = load_pretrained("toy-translation", transformer_maps.MODEL)[0]  # its shape read from its config
    assert any(c.value.startswith(f"Shipped model: {every_head.model_shape(model)};") for c in at.caption)


def test_d_model_and_heads_change_the_shapes_and_an_impossible_split_is_reset(at):
    at.select_slider(key="multi_head_attention.d_model").set_value(64).run()
    at.select_slider(key="multi_head_attention.heads").set_value(16).run()
    assert not at.exception
    assert list(at.dataframe[0].value["shape"])[2].startswith("16 × 2 × 2")
    assert metric(at, "parameters") == f"{4 * (64 * 64 + 64):,}"
    assert split.parameter_table(64)[1] in [m.value for m in at.markdown]  # the student's d_model
    at.select_slider(key="multi_head_attention.d_model").set_value(8).run()
    assert not at.exception
    assert at.info and "cannot be cut into 16 whole heads" in at.info[0].value
    assert at.select_slider(key="multi_head_attention.heads").value == 8
    assert "d_k = d_model / h = 8 / 8 = 1" in " ".join(m.value for m in at.markdown)
    before = specs(at)[1]["data"][0]["z"]
    at.number_input(key="multi_head_attention.seed").set_value(5).run()
    assert specs(at)[1]["data"][0]["z"] != before
    at.number_input(key="multi_head_attention.seed").set_value(0).run()
    at.select_slider(key="multi_head_attention.d_model").set_value(512).run()
    at.select_slider(key="multi_head_attention.heads").set_value(8).run()
    assert not at.exception


def test_the_students_words_bad_words_and_html(at):
    box = at.text_input(key="multi_head_attention.sentence")
    box.set_value("I like pizza").run()
    assert at.session_state["multi_head_attention.tokens"] == ("I", "like", "pizza")
    assert list(at.dataframe[0].value["shape"])[0] == "3 × 512"
    for bad in ["", "word " * 40]:
        at.text_input(key="multi_head_attention.sentence").set_value(bad).run()
        assert not at.exception
        assert at.warning and "Showing the last sentence that worked" in at.warning[0].value
        assert at.session_state["multi_head_attention.tokens"] == ("I", "like", "pizza")
    at.text_input(key="multi_head_attention.sentence").set_value("<b>bold</b> 🙂 שלום").run()
    assert not at.exception
    assert at.session_state["multi_head_attention.tokens"] == ("<b>bold</b>", "🙂", "שלום")
    assert "&lt;b&gt;bold&lt;/b&gt;" in json.dumps(specs(at)[0])
    at.text_input(key="multi_head_attention.sentence").set_value(split.DEFAULT_SENTENCE).run()


def test_the_trained_model_reads_typed_text_and_refuses_empty_text(at):
    box = at.text_input(key="multi_head_attention.text.toy-translation")
    box.set_value("Tom likes the red <b>cars</b>").run()
    assert not at.exception
    assert at.info and "unknown" in at.info[0].value  # "<b>" pieces are unknown to the tokenizer
    at.text_input(key="multi_head_attention.text.toy-translation").set_value("   ").run()
    assert not at.exception
    assert any("Nothing to show" in w.value for w in at.warning)
    assert at.header[-1].value == "Check yourself"  # the rest of the page is still there
    at.text_input(key="multi_head_attention.text.toy-translation").set_value(
        every_head.default_text("toy-translation")
    ).run()


def test_show_only_one_kind_and_enlarge_any_head(at):
    at.radio(key="multi_head_attention.kind").set_value("cross").run()
    assert heatmap_count(grid(at)) == 2 * 4
    at.selectbox(key="multi_head_attention.enlarge.sublayer").set_value("encoder.0.self").run()
    at.radio(key="multi_head_attention.enlarge.head").set_value("mean").run()
    assert not at.exception
    titles = [s["layout"].get("title", {}).get("text", "") for s in specs(at)]
    assert "encoder layer 1 · self-attention · mean of the heads" in titles
    at.radio(key="multi_head_attention.enlarge.head").set_value(2).run()
    assert "encoder layer 1 · self-attention · head 3" in [
        s["layout"].get("title", {}).get("text", "") for s in specs(at)
    ]
    at.radio(key="multi_head_attention.kind").set_value("all").run()


def test_the_dates_model(at):
    at.selectbox(key="multi_head_attention.task").set_value("dates").run()
    assert not at.exception
    assert "2026-11-22" in " ".join(m.value for m in at.markdown)
    assert heatmap_count(grid(at)) == 6 * 4
    at.selectbox(key="multi_head_attention.task").set_value("toy-translation").run()


def test_shipped_comparison(at):
    results = head_counts.load_results()
    reveal = next(e for e in at.expander if e.label.startswith("Reveal the measured results"))
    table = next(d.value for d in reveal.dataframe if "test exact" in d.value.columns)  # hidden until opened
    assert table.to_dict("records") == head_counts.results_rows(results)
    assert head_counts.comparison_text(results) in [m.value for m in at.markdown]
    observations = head_counts.observations(results)
    assert "\n".join(f"- {line}" for line in observations) in [m.value for m in at.markdown]
    charts = vega_specs(at)
    assert [c["title"] for c in charts][:2] == ["Loss", "Exact match"]  # then section 4's: Loss, Held-out accuracy
    assert [c["title"] for c in charts][2:] == ["Loss", "Held-out accuracy"]
    assert any(c.value.startswith("Measured by `python scripts/multi_head_attention_results.py") for c in at.caption)
    at.radio(key="multi_head_attention.shipped.heads").set_value("h = 8").run()
    assert not at.exception
    probe = [s for s in specs(at) if s["layout"].get("title", {}).get("text", "").startswith("h = 8")]
    assert probe and heatmap_count(probe[0]) == 2 * 8  # two cross-attention layers, eight heads
    ex4 = next(e for e in multi_head_attention.every_exercise(results) if e.key == "multi_head_attention.ex4")
    at.radio(key="multi_head_attention.ex4.answer").set_value(ex4.choices[ex4.answer])
    at.button(key="FormSubmitter:multi_head_attention.ex4.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)


def test_exercises_are_checked(at):
    at.number_input(key="multi_head_attention.ex1.answer").set_value(1024 // 32)  # d_k of 32 heads, not the paper's
    at.button(key="FormSubmitter:multi_head_attention.ex1.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)
    at.number_input(key="multi_head_attention.ex2.answer").set_value(4 * 512 * 512)
    at.button(key="FormSubmitter:multi_head_attention.ex2.form-Check").click().run()
    assert any("Not quite" in w.value and "Worked answer" in w.value for w in at.warning)
    at.radio(key="multi_head_attention.ex3.answer").set_value("stay the same")
    at.button(key="FormSubmitter:multi_head_attention.ex3.form-Check").click().run()
    assert any(s.value.startswith("Right") for s in at.success)


def test_train_one_head_stop_it_and_read_a_sentence_with_it(monkeypatch):
    monkeypatch.setattr(train_yourself, "REPORT_EVERY", 5)  # the first report (and the Stop it waits for) comes sooner
    at = open_page(PAGE)
    at.radio(key="multi_head_attention.live.heads").set_value(1).run()
    at.button(key="multi_head_attention.train.train").click().run()
    assert not at.exception
    wait_for_report(at)
    at.button(key="multi_head_attention.train.stop").click().run()
    assert wait_for_run(at).startswith("stopped")
    live = [s for s in specs(at) if "fixed example" in s["layout"].get("title", {}).get("text", "")]
    assert live and heatmap_count(live[-1]) == 2  # one head in each of the two cross-attention layers
    at.run()
    mine = next(o for o in at.radio(key="multi_head_attention.use").options if o.startswith("yours"))
    at.radio(key="multi_head_attention.use").set_value(mine).run()
    assert not at.exception
    assert heatmap_count(grid(at)) == 6 * 1
    assert not any("500 test sentences" in m.value for m in at.markdown)  # no gold check of a student's model


def test_missing_results_get_a_message_and_the_rest_works(monkeypatch, tmp_path):
    import ui.results

    monkeypatch.setattr(ui.results, "ROOT", tmp_path)  # the catalog's assets/results/… is looked for under tmp_path
    page = open_page(PAGE)
    assert not page.exception
    assert any("multi_head_attention_results.py" in w.value for w in page.warning)
    assert "multi_head_attention.ex4.answer" not in [r.key for r in page.radio]
    assert page.button(key="multi_head_attention.train.train") is not None


def it_box(at):
    return next(t for t in at.text_input if t.key == "multi_head_attention.it")


def it_heads(at) -> dict:
    found = [s for s in specs(at) if "from “it”" in json.dumps(s, ensure_ascii=False)]
    assert found, "no figure of the heads' weights from it"
    return found[0]


def test_section_4_shows_every_head_from_it_and_the_measured_depths(at):
    assert not at.exception
    fig = it_heads(at)
    assert len(fig["data"][0]["y"]) == 8  # 2 layers × 4 heads
    assert "By the grammar, “it” is the **animal** (il)" in " ".join(m.value for m in at.markdown)
    text = " ".join(m.value for m in at.markdown)
    for line in resolving_it_runs.it_observations(resolving_it_runs.load_it_results()):
        assert line in text
    rows = next(d.value for d in at.dataframe if "layer · head" in d.value.columns)
    assert len(rows) == 8
    instead_rows, instead_lines = resolving_it.shipped_instead()  # the lecture's picture beside the model's
    for line in instead_lines:
        assert line in text
    assert any(d.value.to_dict("records") == instead_rows for d in at.dataframe)


@pytest.mark.parametrize(
    "bad", ["", "the zebra crossed it", "🐙 it", "<script>alert(1)</script> it", "it " * 500],
    ids=["empty", "unknown", "emoji", "html", "huge"],
)  # fmt: skip
def test_bad_it_sentences_get_a_message_and_change_nothing(at, bad):
    before = it_heads(at)
    it_box(at).set_value(bad).run()
    assert not at.exception
    assert any("Showing the last sentence that worked" in w.value for w in at.warning)
    assert it_heads(at) == before
    it_box(at).set_value(resolving_it.IT_DEFAULT).run()


def test_switching_the_ending_moves_the_referent_and_answers_the_prediction(at):
    it_box(at).set_value(resolving_it.IT_DEFAULT.replace("tired", "wide")).run()
    assert "“it” is the **street** (elle)" in " ".join(m.value for m in at.markdown)
    ex = resolving_it.shipped_switch_prediction()
    answer_exercise(at, ex.key, ex.choices[ex.answer])
    assert any(s.value.startswith("Right") for s in at.success)
    it_box(at).set_value(resolving_it.IT_DEFAULT).run()


def test_a_missing_it_model_gets_the_pretrained_error_and_the_rest_of_the_page_works(monkeypatch):
    def broken():
        raise OSError("no such checkpoint")

    monkeypatch.setattr(resolving_it, "shipped_resolver", broken)
    at = open_page(PAGE)
    assert not at.exception
    assert any("coreference-it-resolver cannot be loaded: no such checkpoint" in e.value for e in at.error)
    assert at.title[0].value == "Multi-head attention" and any(h.value.startswith("Check yourself") for h in at.header)
