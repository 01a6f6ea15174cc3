"""The architecture lab under AppTest: presets, the drawing and count, malformed chains (a message, nothing built),
a short live training run recorded in the comparison table, the shipped results and the paper's table; and in a
real browser, a short training run.

AppTest sessions share Streamlit's session-scoped caches, so a run started here outlives the test: every test
that starts one leaves it over.
"""

import base64
import html
import re

import pytest

from lessons.architecture_lab import (
    attention_maps,
    compare,
    compare_runs,
    learning_curves,
    paper_numbers,
    presets,
    writing_chains,
)
from lessons.common import catalog
from minimodels.tasks import get_task
from tests.helpers import (
    answer_exercise,
    open_page,
    plotly_specs,
    svg_parts,
    vega_rows,
    wait_for_report,
    wait_for_run,
)

PAGE = "pages/architecture_lab.py"
lesson = catalog.lesson("architecture_lab")
CODE = ["The parser: a tokenizer with columns and recursive descent, no eval", "The layers and the model"]


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def drawing(at) -> list[str] | None:
    """The texts of the page's architecture drawing (an SVG image), or None when it draws none."""
    images = at.get("image")
    if not images:
        return None
    url = images[0].proto.imgs[0].url
    assert url.startswith("data:image/svg+xml;base64,")
    texts, _ = svg_parts(base64.b64decode(url.split(",", 1)[1]).decode())
    return texts


def frame_with(at, column: str):
    found = [df.value for df in at.dataframe if column in df.value.columns]
    return found[0] if found else None


def test_page_opens_with_the_transformer_its_drawing_count_and_untrained_maps(at):
    assert not at.exception
    assert at.title[0].value == "Architecture lab"
    assert at.text_area(key="architecture_lab.encoder").value == presets.PRESETS[0].encoder
    task = get_task("reverse")
    checked = writing_chains.check(presets.PRESETS[0].encoder, presets.PRESETS[0].decoder, task)
    assert metrics(at)["Parameters"] == f"{checked.parameters:,}"
    assert metrics(at)["Attention layers"] == "6"
    assert {"mh_dot_self_att", "mh_dot_src_att", "× 2"} <= set(drawing(at))
    untrained = [s for s in plotly_specs(at) if "UNTRAINED" in s["layout"]["title"]["text"]]
    assert len(untrained) == 1 and [d["type"] for d in untrained[0]["data"]] == ["heatmap"] * 6
    assert paper_numbers.not_reproduced() in [m.value for m in at.markdown]
    assert at.button(key="architecture_lab.train.train").disabled is False


def test_the_posters_table_opens_once_its_prediction_is_answered(at):
    assert not [f for f in at.dataframe if "IWSLT EN→DE" in f.value.columns]  # not before the prediction
    ex = paper_numbers.best_encoder_exercise()
    answer_exercise(at, ex.key, ex.choices[(ex.answer + 1) % len(ex.choices)])  # wrong answers open it too
    paper = frame_with(at, "IWSLT EN→DE")
    assert len(paper) == len(paper_numbers.PAPER_COMBINATIONS)


def test_a_preset_replaces_both_chains_and_the_counts_follow(at):
    preset = presets.PRESET_BY_KEY["cnn-cnn"]
    at.selectbox(key="architecture_lab.preset").set_value("cnn-cnn").run()
    assert not at.exception
    assert at.text_area(key="architecture_lab.encoder").value == preset.encoder
    assert at.text_area(key="architecture_lab.decoder").value == preset.decoder
    assert metrics(at)["Attention layers"] == "2"  # the decoder's two source attentions
    at.selectbox(key="architecture_lab.cell").set_value("lstm").run()
    at.selectbox(key="architecture_lab.preset").set_value("rnn-rnn").run()
    assert not at.exception
    rnn = presets.PRESET_BY_KEY["rnn-rnn"]
    lstm = writing_chains.check(rnn.encoder, rnn.decoder, get_task("reverse"), "lstm")
    assert metrics(at)["Parameters"] == f"{lstm.parameters:,}"


BAD_CHAINS = [  # the page's share of the corpus; tests/minimodels/test_chains.py checks every message of the full one
    ("encoder", "pos->repeat(2,ff", "expected ')' to close the repeat"),
    ("encoder", "mh_dot_self_attt", "did you mean 'mh_dot_self_att'?"),
    ("encoder", "dot_src_att", "only allowed in a decoder"),
    ("encoder", "repeat(1000000000,ff)", "repeat count out of range at column 8; expected 1–12"),
    ("encoder", "res(" * 1000 + "ff" + ")" * 1000, "characters long; expected at most 2,000"),  # the box keeps 4,000
    ("encoder", "", "the chain is empty at column 1; expected a layer name"),
    ("decoder", "ff->" * 25_600, "characters long; expected at most 2,000"),  # 100 KB
    ("encoder", "ff->😀->עברית", "unexpected character U+1F600"),
    ("encoder", "<img src=x onerror=alert(1)>", "unexpected character '<'"),
    ("decoder", "pos->rnn->ff", "never reads the source"),
    ("encoder", "repeat(12,mh_dot_self_att(3))", "do not divide d_model"),
    ("encoder", "repeat(9,res(" * 4 + "ff" + "))" * 4, "too many layers at column 1"),
]


