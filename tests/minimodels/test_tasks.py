"""Tasks: seeded and disjoint splits, real dates, gold alignments that agree with their pairs, batches."""

from __future__ import annotations

import datetime
import pickle
import random
import re
from collections import Counter

import pytest
import torch

from minimodels.tasks import TASK_NAMES, Batch, Example, build_task, get_task, lecture_examples, make_batch
from minimodels.tasks.dates import FORMATS, MAX_SOURCE_LEN, write_date
from minimodels.tasks.grammar import Meaning, NounPhrase, sample_meaning, translate
from minimodels.tasks.lexicon import ADJECTIVES, NOUNS, VERBS
from minimodels.tasks.translation import MAX_SOURCE_LEN as PIECES_SOURCE_MAX
from minimodels.tasks.translation import MAX_TARGET_LEN as PIECES_TARGET_MAX
from minimodels.tokenizers import BOS_ID, EOS_ID, PAD_ID, UNK_ID

SMALL = {"n_train": 300, "n_valid": 50, "n_test": 50}
build = build_task  # uncached, so determinism is tested rather than memoisation


def sources(examples):
    return [ex.source for ex in examples]


# ---------------------------------------------------------------- every task


def test_task_names():
    assert TASK_NAMES == ("dates", "copy", "reverse", "sort", "toy-translation", "toy-translation-it")


def test_unknown_task_lists_the_names():
    with pytest.raises(ValueError, match="toy-translation") as err:
        get_task("dtaes")
    assert "dates" in str(err.value)


@pytest.mark.parametrize("name", TASK_NAMES)
def test_same_seed_same_data_other_seed_other_data(name):
    a, b, c = build(name, seed=3, **SMALL), build(name, seed=3, **SMALL), build(name, seed=4, **SMALL)
    for split in ("train", "valid", "test"):
        assert a.split(split) == b.split(split)
    assert a.test != c.test


@pytest.mark.parametrize("name", TASK_NAMES)
def test_sizes_are_honored_and_splits_never_share_a_source(name):
    task = build(name, seed=1, n_train=500, n_valid=70, n_test=30)
    assert (len(task.train), len(task.valid), len(task.test)) == (500, 70, 30)
    train, valid, test = (set(sources(task.split(s))) for s in ("train", "valid", "test"))
    assert len(train) == 500 and len(valid) == 70 and len(test) == 30  # no repeats inside a split
    assert not train & valid and not train & test and not valid & test


@pytest.mark.parametrize("name", TASK_NAMES)
def test_default_task_is_cached_and_within_its_limits(name):
    task = get_task(name)
    assert get_task(name) is task
    assert len(task.train) >= 2000 and len(task.valid) >= 200 and len(task.test) >= 200
    for ex in task.train + task.valid + task.test:
        src, tgt = task.source_tokenizer.encode(ex.source), task.target_tokenizer.encode(ex.target)
        assert 0 < len(src) <= task.max_source_len and 0 < len(tgt) <= task.max_target_len, ex
        assert UNK_ID not in src and UNK_ID not in tgt, ex


def test_growing_the_training_set_keeps_valid_and_test():
    small, large = build("dates", seed=0, n_train=100), build("dates", seed=0, n_train=3000)
    assert small.valid == large.valid and small.test == large.test


def test_a_space_too_small_for_the_sizes_is_a_clear_error():
    with pytest.raises(ValueError, match="too small"):
        build("copy", alphabet="ab", min_len=1, max_len=2, n_train=10, n_valid=0, n_test=0)


@pytest.mark.parametrize("name", TASK_NAMES)
def test_gold_alignment_has_one_entry_per_target_token_in_range(name):
    task = get_task(name)
    for ex in task.test[:200] + [task.probe]:
        alignment = task.gold_alignment(ex)
        n_source = len(task.source_tokenizer.encode(ex.source))
        assert len(alignment) == len(task.target_tokenizer.encode(ex.target)), ex
        assert all(0 <= i < n_source for row in alignment for i in row), ex
        assert all(row == sorted(set(row)) for row in alignment), ex


@pytest.mark.parametrize("name", TASK_NAMES)
def test_task_pickles_with_its_tokenizers_and_alignments(name):
    task = build(name, seed=0, **SMALL)
    copy = pickle.loads(pickle.dumps(task))
    assert copy.test == task.test
    ex = task.test[0]
    assert copy.gold_alignment(ex) == task.gold_alignment(ex) is not None
    assert copy.source_tokenizer.encode(ex.source) == task.source_tokenizer.encode(ex.source)


