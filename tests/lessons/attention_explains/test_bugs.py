"""Section 5: the mystery layers' sharpness follows the scaling, the answers follow the planted bugs and the
verdict, and the mystery's table does not name its bug."""

import pytest

from lessons.attention_explains import bugs, live
from lessons.attention_explains import results as measured
from lessons.attention_explains.measure import BUGS


def test_without_the_scaling_the_largest_weight_climbs_with_d_k():
    unscaled = [bugs.layer_sharpness(False, d) for d in bugs.WIDTHS]
    scaled = [bugs.layer_sharpness(True, d) for d in bugs.WIDTHS]
    assert unscaled == sorted(unscaled) and unscaled[-1] > 0.8
    assert max(scaled) - min(scaled) < 0.15 and scaled[-1] < 0.6


def test_the_layer_answer_is_the_one_whose_table_row_climbs():
    rows = bugs.sharpness_rows()
    ex = bugs.layer_exercise()
    climbing = [float(r[f"d_k = {bugs.WIDTHS[-1]}"]) - float(r[f"d_k = {bugs.WIDTHS[0]}"]) for r in rows]
    assert ex.answer == max(range(2), key=climbing.__getitem__)


def test_the_mystery_answer_is_its_planted_bug_and_its_table_hides_it(make_results):
    ex = bugs.mystery_exercise()
    assert bugs.BUG_KEYS[ex.answer] == live.planted(live.MYSTERY)
    assert set(bugs.BUG_KEYS) == set(BUGS)
    rows = bugs.mystery_rows(make_results())
    assert [r["model"] for r in rows] == [live.RECIPE, live.MYSTERY]
    assert rows[1][measured.RANDOM_ACCURACY].startswith("100.0%")
    assert "wrong" not in str(rows)


@pytest.mark.parametrize(("step", "answer"), [(400.0, "sooner"), (900.0, "later"), (610.0, "too close")])
def test_the_speed_answer_follows_the_verdict(make_results, rule_on_made_up_seeds, step, answer):
    ex = bugs.speed_exercise(make_results(formed={"no 1/√d_k": step}))
    assert ex.choices[ex.answer].startswith(answer)


def test_the_bug_table_names_every_model(make_results):
    rows = bugs.bug_rows(make_results())
    assert [r["model"] for r in rows] == [measured.LABELS[v] for v in (measured.INTACT, *measured.BUG_VARIANTS)]


def test_the_figure_shows_each_layers_weights_on_one_sequence():
    fig = bugs.layers_figure(64)
    assert [a.text for a in fig.layout.annotations] == list(bugs.LAYERS)
    for trace, name in zip(fig.data, bugs.LAYERS, strict=True):
        assert trace.z.tolist() == bugs.layer_weights(name != bugs._UNSCALED, 64).tolist()
    peaks = [trace.z[bugs.SHARP_FROM :].max(-1).mean() for trace in fig.data]
    assert peaks[bugs.layer_exercise().answer] > peaks[1 - bugs.layer_exercise().answer]
