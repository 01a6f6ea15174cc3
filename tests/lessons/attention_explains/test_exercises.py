"""The check-yourself list: the two by-hand questions, each key unique and namespaced."""

from lessons import attention_explains


def test_the_check_yourself_questions_are_the_by_hand_ones():
    keys = [ex.key for ex in attention_explains.exercises()]
    assert keys == ["attention_explains.permute_by_hand", "attention_explains.tau_by_hand"]
