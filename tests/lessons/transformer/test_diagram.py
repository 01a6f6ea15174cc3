"""Section 1's block diagram: the sentence's real shapes, the sublayers' formulas, typed text escaped."""

import pytest

from lessons.transformer import reading
from lessons.transformer.diagram import _sublayer, block_diagram, diagram_figure, maps_caption
from minimodels.transformer import TransformerConfig


def test_maps_caption_counts_the_config_s_maps_by_kind():
    caption = maps_caption(TransformerConfig(encoder_layers=1, decoder_layers=3, n_heads=2))
    assert caption.startswith(
        "14 attention maps in all for one sentence: 2 heads in each of 1 encoder self-attention, "
    )
    assert "3 masked self-attention and 3 encoder–decoder attention sublayers" in caption
    assert caption.endswith("Section 2 shows every one.")


def test_block_diagram_has_the_real_shapes_and_escapes_the_text(walked):
    diagram = block_diagram(walked)
    text = diagram.text()
    S, T, c = len(walked.source), len(walked.output), walked.config
    assert f"{c.n_heads} maps of {S} × {S}" in text
    assert f"{c.n_heads} maps of {T} × {T} (future masked)" in text
    assert f"{c.n_heads} maps of {T} × {S}" in text
    assert f"{T} × {c.target_vocab_size}" in text
    assert sum(1 for b in diagram.boxes if "encoder–decoder attention" in b.lines[0]) == c.decoder_layers
    memory = [a for a in diagram.arrows if a[2].startswith("keys, values")]
    assert [(a[0], a[1]) for a in memory] == [("e_norm", "d0_cross"), ("e_norm", "d1_cross")]
    hostile = reading.Walk("<b>hi</b> " + "x" * 40, walked.translation, walked.maps, walked.config)
    fig = diagram_figure(block_diagram(hostile))
    source = next(a.text for a in fig.layout.annotations if a.text.startswith("source:"))
    assert source.startswith("source: “&lt;b&gt;hi&lt;/b&gt; xxx") and "…”" in source
    assert len(fig.layout.shapes) == len(diagram.boxes) + 2  # every box, and the two stacks' frames
    assert not fig.data


@pytest.mark.parametrize(
    ("flags", "formula"),
    [
        ({}, "x + FFN(LN(x))"),
        ({"norm_first": False}, "LN(x + FFN(x))"),
        ({"residual": False}, "FFN(LN(x))"),
        ({"layer_norm": False}, "x + FFN(x)"),
    ],
)
def test_diagram_formula_follows_the_config(flags, formula):
    assert _sublayer(TransformerConfig(**flags), "FFN") == formula
