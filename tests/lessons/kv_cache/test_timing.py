"""The step timer measures three ways at each length, the growth exponent reads the medians, and the memory rows
follow the shapes."""

import pytest
import torch

from lessons.kv_cache import timing


def test_one_row_per_way_and_length_with_the_median_between_the_fastest_and_slowest():
    rows = timing.measure(lengths=(8, 16), repeats=3)
    assert {(r["way"], r["length"]) for r in rows} == {(w, t) for w in timing.WAYS for t in (8, 16)}
    for r in rows:
        assert 0 < r["low_s"] <= r["median_s"] <= r["high_s"]


def test_the_growth_exponent_is_one_for_linear_and_two_for_quadratic_medians():
    rows = [{"way": "recompute", "length": t, "median_s": 3e-9 * t * t} for t in (256, 512, 1024)]
    rows += [{"way": "cache", "length": t, "median_s": 1e-6 * t} for t in (256, 512, 1024)]
    assert timing.growth(rows, "recompute") == pytest.approx(2.0)
    assert timing.growth(rows, "cache") == pytest.approx(1.0)


def test_memory_rows_grow_with_t_for_the_cache_t_squared_for_the_scores_and_not_at_all_for_linear():
    rows = timing.memory_rows((100, 200))
    a, b = rows
    assert a["cache, from the shapes (bytes)"] == 2 * 100 * timing.D_MODEL * 4 == a["cache, allocated (bytes)"]
    assert b["cache, from the shapes (bytes)"] == 2 * a["cache, from the shapes (bytes)"]
    assert b["recompute's score matrix (bytes)"] == 4 * a["recompute's score matrix (bytes)"]
    assert a["linear state (bytes)"] == b["linear state (bytes)"] == (timing.D_MODEL**2 + timing.D_MODEL) * 4


def test_the_machine_names_its_cpu_capability_threads_and_torch():
    machine = timing.machine()
    assert machine["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert machine["torch_threads"] == torch.get_num_threads() and machine["torch"] == torch.__version__
    assert machine["cpu_model"]
