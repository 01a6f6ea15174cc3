"""Your own data's engine: reading a teacher's pairs (every bad input has its message), tokenizers in any script, the
pairs as a task the course's trainer takes unchanged, and the one model file with every refusal."""

from __future__ import annotations

import dataclasses
import io
import json
import pickle
import struct

import pytest
import torch

from minimodels.own_data import (
    LIMITS,
    ArtifactError,
    Limits,
    PairsError,
    PairsTask,
    artifact_filename,
    build_own_model,
    example_path,
    load_model,
    own_data_train_config,
    read_example,
    read_meta,
    read_pairs,
    save_model,
    split_pairs,
    train_tokenizers,
)
from minimodels.own_data.artifact import FORMAT_VERSION, META_KEY
from minimodels.own_data.examples import EXAMPLE_SETS, example_pairs, zelan_pairs
from minimodels.tokenizers import UNK_ID, SentencePieceTokenizer
from minimodels.train import evaluate, train

GOOD = "the dog\tle chien\nthe cat\tle chat\n"


def _error(source, **options) -> str:
    with pytest.raises(PairsError) as caught:
        read_pairs(source, **options)
    message = str(caught.value)
    assert "Traceback" not in message and "\n" not in message and "Error" not in message
    return message


# ------------------------------------------------------------------------------------------------ reading
def test_reads_tsv_csv_bom_and_crlf_alike():
    tsv = read_pairs(GOOD)
    assert tsv.pairs == [("the dog", "le chien"), ("the cat", "le chat")] and tsv.format == "TSV"
    csv_text = '"the dog, again","le chien, encore"\r\nthe cat,le chat\r\n'
    csv = read_pairs(("\ufeff" + csv_text).encode())
    assert csv.pairs == [("the dog, again", "le chien, encore"), ("the cat", "le chat")] and csv.format == "CSV"
    upload = io.BytesIO(GOOD.encode("utf-8-sig"))
    assert read_pairs(upload).pairs == tsv.pairs
    assert read_pairs(upload).pairs == tsv.pairs  # read again (a page's rerun): from its start
    assert tsv.line_numbers == [1, 2] and tsv.skipped == [] and tsv.duplicates == []


def test_reads_a_path_and_names_it(tmp_path):
    path = tmp_path / "words.tsv"
    path.write_text(GOOD, encoding="utf-8")
    pf = read_pairs(path)
    assert pf.name == "words.tsv" and len(pf) == 2
    assert _error(tmp_path / "missing.tsv").startswith("Cannot open missing.tsv")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"", "The file is empty"),
        ("  \n\n \t \n", "The file is empty"),
        ("the dog\nthe cat\nthe bird\n", "two columns"),
        ("café\tcoffee\n".encode("latin-1"), "not UTF-8 text (line 1"),
        ("ok\tok2\ncafé\tcoffee\n".encode("cp1252"), "line 2"),
        ("the dog\tle chien\n".encode("utf-16"), "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("same\tsame\nalso\talso\n", "No usable sentence pair"),
        ("a\tb\tc\nd\te\tf\n", "wrong number of columns"),
    ],
)
def test_whole_file_problems_have_one_plain_sentence(source, expected):
    assert expected in _error(source)