@pytest.mark.parametrize("name", TASK_NAMES)
def test_probe_is_a_training_example(name):
    task = get_task(name)
    assert task.probe in task.train


# ---------------------------------------------------------------- dates

MONTH_NAMES = [datetime.date(2000, m, 1).strftime("%B").lower() for m in range(1, 13)]
# Independent readers for every format (strptime matches names case-insensitively).
PATTERNS = [
    "%A, %B %d, %Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%a %d %b %Y",
    "%d-%b-%Y",
    "%m/%d/%y",
    "%m/%d/%Y",
    "%d.%m.%Y",
    "%d.%m.%y",
    "%Y/%m/%d",
    "%Y-%m-%d",
]


def read_date(source: str) -> tuple[datetime.date, str]:
    """Parse a source with the standard library alone; it must have exactly one reading."""
    text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", source, flags=re.IGNORECASE)
    readings = {}
    for pattern in PATTERNS:
        try:
            day = datetime.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
        if "%y" in pattern:  # the task's pivot: 50-99 -> 19xx, 00-49 -> 20xx
            yy = day.year % 100
            day = day.replace(year=(1900 if yy >= 50 else 2000) + yy)
        readings[pattern] = day
    assert len(set(readings.values())) == 1, f"{source!r} reads as {readings}"
    pattern, day = next(iter(readings.items()))
    return day, pattern


def check_weekday(source: str, day: datetime.date) -> None:
    first = source.split(",")[0].split()[0].lower()
    weekday = day.strftime("%A").lower()
    if first.isalpha() and first not in MONTH_NAMES and first[:3] not in (m[:3] for m in MONTH_NAMES):
        assert first in (weekday, weekday[:3]), f"{source!r} is a {weekday}"


def test_dates_are_real_days_with_the_right_weekday():
    task = get_task("dates")
    used = Counter()
    for ex in task.train[:1500] + task.test:
        day, pattern = read_date(ex.source)
        assert ex.target == day.isoformat() == datetime.date.fromisoformat(ex.target).isoformat()
        check_weekday(ex.source, day)
        used[pattern] += 1
    assert len(used) == len(PATTERNS), f"formats never drawn: {set(PATTERNS) - set(used)}"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_reads_back_for_random_days_and_cases(fmt):
    rng = random.Random(fmt)
    for _ in range(100):
        day = datetime.date(1950, 1, 1) + datetime.timedelta(days=rng.randrange(36524))
        case, pad = rng.choice(["title", "lower", "upper"]), rng.random() < 0.5
        ex, _ = write_date(day, fmt, case, pad)
        assert read_date(ex.source)[0] == day, ex
        check_weekday(ex.source, day)
        assert len(ex.source) <= MAX_SOURCE_LEN


def test_dates_have_at_least_ten_formats_and_mixed_case():
    assert len(FORMATS) >= 10
    task = get_task("dates")
    texts = sources(task.train)
    assert any(s.isupper() for s in texts) and any(s.islower() for s in texts)
    assert any(re.search(r"[a-z]", s) and re.search(r"[A-Z]", s) for s in texts)
    assert "Sunday, November 22, 2026" in texts  # the probe


def test_dates_alignment_spells_each_field():
    task = get_task("dates")
    for ex in task.test:
        day = datetime.date.fromisoformat(ex.target)
        alignment = task.gold_alignment(ex)
        assert alignment[4] == [] and alignment[7] == []  # the two "-"
        year, month, day_field = alignment[0], alignment[5], alignment[8]
        assert alignment[:4] == [year] * 4 and alignment[5:7] == [month] * 2 and alignment[8:] == [day_field] * 2
        assert all(is_contiguous(field) for field in (year, month, day_field)), ex
        assert spell(ex.source, year) in (str(day.year), f"{day.year % 100:02d}"), ex
        assert int(spell(ex.source, day_field)) == day.day, ex
        m, name = spell(ex.source, month).lower(), MONTH_NAMES[day.month - 1]
        assert (m.isdigit() and int(m) == day.month) or m in (name, name[:3]), ex


def spell(text: str, idx: list[int]) -> str:
    return "".join(text[i] for i in idx)


def is_contiguous(idx: list[int]) -> bool:
    return bool(idx) and idx == list(range(idx[0], idx[-1] + 1))


def test_dates_alignment_is_none_for_an_unknown_source():
    assert get_task("dates").gold_alignment(Example("someday", "2026-01-01")) is None


