"""Q/K/V lesson, section 6: Q, K, V and softmax(QKᵀ/√d_k) from a trained Transformer's own W^Q, W^K, W^V, the shipped
one or the student's own (from the "Your own data" page), on a sentence of the model's language; and the point of
the section, checked: the map we compute equals the one the model's own layer returns, every layer and head."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch
from streamlit.testing.v1 import AppTest

from lessons.common.charts import safe_label
from lessons.common.pretrained import load_pretrained
from lessons.queries_keys_values import trained_weights
from minimodels.own_data import PairsTask, build_own_model, load_model, own_data_train_config, read_example, save_model
from minimodels.tasks import get_task
from minimodels.tokenizers import BOS_ID, EOS_ID
from minimodels.train import train
from tests.helpers import open_page, plotly_specs

PAGE = "pages/queries_keys_values.py"
SECTION = "6 · The same product with a trained model's W^Q, W^K, W^V"
MAP_TITLE = "softmax(QKᵀ/√d_k), by hand"


def train_own(architectures=("transformer", "gru-additive"), steps: int = 30) -> dict[str, bytes]:
    """Tiny models trained on Arabic -> English (the shipped set turned round): model files as the page keeps them."""
    task = PairsTask.from_pairs([(t, s) for s, t in read_example("en-ar").pairs], name="ar-en.tsv")
    task.source_name = "ar-en.tsv"
    files = {}
    for architecture in architectures:
        model = build_own_model(architecture, task, seed=0)
        config = own_data_train_config(architecture, max_steps=steps, max_seconds=20, report_every=10, eval_size=20)
        result = train(model, task, config)
        files[architecture] = save_model(model.eval(), task, curve=result.history, config=config)
    return files


@pytest.fixture(scope="module")
def own_files() -> dict[str, bytes]:
    return train_own()


def with_own_model(data: bytes, page: str) -> AppTest:
    """A session that loaded ``data`` on the Your own data page (as a student does), then opened ``page``."""
    at = open_page("pages/own_data.py")
    at.file_uploader(key="own_data.model_upload").set_value(("ar-en.safetensors", data, "application/octet")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def trained_map(at: AppTest) -> dict:
    return next(s for s in plotly_specs(at) if (s["layout"].get("title") or {}).get("text") == MAP_TITLE)


def model_map(model, task, text: str, layer: int, head: int) -> torch.Tensor:
    """The model's own encoder map for ``text``, from a whole forward pass (not the lesson's code)."""
    encoded = task.encode_source(text)
    source = torch.tensor([[*encoded.ids, EOS_ID]])
    with torch.inference_mode():
        out = model(source, torch.tensor([source.size(1)]), torch.tensor([[BOS_ID]]))
    return out.attention[f"encoder.{layer}.self"][0, head]


def check_every_head(model, task, text: str) -> None:
    heads = set()
    for layer in range(len(model.encoder_layers)):
        for head in range(model.config.n_heads):
            view = trained_weights.trained_attention(model, task, text, layer, head)
            d_k = model.config.d_model // model.config.n_heads
            assert view.Q.shape == view.K.shape == view.V.shape == (len(view.tokens), d_k)
            by_hand = torch.softmax(view.Q @ view.K.T / math.sqrt(view.d_k), dim=-1)  # from the Q and K it shows
            torch.testing.assert_close(view.weights, by_hand)
            torch.testing.assert_close(view.weights, model_map(model, task, text, layer, head), atol=1e-6, rtol=0)
            assert view.difference <= 1e-6
            heads.add(tuple(view.weights.flatten().tolist()))
    assert len(heads) == len(model.encoder_layers) * model.config.n_heads  # each head its own map: not one copied


def test_our_map_is_the_shipped_transformers_own_in_every_layer_and_head():
    model, _ = load_pretrained(*trained_weights.TRAINED_MODEL)
    check_every_head(model, get_task(trained_weights.TRAINED_MODEL[0]), trained_weights.TRAINED_SENTENCE)


def test_our_map_is_your_transformers_own_on_arabic(own_files):
    model, task, _ = load_model(own_files["transformer"])
    check_every_head(model, task, task.probe.source)


def test_the_check_would_see_a_wrong_x():
    """Without the layer's normalisation X is not what W^Q, W^K multiply, and the map is not the model's: the
    comparison the page states can fail."""
    model, _ = load_pretrained(*trained_weights.TRAINED_MODEL)
    task = get_task(trained_weights.TRAINED_MODEL[0])
    view = trained_weights.trained_attention(model, task, trained_weights.TRAINED_SENTENCE, 0, 0)
    mha = model.encoder_layers[0].self_attention
    with torch.inference_mode():
        raw = model._embed(
            torch.tensor([[*task.encode_source(trained_weights.TRAINED_SENTENCE).ids, EOS_ID]]),
            model.source_embedding,
            model.source_position,
        )[0]
        Q, K = (trained_weights.project(raw, linear, 0, mha.d_k) for linear in (mha.W_q, mha.W_k))
        wrong = torch.softmax(Q @ K.T / math.sqrt(mha.d_k), dim=-1)
    assert float((wrong - view.model_weights).abs().max()) > 1e-3
    assert "different" in trained_weights.trained_sentence(replace(view, weights=wrong))


def test_the_page_draws_the_shipped_transformer_by_default(at):
    assert SECTION in [h.value for h in at.header]
    assert not [r for r in at.radio if r.key == "queries_keys_values.trained_use"]  # no own model: nothing to choose
    task = get_task(trained_weights.TRAINED_MODEL[0])
    pieces = [*task.source_tokenizer.pieces(trained_weights.TRAINED_SENTENCE), "</s>"]
    assert trained_map(at)["layout"]["xaxis"]["ticktext"] == [safe_label(p) for p in pieces]
    assert any(m.value.startswith("Q, K and V: 6 rows") and "the same map" in m.value for m in at.markdown)
    key = "queries_keys_values.trained.toy"
    at.selectbox(key=f"{key}.layer").set_value(2).run()
    at.selectbox(key=f"{key}.head").set_value(3).run()
    assert not at.exception
    assert any("encoder layer 2 returns for head 3" in m.value for m in at.markdown)
    at.text_input(key=key).set_value("<b>Jane</b> sees it").run()  # typed markup stays text
    assert not at.exception
    assert "&lt;unk&gt;" in trained_map(at)["layout"]["xaxis"]["ticktext"]  # the model has no "<": said, escaped
    assert any("unknown to this model" in m.value for m in at.markdown)
    assert not [h for h in at.get("html") if "<b>Jane" in h.proto.body]
    drawn = trained_map(at)["layout"]["xaxis"]["ticktext"]
    at.text_input(key=key).set_value("Jane " * 60).run()  # longer than the model reads: said, nothing changes
    assert any("more than 24 tokens" in w.value for w in at.warning)
    assert trained_map(at)["layout"]["xaxis"]["ticktext"] == drawn


def test_your_transformer_is_offered_and_drawn_on_a_sentence_of_its_language(own_files):
    at = with_own_model(own_files["transformer"], PAGE)
    radio = at.radio(key="queries_keys_values.trained_use")
    yours = [o for o in radio.options if o.startswith("yours, on `ar-en.tsv`")]
    assert yours and "the shipped pretrained one" in radio.options  # beside the shipped one
    radio.set_value(yours[0]).run()
    assert not at.exception, at.exception
    assert any(c.value.startswith("Your model, loaded from `ar-en.safetensors`") for c in at.caption)
    task = at.session_state["own_data.models"]["transformer"].task
    key = f"queries_keys_values.trained.own_data_{task.fingerprint[:8]}"
    sentence = task.probe.source
    assert at.text_input(key=key).value == sentence and any("\u0600" <= ch <= "\u06ff" for ch in sentence)
    pieces = [*task.source_tokenizer.pieces(sentence), "</s>"]
    assert trained_map(at)["layout"]["xaxis"]["ticktext"] == [safe_label(p) for p in pieces]  # its own pieces
    assert any("unicode-bidi: plaintext" in h.proto.body for h in at.get("html"))  # right to left where it is
    other = task.valid[-1].source
    at.text_input(key=key).set_value(other).run()
    pieces = [*task.source_tokenizer.pieces(other), "</s>"]
    assert trained_map(at)["layout"]["xaxis"]["ticktext"] == [safe_label(p) for p in pieces]
    assert any(m.value.startswith(f"Q, K and V: {len(pieces)} rows") for m in at.markdown)


def test_a_gru_is_not_offered_here(own_files):
    at = with_own_model(own_files["gru-additive"], PAGE)
    assert not [r for r in at.radio if r.key == "queries_keys_values.trained_use"]  # only the shipped Transformer
    assert trained_map(at)
