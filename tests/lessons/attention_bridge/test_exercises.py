"""The attention bridge's exercises: answers computed, not typed."""

from lessons import attention_bridge
from lessons.attention_bridge import experiments


def test_exercises_answers_are_computed():
    exercises = {e.key: e for e in attention_bridge.exercises(None)}
    assert exercises["attention_bridge.ex.penalty"].check(1.0).correct
    assert not exercises["attention_bridge.ex.penalty"].check(0.0).correct
    size = experiments.MODEL_OPTIONS["heads"] * 2 * experiments.MODEL_OPTIONS["encoder_size"]
    assert exercises["attention_bridge.ex.size"].check(size).correct
    assert exercises["attention_bridge.ex.too_many_heads"].check(4.0).correct  # two shared pairs, both ways
    assert not exercises["attention_bridge.ex.too_many_heads"].check(0.0).correct
    assert "attention_bridge.ex.zero_shot" not in exercises
