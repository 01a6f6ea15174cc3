"""The "Your own data" page under AppTest: what it reads, every bad input (a clear message, nothing changed), a
short live run, the model file out and back in, and "your model" in the Bahdanau, Transformer and multi-head views."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from streamlit.testing.v1 import AppTest

from lessons import own_data
from lessons.bahdanau_attention import decoding
from lessons.common.charts import safe_label
from lessons.multi_head_attention import every_head
from lessons.transformer import reading as transformer_reading
from minimodels.own_data import LIMITS, PairsTask, build_own_model, own_data_train_config, read_example, save_model
from minimodels.train import train
from tests.helpers import open_page, plotly_specs, table_as_read, wait_for_run

PAGE = "pages/own_data.py"
READ = "2 · What the page read from"


@pytest.fixture(scope="module")
def model_files() -> dict[str, bytes]:
    """A tiny model of each architecture trained on Arabic -> English pairs (the shipped set, turned round): a few
    seconds each, enough to have attention to draw on sentences of its own language (right to left)."""
    reversed_pairs = [(t, s) for s, t in read_example("en-ar").pairs]
    task = PairsTask.from_pairs(reversed_pairs, name="ar-en.tsv")
    task.source_name = "ar-en.tsv"
    files = {}
    for architecture in own_data.ARCHITECTURES:
        model = build_own_model(architecture, task, seed=0)
        config = own_data_train_config(architecture, max_steps=30, max_seconds=20, report_every=10, eval_size=20)
        result = train(model, task, config)
        files[architecture] = save_model(model.eval(), task, curve=result.history, config=config)
    return files


@pytest.fixture
def short_runs(monkeypatch):
    """The page's live runs stop after 30 steps (three reports) instead of running out the page's smallest budget,
    15 s: what these tests check is what a finished run leaves behind, not how long it trained."""
    real = own_data.live_config

    def live_config(architecture: str, seed: int, budget_seconds: float):
        return dataclasses.replace(real(architecture, seed, budget_seconds), max_steps=30)

    monkeypatch.setattr(own_data, "live_config", live_config)


def headers(at: AppTest) -> list[str]:
    return [h.value for h in at.header]


def read_from(at: AppTest) -> str:
    return next(h for h in headers(at) if h.startswith(READ))


def upload(at: AppTest, name: str, data: bytes, key: str = "own_data.upload") -> AppTest:
    at.file_uploader(key=key).set_value((name, data, "text/plain")).run()
    assert not at.exception, at.exception
    return at


def with_a_file(at: AppTest) -> AppTest:
    at.radio(key="own_data.from").set_value("a file").run()
    return at


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def test_opens_on_an_example_set_and_shows_what_it_read_before_training(at):
    assert not at.exception
    assert [t.value for t in at.title] == ["Your own data"]
    assert read_from(at) == f"{READ} `en-fr.tsv`"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["pairs"] == "400" and metrics["lines skipped"] == "0"
    assert any(LIMITS.describe() in m.value for m in at.markdown)  # the limits are stated
    tables = [t.value for t in at.table]  # the sample, then the pieces
    assert list(tables[0].columns) == ["line", "source", "target"] and len(tables[0]) == 8
    assert "▁" in tables[1]["pieces"].iloc[0]  # sentencepiece's pieces of the first lines
    assert at.get("progress") == []  # nothing trains until Train is pressed


def test_an_arabic_set_reads_right_to_left(at):
    at.selectbox(key="own_data.example").set_value(own_data.EXAMPLE_SETS["en-ar"]["title"]).run()
    assert read_from(at) == f"{READ} `en-ar.tsv`"
    assert own_data.quoted("en-ar.tsv") in read_from(at)
    sides = at.dataframe[0].value
    assert "Arabic (right to left)" in sides["scripts"].iloc[1]
    assert any("unicode-bidi: plaintext" in h.proto.body for h in at.get("html"))  # dir="auto" for the text


BAD_INPUTS = {
    "empty.tsv": (b"", "empty"),
    "one-column.tsv": (b"just one column\nand another\n", "two columns"),
    "latin1.csv": ("caf\u00e9,coffee\nth\u00e9,tea\n".encode("latin-1"), "not UTF-8"),
    "binary.tsv": (bytes(range(256)) * 40, "binary"),
    "utf16.tsv": ("a\tb\n".encode("utf-16"), "UTF-16"),
    "million.tsv": (b"a\tb\n" * 1_000_000, "1,000,000 lines"),
    "long.tsv": (("x" * 10_000 + "\ty\n").encode() * 3, "too long"),
    "identical.tsv": (b"same\tsame\nhello\thello\n", "identical"),
    "control.tsv": (b"a\x07b\tc\nd\x1be\tf\n", "control character"),
    "ragged.tsv": (b"a\tb\tc\nd\te\tf\tg\n", "wrong number of columns"),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_a_bad_file_is_said_plainly_and_changes_nothing(at, name):
    data, says = BAD_INPUTS[name]
    upload(with_a_file(at), name, data)
    assert len(errors(at)) == 1 and says in errors(at)[0], errors(at)
    assert "Still using `en-fr.tsv` (400 pairs)" in errors(at)[0]
    assert read_from(at) == f"{READ} `en-fr.tsv`"  # the earlier good data stays


def test_a_50_mb_file_is_refused_by_its_size_before_it_is_read(at, monkeypatch):
    from ui import own_data as ui_own_data

    def must_not_read(*args, **kwargs):
        raise AssertionError("a file over the limit was read")

    monkeypatch.setattr(ui_own_data, "_read", must_not_read)  # AppTest keeps module state: the page uses this one
    upload(with_a_file(at), "big.tsv", b"a\tb\n" * (50_000_000 // 4))
    assert "50.0 MB; the limit here is 5 MB" in errors(at)[0]
    assert read_from(at) == f"{READ} `en-fr.tsv`"


def test_skipped_lines_and_repeats_are_listed_and_repeats_kept_or_dropped(at):
    text = "a\tb\nc\td\na\tb\nonly one\n" + "".join(f"s{i}\tt{i}\n" for i in range(20))
    upload(with_a_file(at), "mine.tsv", text.encode())
    assert read_from(at) == f"{READ} `mine.tsv`"
    assert {m.label: m.value for m in at.metric}["repeated pairs"] == "1"
    assert any(m.value.startswith("1 repeated pair: line 3 (= line 1). Repeats kept") for m in at.markdown)
    assert any(m.value.startswith("1 lines skipped: wrong number of columns (1)") for m in at.markdown)
    at.radio(key="own_data.duplicates").set_value("drop").run()
    assert {m.label: m.value for m in at.metric}["pairs"] == "22"
    assert any("Repeats dropped" in m.value for m in at.markdown)


def test_html_and_script_in_pairs_stay_text(at):
    at.radio(key="own_data.from").set_value("pasted text").run()
    hostile = "<script>alert(1)</script>\tbonjour\n<b>bold</b>\tgras\n" + "".join(f"w{i}\tm{i}\n" for i in range(20))
    at.text_area(key="own_data.paste").set_value(hostile).run()
    assert not at.exception
    sample = table_as_read(at.table[0])
    assert sample["source"].iloc[0] == "<script>alert(1)</script>"  # shown literally, in a table cell
    for element in (*at.markdown, *at.caption, *at.header):
        assert "<script>" not in element.value or "`" in element.value
    assert not [h for h in at.get("html") if "alert(1)" in h.proto.body]  # no user text went out as HTML


def test_train_download_and_load_back(at, short_runs):
    at.select_slider(key="own_data.budget").set_value(15).run()
    at.button(key="own_data.train.gru-additive.train").click().run()
    assert wait_for_run(at, timeout=120).startswith(("done", "stopped"))
    assert any(c.value.startswith("Your model, trained on this page: GRU + additive") for c in at.caption)
    assert any(t.value.startswith("Its translation: ") for t in at.text)
    button = next(b for b in at.get("download_button") if b.proto.label.startswith("Download your GRU"))
    assert button.proto.label.endswith("MB)")
    data = at.session_state["own_data.models"]["gru-additive"].file
    fresh = open_page(PAGE)  # another session (another machine): load the file there
    upload(fresh, "kept.safetensors", data, key="own_data.model_upload")
    assert [s.value for s in fresh.success][0].startswith("Your model, loaded from `kept.safetensors`: GRU + additive")
    assert any(c.value.startswith("Your model, loaded from `kept.safetensors`") for c in fresh.caption)


REFUSED = {
    "random.safetensors": (bytes(range(256)) * 16, "not a model file"),
    "pickle.safetensors": (b"\x80\x04\x95" + b"cos\nsystem\n(S'echo hi'\ntR." * 3, "not a model file"),
    "cut.safetensors": (None, "incomplete"),
    "newer.safetensors": (None, "newer version"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_refused_model_file_is_said_plainly_and_changes_nothing(name, model_files):
    data, says = REFUSED[name]
    good = model_files["transformer"]
    if name == "cut.safetensors":
        data = good[: len(good) // 2]
    elif name == "newer.safetensors":
        data = good.replace(b'\\"version\\": 1', b'\\"version\\": 9', 1)  # same length: the header stays whole
        assert data != good
    at = upload(open_page(PAGE), "good.safetensors", good, key="own_data.model_upload")
    upload(at, name, data, key="own_data.model_upload")
    assert len(errors(at)) == 1 and says in errors(at)[0].lower() and "Nothing was changed" in errors(at)[0]
    assert at.session_state["own_data.models"]["transformer"].origin == "loaded from good.safetensors"


def test_a_model_of_another_architecture_is_refused(model_files):
    from minimodels.own_data import PairsTask as Task

    task = Task.from_pairs([(f"a{i}", f"b{i}") for i in range(20)])
    other = save_model(build_own_model("lstm-dot", task), task)
    at = upload(open_page(PAGE), "lstm.safetensors", other, key="own_data.model_upload")
    assert "lstm-dot" in errors(at)[0] and "Nothing was changed" in errors(at)[0]
    assert not at.session_state["own_data.models"] if "own_data.models" in at.session_state else True


def with_model(architecture: str, model_files) -> AppTest:
    at = upload(open_page(PAGE), "ar-en.safetensors", model_files[architecture], key="own_data.model_upload")
    assert not errors(at), errors(at)
    return at


def choose_yours(at: AppTest, page: str, key: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, at.exception
    radio = at.radio(key=key)
    yours = [o for o in radio.options if o.startswith("yours, on `ar-en.tsv`")]
    assert yours, radio.options  # offered beside the shipped model
    radio.set_value(yours[0]).run()
    assert not at.exception, at.exception
    assert any(c.value.startswith("Your model, loaded from `ar-en.safetensors`") for c in at.caption)
    return at


def arabic_sentence(at: AppTest) -> str:
    task = next(iter(at.session_state["own_data.models"].values())).task
    return task.probe.source


@pytest.mark.parametrize("task", list(decoding.TASKS))
def test_your_model_in_the_bahdanau_view(model_files, task):
    at = with_model("gru-additive", model_files)
    at.switch_page("pages/bahdanau_attention.py").run()
    at.selectbox(key="bahdanau_attention.task").set_value(task).run()
    at = choose_yours(at, "pages/bahdanau_attention.py", f"bahdanau_attention.use.{task}")
    sentence = arabic_sentence(at)
    assert (
        at.text_input(
            key="bahdanau_attention.text.own_data_"
            + at.session_state["own_data.models"]["gru-additive"].task.fingerprint[:8]
        ).value
        == sentence
    )
    heatmap = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"] == "α: which source each output read")
    task = at.session_state["own_data.models"]["gru-additive"].task
    expected = [safe_label(p) for p in (*task.source_tokenizer.pieces(sentence), "</s>")]  # as the heatmap escapes
    labels = heatmap["layout"]["xaxis"]["ticktext"]
    assert labels == expected, (labels, expected)  # the Arabic sentence's own pieces, drawn


def test_transformer_and_multi_head_views_draw_your_transformer(model_files):
    at = choose_yours(with_model("transformer", model_files), "pages/transformer.py", "transformer.use.toy-translation")
    task = at.session_state["own_data.models"]["transformer"].task
    pieces = task.source_tokenizer.pieces(arabic_sentence(at))
    drawn = [s for s in plotly_specs(at) if pieces[0] in str(s["layout"].get("xaxis", {}).get("ticktext", ""))]
    assert drawn, "no map of the Transformer page is drawn on the model's own sentence"
    at.toggle(key="transformer.every_map").set_value(True).run()  # every layer and head at once
    at.slider(key="transformer.beam").set_value(4).run()
    assert not at.exception, at.exception
    at = choose_yours(at, "pages/multi_head_attention.py", "multi_head_attention.use")
    grids = [s for s in plotly_specs(at) if pieces[0] in str(s)]
    assert grids, "no multi-head map is drawn on the model's own sentence"


@pytest.mark.parametrize(("page", "task_key", "tasks"), [
    ("pages/transformer.py", "transformer.task", list(transformer_reading.TASKS)),
    ("pages/multi_head_attention.py", "multi_head_attention.task", list(every_head.TASKS)),
])  # fmt: skip
def test_your_transformer_under_every_task_of_the_page(model_files, page, task_key, tasks):
    at = with_model("transformer", model_files)
    at.switch_page(page).run()
    for task in tasks:
        at.selectbox(key=task_key).set_value(task).run()
        use = "multi_head_attention.use" if "multi_head" in page else f"transformer.use.{task}"
        choose_yours(at, page, use)


def test_a_gru_is_not_offered_where_only_a_transformer_fits(model_files):
    at = with_model("gru-additive", model_files)
    at.switch_page("pages/transformer.py").run()
    assert not at.exception
    assert not [r for r in at.radio if r.key == "transformer.use.toy-translation"]  # nothing to choose: the shipped one
    torch.set_num_threads(1)


def test_a_stopped_model_can_be_continued_and_its_steps_count_on(at, short_runs):
    at.select_slider(key="own_data.budget").set_value(15).run()
    at.button(key="own_data.train.gru-additive.train").click().run()
    wait_for_run(at, timeout=120)
    first = at.session_state["own_data.models"]["gru-additive"]
    at.toggle(key="own_data.continue").set_value(True).run()
    train = at.button(key="own_data.train.gru-additive.train")
    assert train.label == "Continue"
    train.click().run()
    wait_for_run(at, timeout=120)
    second = at.session_state["own_data.models"]["gru-additive"]
    assert second is not first and second.model is not first.model
    assert second.meta["steps"] > first.meta["steps"]
    assert second.meta["curve"][: len(first.meta["curve"])] == first.meta["curve"]


def test_presenter_mode_opens_the_page():
    at = open_page(PAGE, params={"present": "1"})
    assert not at.exception and read_from(at) == f"{READ} `en-fr.tsv`"
