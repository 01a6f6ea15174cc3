"""The window section's table, sentences (through the verdict rule) and prediction follow the results."""

from lessons.kv_cache import window
from lessons.kv_cache.window_task import ceiling
from tests.lessons.kv_cache.fakes import comparison


def test_the_whole_window_beats_each_smaller_one_when_the_seeds_say_so():
    lines = window.sentences(comparison())
    assert lines[0].startswith("The window of 25 beats the window of 2")
    assert "within" in lines[-1]


def test_equal_windows_are_too_close_to_call():
    results = comparison()
    runs = tuple(
        r if r.params.get("window") != 2 else type(r)(r.variant, r.seed, r.params, (), {"accuracy": 1.0})
        for r in results.runs
    )
    lines = window.sentences(type(results)(results.variants, runs, results.meta, results.labels))
    assert "too close to call" in lines[0]


def test_the_prediction_is_the_measured_mean_at_window_13_and_the_exercise_the_ceiling_at_7():
    results = comparison()
    ex = window.window_prediction(results)
    assert abs(ex.answer - results.spread("accuracy", "window", {"window": 13}).mean) < 1e-3
    assert window.ceiling_exercise().answer == round(ceiling(7), 3)


def test_the_table_and_chart_have_every_window_and_the_mask_its_band():
    rows = window.rows(comparison())
    assert [r["window w"] for r in rows] == [2, 7, 13, 19, 25] and all(r["n"] == 5 for r in rows)
    chart = window.chart(comparison())
    assert "Naming the capital" in str(chart)
    fig = window.mask_figure(6, 2)
    assert fig.data[0].z.sum() == 11  # 1 + 2 × 5 allowed pairs
    assert window.example_text().endswith("?")
