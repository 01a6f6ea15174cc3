"""The "Your own data" page under AppTest with the crafted model files (``tests/fixtures/hostile_models/``): every
refused file gets one sentence and changes nothing (the student's model, its download and the upload control stay),
a file's name is shown as text, and a model that never ends is decoded within the page's bounds."""

from __future__ import annotations

import json
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lessons.bahdanau_attention import beam_search
from lessons.transformer import decoding
from minimodels.decode import MAX_STEPS
from minimodels.own_data import LIMITS
from tests.helpers import open_page

PAGE = "pages/own_data.py"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hostile_models"
INDEX = json.loads((FIXTURES / "index.json").read_text())
UPLOAD = "own_data.model_upload"


def upload(at: AppTest, name: str, data: bytes | None = None) -> AppTest:
    data = (FIXTURES / name).read_bytes() if data is None else data
    at.file_uploader(key=UPLOAD).set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, at.exception
    return at


def downloads(at: AppTest) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def test_every_refused_file_is_one_sentence_and_the_students_model_stays():
    at = upload(open_page(PAGE), "good-transformer.safetensors")
    assert not at.error and downloads(at) == ["Download your tiny Transformer (0.0 MB)"]
    before = at.session_state["own_data.models"]["transformer"]
    refused = [name for name, entry in INDEX.items() if entry["expect"] != "loads"]
    for name in refused:
        upload(at, name)
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and INDEX[name]["expect"] in errors[0], (name, errors)
        assert errors[0].endswith("Nothing was changed.") and "Traceback" not in errors[0]
        assert at.session_state["own_data.models"] == {"transformer": before}, name  # the model stays, alone
        assert downloads(at) == ["Download your tiny Transformer (0.0 MB)"], name  # and its download
        assert [u.proto.label for u in at.get("file_uploader")][-1].startswith("Load a model file"), name
        assert at.radio(key="own_data.shown").value == "transformer"  # section 5 still shows it
    upload(at, "good-gru.safetensors")  # and the page still loads a good file afterwards
    assert not at.error and set(at.session_state["own_data.models"]) == {"transformer", "gru-additive"}


def test_a_files_name_is_shown_as_text():
    name = "**bold** [link](javascript:alert(1)) $x$ <b>b</b>.safetensors"
    at = upload(open_page(PAGE), name, (FIXTURES / "good-gru.safetensors").read_bytes())
    shown = [s.value for s in at.success] + [c.value for c in at.caption]
    assert any(f"loaded from `{name}`" in text for text in shown), shown  # a code span: verbatim, never formatted
    assert not [h for h in at.get("html") if "<b>b</b>" in h.proto.body]


def test_a_model_that_never_ends_is_decoded_within_the_pages_bounds():
    at = upload(open_page(PAGE), "never-ends.safetensors")
    start = time.monotonic()
    at.text_input(key=next(t.key for t in at.text_input if t.key.startswith("own_data.sentence."))).set_value(
        "the red cat"
    ).run()
    assert time.monotonic() - start < 30 and not at.exception
    translation = next(t.value for t in at.text if t.value.startswith("Its translation: "))
    assert 0 < len(translation.split()) <= MAX_STEPS


def test_the_page_states_the_model_limits_and_offers_no_beam_wider_than_they_assume():
    at = open_page(PAGE)
    assert any(LIMITS.describe_model() in m.value for m in at.markdown)
    assert max(decoding.MAX_BEAM, beam_search.MAX_BEAM) <= LIMITS.beam_width
