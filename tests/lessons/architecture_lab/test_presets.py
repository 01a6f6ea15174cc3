"""The architecture lab's presets: the Transformer preset is the course's TinyTransformer and the chain model's
default, and a preset's chains are named by its label."""

import pytest

from lessons.architecture_lab import presets, writing_chains
from minimodels.chains import ChainConfig
from minimodels.tasks import get_task


@pytest.fixture(scope="module")
def task():
    return get_task("reverse")


def test_the_transformer_preset_is_the_tiny_transformers_size(task):
    from minimodels.train import build_model

    preset = presets.PRESET_BY_KEY["transformer"]
    checked = writing_chains.check(preset.encoder, preset.decoder, task)
    reference = build_model("transformer", task)
    assert checked.parameters == writing_chains.parameter_count(reference)


def test_label_for_names_presets_and_your_chains():
    p = presets.PRESETS[1]
    assert presets.label_for(p.encoder, p.decoder) == p.label
    assert presets.label_for("ff", "dot_src_att") == "your chains"


def test_the_default_config_is_the_transformer_preset():
    assert ChainConfig().encoder == presets.PRESET_BY_KEY["transformer"].encoder
    assert ChainConfig().decoder == presets.PRESET_BY_KEY["transformer"].decoder
