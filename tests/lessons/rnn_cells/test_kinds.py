"""Section 4: the kinds of RNN cover the lecture's examples."""

import pytest

from lessons.rnn_cells import kinds


def test_kinds_table_covers_the_lectures_examples():
    names = [k.name for k in kinds.KINDS]
    assert names[kinds.kind_of("named entity recognition")] == "many-to-many"
    assert names[kinds.kind_of("sentiment")] == "many-to-one"
    assert names[kinds.kind_of("music")] == "one-to-many"
    assert "encoder" in names[kinds.kind_of("translation")]
    assert kinds.kinds_markdown().count("\n") == len(kinds.KINDS) + 1
    listed = kinds.kinds_list_markdown().split("\n")  # a phone's: one item per kind, every column of the table in it
    assert len(listed) == len(kinds.KINDS)
    for item, k in zip(listed, kinds.KINDS, strict=True):
        assert item.startswith(f"- **{k.name}**") and all(part in item for part in (k.lengths, k.shape, k.example))
    with pytest.raises(ValueError):
        kinds.kind_of("many")
