"""Section 2, every head of a trained model: the grid, head statistics, the notes on whether heads divide the
work, the fixed captions and the label of the student's own model."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from lessons.common.grids import GridRow, head_grid
from lessons.multi_head_attention import every_head, head_counts, head_counts_runs, train_yourself, transformer_maps
from minimodels.decode import Translation


def test_head_grid_escapes_tokens_and_draws_one_map_per_head():
    weights = np.full((3, 2, 2), 0.5)
    rows = [
        GridRow("encoder layer 1 · self-attention", weights, ["<b>x</b>", "y"], ["<b>x</b>", "y"]),
        GridRow("one head", weights[:1], ["a", "b"], ["c", "d"]),
    ]
    fig = head_grid(rows, title="<i>t</i>")
    assert len(fig.data) == 4
    assert "&lt;b&gt;x&lt;/b&gt;" in fig.layout.xaxis.ticktext
    assert "<b>" not in json.dumps(fig.to_plotly_json()["layout"])
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["head 1", "head 2", "head 3", "head 1"]  # the second row has another head count
    assert fig.layout.yaxis.title.text == "encoder layer 1<br>self-attention"
    assert fig.layout.yaxis2.title.text == "one head"
    # the heads of a sublayer share its pair of axes (Plotly.js draws each pair: 24 maps on 48 axes are slow)
    assert [(t.xaxis, t.yaxis) for t in fig.data] == [("x", "y")] * 3 + [("x2", "y2")]
    assert not any(name.startswith(("xaxis3", "yaxis3")) for name in fig.layout.to_plotly_json())
    starts = [t.x[0] for t in fig.data[:3]]  # side by side, blank columns between
    assert starts[0] == 0 and starts[1] - starts[0] == starts[2] - starts[1] > 2
    assert list(fig.layout.xaxis.ticktext) == ["&lt;b&gt;x&lt;/b&gt;", "y"]  # under the first map: same tokens


def test_entropy_and_head_distance():
    np.testing.assert_allclose(every_head.entropy_bits(np.full(4, 0.25)), 2.0)
    np.testing.assert_allclose(every_head.entropy_bits(np.eye(3)), [0.0, 0.0, 0.0], atol=1e-9)
    eye, shifted = np.eye(3), np.roll(np.eye(3), 1, axis=1)
    assert every_head.head_distance(np.stack([eye, eye])) == 0.0
    assert every_head.head_distance(np.stack([eye, shifted])) == pytest.approx(1.0)
    assert every_head.head_distance(np.stack([eye, eye, shifted])) == pytest.approx(2 / 3)
    assert every_head.head_distance(eye[None]) == 0.0


def synthetic_reading() -> transformer_maps.Reading:
    S, T = 4, 3
    source, target = ["a", "b", "c", "</s>"], ["x", "y", "</s>"]
    previous = np.eye(S, k=-1)
    previous[0, 0] = 1.0
    maps = {
        "encoder.0.self": np.stack([np.eye(S), previous]),
        "decoder.0.self": np.stack([np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]] * 2),
        "decoder.0.cross": np.stack([np.eye(T, S, k=1), np.tile(np.eye(S)[-1], (T, 1))]),
    }
    return transformer_maps.Reading(Translation("x y", source, target, {}), maps)


def test_head_rows_say_where_each_head_looks():
    reading = synthetic_reading()
    encoder = every_head.head_rows(reading, "encoder.0.self")
    assert encoder[0]["most rows look at"] == "itself (4 of 4)"
    assert encoder[0]["entropy (bits)"] == 0.0 and encoder[0]["mean largest α"] == 1.0
    assert encoder[1]["most rows look at"] == "the previous token (3 of 4)"
    cross = every_head.head_rows(reading, "decoder.0.cross")
    assert cross[0]["most rows look at"] == "a source word (2 of 3)"
    assert cross[1]["most rows look at"] == "</s> (3 of 3)" and cross[1]["most-read token"] == "</s>"
    assert every_head.axes(reading, "decoder.0.self")[0] == ["<s>", "x", "y"]
    notes = every_head.specialisation_notes(reading, {"decoder.0.cross": [0.9, 0.2, 0.55]})
    assert "most in **encoder layer 1 · self-attention** (distance 0.75)" in notes[0]
    assert "least in **decoder layer 1 · masked self-attention** (0.00)" in notes[0]
    assert "20%–90%" in notes[1] and "head 1 best, head 2 worst" in notes[1]
    alike = every_head.specialisation_notes(reading, {"decoder.0.cross": [0.9, 0.88, 0.89]})
    assert "do not visibly divide the work" in alike[1]


def test_the_fixed_captions_say_what_the_figures_show():
    assert f"every {head_counts_runs.REPORT_EVERY} steps" in head_counts.RESULTS_CAPTION
    assert every_head.GRID_CAPTION.startswith("Encoder rows:")
    assert "upper triangle is empty" in every_head.GRID_CAPTION
    assert every_head.HEAD_ROWS_CAPTION.startswith("Per head of this sublayer")
    assert "8 heads" in every_head.HEADS_CAUTION


def test_yours_label_counts_the_students_heads():
    def own(heads):
        return SimpleNamespace(config=SimpleNamespace(n_heads=heads))

    assert every_head.yours_label(own(1)) == "yours, trained on this page (1 head)"
    assert every_head.yours_label(own(8)) == "yours, trained on this page (8 heads)"
    assert train_yourself.LIVE_BUDGET == 60.0