def test_every_malformed_chain_gets_the_parsers_message_and_nothing_is_built(at):
    good = {"encoder": presets.PRESETS[0].encoder, "decoder": presets.PRESETS[0].decoder}
    for side, text, message in BAD_CHAINS:
        at.text_area(key=f"architecture_lab.{side}").set_value(text).run()
        assert not at.exception, text[:40]
        assert len(at.error) == 1 and message in at.error[0].value, (text[:40], [e.value for e in at.error])
        assert at.error[0].value.startswith("Nothing was built: `")  # shown as code, never rendered
        assert drawing(at) is None and not metrics(at)
        assert not [s for s in plotly_specs(at) if "UNTRAINED" in s["layout"]["title"]["text"]]
        assert not [b for b in at.button if b.key == "architecture_lab.train.train"]  # no training of a broken chain
        assert paper_numbers.not_reproduced() in [m.value for m in at.markdown]  # the rest of the page still works
        at.text_area(key=f"architecture_lab.{side}").set_value(good[side]).run()
        assert not at.error and metrics(at)["Attention layers"] == "6"


def test_the_whole_bad_chain_corpus_gets_the_parsers_own_message_on_the_page(at):
    from tests.minimodels.test_chains import BAD_CHAINS as CORPUS

    task = get_task("reverse")
    good = {"encoder": presets.PRESETS[0].encoder, "decoder": presets.PRESETS[0].decoder}
    for text, side, _ in CORPUS:
        other = "decoder" if side == "encoder" else "encoder"
        at.text_area(key=f"architecture_lab.{other}").set_value(good[other])
        at.text_area(key=f"architecture_lab.{side}").set_value(text).run()
        assert not at.exception, text[:40]
        chains = {side: text[:4000], other: good[other]}  # the box keeps 4,000 characters
        expected = writing_chains.check(chains["encoder"], chains["decoder"], task).error
        assert [e.value for e in at.error] == [f"Nothing was built: {ui_literal(expected)}"], text[:40]
        assert "column" in at.error[0].value and "expected" in at.error[0].value
        assert not [b for b in at.button if b.key == "architecture_lab.train.train"], text[:40]  # nothing trains


def test_the_posters_spellings_are_built_on_the_page(at):
    at.text_area(key="architecture_lab.encoder").set_value("pos!repeat(2, res nd(mh dot self att)!res nd(✏))!norm")
    at.text_area(key="architecture_lab.decoder").set_value("pos→res(norm->mh_dot_self_att)->res(mh_dot_att(heads=2))")
    at.run()
    assert not at.exception and not at.error
    assert metrics(at)["Encoder layers"] == "14" and metrics(at)["Attention layers"] == "4"
    assert "mh_dot_src_att(2)" in drawing(at)


def ui_literal(text: str) -> str:
    import ui

    return ui.literal(text)


def test_the_caret_points_at_the_place_of_the_error(at):
    at.text_area(key="architecture_lab.decoder").set_value("pos->nrom").run()
    assert "did you mean 'norm'" in at.error[0].value
    assert at.code[0].value == "pos->nrom\n     ^"


def test_a_fixed_chain_is_built_again(at):
    at.text_area(key="architecture_lab.encoder").set_value("nope").run()
    assert at.error
    at.text_area(key="architecture_lab.encoder").set_value("pos -> res(birnn) -> norm").run()
    assert not at.error and not at.exception
    assert metrics(at)["Encoder layers"] == "3"