# ---------------------------------------------------------------- copy / reverse / sort


def test_copy_alignment_is_the_diagonal():
    task = get_task("copy")
    for ex in task.test:
        assert ex.target == ex.source
        assert task.gold_alignment(ex) == [[i] for i in range(len(ex.source))]


def test_reverse_alignment_is_the_anti_diagonal():
    task = get_task("reverse")
    for ex in task.test:
        n = len(ex.source)
        assert ex.target == ex.source[::-1]
        assert task.gold_alignment(ex) == [[n - 1 - i] for i in range(n)]


def test_sort_alignment_is_the_stable_permutation():
    task = get_task("sort")
    alphabet = task.source_tokenizer.alphabet
    assert task.gold_alignment(Example("abab", "aabb")) == [[0], [2], [1], [3]]
    for ex in task.test + [task.probe]:
        perm = [row[0] for row in task.gold_alignment(ex)]
        assert sorted(perm) == list(range(len(ex.source)))
        assert "".join(ex.source[i] for i in perm) == ex.target
        assert list(ex.target) == sorted(ex.source, key=alphabet.index)
        for a, b in zip(perm, perm[1:], strict=False):  # equal symbols keep their order
            if ex.source[a] == ex.source[b]:
                assert a < b


def test_string_task_options():
    task = build("reverse", seed=0, min_len=4, max_len=6, alphabet="xyz", **SMALL)
    assert task.source_tokenizer.vocab_size == 4 + 3
    for ex in task.train:
        assert 4 <= len(ex.source) <= 6 and set(ex.source) <= set("xyz")
    assert {len(ex.source) for ex in task.train} == {4, 5, 6}
    assert task.max_source_len == task.max_target_len == 6


def test_string_alignment_works_for_typed_text_and_refuses_a_wrong_pair():
    task = get_task("reverse")
    assert task.gold_alignment(Example("hello", "olleh")) == [[4], [3], [2], [1], [0]]
    assert task.gold_alignment(Example("hello", "hello")) is None


# ---------------------------------------------------------------- toy translation


def meaning(subject, verb, obj, negated=False, modifiers=()):
    return Meaning(subject, next(v for v in VERBS if v.en == verb), negated, obj, modifiers)


def np(noun, det="the", adj=None, plural=False):
    return NounPhrase(
        next(n for n in NOUNS if n.en == noun), det, adj and next(a for a in ADJECTIVES if a.en == adj), plural
    )


def test_lecture_sentences_are_in_the_training_data():
    fr, it = get_task("toy-translation"), get_task("toy-translation-it")
    assert Example("Jane visits Africa in September", "Jane visite l'Afrique en septembre") in fr.train
    assert Example("I see it", "je le vois") in fr.train
    assert Example("I like pizza", "mi piace la pizza") in it.train
    assert lecture_examples("it") == [Example("I like pizza", "mi piace la pizza")]


@pytest.mark.parametrize(
    ("m", "french", "italian"),
    [
        (meaning(0, "see", np("dog", adj="green")), "je vois le chien vert", "vedo il cane verde"),
        (meaning(0, "see", np("house", adj="green")), "je vois la maison verte", "vedo la casa verde"),
        (meaning(0, "see", "it", negated=True), "je ne le vois pas", "non lo vedo"),
        (meaning(0, "like", "it"), "je l'aime", "mi piace"),
        (meaning(4, "like", np("dog", det="", plural=True)), "nous aimons les chiens", "ci piacciono i cani"),
        (meaning("Anna", "like", np("tree", det="my")), "Anna aime mon arbre", "a Anna piace il mio albero"),
        (meaning(5, "buy", np("student", det="a")), "ils achètent un étudiant", "comprano uno studente"),
    ],
)
def test_grammar_agrees_reorders_and_elides(m, french, italian):
    assert translate(m, "fr").target == french
    assert translate(m, "it").target == italian


def test_adjectives_and_pronouns_cross_in_the_word_alignment():
    green_dog = translate(meaning("Jane", "see", np("dog", adj="green")), "fr")
    assert green_dog.english == "Jane sees the green dog"
    assert green_dog.alignment == [[0], [1], [2], [4], [3]]  # le<-the, chien<-dog, vert<-green
    see_it = translate(meaning(0, "see", "it"), "fr")
    assert see_it.alignment == [[0], [2], [1]]
    pizza = translate(meaning(0, "like", np("pizza", det="")), "it")
    assert pizza.alignment == [[0], [1], [2], [2]]  # "la" has no English article: it aligns to "pizza"


