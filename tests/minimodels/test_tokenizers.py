"""Tokenizers: shared specials, round trips, user text that never raises, and reproducible shipped models."""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import random

import pytest
import sentencepiece as spm

from minimodels.tasks import get_task
from minimodels.tasks.translation import SPM_DIR, load_tokenizer
from minimodels.tokenizers import (
    BOS_ID,
    EMPTY_TEXT_MESSAGE,
    EOS_ID,
    PAD_ID,
    SPECIAL_PIECES,
    UNK_ID,
    CharTokenizer,
    SentencePieceTokenizer,
)

LANGS = ("en", "fr", "it")
NASTY_TEXTS = [
    "<script>alert('hi')</script>",
    "<b>bold</b> &amp; &lt;",
    "I like 🍕 pizza 😀👍🏽",
    "مرحبا بالعالم",  # Arabic, right to left
    "שלום \u202ename\u202c",  # Hebrew and a bidi override
    "tab\there\x00nul\x07bell\r\nnewline\x1b[31m",
    "\u200b\u200d\ufeff zero widths",
    "ＦＵＬＬ width ｔｅｘｔ",
    "e\u0301 combining accent, and a lone surrogate-free 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]


def all_tokenizers():
    return [CharTokenizer("0123456789-"), *(load_tokenizer(lang) for lang in LANGS)]


def test_special_ids_are_shared():
    assert (PAD_ID, BOS_ID, EOS_ID, UNK_ID) == (0, 1, 2, 3)
    for tok in all_tokenizers():
        assert [tok.id_to_piece(i) for i in range(4)] == list(SPECIAL_PIECES), tok


def test_char_tokenizer_ids_follow_the_alphabet():
    tok = CharTokenizer("abc")
    assert tok.vocab_size == 7
    assert tok.encode("cab") == [6, 4, 5]
    assert tok.decode(tok.encode("cab")) == "cab"
    assert tok.pieces("cab") == ["c", "a", "b"]


def test_char_tokenizer_rejects_a_repeated_alphabet():
    with pytest.raises(ValueError, match="repeated"):
        CharTokenizer("abca")


def test_unknown_characters_become_unk_in_ids_and_pieces():
    tok = CharTokenizer("abc")
    assert tok.encode("aXb") == [4, UNK_ID, 5]
    assert tok.pieces("aXb") == ["a", "<unk>", "b"]
    en = load_tokenizer("en")
    ids = en.encode("I like 🍕")
    assert UNK_ID in ids
    assert "<unk>" in en.pieces("I like 🍕")


@pytest.mark.parametrize("lang", LANGS)
def test_decode_stops_at_eos_and_skips_pad_and_bos(lang):
    tok = load_tokenizer(lang)
    ids = tok.encode("Jane")
    assert tok.decode([BOS_ID, *ids, EOS_ID, *tok.encode("Paul"), PAD_ID]) == "Jane"
    assert tok.decode([*ids, PAD_ID, PAD_ID]) == "Jane"
    char = CharTokenizer("ab")
    assert char.decode([BOS_ID, 4, 5, EOS_ID, 4]) == "ab"
    assert char.decode([4, UNK_ID, 5]) == "a<unk>b"


@pytest.mark.parametrize("name", ["toy-translation", "toy-translation-it"])
def test_sentencepiece_round_trips_the_corpus(name):
    task = get_task(name)
    for ex in task.train[:2000] + task.test:
        src, tgt = task.source_tokenizer.encode(ex.source), task.target_tokenizer.encode(ex.target)
        assert task.source_tokenizer.decode(src) == ex.source
        assert task.target_tokenizer.decode(tgt) == ex.target
        assert UNK_ID not in src and UNK_ID not in tgt, ex


def test_lecture_sentences_tokenize_into_words():
    fr, it = load_tokenizer("fr"), load_tokenizer("it")
    assert fr.pieces("Jane visite l'Afrique en septembre") == [
        "▁Jane",
        "▁visite",
        "▁l",
        "'",
        "Afrique",
        "▁en",
        "▁septembre",
    ]
    assert it.pieces("mi piace la pizza") == ["▁mi", "▁piace", "▁la", "▁pizza"]
    assert load_tokenizer("en").pieces("I like pizza") == ["▁I", "▁like", "▁pizza"]


def test_word_index_of_pieces_follows_whitespace():
    fr = load_tokenizer("fr")
    text = "Jane visite l'Afrique en septembre"
    assert fr.word_index_of_pieces(text) == [0, 1, 2, 2, 2, 3, 4]


@pytest.mark.parametrize("text", ["", "   ", "\n\t  "])
def test_empty_user_text_gets_a_message(text):
    for tok in all_tokenizers():
        out = tok.encode_user_text(text, max_len=16)
        assert out.ids == [] and out.pieces == [] and out.empty
        assert out.message == EMPTY_TEXT_MESSAGE
        assert not out.truncated


def test_long_user_text_is_cut_with_a_message():
    huge = "Jane visits Africa in September " * 50_000  # ~1.6 MB
    for tok in all_tokenizers():
        out = tok.encode_user_text(huge, max_len=24)
        assert len(out.ids) == 24 and len(out.pieces) == 24
        assert out.truncated
        assert "too long" in out.message and "24" in out.message


def test_text_of_exactly_max_len_is_not_truncated():
    tok = CharTokenizer("abc")
    out = tok.encode_user_text("abcab", max_len=5)
    assert out.ids == tok.encode("abcab") and not out.truncated and out.message is None


@pytest.mark.parametrize("text", NASTY_TEXTS)
def test_any_user_text_is_accepted(text):
    for tok in all_tokenizers():
        out = tok.encode_user_text(text, max_len=32)
        assert len(out.ids) == len(out.pieces) <= 32
        assert all(0 <= i < tok.vocab_size for i in out.ids)
        assert out.unknown_positions == [k for k, i in enumerate(out.ids) if i == UNK_ID]
        for k in out.unknown_positions:
            assert out.pieces[k] == "<unk>"
        if out.unknown_positions:
            assert "unknown" in out.message
        tok.decode(out.ids)  # must not raise either


def test_pieces_line_up_with_ids_for_random_unicode():
    rng = random.Random(0)
    tokenizers = all_tokenizers()
    for _ in range(200):
        text = "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0x2FFF)])) for _ in range(12))
        for tok in tokenizers:
            ids = tok.encode(text)
            assert len(tok.pieces(text)) == len(ids)


def test_sentencepiece_tokenizer_pickles():
    tok = load_tokenizer("fr")
    copy = pickle.loads(pickle.dumps(tok))
    assert copy.encode("je le vois") == tok.encode("je le vois")
    assert copy.vocab_size == tok.vocab_size


def test_a_model_with_other_special_ids_is_refused():
    out = io.BytesIO()  # sentencepiece's defaults: unk=0, bos=1, eos=2, no pad
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(["a b c d e f"] * 20), model_writer=out, vocab_size=10, minloglevel=2
    )
    with pytest.raises(ValueError, match="special ids"):
        SentencePieceTokenizer(out.getvalue())


def test_shipped_models_match_the_manifest():
    manifest = json.loads((SPM_DIR / "manifest.json").read_text())
    assert set(manifest["models"]) == {f"{lang}.model" for lang in LANGS}
    for name, entry in manifest["models"].items():
        data = (SPM_DIR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
        assert len(data) < 100_000, f"{name} is {len(data)} bytes"
        assert SentencePieceTokenizer(data).vocab_size == entry["vocab_size"]


def test_shipped_models_are_what_the_script_produces():
    from scripts.train_tokenizers import train_all

    manifest = json.loads((SPM_DIR / "manifest.json").read_text())
    if manifest["sentencepiece"] != spm.__version__:
        pytest.skip(f"models were made with sentencepiece {manifest['sentencepiece']}, this is {spm.__version__}")
    seed, n = manifest["corpus"]["seed"], manifest["corpus"]["sentences"]
    for lang, data in train_all(seed, n).items():
        assert data == (SPM_DIR / f"{lang}.model").read_bytes(), (
            f"{lang}.model is stale: run `python -m scripts.train_tokenizers`"
        )
