"""The Q/K/V lesson's database analogy: a soft lookup weighs each row by its key's similarity to the query, from
uniform (sharpness 0) to hard."""

import math

import pytest
import torch

from lessons.queries_keys_values import database


def test_soft_lookup_weights_follow_key_similarity():
    lookup = database.soft_lookup("words for mammals", sharpness=3.0)
    assert math.isclose(float(lookup.weights.sum()), 1.0, rel_tol=1e-6)
    ranked = [lookup.keys[i] for i in lookup.weights.argsort(descending=True)]
    assert set(ranked[:2]) == {"sheep", "bull"}
    assert lookup.values[lookup.keys.index("sheep")] == "koyun"


def test_soft_lookup_sharpness_interpolates_between_uniform_and_hard():
    flat = database.soft_lookup("people", sharpness=0.0)
    torch.testing.assert_close(flat.weights, torch.full((len(database.TABLE),), 1 / len(database.TABLE)))
    hard = database.soft_lookup("things in nature", sharpness=40.0)
    top = hard.weights.sort(descending=True).values
    assert top[:2].sum() > 0.99  # river and plant share the top score
    with pytest.raises(ValueError, match="unknown query"):
        database.soft_lookup("nonsense")
