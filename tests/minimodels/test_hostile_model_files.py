"""Crafted model files (``tests/fixtures/hostile_models/``, written by ``tests/make_hostile_models.py``): each is
refused with its one sentence before anything is built, or loads and decodes within the stated bounds."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
import torch

from minimodels import decode
from minimodels.decode import MAX_STEPS, translate
from minimodels.own_data import LIMITS, ArtifactError, PairsTask, artifact, load_model, read_example, read_pairs
from minimodels.own_data.record import CONFIG_FIELDS, check_cost, memory_needed
from minimodels.seq2seq import Seq2SeqConfig
from minimodels.train.models import model_config, model_from_config
from minimodels.transformer import TransformerConfig
from tests import make_hostile_models

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hostile_models"
INDEX = json.loads((FIXTURES / "index.json").read_text())
REFUSED = [name for name, entry in INDEX.items() if entry["expect"] != "loads"]


def test_the_fixtures_are_what_the_script_writes():
    """The committed files are what the generator writes with today's code (when not: run it again,
    ``python -m tests.make_hostile_models``)."""
    gru, transformer = (make_hostile_models.good_file(a) for a in ("gru-additive", "transformer"))
    made = make_hostile_models.cases(gru, transformer)
    assert sorted(made) == sorted(INDEX)
    for name, (data, what, expect) in made.items():
        assert (FIXTURES / name).read_bytes() == data, name
        assert INDEX[name]["what"] == what and INDEX[name]["expect"] == expect


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """The device of every model the loader builds: "meta" (shapes only) or a real one."""
    made: list[str] = []

    def spy(cls):
        def build(config):
            made.append(torch.empty(0).device.type)
            return cls(config)

        return build

    for kind, cls in dict(artifact.MODELS).items():
        monkeypatch.setitem(artifact.MODELS, kind, spy(cls))
    return made


@pytest.mark.parametrize("name", REFUSED)
def test_a_crafted_file_gets_one_sentence_and_nothing_is_built(name, builds):
    expected = INDEX[name]["expect"]
    with pytest.raises(ArtifactError) as caught:
        load_model((FIXTURES / name).read_bytes())
    message = str(caught.value)
    assert expected in message, message
    assert message.endswith(".") and "\n" not in message and "Traceback" not in message and len(message) < 400
    assert [device for device in builds if device != "meta"] == []  # no weight was made


@pytest.mark.parametrize("name", [name for name in INDEX if name not in REFUSED])
def test_a_good_file_loads_and_is_built_once(name, builds):
    model, task, meta = load_model((FIXTURES / name).read_bytes())
    assert builds == ["meta", "cpu"] and not model.training
    assert meta["task"]["max_target_len"] == task.max_target_len


def test_every_setting_of_both_models_has_a_stated_limit():
    fields = {f.name for cls in (Seq2SeqConfig, TransformerConfig) for f in dataclasses.fields(cls)}
    assert fields == set(CONFIG_FIELDS)
    for _label, kind, bound in CONFIG_FIELDS.values():
        assert kind not in ("int", "layers") or hasattr(LIMITS, bound)
    assert LIMITS.max_positions >= 2 * LIMITS.max_sentence + 2 and 2 * LIMITS.max_sentence + 1 <= MAX_STEPS
    assert "million weights" in LIMITS.describe_model() and f"{MAX_STEPS:,} steps" in LIMITS.describe_model()


@pytest.mark.parametrize("example", ["en-fr", "en-ar", "en-zel"])
@pytest.mark.parametrize("architecture", ["gru-additive", "transformer"])
def test_what_the_page_trains_is_well_within_the_bounds(example, architecture):
    """The course's own models on its example sets cost a tenth of the bounds or less."""
    task = PairsTask.from_pairs(read_example(example))
    config = dataclasses.asdict(model_config(architecture, task))
    with torch.device("meta"):
        model = model_from_config(model_config(architecture, task))
    parameters = sum(p.numel() for p in model.parameters())
    buffers = sum(b.numel() for b in model.buffers())
    lengths = {"max_source_len": task.max_source_len, "max_target_len": task.max_target_len}
    memory = memory_needed(config, model.kind, parameters, buffers, lengths)
    check_cost(parameters, memory)
    assert parameters < LIMITS.max_parameters / 4 and memory < LIMITS.max_memory_bytes / 4


def test_a_model_that_never_ends_is_decoded_within_its_steps_and_seconds(monkeypatch):
    model, task, _meta = load_model((FIXTURES / "never-ends.safetensors").read_bytes())
    assert task.max_target_len == 512
    for method in ("greedy", "beam"):
        result = translate(model, task, "the red cat", method=method, width=8)
        assert len(result.target_pieces) == MAX_STEPS and "</s>" not in result.target_pieces
    decoded = decode.greedy(model, torch.tensor([[5, 6, 2]]), torch.tensor([3]), max_len=10**6)
    assert decoded.tokens.size(1) == MAX_STEPS  # any caller's max_len is cut to the bound

    slow_step = model.step

    def slow(*args, **kwargs):  # a busy server: each step takes 20 ms
        time.sleep(0.02)
        return slow_step(*args, **kwargs)

    monkeypatch.setattr(model, "step", slow)
    for method in ("greedy", "beam"):
        start = time.monotonic()
        result = translate(model, task, "the red cat", method=method, width=8, max_seconds=0.5)
        assert time.monotonic() - start < 1.5
        assert 0 < len(result.target_pieces) < MAX_STEPS
        assert "decoded for 0.5 s at most" in result.message


def test_one_nul_byte_skips_its_line_and_a_binary_file_is_refused_whole():
    text = "the dog\tle chien\nthe c\x00at\tle chat\nthe owl\tle hibou\n"
    pairs = read_pairs(text.encode())
    assert pairs.pairs == [("the dog", "le chien"), ("the owl", "le hibou")]
    assert pairs.skipped == [(2, "control character: U+0000 is not text")]
    with pytest.raises(ValueError, match="binary file"):
        read_pairs("the dog\tle chien\n".encode("utf-16-le"))  # UTF-16 without its mark: half its bytes are NUL
    with pytest.raises(ValueError, match="binary file"):
        read_pairs(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ValueError, match="No usable sentence pair.*U\\+0000"):
        read_pairs(b"the source with a stray\x00\tthe target\n")