def test_a_short_training_run_is_drawn_and_joins_the_comparison_table(at):
    at.text_area(key="architecture_lab.encoder").set_value("pos->res(mh_dot_self_att)").run()
    at.text_area(key="architecture_lab.decoder").set_value("pos->res(dot_self_att)->res(dot_src_att)").run()
    at.select_slider(key="architecture_lab.budget").set_value(10).run()
    at.button(key="architecture_lab.train.train").click().run()
    assert not at.exception
    wait_for_report(at)
    live = [s for s in plotly_specs(at) if re.match(r"step \d+ · exact match", s["layout"]["title"]["text"])]
    assert live and [d["type"] for d in live[0]["data"]] == ["heatmap"] * 3  # encoder self, decoder self, source
    if not at.button(key="architecture_lab.train.stop").disabled:  # a busy machine may end the 10 s run first
        at.button(key="architecture_lab.train.stop").click().run()
    wait_for_run(at)
    at.run()
    assert not at.exception
    at.radio(key="architecture_lab.heads").set_value(attention_maps.HEAD_CHOICES[1]).run()
    assert any(c.value.startswith("Each head of your model's attention layers") for c in at.caption)
    per_head = [s for s in plotly_specs(at) if len(s["data"]) == 4 + 1 + 1]  # 4 heads, then one head twice
    assert per_head and all(d["type"] == "heatmap" for d in per_head[0]["data"])
    at.radio(key="architecture_lab.heads").set_value(attention_maps.HEAD_CHOICES[0]).run()
    table = frame_with(at, "stopped")
    mine = table[table["chains"] == "your chains"]
    assert len(mine) == 1
    row = mine.iloc[0]
    # the steps a 10 s budget reaches depend on how busy the machine is: some were trained, none promised
    assert row["encoder"] == "pos->res(mh_dot_self_att)" and row["task"] == "reverse" and row["steps"] > 0
    at.button(key="architecture_lab.clear").click().run()
    assert not at.exception
    assert all("your chains" not in set(df.value["chains"]) for df in at.dataframe if "chains" in df.value.columns)


def test_the_posters_tables_its_findings_and_the_trained_maps_are_shown(at):
    results = compare_runs.load_results()
    shown = [df.value.to_dict("records") for df in at.dataframe if "poster: WMT'17 EN→DE BLEU" in df.value.columns]
    assert shown == [rows for _, rows in compare.poster_tables(results)]  # baselines, combinations, ablations
    text = " ".join(m.value for m in at.markdown)
    for title, _ in compare.poster_tables(results):
        assert f"**{title}**" in text
    assert compare.findings_markdown(results) in text  # the findings, as computed from the results
    assert compare.grid_text(results) in text
    trained = [s for s in plotly_specs(at) if s["layout"]["title"]["text"].startswith("TRAINED")]
    assert len(trained) == 1
    key, probe = next(iter(compare.probes(results).items()))
    assert len(trained[0]["data"]) == len(probe["maps"])
    title = trained[0]["layout"]["title"]["text"].replace("<br>", " ")  # wrapped to fit a phone
    assert title == html.escape(compare.probe_caption(results, key))
    assert any("architecture_lab_results.py" in c.value and "exactly" in c.value for c in at.caption)
    other = list(compare.probes(results))[-1]
    at.selectbox(key="architecture_lab.shipped_preset").set_value(other).run()
    trained = [s for s in plotly_specs(at) if s["layout"]["title"]["text"].startswith("TRAINED")]
    assert len(trained[0]["data"]) == len(compare.probes(results)[other]["maps"])


def test_the_trained_models_heads_are_shown_one_by_one_on_request(at):
    results = compare_runs.load_results()
    at.selectbox(key="architecture_lab.shipped_preset").set_value("transformer").run()
    at.radio(key="architecture_lab.shipped_heads").set_value(attention_maps.HEAD_CHOICES[1]).run()
    assert not at.exception
    views = compare.shipped_views(results, "transformer")
    heads = [s for s in plotly_specs(at) if len(s["data"]) == sum(v.heads for v in views)]
    assert len(heads) == 1 and all(d["type"] == "heatmap" for d in heads[0]["data"])
    assert any(c.value.startswith("Each head of its attention layers") for c in at.caption)
    assert not [s for s in plotly_specs(at) if (s["layout"].get("title") or {}).get("text", "").startswith("TRAINED")]
    at.radio(key="architecture_lab.shipped_heads").set_value(attention_maps.HEAD_CHOICES[0]).run()
    assert [s for s in plotly_specs(at) if s["layout"]["title"]["text"].startswith("TRAINED")]


def test_the_presets_learning_curves_follow_the_table_picked(at):
    results = compare_runs.load_results()
    for group, keys in compare.POSTER_GROUPS.items():
        at.radio(key="architecture_lab.curves_group").set_value(group).run()
        assert not at.exception
        labels = {results.label(k) for k in keys if k in results.variants}
        charts = [c for c in at.get("vega_lite_chart") if {row.get("label") for row in vega_rows(c)} == labels]
        assert len(charts) == 2  # exact match and loss, every preset of the table and no other
        assert learning_curves.curves_caption(results, group) in [c.value for c in at.caption]


