"""Section 1: the student's string as the model reads it, the context's fixed size, the squeeze and its figure."""

import numpy as np
import pytest

from lessons.common.grids import NARROW
from lessons.seq2seq_bottleneck import experiment, one_vector


@pytest.mark.parametrize("bad", ["", "   ", "\n\t", None, 42, "🙂🙂🙂", "!!!"])
def test_unusable_text_is_refused_with_a_message(bad):
    parsed = one_vector.parse_text(bad)
    assert parsed.text == "" and parsed.tokens == () and parsed.message


def test_text_is_lower_cased_cut_and_unknown_characters_marked():
    assert one_vector.parse_text("Jane  Visits\nAfrica") == one_vector.ParsedText(
        "jane visits africa", tuple("jane visits africa"), None
    )
    long = one_vector.parse_text("jane visits africa in september")
    assert long.text == "jane visits africa" and "first 18" in long.message
    html = one_vector.parse_text("<b>hi</b>")
    assert html.tokens == ("<unk>", "b", "<unk>", "h", "i", "<unk>", "<unk>", "b", "<unk>")
    assert "5 characters" in html.message and "<b>" not in html.message
    assert one_vector.parse_text("x" * 100_000).text == "x" * experiment.MAX_LEN


def test_parsed_text_says_what_is_refused_and_what_was_changed():
    refused = one_vector.parse_text("   ")
    assert refused.error == refused.message and refused.note is None
    changed = one_vector.parse_text("Jane 9")
    assert changed.error is None and changed.note == changed.message and "<unk>" in changed.note
    clean = one_vector.parse_text(one_vector.DEFAULT_TEXT)
    assert clean.error is None and clean.note is None and clean.text == one_vector.DEFAULT_TEXT


def test_the_context_has_d_numbers_whatever_the_length():
    model = experiment.build("gru-none", 32).eval()
    short, long = one_vector.squeeze(model, "ab"), one_vector.squeeze(model, "jane visits africa")
    assert short.context.shape == long.context.shape == (32,)
    assert short.states.shape == (3, 32) and long.states.shape == (19, 32)
    assert long.tokens[-1] == "</s>" and long.tokens[:4] == tuple("jane")
    np.testing.assert_allclose(long.context, long.states[-1])  # c = h_S
    assert long.sensitivity.shape == (18,) and (long.sensitivity >= 0).all()


def test_the_states_and_c_share_one_pair_of_axes_and_each_character_gets_a_bar_beside_its_row():
    result = one_vector.squeeze(experiment.build("gru-none", 16).eval(), "ab a")
    fig = one_vector.squeeze_figure(result)
    states, context, bars = fig.data
    np.testing.assert_array_equal(states.z, result.states)
    np.testing.assert_array_equal(context.z[0], result.context)
    layout = fig.layout.to_plotly_json()
    assert {states.xaxis, context.xaxis} == {None} and "xaxis3" not in layout and "yaxis2" not in layout
    assert layout["yaxis"]["ticktext"] == ["h1 · a", "h2 · b", "h3 · ␣", "h4 · a", "h5 · &lt;/s&gt;", "c = h5"]
    assert layout["yaxis"]["tickvals"] == [0, 1, 2, 3, 4, 6]  # c under a blank row
    assert layout["coloraxis"]["cmax"] == -layout["coloraxis"]["cmin"] == float(np.abs(result.states).max())
    assert (bars.type, bars.xaxis, bars.yaxis) == ("bar", "x2", "y")  # the states' rows, its own x axis
    assert list(bars.y) == [0, 1, 2, 3]  # beside h1 … h4: the characters, not the end mark
    np.testing.assert_array_equal(bars.x, result.sensitivity)
    assert list(bars.customdata) == ["h1 · a", "h2 · b", "h3 · ␣", "h4 · a"]  # named on hover
    assert layout["xaxis"]["domain"][1] < layout["xaxis2"]["domain"][0]  # side by side, not overlapping


def test_on_a_phone_the_bars_axis_title_is_the_formula_alone():
    """The bars' panel is about a hundred pixels wide on a phone: its two-line title ran over the states' axis
    title there (the browser test of every chart's text boxes found it); the caption says what the bars measure."""
    result = one_vector.squeeze(experiment.build("gru-none", 16).eval(), "ab a")
    wide = one_vector.squeeze_figure(result).layout.xaxis2.title.text
    token = NARROW.set(True)
    try:
        phone = one_vector.squeeze_figure(result).layout.xaxis2.title.text
    finally:
        NARROW.reset(token)
    assert "<br>" in wide and "replaced" in wide
    assert phone == "‖c′ − c‖ / ‖c‖"
    assert "‖c′ − c‖ / ‖c‖: how far c moves when that character alone is replaced" in one_vector.squeeze_caption(True)


def test_an_untrained_encoder_forgets_the_start_of_a_long_string():
    model = experiment.build("gru-none", 32).eval()
    s = one_vector.squeeze(model, "jane visits africa").sensitivity
    assert s[-1] > 10 * s[0]
    assert s[-3:].mean() > s[:3].mean()


def test_squeeze_random_is_the_seeded_untrained_encoder_built_once():
    encoder = one_vector.random_encoder(16)
    assert encoder is one_vector.random_encoder(16) and not encoder.training
    result = one_vector.squeeze_random("jane", 16)
    again = one_vector.squeeze(experiment.build("gru-none", 16).eval(), "jane")
    np.testing.assert_allclose(result.context, again.context, rtol=1e-6)
    assert result.context.shape == (16,)


def test_the_squeeze_caption_says_whose_weights_they_are():
    trained, random = one_vector.squeeze_caption(True), one_vector.squeeze_caption(False)
    assert trained.startswith("The bars beside the states") and random.startswith("The bars beside the states")
    assert "your trained weights" in trained and "random (seeded), not trained" in random
