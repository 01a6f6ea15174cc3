"""Section 6: teacher forcing feeds the gold prefix; beam search of width 1 is greedy decoding."""

import numpy as np
import pytest

from lessons.common.pretrained import load_pretrained
from lessons.transformer import decoding, reading
from minimodels.tasks import get_task


def test_teacher_forcing_feeds_the_gold_prefix(translator):
    model, task = translator
    forced = decoding.teacher_forcing(model, task)
    gold = (
        [reading.display_token(p) for p in task.target_tokenizer.encode_pieces(task.probe.target)]
        if hasattr(task.target_tokenizer, "encode_pieces")
        else None
    )
    rows = forced.rows
    assert rows[0]["fed (gold)"] == "<s>" and rows[-1]["should write"] == "</s>"
    assert [r["fed (gold)"] for r in rows[1:]] == [r["should write"] for r in rows[:-1]]  # gold, never its guess
    if gold is not None:
        assert [r["should write"] for r in rows[:-1]] == gold
    assert all(0 <= r["p(gold)"] <= 1 for r in rows)
    right = sum(r["model's best guess"] == r["should write"] for r in rows)
    assert f"at {right} of {len(rows)} positions" in decoding.teacher_forcing_text(forced)


@pytest.mark.parametrize(
    ("task_name", "text"),
    [("toy-translation", "Jane visits Africa in September"), ("dates", "Sunday, November 22, 2026")],
)
def test_beam_width_one_is_greedy_and_the_tree_is_drawn(task_name, text):
    model, _ = load_pretrained(task_name, reading.MODEL)
    task = get_task(task_name)
    greedy = reading.walk(model, task, text).translation
    one = decoding.beam_view(model, task, text, 1)
    assert one.texts == [greedy.text] and len(one.result.hypotheses) == 1
    assert [one.pieces[n.id] for n in one.result.path(one.result.best.node)] == greedy.target_pieces
    assert "it is the same as the greedy output" in decoding.beam_text(one, greedy.text)
    assert "**not** the same" in decoding.beam_text(one, greedy.text + "x")
    four = decoding.beam_view(model, task, text, 4)
    rows = decoding.beam_rows(four)
    assert 1 < len(rows) <= 4 and [r["log p"] for r in rows] == sorted((r["log p"] for r in rows), reverse=True)
    assert rows[0]["p"] == pytest.approx(np.exp(four.result.best.log_prob), abs=1e-4)
    fig = decoding.beam_figure(four)
    assert sum(len(t.x) for t in fig.data[1:]) == len(four.result.nodes)  # every node kept, from <s>
    best = fig.data[2]
    assert list(best.y) == [0.0, *(n.log_prob for n in four.result.path(four.result.best.node))]
    assert best.text[0] == "&lt;s&gt;" and list(best.x) == list(range(len(best.x)))
    for bad in (0, decoding.MAX_BEAM + 1):
        assert "beam width" in decoding.beam_view(model, task, text, bad)
    assert isinstance(decoding.beam_view(model, task, "  ", 2), str)
