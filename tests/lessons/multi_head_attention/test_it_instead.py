"""Section 4 set beside the lecture: where the shipped resolver's heads put their weight from "it", and the
sentences computed from it, which change when the numbers they read change."""

import numpy as np
import pytest

from lessons.multi_head_attention import it_instead, resolving_it
from minimodels.tasks import coreference


def _measures(referent: float, creature_adj: float, place_adj: float) -> dict:
    """Two layers of two heads; layer 1 head 2 has the given weights, every other head spreads its weight."""

    def kinds(ref: float, adj: float) -> list[float]:
        other = 0.1
        return [ref, other, adj, 0.0, 1 - ref - other - adj]

    flat = kinds(0.1, 0.1)
    head = {"all": kinds(referent, (creature_adj + place_adj) / 2), "creature": kinds(referent, creature_adj),
            "place": kinds(referent, place_adj)}  # fmt: skip
    layer = lambda h2: {group: [flat, h2[group]] for group in ("all", "creature", "place")}  # noqa: E731
    return {"layer 1": layer(head), "layer 2": layer({g: flat for g in head})}


TOKENS = tuple(resolving_it.IT_DEFAULT.split())


def _default(on_animal: float, on_tired: float) -> dict:
    w = np.full((2, len(TOKENS)), 0.0)
    w[0, 1], w[1, -1] = on_animal, on_tired
    return {"layer 1": w, "layer 2": w * 0}


def test_the_lecture_picture_is_said_drawn_only_when_a_head_weighs_the_referent():
    lines = it_instead.instead_lines(_measures(0.1, 0.8, 0.0), _default(0.002, 0.99), TOKENS, 1)
    assert "does **not** draw it" in lines[0] and "the most any head puts there is 0.10" in lines[0]
    assert "layer 1 head 2 puts on average 0.80" in lines[1] and "0.00 when it is a place's" in lines[1]
    assert "on “animal” is 0.002" in lines[2] and "head 2's 0.990, on “tired”" in lines[2]
    swapped = it_instead.instead_lines(_measures(0.8, 0.1, 0.0), _default(0.99, 0.002), TOKENS, 1)
    assert "draws it: 1 of its 4 heads" in swapped[0] and "(layer 1 head 2: 0.80)" in swapped[0]
    assert "No head's weight on the adjective differs by 50%" in swapped[1]
    assert "on “animal” is 0.990" in swapped[2] and "head 1's 0.990, on “animal”" in swapped[2]


def test_the_kind_of_adjective_the_sorting_head_looks_at_follows_the_numbers():
    creature = it_instead.instead_lines(_measures(0.1, 0.8, 0.0), _default(0, 1), TOKENS, None)
    place = it_instead.instead_lines(_measures(0.1, 0.0, 0.8), _default(0, 1), TOKENS, None)
    assert "when it is a creature's and 0.00 when it is a place's" in creature[1]
    assert "when it is a place's and 0.00 when it is a creature's" in place[1]
    assert len(creature) == 2  # no referent on the sentence: no line about it


@pytest.fixture(scope="module")
def measures():
    model = resolving_it.shipped_resolver()[0]
    return it_instead.weight_by_kind(model, coreference.it_task().split("test")[:120])


def test_each_heads_weight_from_it_is_split_over_every_kind_of_word(measures):
    for layer in measures.values():
        for group in ("all", "creature", "place"):
            assert np.allclose(np.asarray(layer[group]).sum(-1), 1, atol=1e-4)
    rows = it_instead.instead_rows(measures)
    assert len(rows) == 8 and all(len(r) == 6 for r in rows)


def test_the_shipped_sentences_are_the_shipped_models_measures():
    rows, lines = resolving_it.shipped_instead()
    best = max(float(r["α on referent"]) for r in rows)
    assert f"{best:.2f}" in lines[0]
    reading = resolving_it.shipped_reading_it(TOKENS)
    assert f"{max(float(w[:, 1].max()) for w in reading.weights.values()):.3f}" in lines[2]
