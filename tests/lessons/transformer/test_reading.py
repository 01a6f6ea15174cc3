"""The model reading the student's sentence: every map of a real trained model in the sentence's shapes; what is
refused."""

from types import SimpleNamespace

import numpy as np

from lessons.common.pretrained import load_pretrained
from lessons.transformer import maps, reading, resolving_it
from minimodels.tasks import get_task
from minimodels.transformer import TinyTransformer, TransformerConfig


def test_walk_has_every_map_with_the_sentence_shapes(walked):
    c = walked.config
    S, T = len(walked.source), len(walked.output)
    assert walked.source[-1] == "</s>" and walked.output[-1] == "</s>"
    assert walked.fed == ["<s>", *walked.output[:-1]]
    assert sorted(walked.maps) == sorted(
        maps.map_name(kind, i) for kind in maps.KINDS for i in range(maps.layer_count(c, kind))
    )
    for kind in maps.KINDS:
        rows, columns = walked.labels(kind)
        for i in range(maps.layer_count(c, kind)):
            weights = walked.weights(kind, i)
            assert weights.shape == (c.n_heads, len(rows), len(columns))
            np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)  # every row is a softmax
    assert walked.weights("cross", 0).shape == (c.n_heads, T, S)
    masked = walked.weights("decoder_self", 1)
    assert np.all(np.triu(masked, k=1) == 0)  # the future is masked
    assert np.all(np.tril(masked)[:, 1:, 0] > 0)  # and the past is seen
    assert sum(m.shape[0] for m in walked.maps.values()) == maps.maps_per_sentence(c) == 24


def test_parse_refuses_empty_and_too_long_text_and_accepts_unknown_characters():
    assert reading.parse_sentence("toy-translation", "   ").error
    too_long = reading.parse_sentence("toy-translation", resolving_it.LECTURE_SENTENCE)
    assert too_long.error and "at most 24" in too_long.error and not too_long.tokens
    odd = reading.parse_sentence("toy-translation", "I see <b>it</b> 🙂")
    assert odd.error is None and odd.tokens == ("I", "see", "<b>it</b>", "🙂")
    assert reading.parser("dates")("  1 May  1999 ").tokens == ("1", "May", "1999")


def test_walk_of_unknown_text_says_what_happened(translator):
    model, task = translator
    w = reading.walk(model, task, "I see 🙂")
    assert "<unk>" in w.source and "unknown" in w.translation.message
    assert reading.walk(model, task, "  ") == "Type at least one character."


def test_dates_labels_show_spaces():
    model, _ = load_pretrained("dates", reading.MODEL)
    w = reading.walk(model, get_task("dates"), "1 May 1999")
    assert w.source[1] == reading.SPACE and " " not in w.source


def test_the_caption_describes_the_model_shown_the_shipped_one_or_the_students_own(translator):
    shipped, _ = translator
    info = {"training": {"seconds": 41.6, "steps": 1500, "test_exact_match": 0.99}}
    assert reading.model_note(shipped, shipped, info).startswith("Shipped model:")
    assert "99.0% exact match" in reading.model_note(shipped, shipped, info)
    own = TinyTransformer(TransformerConfig(residual=False))
    last = SimpleNamespace(step=240, seconds=12.3, exact_match=0.375)
    note = reading.model_note(own, shipped, info, last)
    assert note.startswith("Your model, trained on this page:")
    assert "240 steps" in note and "37.5% exact match" in note and "without residual" in note
    assert "Shipped" not in note and "99.0%" not in note and "1500" not in note  # nothing of the shipped model's
    assert f"{sum(p.numel() for p in own.parameters()):,} parameters" in note
    assert reading.model_note(own, shipped, info).endswith("parameters.")  # a model whose run has not reported