def test_the_shorter_grid_replaces_the_tables_findings_and_rows_to_rerun(at):
    at.radio(key="architecture_lab.grid").set_value("100 steps").run()
    assert not at.exception
    results = compare_runs.load_results(compare_runs.GRIDS["100 steps"])
    shown = [df.value.to_dict("records") for df in at.dataframe if "poster: WMT'17 EN→DE BLEU" in df.value.columns]
    assert shown == [rows for _, rows in compare.poster_tables(results)]
    assert compare.findings_markdown(results) in " ".join(m.value for m in at.markdown)
    at.selectbox(key="architecture_lab.rerun").set_value("convs2s").run()
    at.button(key="architecture_lab.rerun_load").click().run()
    assert any(c.value.startswith("As the shipped row: 100 steps") for c in at.caption)


def test_a_shipped_row_is_loaded_into_the_live_panel_and_a_preset_unloads_it(at):
    results = compare_runs.load_results()
    key = results.variants[1]
    at.selectbox(key="architecture_lab.rerun").set_value(key).run()
    at.button(key="architecture_lab.rerun_load").click().run()
    assert not at.exception and not at.warning
    preset = presets.PRESET_BY_KEY[key]
    assert at.text_area(key="architecture_lab.encoder").value == preset.encoder
    assert at.text_area(key="architecture_lab.decoder").value == preset.decoder
    assert at.selectbox(key="architecture_lab.task").value == "toy-translation"
    assert at.number_input(key="architecture_lab.seed").value == results.runs_of(key)[0].seed
    steps = results.meta["max_steps"]
    assert any(c.value.startswith(f"As the shipped row: {steps} steps") for c in at.caption)
    at.selectbox(key="architecture_lab.preset").set_value("transformer").run()
    assert not any(c.value.startswith("As the shipped row") for c in at.caption)


def test_missing_results_get_a_message_and_the_rest_works(monkeypatch, tmp_path):
    monkeypatch.setattr(compare_runs, "GRIDS", {k: tmp_path / v.name for k, v in compare_runs.GRIDS.items()})
    at = open_page(PAGE)
    assert not at.exception
    assert at.warning and "architecture_lab_results.py" in at.warning[0].value
    assert paper_numbers.not_reproduced() in [m.value for m in at.markdown]  # the page's end still drawn


def test_exercises_are_checked_and_the_tail_links_on(at):
    answer_exercise(at, "architecture_lab.ex1", 4224)
    assert any(s.value.startswith("Right") for s in at.success)
    answer_exercise(at, "architecture_lab.ex2", "rnn")
    assert at.warning
    assert any(c.value == lesson.sources for c in at.caption)  # the catalog's sources
    assert [e.label for e in at.expander][-2:] == CODE  # the code that runs, read from the source


@pytest.mark.browser
def test_in_a_browser_a_bad_chain_is_refused_and_a_short_run_draws_live_maps(page, streamlit_server):
    from playwright.sync_api import expect

    from tests.helpers import SCRIPT_DONE, assert_no_exception, goto

    goto(page, f"{streamlit_server}/architecture_lab")
    page.wait_for_selector(".js-plotly-plot g.hm image", state="attached", timeout=120_000)
    encoder = page.get_by_label("Encoder chain")
    encoder.fill("pos->repeat(2,ff")
    encoder.press("Control+Enter")
    page.get_by_text("expected ')'").first.wait_for(timeout=60_000)
    assert_no_exception(page)
    encoder.fill("pos->res(mh_dot_self_att)")
    encoder.press("Control+Enter")
    page.locator("[data-testid=stMetric]").first.wait_for(timeout=60_000)  # built again: its size is shown
    page.wait_for_selector(SCRIPT_DONE, timeout=120_000)
    page.get_by_role("button", name="Train").click()
    live = page.locator(".js-plotly-plot .gtitle").filter(has_text=re.compile(r"step \d+ · exact match"))
    live.first.wait_for(timeout=180_000)
    first = re.search(r"step \d+ ", live.first.text_content()).group(0)
    live.filter(has_not_text=first).first.wait_for(timeout=180_000)  # a second report: a run worth replaying
    assert_no_exception(page)
    page.locator("[data-testid=stMain]").get_by_role("button", name="Stop").click()
    replay = page.locator("[data-testid=stSlider]", has_text="Replay the run")
    replay.first.wait_for(timeout=120_000)  # while Streamlit swaps the panel, the old slider may still be shown
    page.wait_for_selector(SCRIPT_DONE, timeout=120_000)
    expect(replay).to_have_count(1, timeout=10_000)  # once settled: one replay, the stopped run's
    # the stopped run joins the comparison table further down the page, outside the training section
    page.get_by_role("button", name="Clear your table").wait_for(timeout=60_000)
    assert_no_exception(page)
