"""Section 1 of the attention bridge: what each head reads in each language, the meaning view, a typed
sentence, the heads figure and the agreement sentence."""

import numpy as np
import pytest

from lessons.attention_bridge import one_meaning
from minimodels.tasks.multilingual import LANGUAGES, Parallel
from tests.lessons.attention_bridge.fakes import SHIPPED_LIKE, fake_results, one_hot, with_finals

P = Parallel(
    sentences={"en": "I see the dog", "fr": "je vois le chien", "it": "vedo il cane", "vf": "x y z"},
    alignments={
        "en": [[0], [1], [2], [3]],
        "fr": [[0], [1], [2], [3]],
        "it": [[0, 1], [2], [3]],
        "vf": [[0], [2, 3], [1]],
    },  # fmt: skip
)


def test_head_agreement_counts_heads_that_find_the_same_concept():
    # head 1 on "dog" everywhere, head 2 on "see" (vedo = I + see) and on "I" in vf: a miss there
    A = {"en": one_hot([3, 1], 5), "fr": one_hot([3, 1], 5), "it": one_hot([2, 0], 4), "vf": one_hot([1, 0], 4)}
    assert one_meaning.head_agreement(A, P) == pytest.approx(5 / 6)
    A["vf"] = one_hot([1, 2], 4)  # vf word 2 means "see"
    assert one_meaning.head_agreement(A, P) == 1.0
    eos = {lang: one_hot([len(P.words(lang))], len(P.words(lang)) + 1) for lang in LANGUAGES}
    assert one_meaning.head_agreement(eos, P) == 1.0  # EOS is the same "concept" everywhere


def test_head_reading_names_the_top_word_and_its_english():
    A = {"en": one_hot([3], 5), "it": one_hot([0], 4)}
    rows = one_meaning.head_reading(A, P)
    assert rows == [{"head": 1, "en": "dog (dog) 100%", "it": "vedo (I see) 100%"}]


def test_mean_agreement_equals_the_mean_of_single_meanings(model, corpus):
    from minimodels.bridge import bridge_maps

    single = []
    for p in corpus.test[:5]:
        maps = bridge_maps(model, p.sentences, corpus.tokenizers)
        single.append(one_meaning.head_agreement({lang: A for lang, (A, _) in maps.items()}, p))
    assert one_meaning.mean_agreement(model, corpus, n=5) == pytest.approx(np.mean(single), abs=1e-9)


def test_meaning_view(model, corpus):
    view = one_meaning.meaning_view(model, corpus, 1)
    assert [row["sentence"] for row in view["sentences"]] == [corpus.test[1].sentences[lang] for lang in LANGUAGES]
    for A, tokens in view["maps"].values():
        assert A.shape == (3, len(tokens)) and tokens[-1] == "</s>"
    assert len(view["reading"]) == 3 and 0.0 <= view["agreement"] <= 1.0
    assert len(view["translations"]) == 4
    marked = [v for row in view["translations"] for v in row.values() if v.endswith("✱")]
    assert len(marked) == 6  # the six zero-shot directions


@pytest.mark.parametrize(
    "text",
    ["", "   ", "😀 <script>alert(1)</script>", "\u202ele chien", "mot " * 400],
    ids=["empty", "blank", "emoji-html", "rtl", "long"],
)
def test_read_sentence_never_raises(model, corpus, text):
    read = one_meaning.read_sentence(model, corpus.tokenizers, "fr", text)
    if not text.strip():
        assert read.error and read.A is None
    else:
        assert read.error is None and read.message  # unknown words or truncation are said
        assert read.A.shape == (3, len(read.tokens)) and len(read.tokens) <= 17
        assert len(read.translations) == 1


def test_read_sentence_of_known_words(model, corpus):
    read = one_meaning.read_sentence(model, corpus.tokenizers, "en", corpus.test[0].sentences["en"])
    assert read.error is None and read.message is None and "<unk>" not in read.tokens


def test_heads_side_by_side_escapes_labels():
    maps = {"en": (np.eye(2, 3), ["<b>x</b>", "y", "</s>"]), "vf": (np.eye(2, 4), ["a", "b", "c", "</s>"])}
    fig = one_meaning.heads_side_by_side(maps, title="t")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert "&lt;b&gt;x&lt;/b&gt;" in fig.layout.xaxis.ticktext
    assert fig.data[1].z.shape == (2, 4)


def test_agreement_text_compares_with_the_model_without_the_penalty():
    results = with_finals(fake_results(), SHIPPED_LIKE)
    assert "without the penalty reaches 86% on the same measure (more than the shipped one)" in (
        one_meaning.agreement_text(0.2, 0.077, results)
    )
    assert "(less than the shipped one)" in one_meaning.agreement_text(0.2, 0.95, results)
