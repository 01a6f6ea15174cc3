"""The timing figure draws every way with its spread; sentences and the doubling prediction follow the medians."""

from lessons.kv_cache import cost
from tests.lessons.kv_cache.fakes import comparison


def test_the_figure_has_a_line_per_way_with_bars_from_fastest_to_slowest():
    rows = comparison().meta["timing"]
    fig = cost.timing_figure(rows, "t")
    assert len(fig.data) == 3
    recompute = fig.data[0]
    assert list(recompute.x) == [128, 256, 512, 1024, 2048]
    assert all(v > 0 for v in recompute.error_y.array) and all(v > 0 for v in recompute.error_y.arrayminus)


def test_the_doubling_answer_is_the_measured_ratio_four_or_two():
    rows = comparison().meta["timing"]
    assert cost.doubling_prediction(rows).answer == 2  # ×4: quadratic medians
    linear = [r | {"median_s": r["length"] * 1e-6} if r["way"] == "recompute" else r for r in rows]
    assert cost.doubling_prediction(linear).answer == 1


def test_the_sentences_say_each_growth_and_why_the_cache_hardly_grows():
    lines = cost.growth_sentences(comparison().meta["timing"])
    assert "4.0×" in lines[0] and "t^2.00" in lines[0]
    assert any("does not grow" in line for line in lines)


def test_the_cache_exercise_counts_keys_and_values():
    ex = cost.cache_size_exercise()
    assert ex.answer == 512 and ex.check(512).correct and not ex.check(256).correct


def test_the_machine_text_names_the_cpu_and_its_load():
    text = cost.machine_text(comparison().meta["machine"], 7)
    assert "a test CPU" in text and "AVX2" in text and "load 0.5" in text and "7 repeats" in text
