"""The "Your own data" page's pure part (lessons.own_data): what it says about a teacher's pairs, its charts and its
runs, checked on pairs whose counts are known."""

import pytest
import tomllib

from lessons import own_data
from minimodels.own_data import LIMITS, PairsTask, read_example, read_pairs
from minimodels.train import Progress
from tests.helpers import ROOT, plotly_array, recipe_of

PAIRS = "\n".join(
    [
        "the cat\tle chat",
        "the dog\tle chien",
        "the cat\tle chat",  # a repeat of line 1
        "a red cat\tun chat rouge",
        "only one column",  # skipped: one column
        "same\tsame",  # skipped: identical
        "",
        *(f"sentence {i}\tphrase {i}" for i in range(12)),
    ]
)


def test_the_page_states_the_limits_the_reader_enforces_and_the_server_allows():
    text = own_data.format_text()
    assert LIMITS.describe() in text and f"{LIMITS.max_pairs:,}" in text
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    mb = config["server"]["maxUploadSize"]
    assert mb == own_data.upload_limit_mb()  # the widget's cap is the server's
    assert LIMITS.max_bytes <= mb * 1024 * 1024 < LIMITS.max_bytes + 1024 * 1024  # MiB: just above the reader's


def test_counts_sides_and_sample_follow_the_pairs():
    pairs = read_pairs(PAIRS, name="mine.tsv")
    metrics = {label: value for label, value, _ in own_data.count_metrics(pairs)}
    assert metrics == {"pairs": "16", "lines skipped": "2", "repeated pairs": "1", "sources with 2+ translations": "0"}
    rows = own_data.side_rows(pairs)
    assert [r["side"] for r in rows] == ["source", "target"] and rows[0]["scripts"] == "Latin"
    assert own_data.sample_rows(pairs, 3) == [
        {"line": 1, "source": "the cat", "target": "le chat"},
        {"line": 2, "source": "the dog", "target": "le chien"},
        {"line": 3, "source": "the cat", "target": "le chat"},
    ]
    assert [r["line"] for r in own_data.skipped_rows(pairs)] == [5, 6]
    assert "2 lines skipped" in own_data.skipped_sentence(pairs)
    assert "line 3 (= line 1)" in own_data.duplicates_sentence(pairs) and "kept" in own_data.duplicates_sentence(pairs)
    dropped = read_pairs(PAIRS, name="mine.tsv", duplicates="drop")
    assert len(dropped) == 15 and "dropped" in own_data.duplicates_sentence(dropped)


def test_clean_pairs_say_so():
    pairs = read_pairs("a\tb\nc\td\n")
    assert own_data.skipped_sentence(pairs).startswith("Every non-blank line was read")
    assert own_data.duplicates_sentence(pairs) == "No pair occurs twice."


def test_the_length_chart_counts_every_sentence_of_both_sides():
    pairs = read_pairs(PAIRS)
    values = own_data.length_chart(pairs)["data"]["values"]
    for side in ("source", "target"):
        assert sum(v["pairs"] for v in values if v["side"] == side) == len(pairs)
    assert {v["characters"] for v in values if v["side"] == "source"} == {len(s) for s in pairs.sources}


def test_names_are_quoted_as_code_never_markup():
    assert own_data.quoted("<b>x</b>.tsv") == "`<b>x</b>.tsv`"
    assert own_data.quoted("a`b") == "`a'b`"
    assert len(own_data.quoted("x" * 500)) <= 62


def test_pieces_of_a_few_lines_are_the_tokenizers_own():
    task = PairsTask.from_pairs(read_example("en-ar"))
    rows = own_data.pieces_rows(task, n=2)
    assert [r["side"] for r in rows] == ["source", "target", "source", "target"]
    first = task.train[0]
    assert rows[1]["sentence"] == first.target
    assert rows[1]["pieces"].split(" · ") == task.target_tokenizer.pieces(first.target)
    assert f"{task.source_tokenizer.vocab_size:,} source pieces" in own_data.tokenizer_sentence(task, 0.5)


def test_model_sentence_reads_a_files_facts():
    line = own_data.model_sentence(
        {"architecture": "transformer", "data_name": "a*b*.tsv", "pairs": 1200, "steps": 300, "exact_match": 0.915}
    )
    assert line == "tiny Transformer, trained on `a*b*.tsv`; 1,200 pairs; 300 steps; held-out exact match 92%."


def test_an_unknown_architecture_is_refused():
    task = PairsTask.from_pairs(read_pairs(PAIRS))
    with pytest.raises(ValueError, match="unknown architecture"):
        own_data.new_run(task, "lstm-dot", own_data.live_config("gru-additive", 0, 5))


@pytest.mark.slow
@pytest.mark.parametrize("architecture", list(own_data.ARCHITECTURES))
def test_a_short_run_reports_and_its_model_reads_a_sentence(architecture):
    task = PairsTask.from_pairs(read_example("en-zel"))
    config = own_data.live_config(architecture, 0, 4)
    run = own_data.new_run(task, architecture, config).start()
    assert run.wait(60) and run.status == "finished", run.error
    snapshot = run.latest
    assert isinstance(snapshot, Progress) and snapshot.step > 0
    figure = own_data.snapshot_figure(snapshot)
    assert plotly_array(figure.to_plotly_json()["data"][0]["z"]).shape == snapshot.attention.shape
    assert own_data.curve(run.snapshots)[-1]["step"] == snapshot.step
    reading = own_data.read_sentence(run.model.eval(), task, task.valid[0].source)
    assert isinstance(reading, own_data.Reading)
    z = plotly_array(reading.figure.to_plotly_json()["data"][0]["z"])
    assert z.shape[1] == len(task.source_tokenizer.pieces(task.valid[0].source)) + 1  # + </s>
    assert own_data.read_sentence(run.model, task, "   ") == "Type a sentence first."
    # continuing starts from the model's weights, not from a fresh draw
    again = own_data.new_run(task, architecture, config, start=run.model)
    first = next(iter(run.model.state_dict().values()))
    copied = recipe_of(again)[0]  # what the worker will train on from
    assert (next(iter(copied.state_dict().values())) == first).all() and copied is not run.model


def test_a_continued_runs_curve_counts_on_from_the_model_it_continued():
    def report(step, seconds):
        return Progress(step, seconds, 1.0 / step, step / 100, None, None, {}, [], [], "")

    first = own_data.curve([report(10, 1.0), report(20, 2.0)])
    assert [p["step"] for p in first] == [10, 20]
    both = own_data.curve([report(10, 1.5)], after=first)
    assert [(p["step"], p["seconds"]) for p in both] == [(10, 1.0), (20, 2.0), (30, 3.5)]
    assert both[-1]["exact_match"] == 0.1
