"""The introduction says which shipped encoders read both ways, read from the checkpoints, not assumed."""

from lessons import bahdanau_attention
from lessons.bahdanau_attention.decoding import MODEL, TASKS
from lessons.common.pretrained import load_pretrained


def test_the_intro_says_each_shipped_encoder_as_its_checkpoint_has_it():
    found = bahdanau_attention.shipped_encoders()
    assert set(found) == set(TASKS)
    for task, both_ways in found.items():
        assert load_pretrained(task, MODEL)[0].config.bidirectional == both_ways
    text = bahdanau_attention.intro(found)
    assert "{" not in text and "encoder–decoder attention" in text


def test_the_encoder_sentence_turns_with_the_configs():
    mixed = bahdanau_attention.encoders_sentence({"toy-translation": True, "dates": False})
    assert f"for {TASKS['toy-translation']} has a **bidirectional** encoder" in mixed
    assert f"for {TASKS['dates']} reads left to right only" in mixed
    swapped = bahdanau_attention.encoders_sentence({"toy-translation": False, "dates": True})
    assert f"for {TASKS['dates']} has a **bidirectional** encoder" in swapped
    assert f"for {TASKS['toy-translation']} reads left to right only" in swapped
    assert "unidirectional" not in bahdanau_attention.encoders_sentence(dict.fromkeys(TASKS, True))
