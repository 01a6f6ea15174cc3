"""Section 3 of the attention bridge: nearest-neighbour rates, the sentence they answer and the projected M."""

import numpy as np
import pytest

from lessons.attention_bridge import meaning_space


def test_nearest_rates():
    # two meanings in two languages: each sentence nearest its translation
    X = np.array([[0.0, 0.0], [10.0, 0.0], [0.1, 0.0], [10.1, 0.0]])
    rates = meaning_space.nearest_rates(X, ["en", "en", "fr", "fr"], [0, 1, 0, 1])
    assert rates["translation"] == 1.0 and rates["same_language"] == 0.0
    assert rates["chance_translation"] == pytest.approx(1 / 3)
    by_language = meaning_space.nearest_rates(X, ["en", "fr", "en", "fr"], [0, 0, 1, 1])
    assert by_language["translation"] == 0.0 and by_language["same_language"] == 1.0


def space_with(raw, shifted, plane=None):
    plane = plane or raw
    rates = lambda t, s: {  # noqa: E731
        "translation": t,
        "same_language": s,
        "chance_translation": 0.02,
        "chance_same_language": 0.25,
    }
    return {
        "raw": rates(*raw),
        "shifted": rates(*shifted),
        "plane": rates(*plane),
        "langs": ["en"] * 8,
        "meanings": [0, 1] * 4,
        "explained": 0.3,
    }


def test_meaning_text_answers_from_the_rates():
    apart = meaning_space.meaning_text(space_with((0.01, 0.99), (0.14, 0.7)))
    assert "For **1%**" in apart and "do **not** cluster" in apart and "by **language**" in apart
    assert "7 times chance: some meaning is shared" in apart
    together = meaning_space.meaning_text(space_with((0.9, 0.05), (0.95, 0.0)))
    assert "translations **do** cluster" in together and "most of the difference" in together
    assert "four groups, one per language" in meaning_space.meaning_alt(space_with((0.0, 0.99), (0, 0)))
    assert "groups of translations" in meaning_space.meaning_alt(space_with((0.9, 0.0), (0, 0)))


def test_meaning_space_from_a_model(model, corpus):
    space = meaning_space.meaning_space(model, corpus, n=6)
    assert len(space["x"]) == len(space["langs"]) == 4 * 6 and 0 < space["explained"] <= 1
    assert space["raw"]["chance_translation"] == pytest.approx(3 / 23)
    for by in ("language", "sentence"):
        figure = meaning_space.meaning_figure(space, by).to_dict()
        points = sum(len([v for v in t["x"] if v is not None]) for t in figure["data"] if t["mode"] == "markers")
        assert points == 24