def test_verb_final_variant_moves_the_verb_last():
    task = build("toy-translation", seed=0, verb_final=True, **SMALL)
    assert Example("Jane visits Africa in September", "Jane l'Afrique en septembre visite") in task.train
    jane = next(ex for ex in task.train if ex.source.startswith("Jane visits Africa"))
    assert task.target_tokenizer.decode(task.target_tokenizer.encode(jane.target)) == jane.target


def test_english_determines_the_translation():
    rng = random.Random(0)
    seen: dict[str, tuple[str, str]] = {}
    for _ in range(6000):
        m = sample_meaning(rng)
        fr, it = translate(m, "fr"), translate(m, "it")
        assert seen.setdefault(fr.english, (fr.target, it.target)) == (fr.target, it.target), fr.english


def test_vocabulary_size_and_variety():
    task = get_task("toy-translation")
    english = {w for ex in task.train for w in ex.source.split()}
    french = {w for ex in task.train for w in ex.target.split()}
    assert 150 <= len(english) <= 400 and 150 <= len(french) <= 600
    assert len(task.train) == len(set(sources(task.train))) >= 5000


@pytest.mark.parametrize("name", ["toy-translation", "toy-translation-it"])
def test_translation_alignment_covers_every_target_piece_and_crosses(name):
    task = get_task(name)
    crossing = 0
    for ex in task.test:
        alignment = task.gold_alignment(ex)
        assert all(alignment), ex  # every target piece comes from some English word
        firsts = [row[0] for row in alignment]
        crossing += firsts != sorted(firsts)
        assert len(task.source_tokenizer.encode(ex.source)) <= PIECES_SOURCE_MAX
        assert len(task.target_tokenizer.encode(ex.target)) <= PIECES_TARGET_MAX
    assert crossing > len(task.test) // 4


def test_translation_piece_alignment_of_the_lecture_sentence():
    task = get_task("toy-translation")
    ex = Example("Jane visits Africa in September", "Jane visite l'Afrique en septembre")
    # target pieces: ▁Jane ▁visite ▁l ' Afrique ▁en ▁septembre; source: one piece per word
    assert task.gold_alignment(ex) == [[0], [1], [2], [2], [2], [3], [4]]
    assert task.gold_alignment(Example("I see a unicorn", "je vois une licorne")) is None


# ---------------------------------------------------------------- batches


def test_make_batch_pads_and_marks_sequences():
    task = get_task("reverse")
    examples = [Example("abc", "cba"), Example("a1", "1a")]
    batch = make_batch(examples, task)
    assert isinstance(batch, Batch) and len(batch) == 2
    assert batch.source.dtype == torch.long and batch.source.shape == (2, 4)
    assert batch.source_lengths.tolist() == [4, 3]
    assert batch.source[1].tolist() == [*task.source_tokenizer.encode("a1"), EOS_ID, PAD_ID]
    assert batch.target_in[0].tolist() == [BOS_ID, *task.target_tokenizer.encode("cba")]
    assert batch.target_out[0].tolist() == [*task.target_tokenizer.encode("cba"), EOS_ID]
    assert batch.target_out[1].tolist() == [*task.target_tokenizer.encode("1a"), EOS_ID, PAD_ID]
    assert batch.target_in[1].tolist() == [BOS_ID, *task.target_tokenizer.encode("1a"), PAD_ID]
    assert batch.target_lengths.tolist() == [4, 3]
    assert batch.to("cpu").source.equal(batch.source)


def test_encoded_split_is_cached_and_select_trims_padding():
    task = get_task("copy")
    data = task.encoded("train")
    assert task.encoded("train") is data and len(data) == len(task.train)
    short = [i for i, ex in enumerate(task.train) if len(ex.source) == 3][:5]
    batch = data.select(short)
    assert batch.source.shape == (5, 4) and batch.target_out.shape == (5, 4)
    again = make_batch([task.train[i] for i in short], task)
    for a, b in zip(
        (batch.source, batch.source_lengths, batch.target_in, batch.target_out),
        (again.source, again.source_lengths, again.target_in, again.target_out),
        strict=True,
    ):
        assert a.equal(b)


def test_user_text_for_a_task_is_capped_at_its_limit():
    task = get_task("dates")
    out = task.encode_source("x" * 100)
    assert out.truncated and len(out.ids) == task.max_source_len
    assert task.encode_source("  ").message == "Type at least one character."
    with pytest.raises(ValueError, match="split"):
        task.split("training")
