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


def test_the_best_row_sentence_names_every_tied_row_and_only_them():
    mammals = database.best_sentence(database.soft_lookup("words for mammals", 3.0))
    assert mammals.startswith("2 rows tie for the most weight: **sheep → koyun** and **bull → boğa**")
    people = database.best_sentence(database.soft_lookup("people", 3.0))
    assert "**author → yazar**, **farmer → çiftçi** and **actress → aktris**" in people
    flat = database.best_sentence(database.soft_lookup("people", 0.0))
    assert flat.startswith(f"All {len(database.TABLE)} rows weigh the same")
    one = database.Lookup("q", ("a", "b"), ("x", "y"), torch.tensor([2.0, 1.0]), torch.tensor([0.7, 0.3]))
    assert database.best_sentence(one) == "The row that weighs most: **a → x** with 70% of the weight."
    swapped = database.Lookup("q", ("a", "b"), ("x", "y"), torch.tensor([1.0, 2.0]), torch.tensor([0.3, 0.7]))
    assert database.best_sentence(swapped) == "The row that weighs most: **b → y** with 70% of the weight."


def test_the_exercise_query_is_not_one_the_page_offers():
    name, q = database.EXERCISE_QUERY
    assert name not in database.QUERIES and q not in database.QUERIES.values()
    assert database.hard_lookup_exercise().answer == pytest.approx(0.25, abs=1e-3)  # four animals tie
    assert {row["key"] for row in database.table_rows()} == {k for k, _, _ in database.TABLE}
