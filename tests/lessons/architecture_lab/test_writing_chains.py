"""The architecture lab's chains (section 1): every preset checked, built and counted, its untrained maps
and its drawing; a bad chain a message with its side and place; a layer's parameters the built module's."""

import numpy as np
import pytest
import torch

from lessons.architecture_lab import architecture_drawing, attention_maps, layer_reference, presets, writing_chains
from minimodels.chains import walk
from minimodels.chains.language import format_chain
from minimodels.tasks import get_task
from tests.helpers import svg_parts


def drawing(encoder, decoder) -> tuple[list[str], int]:
    """The texts and the number of arrows of the architecture's drawing."""
    return svg_parts(architecture_drawing.architecture_svg(encoder, decoder))


@pytest.fixture(scope="module")
def task():
    return get_task("reverse")


@pytest.mark.parametrize("preset", presets.PRESETS, ids=lambda p: p.key)
def test_every_preset_builds_with_the_counted_parameters_and_draws_every_map(preset, task):
    checked = writing_chains.check(preset.encoder, preset.decoder, task)
    assert checked.error is None
    model = writing_chains.build(checked.config, seed=0)
    assert writing_chains.parameter_count(model) == checked.parameters
    views = writing_chains.untrained_views(model, task)
    assert len(views) == writing_chains.attention_layers(checked.encoder + checked.decoder)
    source, target = attention_maps.probe_tokens(task)
    for view in views:
        assert view.weights.shape == (len(view.row_tokens), len(view.column_tokens))
        assert np.allclose(view.weights.sum(1), 1.0, atol=1e-5)
        assert view.column_tokens == tuple(
            target if view.name.startswith("decoder") and "self" in view.name else source
        )
    figure = attention_maps.attention_figure(views)
    assert [t.type for t in figure.data] == ["heatmap"] * min(len(views), attention_maps.MAX_MAPS)
    labels, _ = drawing(checked.encoder, checked.decoder)
    drawn_once = sum(1 for layer in walk(checked.decoder) if "src_att" in layer.name)  # repeats drawn once
    assert sum("_src_att" in label for label in labels) == drawn_once
    residuals = sum(format_chain(chain).count("res(") for chain in (checked.encoder, checked.decoder))
    assert labels.count("+") == residuals  # one ⊕ per residual block


def test_a_bad_chain_is_a_message_with_its_side_and_place_and_nothing_is_built(task):
    checked = writing_chains.check("pos->ff", "pos->repeat(2,ff", task)
    assert checked.config is None and checked.parameters is None
    assert checked.error == "decoder: expected ')' to close the repeat, found the end of the text at column 17"
    assert (checked.side, checked.line, checked.column) == ("decoder", 1, 17)
    assert writing_chains.caret("pos->repeat(2,ff", 1, 17) == "pos->repeat(2,ff\n                ^"
    huge = writing_chains.check("repeat(12,ff->ff->ff->ff->ff->ff)", "dot_src_att", task)
    assert "too many layers at column 1: 72 once its repeats are unrolled" in huge.error and huge.side == "encoder"
    no_source = writing_chains.check("ff", "rnn->ff", task)
    assert no_source.error.startswith("decoder: it never reads the source") and no_source.line is None


def test_layer_parameters_are_the_built_modules():
    from minimodels.attention import MultiHeadAttention

    assert writing_chains.layer_parameters("mh_dot_self_att") == writing_chains.parameter_count(
        MultiHeadAttention(64, 4)
    )
    assert writing_chains.layer_parameters("rnn") == writing_chains.parameter_count(torch.nn.GRU(64, 64))
    rows = {r["write"]: r for r in layer_reference.layer_table()}
    assert rows["birnn"]["allowed in"] == "encoder" and rows["dot_src_att"]["allowed in"] == "decoder"
    birnn = writing_chains.parameter_count(torch.nn.GRU(64, 32, bidirectional=True))
    assert rows["birnn"]["parameters (d = 64)"] == f"{birnn:,}"
