"""Section 7: the live run's model and maps."""

from types import SimpleNamespace

import numpy as np
import pytest

from lessons.transformer import reading, train_it_yourself


def test_probe_panels_draw_the_last_decoder_layers_cross_attention():
    maps = {
        "decoder.1.cross": np.ones((4, 2, 3)) / 3,
        "decoder.0.cross": np.ones((4, 2, 3)) / 3,
        "encoder.0.self": np.ones((4, 3, 3)),
    }
    snapshot = SimpleNamespace(attention_maps=maps, source_tokens=["a", " ", "</s>"], target_tokens=["x", "</s>"])
    panels = train_it_yourself.probe_panels(snapshot)
    assert [p[0] for p in panels] == ["encoder–decoder, layer 2"]  # the last layer's, as the page draws it live
    assert panels[0][1] is maps["decoder.1.cross"] and panels[0][3] == ["a", reading.SPACE, "</s>"]


def test_new_training_builds_the_chosen_variant():
    model, train_fn = train_it_yourself.new_training("dates", "no residual", seed=1, budget_seconds=5)
    assert model.config.residual is False and model.config.layer_norm is True and callable(train_fn)
    again, _ = train_it_yourself.new_training("dates", "no residual", seed=1, budget_seconds=5)
    pairs = zip(model.state_dict().values(), again.state_dict().values(), strict=True)
    assert all(np.array_equal(a, b) for a, b in pairs)
    with pytest.raises(ValueError):
        train_it_yourself.new_training("dates", "no attention", seed=0, budget_seconds=5)
    config = train_it_yourself.live_config(30, seed=4)
    assert (config.max_seconds, config.seed, config.target_exact_match) == (30, 4, 0.98)
