"""What the two scores cost (section 6): measured from the modules, and the sentence that follows the measurement."""

import json

import pytest

from lessons.scaling import score_cost


def test_the_cost_is_measured_from_the_modules():
    cost = score_cost.measure_score_cost(ds=(8, 32), lengths=(4, 16), repeats=2)
    assert cost.ds == [8, 32] and cost.lengths == [4, 16] and cost.threads == 1 and cost.repeats == 2
    assert len(cost.rows) == 2 * 2 * 2 * 2 and all(r["ms"] >= 0 for r in cost.rows)
    for d in (8, 32):
        for T in (4, 16):
            additive = cost.values("additive", d, T, "saved_bytes")[0]
            assert additive >= 4 * T * T * d  # the tanh layer's T·T·d floats are kept for its backward
            assert cost.values("scaled_dot", d, T, "saved_bytes")[0] < additive
    assert score_cost.saved_bytes(score_cost.score_module("scaled_dot", 8), 16, 8) >= 4 * 16 * 16  # the weights α
    time_chart, memory_chart = score_cost.cost_charts(cost)
    assert time_chart["encoding"]["x"]["axis"]["values"] == [4, 16] and json.dumps(memory_chart)
    with pytest.raises(ValueError, match="score must be one of"):
        score_cost.score_module("bilinear", 8)


def _cost(additive_ms: float, dot_ms: float) -> score_cost.ScoreCost:
    rows = [
        {
            "score": s,
            "d": d,
            "T": T,
            "repeat": r,
            "ms": (additive_ms if s == "additive" else dot_ms) * d + r * 0.01,
            "saved_bytes": (T * T * d if s == "additive" else T * T) * 4,
        }
        for s in score_cost.COST_SCORES
        for d in (16, 256)
        for T in (8, 128)
        for r in range(3)
    ]
    return score_cost.ScoreCost(tuple(rows), 1, 3)


def test_the_cost_sentence_follows_the_measurement():
    said = score_cost.cost_sentence(_cost(additive_ms=1.0, dot_ms=0.1))
    assert "at d = 256, T = 128, the dot product was faster, 10.0×" in said and "additive kept 256.0× the bytes" in said
    swapped = score_cost.cost_sentence(_cost(additive_ms=0.1, dot_ms=1.0))
    assert "additive was faster" in swapped and "dot product was faster" not in swapped
    same = score_cost.cost_sentence(_cost(additive_ms=0.1, dot_ms=0.1))
    assert "took about as long" in same
