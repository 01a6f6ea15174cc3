"""The architecture lab's drawing: parsed names only, a repeat drawn once, one arrow per connection."""

from lessons.architecture_lab import architecture_drawing
from tests.helpers import svg_parts


def drawing(encoder, decoder) -> tuple[list[str], int]:
    """The texts and the number of arrows of the architecture's drawing."""
    return svg_parts(architecture_drawing.architecture_svg(encoder, decoder))


def test_the_drawing_shows_parsed_names_only_and_repeats_once():
    from minimodels.chains import parse_chain

    labels, arrows = drawing(parse_chain("repeat(12,res(cnn(5)))", "encoder"), parse_chain("dot_src_att", "decoder"))
    assert labels.count("cnn(5)") == 1 and "× 12" in labels and labels.count("+") == 1
    assert arrows == 6  # embedding→cnn, cnn→⊕, skip, embedding→att, att→scores, encoder→attention
