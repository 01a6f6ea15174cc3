"""The repeated sequences: the copy is the random part again, R varies, nothing after the copy is read."""

import torch

from lessons.induction_heads import sequences
from lessons.induction_heads.sequences import IGNORE, MAX_REPEAT, MIN_REPEAT, VOCAB, predictable, repeated


def test_the_second_half_repeats_the_first_and_the_targets_are_the_next_tokens():
    inputs, targets = repeated(50, torch.Generator().manual_seed(0), repeat=7)
    assert inputs.shape == targets.shape == (50, 14)
    assert torch.equal(inputs[:, 7:], inputs[:, :7])
    assert torch.equal(targets[:, :-1], inputs[:, 1:])
    assert torch.all(targets[:, -1] == IGNORE)  # the last token's next one is outside the sequence
    assert int(inputs.min()) >= 0 and int(inputs.max()) < VOCAB


def test_r_varies_per_sequence_within_its_range_and_nothing_after_the_copy_is_read():
    inputs, targets = repeated(400, torch.Generator().manual_seed(1))
    assert inputs.shape == (400, 2 * MAX_REPEAT)
    lengths = []
    for x, y in zip(inputs, targets, strict=True):
        read = int((y != IGNORE).sum())  # targets 1 … 2R − 1
        R = (read + 1) // 2
        lengths.append(R)
        assert torch.equal(x[R : 2 * R], x[:R])
        assert torch.all(y[2 * R - 1 :] == IGNORE)
    assert min(lengths) == MIN_REPEAT and max(lengths) == MAX_REPEAT


def test_the_same_generator_seed_gives_the_same_sequences():
    a = repeated(5, torch.Generator().manual_seed(3))
    b = repeated(5, torch.Generator().manual_seed(3))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_the_example_table_marks_the_predictable_positions():
    example = sequences.example(0, repeat=4)
    rows = example.table()
    assert [r["half"] for r in rows] == ["random"] * 4 + ["copy"] * 4
    assert [r["predictable from the context?"] for r in rows] == ["no"] * 4 + ["yes"] * 3 + ["no"]
    assert rows[4]["next token"] == sequences.NAMES[example.tokens[1]]
    assert [predictable(i, 4) for i in range(8)] == [False] * 4 + [True] * 3 + [False]
    assert sequences.NAMES[example.tokens[1]] in sequences.example_caption(example)


def test_every_token_has_a_name_and_the_chance_exercise_is_one_over_v():
    assert len(sequences.NAMES) == VOCAB == len(set(sequences.NAMES))
    ex = sequences.chance_exercise()
    assert ex.check(1 / VOCAB).correct and not ex.check(0.5).correct
