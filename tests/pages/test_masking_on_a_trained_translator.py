"""Masking lesson, section 5: a translator's decoder self-attention on its own translation of the student's sentence,
the shipped Transformer or the student's own (from the "Your own data" page): causal, so exactly 0 above the diagonal,
and the same rows fed all at once as while generating."""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pytest

from lessons.common.charts import safe_label
from lessons.common.pretrained import load_pretrained
from lessons.masking.causal import future_weight
from lessons.masking.translator import (
    TRANSLATOR,
    TRANSLATOR_SENTENCE,
    TRANSLATOR_TITLES,
    TranslatorView,
    translator_caption,
    translator_view,
)
from minimodels.own_data import load_model
from minimodels.tasks import get_task
from tests.helpers import plotly_array, plotly_specs
from tests.pages.test_queries_keys_values_on_a_trained_model import train_own, with_own_model

PAGE = "pages/masking.py"
SECTION = "5 · Next: the decoder that reads a source"
LATER = "weight on later positions (mean of the rows)"


@pytest.fixture(scope="module")
def own_files() -> dict[str, bytes]:
    return train_own()


def translator_maps(at, layer: int = 1) -> tuple[dict, dict]:
    """The mask's map and the decoder layer's, by their titles."""
    titles = [TRANSLATOR_TITLES[0], TRANSLATOR_TITLES[1].format(layer=layer)]
    by_title = {(s["layout"].get("title") or {}).get("text"): s for s in plotly_specs(at)}
    return by_title[safe_label(titles[0], 200)], by_title[safe_label(titles[1], 200)]


def check_causal(view: TranslatorView) -> None:
    L, h, T, _ = view.attention.shape
    assert T >= 2 and len(view.fed) == T and view.fed[0] == "<s>"
    above = ~np.tril(np.ones((T, T), dtype=bool))
    assert (view.attention[..., above] == 0.0).all()  # exactly 0, not small: e^−∞
    assert view.largest_future == 0.0 and all(view.future(layer) == 0.0 for layer in range(L))
    np.testing.assert_allclose(view.attention.sum(-1), 1.0, atol=1e-5)  # rows are still softmaxes
    assert view.step_difference <= 1e-5  # all at once = one token at a time
    assert future_weight(view.unmasked) > 0.05  # the mask is what makes it 0: the scores alone would not
    assert view.causal


def test_the_shipped_translators_decoder_is_exactly_causal():
    model, _ = load_pretrained(*TRANSLATOR)
    view = translator_view(model, get_task(TRANSLATOR[0]), TRANSLATOR_SENTENCE)
    check_causal(view)
    assert view.translation.startswith("Jane")


def test_your_transformers_decoder_is_exactly_causal_on_arabic(own_files):
    model, task, _ = load_model(own_files["transformer"])
    for pair in (task.probe, *task.valid[:3]):
        check_causal(translator_view(model, task, pair.source))


def test_a_decoder_without_the_mask_is_said_to_be_one():
    """The same translator with its mask switched off (a copy): weight above the diagonal, and the caption says so."""
    translator, _ = load_pretrained(*TRANSLATOR)
    cheat = copy.deepcopy(translator)
    cheat.config = replace(cheat.config, causal=False)
    view = translator_view(cheat, get_task(TRANSLATOR[0]), TRANSLATOR_SENTENCE)
    assert view.largest_future > 0 and not view.causal
    caption = translator_caption(view, 0)
    assert "trained without the causal mask" in caption and "exactly 0" not in caption


def test_the_page_shows_the_shipped_translators_map_beside_the_mask(at):
    assert SECTION in [h.value for h in at.header]
    assert not [r for r in at.radio if r.key == "masking.translator_use"]  # no own model: nothing to choose
    mask_map, weights_map = translator_maps(at)
    fed = weights_map["layout"]["yaxis"]["ticktext"]
    assert fed[:2] == ["&lt;s&gt;", "▁Jane"] and mask_map["layout"]["yaxis"]["ticktext"] == fed
    mask, weights = plotly_array(mask_map["data"][0]["z"]), plotly_array(weights_map["data"][0]["z"])
    assert mask.shape == weights.shape == (len(fed), len(fed))
    assert (weights[mask == 0] == 0).all() and (weights[mask == 1] > 0).any()
    assert [m.value for m in at.metric if m.label == LATER][-1] == "0.000"
    assert any(t.value.startswith("Its translation: Jane") for t in at.text)
    at.selectbox(key="masking.translator.toy.layer").set_value(2).run()
    assert not at.exception
    assert translator_maps(at, layer=2)
    before = translator_maps(at, layer=2)[1]["layout"]["yaxis"]["ticktext"]
    at.text_input(key="masking.translator.toy").set_value("Jane " * 60).run()  # too long: said, nothing changes
    assert any("more than 24 tokens" in w.value for w in at.warning)
    assert translator_maps(at, layer=2)[1]["layout"]["yaxis"]["ticktext"] == before


def test_your_transformer_is_offered_and_drawn_on_a_sentence_of_its_language(own_files):
    at = with_own_model(own_files["transformer"], PAGE)
    radio = at.radio(key="masking.translator_use")
    yours = [o for o in radio.options if o.startswith("yours, on `ar-en.tsv`")]
    assert yours and "the shipped pretrained one" in radio.options
    radio.set_value(yours[0]).run()
    assert not at.exception, at.exception
    mine = at.session_state["own_data.models"]["transformer"]
    key = f"masking.translator.own_data_{mine.task.fingerprint[:8]}"
    sentence = mine.task.probe.source
    assert at.text_input(key=key).value == sentence and any("\u0600" <= ch <= "\u06ff" for ch in sentence)
    view = translator_view(mine.model, mine.task, sentence)
    _, weights_map = translator_maps(at)
    assert weights_map["layout"]["yaxis"]["ticktext"] == [safe_label(t) for t in view.fed]  # its translation, fed
    assert [m.value for m in at.metric if m.label == LATER][-1] == "0.000"
    assert any(t.value == f"Its translation: {view.translation}" for t in at.text)
    assert any("unicode-bidi: plaintext" in h.proto.body for h in at.get("html"))


def test_a_gru_is_not_offered_here(own_files):
    at = with_own_model(own_files["gru-additive"], PAGE)
    assert not [r for r in at.radio if r.key == "masking.translator_use"]
    assert translator_maps(at)
