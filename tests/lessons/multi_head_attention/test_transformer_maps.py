"""A trained Transformer read with every map kept: sublayers in reading order, the shipped model on a typed
sentence, each head's gold alignment."""

import numpy as np
import pytest

from lessons.common.grids import head_grid
from lessons.common.pretrained import load_pretrained
from lessons.multi_head_attention import every_head, head_counts_runs, transformer_maps
from minimodels.tasks import get_task
from minimodels.train import alignment_accuracy


def test_sublayers_are_ordered_and_filtered():
    names = [
        "decoder.1.cross",
        "encoder.1.self",
        "decoder.0.self",
        "decoder.1.self",
        "decoder.0.cross",
        "encoder.0.self",
    ]
    assert transformer_maps.sublayers(names) == [
        "encoder.0.self",
        "encoder.1.self",
        "decoder.0.self",
        "decoder.0.cross",
        "decoder.1.self",
        "decoder.1.cross",
    ]
    assert transformer_maps.sublayers(names, "cross") == ["decoder.0.cross", "decoder.1.cross"]
    assert transformer_maps.sublayers(names, "decoder") == ["decoder.0.self", "decoder.1.self"]
    assert transformer_maps.sublayer_label("decoder.1.self") == "decoder layer 2 · masked self-attention"
    with pytest.raises(ValueError):
        transformer_maps.sublayers(names, "bogus")


@pytest.fixture(scope="module")
def shipped():
    model, _ = load_pretrained(head_counts_runs.RESULT_TASK, transformer_maps.MODEL)
    return model, get_task(head_counts_runs.RESULT_TASK)


def test_a_trained_model_reads_a_typed_sentence_with_every_head(shipped):
    model, task = shipped
    reading = transformer_maps.read_sentence(model, task, every_head.default_text(head_counts_runs.RESULT_TASK))
    S, T, h = len(reading.source), len(reading.target), model.config.n_heads
    assert reading.translation.text == "Jane visite l'Afrique en septembre"
    assert {name: m.shape for name, m in reading.maps.items()} == {
        **{f"encoder.{i}.self": (h, S, S) for i in range(2)},
        **{f"decoder.{i}.self": (h, T, T) for i in range(2)},
        **{f"decoder.{i}.cross": (h, T, S) for i in range(2)},
    }
    np.testing.assert_allclose(reading.maps["decoder.1.cross"].sum(-1), 1.0, atol=1e-5)
    assert np.triu(reading.maps["decoder.0.self"][0], k=1).max() == 0.0  # never the future
    rows = every_head.grid_rows(reading, transformer_maps.sublayers(list(reading.maps)))
    assert len(head_grid(rows).data) == 6 * h
    assert isinstance(transformer_maps.read_sentence(model, task, "   "), str)
    odd = transformer_maps.read_sentence(model, task, "<script>x</script> 🙂 שלום")
    assert not isinstance(odd, str) and odd.translation.message


def test_head_alignment_is_per_head_then_their_mean(shipped):
    model, task = shipped
    per_head = transformer_maps.head_alignment(model, task)
    assert list(per_head) == ["decoder.0.cross", "decoder.1.cross"]
    assert all(len(v) == model.config.n_heads + 1 and all(0 <= a <= 1 for a in v) for v in per_head.values())
    reference = alignment_accuracy(model, task, "test")
    assert per_head["decoder.1.cross"][-1] == reference["accuracy"]
    assert per_head["decoder.0.cross"][2] == reference["maps"]["decoder.0.cross.h2"]