def test_size_is_enforced_before_the_whole_upload_is_read():
    class Upload(io.RawIOBase):  # a 50 MB upload that counts what is read from it
        def __init__(self):
            self.read_bytes = 0

        def read(self, n=-1):
            n = 50_000_000 - self.read_bytes if n is None or n < 0 else min(n, 50_000_000 - self.read_bytes)
            self.read_bytes += n
            return b"a\tb\n" * (n // 4) + b"a" * (n % 4)

    upload = Upload()
    assert "larger than 5 MB" in _error(upload)
    assert upload.read_bytes == LIMITS.max_bytes + 1
    assert "larger than 0.001 MB" in _error("x\ty\n" * 300, limits=Limits(max_bytes=1000))


def test_a_million_rows_is_refused():
    message = _error("a\tb\n" * 1_000_000)  # 4 MB: under the size limit
    assert "1,000,000 lines" in message and "20,000" in message


def test_bad_lines_are_skipped_with_their_numbers_and_reasons():
    text = "\n".join(
        [
            "the dog\tle chien",  # 1
            "",  # 2 blank
            "x" * 10_000 + "\tlong",  # 3
            "same\tsame",  # 4
            "bell\x07\tcloche",  # 5
            "a\tb\tc",  # 6
            "\tnothing",  # 7
            "<script>alert(1)</script>\t<b>gras</b>",  # 8: text, kept as is
            "the cat\tle chat",  # 9
        ]
    )
    pf = read_pairs(text)
    assert pf.pairs == [("the dog", "le chien"), ("<script>alert(1)</script>", "<b>gras</b>"), ("the cat", "le chat")]
    assert pf.line_numbers == [1, 8, 9] and pf.blank_lines == 1
    reasons = dict(pf.skipped)
    assert sorted(reasons) == [3, 4, 5, 6, 7]
    assert reasons[3] == "too long: the source has 10,000 characters (limit 300)"
    assert reasons[4].startswith("identical")
    assert reasons[5] == "control character: U+0007 is not text"
    assert reasons[6] == "wrong number of columns: 3 instead of 2"
    assert reasons[7] == "empty side: the source is empty"
    summary = pf.summary()
    assert summary["skipped"] == 5 and summary["pairs"] == 3
    assert summary["skipped_reasons"]["too long"] == 1


def test_duplicates_are_reported_and_kept_or_dropped():
    text = "a b\tx y\nc\tz\na  b\tx y\na b\tx y\n"  # line 3 is line 1 once white space is normalised
    kept = read_pairs(text)
    assert kept.duplicates == [(3, 1), (4, 1)] and len(kept) == 4 and not kept.duplicates_dropped
    dropped = read_pairs(text, duplicates="drop")
    assert dropped.pairs == [("a b", "x y"), ("c", "z")] and dropped.duplicates == [(3, 1), (4, 1)]
    assert dropped.summary()["duplicates"] == 2 and dropped.summary()["distinct_pairs"] == 2
    with pytest.raises(ValueError):
        read_pairs(text, duplicates="sometimes")


def test_spreadsheet_exports_read_as_two_columns():
    tsv = read_pairs('"say ""hi"""\t"dis ""salut"""\t\t\nthe cat\tle chat\t\n')
    assert tsv.pairs == [('say "hi"', 'dis "salut"'), ("the cat", "le chat")] and not tsv.skipped
    csv = read_pairs("the dog,le chien,,\nthe cat,le chat,\n")
    assert csv.pairs == [("the dog", "le chien"), ("the cat", "le chat")] and not csv.skipped
    assert read_pairs("a\tb\tc\nd\te\n").skipped == [(1, "wrong number of columns: 3 instead of 2")]


def test_csv_quote_left_open_skips_that_line_only():
    pf = read_pairs('"open,quote\nthe cat,le chat\n')
    assert pf.pairs == [("the cat", "le chat")] and pf.skipped[0][0] == 1


def test_fingerprint_is_of_the_normalised_pairs():
    a, b = read_pairs("a  b\tc\n"), read_pairs("a b\tc\r\n")
    assert a.fingerprint == b.fingerprint and len(a.fingerprint) == 64
    assert read_pairs("a b\td\n").fingerprint != a.fingerprint


@pytest.mark.parametrize(
    ("text", "scripts"),
    [
        ("the house\tالبيت\n", ("Latin", "Arabic (right to left)")),
        ("peace\tשלום\n", ("Latin", "Hebrew (right to left)")),
        ("good morning\tкалимера καλημέρα σας\n", ("Latin", "Greek, Cyrillic")),
        ("я читаю\t我在读书\n", ("Cyrillic", "Chinese characters (CJK)")),
    ],
)
def test_summary_names_the_scripts(text, scripts):
    summary = read_pairs(text).summary()
    assert (summary["source"]["scripts"], summary["target"]["scripts"]) == scripts
    assert set(summary["scripts"].split(", ")) == set(", ".join(scripts).split(", "))


def test_shipped_examples_read_cleanly():
    for name in EXAMPLE_SETS:
        pf = read_example(name)
        assert len(pf) == EXAMPLE_SETS[name]["pairs"] and not pf.skipped, name
        assert example_path(name).stat().st_size < 100_000
    assert read_example("en-ar").summary()["target"]["scripts"] == "Arabic (right to left)"


@pytest.mark.parametrize("name", EXAMPLE_SETS)
def test_shipped_examples_are_what_their_rules_write(name):
    assert read_example(name).pairs == example_pairs(name)  # python -m minimodels.own_data remakes them


# ------------------------------------------------------------------------------------------------ tokenizers
SCRIPTS = {
    "arabic": ["البيت الكبير جديد", "السيارة الصغيرة قديمة", "الولد سعيد", "المدينة جميلة", "الكتاب الجديد"],
    "hebrew": ["הבית הגדול חדש", "הילד שמח", "העיר יפה", "הספר החדש", "המכונית הקטנה ישנה"],
    "chinese": ["我在读书", "他喜欢喝茶", "今天天气很好", "我们去学校", "这本书很新"],
    "japanese": ["私は本を読みます", "猫がいます", "今日はいい天気です", "学校に行きます", "お茶を飲みます"],
    "greek": ["το σπίτι είναι μεγάλο", "η γάτα κοιμάται", "καλημέρα φίλε", "το βιβλίο είναι νέο", "ο σκύλος τρέχει"],
    "cyrillic": ["дом большой", "кошка спит", "доброе утро", "книга новая", "собака бежит быстро"],
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_tokenizers_round_trip_any_script(script, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sentences = SCRIPTS[script]
    pairs = [(f"sentence {i} {s}", s) for i, s in enumerate(sentences * 4)]
    source, target = train_tokenizers(pairs)
    assert isinstance(target, SentencePieceTokenizer)
    for s in sentences:
        ids = target.encode(s)
        assert UNK_ID not in ids and target.decode(ids) == s
    assert source.decode(source.encode("sentence 3 x")).startswith("sentence 3")
    assert list(tmp_path.iterdir()) == []  # trained from memory: no file left behind


def test_tokenizers_cope_with_tiny_and_large_vocabularies():
    pairs = [("a b", "x"), ("b c", "y")]
    source, target = train_tokenizers(pairs, vocab_size=4)  # below what sentencepiece accepts: raised
    assert target.decode(target.encode("x y")) == "x y"
    source, _ = train_tokenizers(pairs, vocab_size=50_000)  # above what the data can fill: fewer pieces
    assert source.vocab_size < 50


def test_many_cjk_characters_keep_a_bounded_vocabulary():
    chars = [chr(0x4E00 + i) for i in range(3000)]
    pairs = [(f"s{i}", "".join(chars[i : i + 5])) for i in range(0, 2995, 3)]
    _, target = train_tokenizers(pairs, vocab_size=500)
    assert 2000 <= target.vocab_size <= 3100  # the rarest characters may become <unk>, never a crash


# ------------------------------------------------------------------------------------------------ the task
@pytest.fixture(scope="module")
def zelan():
    return PairsTask.from_pairs(zelan_pairs(300, seed=3), vocab_size=200)


def test_task_holds_out_a_seeded_tenth_by_source(zelan):
    assert (len(zelan.train), len(zelan.valid)) == (270, 30) and zelan.test == zelan.valid
    assert not {ex.source for ex in zelan.train} & {ex.source for ex in zelan.valid}
    again = PairsTask.from_pairs(zelan_pairs(300, seed=3), vocab_size=200)
    assert again.valid == zelan.valid and again.fingerprint == zelan.fingerprint
    assert PairsTask.from_pairs(zelan_pairs(300, seed=3), seed=1).valid != zelan.valid
    assert zelan.probe in zelan.train and zelan.held_out_from == "train"


def test_task_pickles_for_the_pages_caches(zelan):
    again = pickle.loads(pickle.dumps(zelan))
    assert type(again) is PairsTask and again.valid == zelan.valid and again.fingerprint == zelan.fingerprint
    assert again.source_tokenizer.encode("the old farmer") == zelan.source_tokenizer.encode("the old farmer")


def test_split_keeps_every_pair_of_a_source_together():
    pairs = [("a", "1"), ("a", "2"), *[(f"s{i}", f"t{i}") for i in range(30)], ("a", "3")]
    train_part, held = split_pairs(pairs, 0.5, seed=0)
    assert sorted(train_part + held) == sorted(pairs)
    assert len({p[0] == "a" for p in held}) == 1 or all(p[0] != "a" for p in train_part)
    assert sum(p[0] == "a" for p in held) in (0, 3)


def test_task_takes_a_validation_file_and_refuses_too_little():
    train_pf, valid_pf = read_pairs("a b\tc\nd e\tf\n"), read_pairs("a e\tc f\n")
    task = PairsTask.from_pairs(train_pf, valid_pf)
    assert len(task.train) == 2 and len(task.valid) == 1 and task.held_out_from == "file"
    with pytest.raises(PairsError, match="at least 10"):
        PairsTask.from_pairs(train_pf)
    with pytest.raises(PairsError, match="same source"):
        split_pairs([("a", str(i)) for i in range(20)])


@pytest.mark.parametrize("name", ["gru-additive", "transformer"])
def test_the_course_loop_trains_on_the_pairs(zelan, name):
    model = build_own_model(name, zelan, seed=0)
    seen = []
    config = own_data_train_config(name, max_steps=4, report_every=2, batch_size=32, eval_size=10)
    result = train(model, zelan, config, lambda p: seen.append(p))
    assert result.steps == 4 and [p.step for p in seen] == [2, 4]
    snap = seen[-1]
    assert snap.attention is not None and snap.attention.shape == (len(snap.target_tokens), len(snap.source_tokens))
    assert snap.source_tokens[-1] == "</s>" and isinstance(snap.prediction, str)
    assert result.history[0].loss > 0


def test_the_live_panels_run_trains_stops_and_resumes_on_the_pairs(zelan):
    from lessons import own_data  # here: the page's run, trained in a worker process

    config = own_data_train_config(
        "gru-additive",
        max_steps=10_000,
        max_seconds=30,
        report_every=1,
        batch_size=16,
        eval_size=5,
        target_exact_match=None,
    )
    run = own_data.new_run(zelan, "gru-additive", config, seed=0).start()
    while not run.snapshots and run.active:
        run.wait(0.05)
    run.stop()
    assert run.wait(30) and run.status == "stopped" and run.result.stopped == "callback"
    assert run.result.steps < 10_000 and run.latest.attention is not None
    model = run.model
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    resumed = own_data.new_run(zelan, "gru-additive", dataclasses.replace(config, max_steps=2), start=model).start()
    assert resumed.wait(60) and resumed.status == "finished", resumed.error  # the model trains on from there
    assert any(not torch.equal(weights[k], v) for k, v in resumed.model.state_dict().items())
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items()), "a copy trained, not the start"


# ------------------------------------------------------------------------------------------------ the model file
@pytest.fixture(scope="module")
def saved(zelan):
    out = {}
    for name in ("gru-additive", "transformer"):
        model = build_own_model(name, zelan, seed=0)
        config = own_data_train_config(name, max_steps=3, report_every=1, batch_size=32, eval_size=10)
        result = train(model, zelan, config)
        out[name] = (model, save_model(model, zelan, curve=result.history, config=config), result)
    return out


@pytest.mark.parametrize("name", ["gru-additive", "transformer"])
def test_a_loaded_model_gives_the_saved_ones_outputs(zelan, saved, name):
    model, data, result = saved[name]
    loaded, task, meta = load_model(data)
    batch = zelan.encoded("valid")
    with torch.inference_mode():
        a = model(batch.source, batch.source_lengths, batch.target_in)
        b = loaded(batch.source, batch.source_lengths, batch.target_in)
    assert torch.equal(a.logits, b.logits)
    assert all(torch.equal(a.attention[k], b.attention[k]) for k in a.attention)
    assert evaluate(loaded, batch) == evaluate(model, batch)
    assert meta["model_name"] == name and meta["version"] == FORMAT_VERSION
    assert meta["fingerprint"] == zelan.fingerprint and len(meta["curve"]) == 3
    assert meta["train_config"]["max_steps"] == 3 and meta["config"]["source_vocab_size"] > 4
    assert task.source_tokenizer.encode("the old farmer") == zelan.source_tokenizer.encode("the old farmer")
    assert task.probe == zelan.probe and task.valid == zelan.valid[:50]
    assert task.max_source_len == zelan.max_source_len
    assert artifact_filename(meta) == f"attention-lab-{name}-{zelan.fingerprint[:8]}.safetensors"


def _rewrite(data: bytes, change) -> bytes:
    """``data`` with its record changed by ``change(meta)`` (the tensors' bytes untouched)."""
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    meta = json.loads(header["__metadata__"][META_KEY])
    change(meta)
    header["__metadata__"][META_KEY] = json.dumps(meta)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + data[8 + size :]


def _refusal(data: bytes) -> str:
    with pytest.raises(ArtifactError) as caught:
        load_model(data)
    message = str(caught.value)
    assert "Traceback" not in message and "\n" not in message
    return message


def test_the_rewrite_helper_leaves_a_loadable_file(saved):
    _, data, _ = saved["gru-additive"]
    assert load_model(_rewrite(data, lambda m: None))[2]["model_name"] == "gru-additive"


def test_model_file_refusals(saved):
    from safetensors.torch import save

    _, data, _ = saved["gru-additive"]
    assert "not a model file" in _refusal(b"")
    assert "not a model file" in _refusal(bytes(range(256)) * 40)
    assert "not a model file" in _refusal(b"PK\x03\x04" + b"\x00" * 100)  # a zip, e.g. a torch.save file
    assert "incomplete" in _refusal(data[: len(data) // 2])
    assert "incomplete" in _refusal(data[:-1])
    flipped = bytearray(data)
    flipped[-100] ^= 0xFF
    assert "damaged" in _refusal(bytes(flipped))
    assert "not made by Attention Lab" in _refusal(save({"w": torch.zeros(2)}))
    assert "another kind of record" in _refusal(save({"w": torch.zeros(2)}, metadata={META_KEY: "{}"}))
    newer = _refusal(_rewrite(data, lambda m: m.update(version=FORMAT_VERSION + 1)))
    assert "newer version" in newer and f"format {FORMAT_VERSION + 1}" in newer
    assert "another architecture" in _refusal(_rewrite(data, lambda m: m.update(model_name="mamba", kind="ssm")))
    assert "another architecture" in _refusal(_rewrite(data, lambda m: m["config"].update(n_experts=8)))
    assert "do not fit" in _refusal(_rewrite(data, lambda m: m["config"].update(hidden_size=65)))
    with pytest.raises(ArtifactError, match="newer"):
        read_meta(_rewrite(data, lambda m: m.update(version=99)))


class _Boom:
    def __reduce__(self):
        return (exec, ("import pathlib; pathlib.Path('PWNED').write_text('ran')",))


def test_loading_never_runs_code_from_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    payload = pickle.dumps(_Boom())
    buffer = io.BytesIO()
    torch.save({"w": _Boom()}, buffer)
    for data in (payload, buffer.getvalue()):
        _refusal(data)
    assert not (tmp_path / "PWNED").exists()
