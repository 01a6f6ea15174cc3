"""Section 1's block diagram: the sentence's real shapes, the sublayers' formulas, typed text escaped."""

import html

import pytest

from lessons.common.grids import NARROW
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


def test_on_a_phone_the_decoder_stands_on_the_encoder_in_one_column_as_wide_as_the_screen(walked):
    """At 390 px the two columns side by side scrolled sideways and showed the encoder beside a blank as tall as
    the decoder's extra rows: on a phone one column, the encoder's output taken up a rail to each encoder–decoder
    attention, whose box says what it takes (the rail has no room for the words)."""
    diagram = block_diagram(walked)
    desktop = diagram_figure(diagram)
    token = NARROW.set(True)
    try:
        phone = diagram_figure(diagram)
    finally:
        NARROW.reset(token)
    assert desktop.layout.width and phone.layout.width is None  # no box of a least width: nothing scrolls
    boxes = [s for s in phone.layout.shapes if s.type == "rect" and s.fillcolor != "rgba(0,0,0,0)"]
    assert len(boxes) == len(diagram.boxes) and len({(s.x0, s.x1) for s in boxes}) == 1  # one column
    tops = {stack: [s.y1 for s, b in zip(boxes, diagram.boxes, strict=True) if b.column == stack] for stack in (0, 1)}
    assert min(tops[1]) > max(tops[0]) + 1  # the decoder's boxes above the encoder's, a row apart
    texts = [html.unescape(a.text) for a in phone.layout.annotations if a.text]  # as drawn: escaped, typed text
    crosses = [t for t in texts if "encoder–decoder attention" in t]
    S, d = len(walked.source), walked.config.d_model
    assert len(crosses) == walked.config.decoder_layers
    assert all(t.endswith(f"keys, values {S} × {d}: the encoder's output") for t in crosses)
    rails = [s for s in phone.layout.shapes if s.type == "path"]
    assert len(rails) == walked.config.decoder_layers
    desktop_lines = {html.unescape(line) for a in desktop.layout.annotations if a.text for line in a.text.split("<br>")}
    phone_lines = {html.unescape(line) for a in phone.layout.annotations if a.text for line in a.text.split("<br>")}
    assert desktop_lines - phone_lines == {f"keys, values {S} × {d}"}  # every other line drawn on the phone too
